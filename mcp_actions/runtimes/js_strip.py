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

``tokens`` is the reference tokenizer; ``strip_js`` reads only what the stripping needs and copies
other runs of code whole (about 70 ms of CPU for the whole engine, once per process: ``engine_js``
is cached). The tests check that both read the same tokens, before and after stripping, for every
module (tests/runtimes/test_js_strip.py), and that the stripped engine still parses.
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
#: The pieces both scanners read alike (``_lexer`` for ``tokens``, ``_PIECE`` for ``strip_js``).
_SPACE = r"(?P<space>[\s\ufeff]+)"
_COMMENT = r"(?P<comment>//[^\n\r\u2028\u2029]*|/\*[\s\S]*?\*/)"
_STRING = r"""(?P<string>"(?:[^"\\\n\r]|\\[\s\S])*"|'(?:[^'\\\n\r]|\\[\s\S])*')"""
_TEMPLATE = r"(?P<template>`" + _TEMPLATE_PART + ")"
_UNTERMINATED = r"(?P<unterminated>/\*|[\"'`])"
#: A regular expression literal, where "/" starts one.
_REGEX_LITERAL = r"/(?![*/])(?:[^/\\\[\n\r\u2028\u2029]|\\[^\n\r\u2028\u2029]|\[(?:[^\]\\\n\r\u2028\u2029]|\\[^\n\r\u2028\u2029])*\])+/[\w$]*"


def _lexer(regex_ok: bool) -> re.Pattern[str]:
    """One pattern for every token, in the order tried; where ``regex_ok``, "/" starts a regular expression."""
    punctuators = [p for p in _PUNCTUATORS if not (regex_ok and p.startswith("/"))]
    return re.compile(
        "|".join(
            [
                _SPACE,
                _COMMENT,
                _STRING,
                _TEMPLATE,
                _UNTERMINATED,
                *([f"(?P<regex>{_REGEX_LITERAL})"] if regex_ok else []),
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


#: Two characters that, once a space between them goes, could begin one token across the gap:
#: any two-character piece of a punctuator (+ +x, a - -b, x = ==), a comment's opener (a / /re/),
#: and the pieces of "<!--" and "-->", which read as comments in a script.
_JOINING = frozenset({p[i : i + 2] for p in _PUNCTUATORS for i in range(len(p) - 1)} | {"//", "/*", "<!", "!-", "->"})
#: What strip_js looks at one by one; every other run of code is copied as it is.
_PIECE = re.compile(
    "|".join(
        [
            _SPACE,
            _COMMENT,
            _STRING,
            _TEMPLATE,
            _UNTERMINATED,
            r"(?P<slash>/)",
            r"(?P<brace>[{}])",
            r"(?P<code>[^\s\ufeff/\"'`{}]+)",
        ]
    )
)
_REGEX = re.compile(_REGEX_LITERAL)
_TRAILING_WORD = re.compile(r"[\w$\\]+$")


_WIDE = re.compile(r"[^\x00-\xff]")


def _escaped(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair: the same two UTF-16 units the literal held
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _latin1(literal: str) -> str:
    r"""A string or regular-expression literal with every character past Latin-1 written as its escape.

    One such character makes the whole script a two-byte string in V8 (twice the memory, and
    slower to scan) in every document. ``"\u2026"`` is the same string as ``"…"``, and the same in a
    regular expression (surrogate pairs too, with or without the u flag). An identity escape
    (``\…``) is the character itself; a backslash before U+2028 or U+2029 continues the line
    instead, so that one stays as written.
    """
    out: list[str] = []
    i, n = 0, len(literal)
    while i < n:
        ch = literal[i]
        if ch == "\\" and i + 1 < n:
            following = literal[i + 1]
            out.append(_escaped(following) if following > "\xff" and following not in "\u2028\u2029" else literal[i : i + 2])
            i += 2
            continue
        out.append(_escaped(ch) if ch > "\xff" else ch)
        i += 1
    return "".join(out)


def _regex_may_follow(kind: str, text: str) -> bool:
    """Whether a "/" after the piece ``text`` (of ``kind``) starts a regular expression (the rule of ``tokens``)."""
    if kind in ("string", "regex"):
        return False
    if kind == "template":
        return text.endswith("${")
    if kind != "code":
        return True  # the start, "{" or "}"
    word = _TRAILING_WORD.search(text)
    if word is not None:
        return word.group() in _REGEX_AFTER_WORDS
    return not text.endswith((")", "]", "++", "--"))


def _needs_space(kind: str, left: str, right: str) -> bool:
    """Whether a space between ``left`` (a piece of ``kind``) and ``right`` keeps them apart as tokens."""
    a, b = left[-1], right[0]
    if _is_word_char(b):
        # a in b, return x, /re/ in x (not the flags "in"), 1 .5 read as 1.5
        return _is_word_char(a) or kind == "regex" or (a == "." and b.isdigit())
    if b == "." and a.isdigit():
        return True  # 1 .toString()
    return a + b in _JOINING


def strip_js(source: str) -> str:
    """``source`` without comments, indentation, blank lines and spaces no token needs (the module's docstring).

    One pass over what matters for that (white space, comments, literals, "/", braces for a
    template's substitutions); runs of other code are copied whole, so it is quick enough to run at
    every assembly. ``tokens`` is the reference: the tests check that both read the same tokens.
    """
    out: list[str] = []
    last_kind, last = "", ""  # the last piece written ("" at the start)
    gap = ""  # what separates the next piece from the last: "", " " or "\n"
    templates: list[int] = []  # per open template substitution, the depth of "{" opened inside it
    i, n = 0, len(source)
    while i < n:
        if templates and templates[-1] == 0 and source[i] == "}":
            found = _TEMPLATE_REST.match(source, i)
            if found is None:
                raise JsSyntaxError(f"unterminated template at offset {i}")
            templates.pop()
            kind = "template"
        else:
            found = _PIECE.match(source, i)
            if found is None or found.lastgroup == "unterminated":
                raise JsSyntaxError(f"unterminated literal or comment at offset {i}: {source[i:i + 20]!r}")
            kind = found.lastgroup or ""
            if kind == "space" or kind == "comment":
                if _LINE_BREAK.search(found.group()):
                    gap = "\n"
                elif not gap:
                    gap = " "
                i = found.end()
                continue
            if kind == "slash" and _regex_may_follow(last_kind, last):
                found = _REGEX.match(source, i)
                if found is None:
                    raise JsSyntaxError(f"unterminated regular expression at offset {i}")
                kind = "regex"
            elif kind == "slash" or kind == "brace":
                kind = "code" if kind == "slash" else "brace"
        text = found.group()
        if (kind == "string" or kind == "regex") and _WIDE.search(text):
            text = _latin1(text)  # a template's text stays as written: its raw form is the page's to read
        if kind == "template" and text.endswith("${"):
            templates.append(0)
        elif kind == "brace" and templates:
            templates[-1] += 1 if text == "{" else -1
        if last:
            if gap == "\n":
                out.append("\n")
            elif gap == " " and _needs_space(last_kind, last, text):
                out.append(" ")
        # A "/" of division and the code after it are one run to the next piece.
        out.append(text)
        last_kind, last, gap = kind, text, ""
        i = found.end()
    if templates:
        raise JsSyntaxError("unterminated template substitution")
    return "".join(out)
