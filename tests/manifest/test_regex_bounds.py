"""Regular expressions run on RE2: what a map may hold, what validation says, what matching means.

See docs/manifest-language.md, "Regular expressions". The end-to-end stalls
(a real runtime, the bridge's /healthz, the SDK client) are in
tests/server/test_regex_bounds.py; these pin the pieces: every pattern that
meets page data is searched in linear time, and a pattern RE2 cannot run is
refused where the map is checked, with the pointer to it, never waved through.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcp_actions.bounded_regex import UnsupportedPattern, compile_pattern, search
from mcp_actions.errors import ActionError, ExpressionSyntaxError
from mcp_actions.manifest.expressions import compile_expression
from mcp_actions.schema_check import CompiledSchema, schema_patterns

from .builders import base, edit, errors, warnings

HOSTILE = "a" * 28 + "!"
#: Each of these took seconds to minutes on Python's re over HOSTILE (or its variants); RE2 takes microseconds.
CATASTROPHIC = ["^(a+)+$", "^(a|a)+$", "^(a|aa)+$", "^(.*a){12}$", "(a*)*b"]
UNSUPPORTED = [r"(a)\1", r"(?<n>a)\k<n>", "(?=a)", "(?!a)", "(?<=a)b", "(?<!a)b", "a{1000}{1000}"]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_catastrophic_pattern_is_searched_in_linear_time(pattern: str) -> None:
    started = time.monotonic()
    for text in (HOSTILE, "a" * 100_000 + "!"):
        search(pattern, text)
    assert time.monotonic() - started < 0.5


@pytest.mark.parametrize("pattern", UNSUPPORTED)
def test_a_pattern_re2_cannot_run_is_refused_not_waved_through(pattern: str) -> None:
    with pytest.raises(UnsupportedPattern):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"^\d+$", "123", True),
        (r"^\d+$", "١٢٣", False),  # \d is ASCII, as in ECMAScript
        (r"^\s+$", "\u00a0\u2003\t", True),  # \s counts Unicode spaces, as in ECMAScript
        (r"^\S+$", "ab\u00a0", False),
        (r"caf\u00e9", "café", True),  # \uXXXX names a code point
        (r"^x\u{1F600}$", "x😀", True),
        ("^a$", "a\n", False),  # $ is the end, not before a final newline
        (r"^https://shop\.test/", "https://shop.test/cart", True),
        (r"a\/b", "a/b", True),
        ("(?<year>[0-9]{4})", "in 2024", True),
    ],
)
def test_patterns_read_as_ecmascript_reads_them(pattern: str, text: str, found: bool) -> None:
    assert search(pattern, text) is found


def test_schema_patterns_are_found_only_where_a_schema_holds_them() -> None:
    schema = {
        "properties": {"pattern": {"type": "string", "pattern": "^p"}, "q": {"items": {"pattern": "^i"}}},
        "patternProperties": {"^x-": {"anyOf": [{"pattern": "^y"}]}},
        "const": {"pattern": "(?=data)"},  # data, not a schema
        "examples": [{"pattern": "(?=data)"}],
    }
    assert sorted(schema_patterns(schema)) == [
        ("/patternProperties/^x-", "^x-"),
        ("/patternProperties/^x-/anyOf/0/pattern", "^y"),
        ("/properties/pattern/pattern", "^p"),
        ("/properties/q/items/pattern", "^i"),
    ]


def test_a_page_schema_with_a_pattern_re2_cannot_run_refuses_every_check() -> None:
    """A page tool's inputSchema, a runtime's manifest, an ABP outputSchema: refused, never waved through."""
    schema = CompiledSchema({"type": "object", "properties": {"pin": {"type": "string", "pattern": "^(?=.*[0-9]).{4}$"}}}, label="the page's schema")
    assert schema.usable is False
    with pytest.raises(ActionError) as refused:
        schema.failure({"pin": "1234"})
    assert refused.value.code == "invalid_schema"
    assert "/properties/pin/pattern" in refused.value.message


def test_property_patterns_and_the_keywords_that_consult_them_run_on_re2() -> None:
    schema = CompiledSchema(
        {
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}},
            "patternProperties": {"^(x+)+$": {"type": "integer"}},
            "additionalProperties": False,
            "allOf": [{"patternProperties": {"^(y+)+$": {}}}],
            "unevaluatedProperties": False,
        },
        label="t",
    )
    hostile_key = "x" * 40 + "!"
    started = time.monotonic()
    failure = schema.failure({"code": HOSTILE, hostile_key: 1, "xxx": "not an integer", "y" * 40 + "!": 0})
    assert time.monotonic() - started < 0.5
    assert failure is not None
    paths = {entry["path"] for entry in failure.errors}
    assert {"/code", "/xxx", "/" + hostile_key} <= paths
    assert schema.failure({"code": "aaa", "xxx": 3}) is None


@pytest.mark.parametrize("pattern", ["(?=a)", r"(a)\1"])
def test_validate_refuses_a_schema_pattern_re2_cannot_run_at_its_pointer(pattern: str) -> None:
    document = edit(base(), "/tools/0/input_schema", {"type": "object", "properties": {"q": {"type": "string", "pattern": pattern}}})
    assert errors(document) == [("invalid_schema", "/tools/0/input_schema/properties/q/pattern")]
    keyed = edit(base(), "/signals/0/payload", {"type": "object", "patternProperties": {"^(?!x)": {}}})
    assert errors(keyed) == [("invalid_schema", "/signals/0/payload/patternProperties/^(?!x)")]


def test_validate_refuses_an_expression_regex_literal_re2_cannot_run_at_its_slot() -> None:
    document = edit(base(), "/tools/1/workflow/output", "{% $match(input.q, /(?<=a)b/) %}")
    assert errors(document) == [("expression_invalid", "/tools/1/workflow/output")]
    assert errors(edit(base(), "/tools/1/workflow/output", "{% $match(input.q, /^(a+)+$/) %}")) == []


def test_validate_warns_about_a_url_matches_re2_cannot_run() -> None:
    document = edit(base(), "/context/0/load_when", {"url_matches": "^https://shop(?!\\.evil)"})
    assert errors(document) == []
    assert ("invalid_value", "/context/0/load_when/url_matches") in warnings(document)


def _evaluate(source: str, data: dict[str, Any]) -> Any:
    return compile_expression(source).evaluate(data)


def test_an_expression_regex_over_hostile_page_text_answers_at_once() -> None:
    started = time.monotonic()
    for source in ("$match(t, /^(a+)+$/)", "$contains(t, /^(a|aa)+$/)", "$replace(t, /(a*)*b/, 'x')", "$split(t, /(a+)+!/)", "/^(a+)+$/(t)"):
        _evaluate(source, {"t": HOSTILE * 4})
    assert time.monotonic() - started < 0.5


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("$match(s, /(\\w+)-(\\d+)/)", [{"match": "foo-12", "index": 0, "groups": ["foo", "12"]}, {"match": "bar-3", "index": 7, "groups": ["bar", "3"]}]),
        ("$replace(s, /(\\w+)-(\\d+)/, '$2=$1')", "12=foo 3=bar"),
        ("$replace(s, /o/, '$5')", "f-12 bar-3"),  # a group the pattern lacks is empty
        ("$replace(s, /(o)o/, '$12')", "fo2-12 bar-3"),  # group 1, then a literal 2
        ("$replace(s, /-/, '$$\\\\', 1)", "foo$\\12 bar-3"),  # $$ is a dollar sign, a backslash is a backslash
        ("$replace(s, /(\\w+)-/, function($m){$uppercase($m.groups[1])})", "FOO12 BAR3"),
        ("$split(s, /[- ]/)", ["foo", "12", "bar", "3"]),
        ("$contains(s, /BAR/i)", True),
        ("$match('a\\nb', /^b/m).index", 2),
        ("$match('a\\nb', /^b/)", None),
        ("/r-(\\d)/(s).start", 9),
    ],
)
def test_regex_literals_keep_their_jsonata_meaning(source: str, expected: Any) -> None:
    assert _evaluate(source, {"s": "foo-12 bar-3"}) == expected


def test_an_expression_regex_re2_cannot_run_does_not_compile() -> None:
    with pytest.raises(ExpressionSyntaxError) as refused:
        compile_expression("$match(x, /(a)\\1/)")
    assert refused.value.code == "expression_invalid"
    assert "docs/manifest-language.md" in refused.value.message
