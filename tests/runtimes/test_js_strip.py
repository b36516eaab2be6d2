"""The engine ships without comments and indentation, and means the same (js_strip.py, issue 55).

The stripper's tokenizer is checked on inputs where a careless one goes wrong (``//`` in a regular
expression or a URL, ``/*`` in a string, comments inside a template's ``${}``, division beside a
regular expression, automatic semicolons), on every module of the engine (the tokens are the same
before and after), and, when Node is on the machine, by running tricky code both ways and by
parsing the assembled engine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mcp_actions.runtimes import page_script
from mcp_actions.runtimes.js_strip import JsSyntaxError, _latin1, strip_js, tokens

ALL_MODULES = page_script.ENGINE_MODULES + page_script.CLIENT_MODULES + page_script.BOOT_MODULES
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def _code_tokens(source: str) -> list[tuple[str, str]]:
    """The tokens that are code, a string's or a regular expression's characters past Latin-1 escaped (as strip_js ships them)."""
    return [(t.kind, _latin1(t.text) if t.kind in ("string", "regex") else t.text) for t in tokens(source) if t.kind not in ("space", "newline", "comment")]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A regular expression holding "//" and "/*" is not a comment.
        ('var re = /\\/\\/ not a comment/g; // gone', 'var re=/\\/\\/ not a comment/g;'),
        ("var c = /[/*]+/; /* gone */ x()", "var c=/[/*]+/;x()"),
        # Strings: a URL, a comment opener, an escaped quote.
        ('var u = "http://x/*y*/"; // gone', 'var u="http://x/*y*/";'),
        ("var s = 'it\\'s // here';", "var s='it\\'s // here';"),
        # A template's text is kept as written; a comment in its ${} goes, comment-like text stays.
        ("var t = `a // b\n    /* c */ ${ x /* d */ + `in ${y}` } e`;", "var t=`a // b\n    /* c */ ${x+`in ${y}`} e`;"),
        ("var o = `${ {a: 1}.a }` // gone", "var o=`${{a:1}.a}`"),
        # Division and regular expressions side by side.
        ("a = b / c / d;", "a=b/c/d;"),
        ("x = (y) / 2 / z;", "x=(y)/2/z;"),
        ("n = i++ / 2;", "n=i++/2;"),
        ("if (/a/.test(s)) return /b/g.exec(s);", "if(/a/.test(s))return/b/g.exec(s);"),
        ("x = a / /re/.source.length;", "x=a/ /re/.source.length;"),
        ("ok = /re/ instanceof RegExp;", "ok=/re/ instanceof RegExp;"),
        # Tokens that would read as others once joined keep their space.
        ("x = a - -b + +c; y = a-- > b; z = a < !b;", "x=a- -b+ +c;y=a-- >b;z=a< !b;"),
        ("s = 1 .toString() + (c ? .5 : 1);", "s=1 .toString()+(c? .5:1);"),  # "? ." kept apart: it could read as "?."
        # Line breaks stay (automatic semicolons read them), blank lines and indentation go.
        ("function f() {\n    return /* a\n b */ 1\n\n\n}", "function f(){\nreturn\n1\n}"),
        ("a\n  ++b", "a\n++b"),
        # A string's line continuation keeps the next line's indentation: it is the string's text.
        ('s = "a\\\n    b";', 's="a\\\n    b";'),
    ],
)
def test_strips_comments_and_indentation_and_keeps_every_literal(source: str, expected: str) -> None:
    assert strip_js(source) == expected
    assert _code_tokens(strip_js(source)) == _code_tokens(source)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('s = "a…b";', 's="a\\u2026b";'),
        ("s = '😀';", "s='\\ud83d\\ude00';"),  # astral: the same two UTF-16 units
        ('s = "\\…";', 's="\\u2026";'),  # an identity escape is the character itself
        ('s = "a\\\u2028b";', 's="a\\\u2028b";'),  # a backslash before U+2028 continues the line: kept
        ("r = /[…›]/;", "r=/[\\u2026\\u203a]/;"),
        ("t = `…`;", "t=`…`;"),  # a template's raw text is the page's to read: kept
    ],
)
def test_literals_are_written_in_latin1(source: str, expected: str) -> None:
    assert strip_js(source) == expected


def test_the_engine_is_a_one_byte_string() -> None:
    # One character past Latin-1 anywhere makes the whole script a two-byte string in V8: twice the
    # memory in every document, and slower to parse. Strings and regular expressions are escaped at
    # assembly; a template's text is not (write such a character as \uXXXX there).
    for script in (page_script.engine_js(), page_script.runtime_js()):
        wide = sorted({ch for ch in script if ord(ch) > 0xFF})
        assert wide == [], f"characters past Latin-1 in the assembled script: {wide}"


def test_an_unterminated_literal_is_an_error_not_a_guess() -> None:
    for broken in ('x = "open', "x = `open ${a", "x = /open", "/* open"):
        with pytest.raises(JsSyntaxError):
            strip_js(broken)


@pytest.mark.parametrize("module", ALL_MODULES)
def test_each_module_ships_the_same_tokens_without_comments(module: str) -> None:
    written, shipped = page_script.module_source(module), page_script.shipped_source(module)
    assert _code_tokens(shipped) == _code_tokens(written)
    assert [t.text for t in tokens(shipped) if t.kind == "comment"] == []
    # Between tokens, a line break alone: no indentation, no blank line (a literal's own text aside).
    assert {t.text for t in tokens(shipped) if t.kind == "newline"} <= {"\n"}


def test_the_engine_carries_every_module_marker_and_is_smaller() -> None:
    engine = page_script.engine_js()
    assert [line for line in engine.splitlines() if line.startswith("  // ---- ")] == [
        f"  // ---- {name} ----" for name in page_script.ENGINE_MODULES + page_script.BOOT_MODULES
    ]
    written = sum(len(page_script.module_source(name)) for name in page_script.ENGINE_MODULES + page_script.BOOT_MODULES)
    assert len(engine) < 0.7 * written


#: Code where a wrong reading of "/" or of a line break changes a value, run as written and stripped.
_TRICKY = r"""
var out = [];
var a = 10, b = 2, g = 5, i = 1;
out.push(a / b / g);                       // 1: division, twice
out.push(a /b/g);                          // still division: a name before "/"
out.push("x//y".split(/\//).length);       // a regular expression holding "/"
out.push(/[/*]/.test("*"));                // "/*" inside a class
out.push(`t // ${ a /* not text */ + b } /* text */`);
out.push(`nested ${ `in ${ {k: "v"}.k }` }`);
out.push(i++ / 2, i);
out.push(- -a, + +b, a - -b);
function f() {
  return /* a line break in here ends the statement
  */ 42
}
out.push(f());
var s = "a\
   b";
out.push(s);
out.push(1 .toFixed(1), i ? .5 : 1);
var re = /re/
out.push(re instanceof RegExp)
out.push("a…b😀", /[…]/.test("…"), /^😀$/u.test("😀"), "\…" === "…");
console.log(JSON.stringify(out));
"""


@needs_node
def test_tricky_code_computes_the_same_stripped(tmp_path: Path) -> None:
    def run(source: str) -> object:
        path = tmp_path / "code.js"
        path.write_text(source, encoding="utf-8")
        done = subprocess.run([str(NODE), str(path)], capture_output=True, text=True, timeout=60, check=True)
        return json.loads(done.stdout)

    written = run(_TRICKY)
    assert written == [1, 1, 3, True, "t // 12 /* text */", "nested in v", 0.5, 2, 10, 2, 12, None, "a   b", "1.0", 0.5, True, "a…b😀", True, True, True]
    assert run(strip_js(_TRICKY)) == written


@needs_node
@pytest.mark.parametrize("script", [page_script.engine_js, page_script.runtime_js], ids=["engine_js", "runtime_js"])
def test_the_assembled_script_parses(script: object, tmp_path: Path) -> None:
    path = tmp_path / "engine.js"
    path.write_text(script(), encoding="utf-8")  # type: ignore[operator]
    done = subprocess.run([str(NODE), "--check", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
