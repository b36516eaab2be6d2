"""JSONata's ``/regex/`` literals, compiled by RE2 so that no expression can stall the server.

A workflow or projection expression may search page text with a regex literal
(``$match(text, /^(a+)+$/)``, ``$replace``, ``$split``, ``$contains``, or a
literal called as a function). jsonata-python compiles literals with Python's
backtracking ``re`` by default, and an evaluation runs on the event loop, so one
such search over crafted page text stalled every call, ``tools/list`` and the
bridge's ``/healthz`` for 35 s; the per-evaluation budget
(``expressions.EVALUATION_BUDGET_S``) is checked between expression nodes and
cannot interrupt a search.

jsonata-python takes a ``regex_engine`` (a callable ``(pattern, RegexFlags)`` to
a compiled pattern) when an expression is compiled, and regex literals are the
only way a JSONata expression can build a regular expression (``$eval`` is
refused). ``regex_engine`` compiles them on RE2 (``bounded_regex``): every
search is linear in the text. A literal RE2 cannot run (a backreference,
lookaround) raises ``UnsupportedPattern`` while compiling, which
``compile_expression`` reports as ``expression_invalid``: ``validate`` says so
at the slot, and a map that holds it does not load (docs/manifest-language.md,
"Regular expressions").

``RegexLiteral`` adapts RE2's pattern to what jsonata-python's built-ins call.
Only ``sub`` differs: jsonata-python turns ``$1`` in a ``$replace`` replacement
into ``\\g<1>`` and relies on Python's error message to drop groups the pattern
lacks; here the template is expanded by the adapter, a missing group being empty
and the rest of the replacement literal text, as JSONata does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..bounded_regex import compile_pattern

if TYPE_CHECKING:  # jsonata is loaded by expressions.compile_expression, the one caller (issue 55)
    from jsonata.regex_engine import RegexFlags

__all__ = ["RegexLiteral", "regex_engine"]

# jsonata-python writes the groups of a $replace replacement as \g<n> before calling sub.
_GROUP_REFERENCE = re.compile(r"\\g<(\d+)>")


class RegexLiteral:
    """One compiled regex literal: ``search``, ``finditer``, ``sub`` and ``split`` on RE2."""

    def __init__(self, compiled: Any) -> None:
        self._compiled = compiled

    def search(self, string: str) -> Any:
        """The first match in ``string``, or None."""
        return self._compiled.search(string)

    def finditer(self, string: str) -> Iterator[Any]:
        """Every non-overlapping match in ``string``."""
        return iter(self._compiled.finditer(string))

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        """``string`` split around the matches."""
        parts: list[str] = self._compiled.split(string, maxsplit)
        return parts

    def sub(self, repl: str | Callable[[Any], str], string: str, count: int = 0) -> str:
        """``string`` with matches replaced by ``repl`` (a ``\\g<n>`` template or a function of the match)."""
        if callable(repl):
            replaced: str = self._compiled.sub(repl, string, count)
            return replaced
        template = repl
        return str(self._compiled.sub(lambda match: _expand(template, match), string, count))


def _group(match: Any, digits: str) -> str:
    """Group ``digits`` of ``match``; ``12`` with fewer than 12 groups is group 1 then a literal "2", as in JSONata."""
    if not digits:
        return ""
    number = int(digits)
    if number <= len(match.groups()):
        value = match.group(number)
        return value if isinstance(value, str) else ""
    return _group(match, digits[:-1]) + digits[-1] if len(digits) > 1 else ""


def _expand(template: str, match: Any) -> str:
    """The replacement for one match: ``\\g<n>`` is group n (empty when it did not take part), the rest literal."""
    return _GROUP_REFERENCE.sub(lambda ref: _group(match, ref.group(1)), template)


def regex_engine(pattern: str, flags: RegexFlags) -> RegexLiteral:
    """jsonata-python's ``regex_engine``: compile a literal's ``pattern`` with its ``i``/``m`` flags on RE2.

    Raises ``bounded_regex.UnsupportedPattern`` for a pattern RE2 cannot run.
    """
    return RegexLiteral(compile_pattern(pattern, ignore_case=flags.case_insensitive, multiline=flags.multiline))
