"""JSONata expression slots: recognition, compilation, evaluation bounds, rendering."""

from __future__ import annotations

import time

import pytest

from mcp_actions.errors import ActionError
from mcp_actions.manifest.expressions import (
    EVALUATION_BUDGET_S,
    FORBIDDEN_FUNCTIONS,
    ExpressionSyntaxError,
    compile_expression,
    compile_slot,
    has_partial_slot,
    is_reference,
    json_size,
    render_args,
    slot_source,
)


@pytest.mark.parametrize(
    ("value", "source"),
    [
        ("{% input.name %}", "input.name"),  # the ordinary slot
        ("{%input.name%}", "input.name"),  # no inner spaces needed
        ("  {% input.name %}\n", "input.name"),  # surrounding whitespace is tolerated
        ("{% {'a': 1,\n 'b': 2} %}", "{'a': 1,\n 'b': 2}"),  # multi-line expressions
        ("{% '%}' %}", "'%}'"),  # a string literal containing %} is still one slot
        ("input.name", None),  # a bare string is a literal, not a slot
        ("id-{% input.n %}", None),  # a partial embed is not a slot
        ("{ % input.n % }", None),  # the delimiters must be exact
        (42, None),  # non-strings are never slots
        (None, None),
    ],
)
def test_slot_source(value, source) -> None:
    assert slot_source(value) == source


@pytest.mark.parametrize(
    ("value", "partial"),
    [
        ("id-{% input.n %}", True),  # text before the slot
        ("{% input.n %}-suffix", True),  # text after the slot
        ("50%} done", True),  # a stray closing delimiter is suspicious too
        ("{% input.n %}", False),  # a whole slot is not partial
        ("plain text", False),  # no delimiters at all
        ({"k": "id-{% x %}"}, False),  # only strings are judged; callers walk containers
    ],
)
def test_has_partial_slot(value, partial) -> None:
    assert has_partial_slot(value) is partial


@pytest.mark.parametrize(
    "source",
    [
        "$eval('1 + 1')",  # evaluating code
        "$random()",  # non-deterministic
        "$shuffle([1, 2, 3])",  # non-deterministic ordering
        "$now()",  # clock-dependent
        "$millis()",  # clock-dependent
        "($f := $eval; $f('1'))",  # referenced without a call is still refused
        "{'when': $fromMillis($millis())}",  # nested inside another call
    ],
)
def test_forbidden_functions_are_refused_at_compile_time(source) -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        compile_expression(source)
    assert caught.value.code == "expression_forbidden_function"
    assert caught.value.evidence["function"] in FORBIDDEN_FUNCTIONS


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("($nowish := 1; $nowish)", 1),  # a variable that merely starts with a forbidden name
        ("($randomized := [2]; $randomized[0])", 2),
        ("$fromMillis(0)", "1970-01-01T00:00:00.000Z"),  # deterministic date functions stay allowed
    ],
)
def test_lookalikes_of_forbidden_functions_are_allowed(source, expected) -> None:
    assert compile_expression(source).evaluate({}) == expected


@pytest.mark.parametrize(
    "source",
    [
        "input.",  # dangling path
        "{'a': }",  # incomplete object
        "",  # empty expression
        "$match('a', /(/)",  # unterminated regex
    ],
)
def test_syntax_errors(source) -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        compile_expression(source)
    assert caught.value.code == "expression_invalid"


def test_compiled_expressions_are_cached_by_source() -> None:
    first = compile_expression("input.cache_probe + 1")
    assert compile_expression("input.cache_probe + 1") is first
    assert compile_slot("{% input.cache_probe + 1 %}") is first
    assert compile_expression("input.cache_probe + 2") is not first


def test_compile_slot_refuses_non_slots() -> None:
    with pytest.raises(ExpressionSyntaxError) as caught:
        compile_slot("id-{% x %}")
    assert caught.value.code == "expression_partial_slot"


@pytest.mark.parametrize(
    ("source", "data", "expected"),
    [
        ("input.a", {"input": {"a": [1, 2]}}, [1, 2]),  # plain path
        ("input.missing", {"input": {}}, None),  # undefined becomes None
        ("steps.find.output.x", {"steps": {}}, None),  # a step that has not run is undefined
        ("$count(input.rows[ok])", {"input": {"rows": [{"ok": True}, {"ok": False}]}}, 1),  # filtering
    ],
)
def test_evaluate(source, data, expected) -> None:
    assert compile_expression(source).evaluate(data) == expected


@pytest.mark.parametrize(
    "source",
    [
        "$number('abc')",  # a Python ValueError inside a built-in
        "input.a + 'x'",  # a JSONata type error
        "$parseInteger('x', 'w')",  # a KeyError escaping jsonata-python
        "$error('boom')",  # an explicit error
        "1 / 0",  # arithmetic
    ],
)
def test_runtime_errors_are_expression_failed(source) -> None:
    with pytest.raises(ActionError) as caught:
        compile_expression(source).evaluate({"input": {"a": 1}})
    assert caught.value.code == "expression_failed"
    assert caught.value.evidence == {"expression": source}


