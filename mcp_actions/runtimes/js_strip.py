"""The page engine's modules without what only people read: comments, indentation, spaces between tokens.

The engine is injected into every document and frame (``page_script.engine_js()``), so its bytes
are read and pre-parsed on every navigation; about a third of its source is comments and
indentation written for the next engineer (issue 55). ``strip_js`` removes them when the script
is assembled, with a small tokenizer of our own (no npm at run time, no third-party minifier):

- string, template and regular-expression literals are copied byte for byte, so ``//`` in a URL,
  ``/*`` in a string and comment-like text in a template survive; a template's ``${...}`` is
  tokenized like any other code (a comment there goes too);
- a ``/`` starts a regular expression where an expression may start (after an operator, ``(``,
  ``,``, a keyword such as ``return``) and is division after a value (a name, a number, ``)``,
  ``]``, ``x++``): the rule JavaScript's own grammar settles, which a script's authors follow;
- line breaks stay where the source had one (a comment holding one counts): automatic semicolon
  insertion reads them (``return`` then a new line), and a stack trace's line still points at one
  statement. Blank lines go;
- a space stays only between two tokens that would otherwise read as one (``a in b``, ``x - -y``,
  ``1 .5``, ``a / /re/``).

``tokens`` is the tokenizer itself: the tests check that stripping leaves the token stream
unchanged (tests/runtimes/test_js_strip.py), and that the stripped engine still parses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Token", "strip_js", "tokens"]

#: Names after which a ``/`` begins a regular expression: they end no expression.
_REGEX_AFTER_WORDS = frozenset(
    {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await"}
)
#: Punctuators, longest first (the lexer takes the longest that matches).
_PUNCTUATORS = sorted(
    """>>>= ... === !== **= <<= >>= >>> &&= ||= ??= => == != <= >= && || ?? ?. ++ -- += -= *= /= %= &= |= ^= << >> **
    { } ( ) [ ] ; , < > + - * / % & | ^ ! ~ ? : = . @ #""".split(),
    key=len,
    reverse=True,
)
_LINE_BREAKS = "\n\r\u2028\u2029"


class Token(NamedTuple):
    """One token of the source: its kind and its exact text.

    Kinds: ``word`` (names and keywords), ``number``, ``string``, ``template`` (a whole
    template, or its part up to ``${`` / from ``}``), ``regex``, ``punct``; and, between them,
    ``space``, ``newline`` (white space holding a line break, or a comment that does) and
    ``comment`` (one that holds none).
    """

    kind: str
    text: str


class JsSyntaxError(ValueError):
    """The source ends inside a string, template, regular expression or comment."""


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$\\" or (ord(ch) > 127 and not ch.isspace() and ch != "\ufeff")


_LINE_BREAK = re.compile(f"[{_LINE_BREAKS}]")
#: A template's text up to its end or its next substitution, from its "`" or a substitution's "}".
_TEMPLATE_PART = r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*(?:`|\$\{)"
_TEMPLATE_REST = re.compile(r"\}" + _TEMPLATE_PART)


def _lexer(regex_ok: bool) -> re.Pattern[str]:
    """One pattern for every token, in the order tried; where ``regex_ok``, "/" starts a regular expression."""
    punctuators = [p for p in _PUNCTUATORS if not (regex_ok and p.startswith("/"))]
    return re.compile(
        "|".join(
            [
                r"(?P<space>[\s\ufeff]+)",
                r"(?P<comment>//[^\n\r\u2028\u2029]*|/\*[\s\S]*?\*/)",
                r"""(?P<string>"(?:[^"\\\n\r]|\\[\s\S])*"|'(?:[^'\\\n\r]|\\[\s\S])*')""",
                r"(?P<template>`" + _TEMPLATE_PART + ")",
                r"(?P<unterminated>/\*|[\"'`])",
                *([r"(?P<regex>/(?![*/])(?:[^/\\\[\n\r\u2028\u2029]|\\[^\n\r\u2028\u2029]|\[(?:[^\]\\\n\r\u2028\u2029]|\\[^\n\r\u2028\u2029])*\])+/[\w$]*)"] if regex_ok else []),
                r"(?P<number>0[xXoObB][\w]*|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?n?)",
                r"(?P<word>(?:[\w$]|\\u\{?[0-9a-fA-F]+\}?|[^\x00-\x7f\s\ufeff])+)",
                # "?." before a digit is "?" then a number: a ? .5 : b.
                "(?P<punct>" + "|".join(r"\?\.(?!\d)" if p == "?." else re.escape(p) for p in punctuators) + ")",
            ]
        )
    )


