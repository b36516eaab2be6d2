"""Regular expressions over untrusted text, in time linear in the text (RE2).

A pattern written in a map, a page tool's schema or a signal's payload schema
is searched in text a page controls: a tool's answer, a page URL, an event's
payload, page text read by a workflow. Python's ``re`` backtracks, so a
pattern such as ``^(a+)+$`` over ``"a" * 28 + "!"`` runs for seconds, holding
the GIL: the whole server (every other call, ``tools/list``, the bridge's
``/healthz``) stalls with it, and no thread or timeout can interrupt it.

Every such search goes through this module instead, on Google's RE2: it never
backtracks, so a search costs time linear in the text whatever the pattern.
RE2 cannot express backreferences (``\\1``) or lookaround (``(?=``, ``(?!``,
``(?<=``, ``(?<!``); a pattern that uses them is *refused*, never waved
through: ``compile_pattern`` raises ``UnsupportedPattern``, the validator
reports it when the map is loaded, and at run time the schema, predicate or
expression that holds it fails closed
(docs/manifest-language.md, "Regular expressions").

Patterns are written in the ECMAScript dialect (JSON Schema's ``pattern``
keyword and JSONata's ``/regex/`` literals both say so). RE2's dialect is close
to it, closer than Python's: ``\\d`` and ``\\w`` are ASCII and ``$`` matches only
at the end. What differs is translated here: ``\\uXXXX`` and ``\\u{X…}``
escapes, and ``\\s`` (and ``\\S`` outside a class), which in ECMAScript also
matches Unicode spaces.

This module sits below every package and imports none of them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

__all__ = ["UnsupportedPattern", "compile_pattern", "pattern_problem", "search"]

#: ECMAScript's white space and line terminators beyond RE2's ``[\t\n\f\r ]``.
_EXTRA_SPACE = r"\x0b\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}"
#: The memory RE2 may use for one compiled pattern: bounds what ``a{1000}{1000}`` can cost.
_MAX_MEM = 8 << 20


class UnsupportedPattern(ValueError):
    """A pattern RE2 cannot compile: not a regular expression, or one that needs backtracking."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"{pattern!r} is not a regular expression the linear-time engine can run: {reason}")
        self.pattern = pattern
        self.reason = reason


def _options(*, ignore_case: bool) -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every refused pattern to stderr; the caller reports it once
    options.max_mem = _MAX_MEM
    options.case_sensitive = not ignore_case
    return options


def _hex(digits: str) -> str:
    return "\\x{" + digits + "}"


def _translate(pattern: str) -> str:
    """The ECMAScript ``pattern`` in RE2's syntax (see the module docstring for what differs)."""
    out: list[str] = []
    in_class = False
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            escaped = pattern[i + 1]
            if escaped == "u" and pattern[i + 2 : i + 3] == "{":
                end = pattern.find("}", i + 3)
                if end != -1 and pattern[i + 3 : end].isalnum():
                    out.append(_hex(pattern[i + 3 : end]))
                    i = end + 1
                    continue
            if escaped == "u" and len(pattern[i + 2 : i + 6]) == 4 and all(c in "0123456789abcdefABCDEF" for c in pattern[i + 2 : i + 6]):
                out.append(_hex(pattern[i + 2 : i + 6]))
                i += 6
                continue
            if escaped == "s":
                out.append("\\s" + _EXTRA_SPACE if in_class else "[\\s" + _EXTRA_SPACE + "]")
                i += 2
                continue
            if escaped == "S" and not in_class:
                # Inside a class RE2 has no way to subtract; there \S keeps RE2's ASCII meaning.
                out.append("[^\\s" + _EXTRA_SPACE + "]")
                i += 2
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            out.append(char)
            # A ']' right after '[' or '[^' is a literal in RE2 (and an empty class in ECMAScript, which no one writes).
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        if char == "]" and in_class:
            in_class = False
        out.append(char)
        i += 1
    return "".join(out)


@lru_cache(maxsize=2048)
def compile_pattern(pattern: str, *, ignore_case: bool = False, multiline: bool = False) -> Any:
    """``pattern`` (ECMAScript syntax) compiled by RE2; cached.

    Raises ``UnsupportedPattern`` when RE2 cannot compile it (a syntax error,
    a backreference, lookaround, or more than RE2's memory bound).
    """
    source = _translate(pattern)
    if multiline:
        source = "(?m)" + source
    try:
        return re2.compile(source, _options(ignore_case=ignore_case))
    except re2.error as exc:
        reason = exc.args[0] if exc.args else str(exc)
        raise UnsupportedPattern(pattern, reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)) from None


def pattern_problem(pattern: str) -> str | None:
    """Why RE2 cannot run ``pattern`` (a sentence for a validation problem), or None when it can."""
    try:
        compile_pattern(pattern)
    except UnsupportedPattern as exc:
        return str(exc)
    return None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, in time linear in ``text``.

    Raises ``UnsupportedPattern`` for a pattern RE2 cannot run; callers fail closed.
    """
    return compile_pattern(pattern).search(text) is not None