def test_a_function_result_is_not_data() -> None:
    with pytest.raises(ActionError) as caught:
        compile_expression("function($x) { $x }").evaluate({}, max_bytes=100)
    assert caught.value.code == "expression_failed"


@pytest.mark.parametrize(
    "source",
    [
        "$exists($seen) ? 'leaked' : ($seen := input.v; $seen)",  # a binding inside a block
        "$exists($seen) ? 'leaked' : $seen := input.v",  # a top-level binding (the shared frame)
    ],
)
def test_evaluation_leaves_no_bindings_behind(source) -> None:
    # A cached expression is reused across calls: one evaluation must not see another's variables.
    expression = compile_expression(source)
    assert expression.evaluate({"input": {"v": 1}}) == 1
    assert expression.evaluate({"input": {"v": 2}}) == 2


def test_evaluation_does_not_mutate_its_data() -> None:
    data = {"input": {"a": [3, 1, 2]}}
    compile_expression("[$sort(input.a), $reverse(input.a), $append(input.a, 4)]").evaluate(data)
    assert data == {"input": {"a": [3, 1, 2]}}


@pytest.mark.parametrize(
    ("value", "size"),
    [
        ({"a": 1}, 7),  # compact separators: {"a":1}
        ("é", 4),  # UTF-8 bytes, not characters: two quotes + two bytes
        ([1, 2], 5),  # [1,2]
        (None, 4),  # null
    ],
)
def test_json_size_counts_compact_utf8_bytes(value, size) -> None:
    assert json_size(value) == size


@pytest.mark.parametrize(
    ("max_bytes", "allowed"),
    [
        (12, True),  # exactly the size of "xxxxxxxxxx" (10 chars + 2 quotes)
        (11, False),  # one byte under
    ],
)
def test_evaluate_bounds_result_size(max_bytes, allowed) -> None:
    expression = compile_expression("input.s")
    data = {"input": {"s": "x" * 10}}
    if allowed:
        assert expression.evaluate(data, max_bytes=max_bytes) == "x" * 10
        return
    with pytest.raises(ActionError) as caught:
        expression.evaluate(data, max_bytes=max_bytes)
    assert caught.value.code == "limit_exceeded"
    assert caught.value.evidence == {"expression": "input.s", "bytes": 12, "max_bytes": max_bytes}


def test_render_args_replaces_slots_at_any_depth() -> None:
    template = {
        "text": "{% input.name %}",
        "target": {"selector": "{% input.selector %}", "fixed": "#x"},
        "list": ["{% input.n + 1 %}", "literal", 3],
        "flag": True,
    }
    data = {"input": {"name": "Ada", "selector": "#name", "n": 1}}
    assert render_args(template, data) == {
        "text": "Ada",
        "target": {"selector": "#name", "fixed": "#x"},
        "list": [2, "literal", 3],
        "flag": True,
    }
    assert template["text"] == "{% input.name %}"  # the template is not modified


@pytest.mark.parametrize(
    ("template", "allowed"),
    [
        ({"a": "{% input.s %}", "b": "{% input.s %}"}, True),  # the bound is per slot: 12 bytes each
        ({"a": "{% input.s & input.s %}"}, False),  # one slot over the bound
    ],
)
def test_render_args_bounds_each_slot(template, allowed) -> None:
    data = {"input": {"s": "x" * 10}}
    if allowed:
        assert render_args(template, data, max_bytes=12) == {"a": "x" * 10, "b": "x" * 10}
        return
    with pytest.raises(ActionError) as caught:
        render_args(template, data, max_bytes=12)
    assert caught.value.code == "limit_exceeded"


def test_a_runaway_expression_is_stopped_by_the_evaluation_budget() -> None:
    # Tail calls never reach Python's recursion limit: without the budget this never returns.
    started = time.monotonic()
    with pytest.raises(ActionError) as caught:
        compile_expression("($f := function($x) { $f($x) }; $f(1))").evaluate({})
    assert caught.value.code == "expression_failed"
    assert EVALUATION_BUDGET_S <= time.monotonic() - started < EVALUATION_BUDGET_S + 2


@pytest.mark.parametrize(
    ("source", "reference"),
    [
        ("steps.read.output.text", True),
        ("input.body", True),
        ("$item.title", True),
        ("steps.rows.output[0].name", True),
        (" input . big ", True),
        ("input.a & input.b", False),
        ("$uppercase(input.a)", False),
        ("input.rows[price > 3]", False),
        ("steps.read.output.text[0..2]", False),
        ("'literal'", False),
    ],
)
def test_a_reference_only_names_a_value(source: str, reference: bool) -> None:
    assert is_reference(source) is reference