_AFTER_VALUE, _AFTER_OPERATOR = _lexer(regex_ok=False), _lexer(regex_ok=True)


def _scan(source: str) -> Iterator[tuple[str, str]]:
    """``tokens`` as plain (kind, text) pairs: the loop every assembly of the engine runs."""
    i, n = 0, len(source)
    regex_ok = True  # whether a "/" here starts a regular expression
    templates: list[int] = []  # per open template substitution, the depth of "{" opened inside it
    while i < n:
        if templates and templates[-1] == 0 and source[i] == "}":
            rest = _TEMPLATE_REST.match(source, i)
            if rest is None:
                raise JsSyntaxError(f"unterminated template at offset {i}")
            templates.pop()
            text = rest.group()
            yield "template", text
            if text.endswith("${"):
                templates.append(0)
            i, regex_ok = rest.end(), text.endswith("${")
            continue
        found = (_AFTER_OPERATOR if regex_ok else _AFTER_VALUE).match(source, i)
        if found is None or found.lastgroup == "unterminated":
            raise JsSyntaxError(f"unterminated literal or comment, or an unexpected character, at offset {i}: {source[i:i + 20]!r}")
        kind, text = found.lastgroup or "", found.group()
        i = found.end()
        if kind == "word":
            regex_ok = text in _REGEX_AFTER_WORDS
        elif kind == "punct":
            if templates and text == "{":
                templates[-1] += 1
            elif templates and text == "}":
                templates[-1] -= 1
            # After a closing bracket or x++ comes an operator; "}" ends a block far more often
            # than an object literal, and a statement may start with a regular expression.
            regex_ok = text not in (")", "]", "++", "--")
        elif kind in ("space", "comment"):
            # A comment holding a line break is a line break to the grammar (automatic semicolons).
            if _LINE_BREAK.search(text):
                kind = "newline"
        elif kind == "template":
            if text.endswith("${"):
                templates.append(0)
            regex_ok = text.endswith("${")
        else:
            regex_ok = False  # a string, number or regular expression is a value
        yield kind, text
    if templates:
        raise JsSyntaxError("unterminated template substitution")


def tokens(source: str) -> Iterator[Token]:
    """The tokens of ``source`` in order, white space and comments included (see ``Token``)."""
    return (Token(kind, text) for kind, text in _scan(source))


def _longest_punctuator(text: str) -> str:
    return next((p for p in _PUNCTUATORS if text.startswith(p)), "")


#: Pairs of punctuators that written together read as others: + +x, a - -b, a-- > b ("-->" ends a comment).
_MERGING = frozenset((a, b) for a in _PUNCTUATORS for b in _PUNCTUATORS if _longest_punctuator(a + b) != a or (a + b).startswith("-->"))


def _needs_space(left_kind: str, left: str, right_kind: str, right: str) -> bool:
    """Whether tokens ``left`` and ``right`` written side by side would read as other tokens."""
    if left_kind == "punct":
        if right_kind == "punct":
            return (left, right) in _MERGING or (left == "<" and right == "!")  # a < !--b: "<!--" opens a comment
        return left == "/" and right_kind == "regex"  # a / /re/: not a comment
    if left_kind in ("word", "number", "regex"):
        b = right[0]
        # a in b, return x, /re/ in x (not the flags "in"), 1 .toString()
        return _is_word_char(b) or (left_kind == "number" and b == ".")
    return False  # after a string or a template nothing merges


def strip_js(source: str) -> str:
    """``source`` without comments, indentation, blank lines and spaces no token needs (the module's docstring)."""
    out: list[str] = []
    last_kind, last = "", ""
    gap = ""  # what separates the next token from the last: "", " " or "\n"
    for kind, text in _scan(source):
        if kind == "newline":
            gap = "\n"
        elif kind == "space" or kind == "comment":
            gap = gap or " "
        else:
            if gap == "\n" and last_kind:
                out.append("\n")
            elif gap == " " and _needs_space(last_kind, last, kind, text):
                out.append(" ")
            # Tokens adjacent in the source (no gap) read the same adjacent here.
            out.append(text)
            last_kind, last, gap = kind, text, ""
    return "".join(out)
