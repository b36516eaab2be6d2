"""Workflows, strictly: closed key sets, expressions, bounds, primitives and their arguments, limits.

Edits apply to the workflow of ``base()``'s second tool (steps ``find`` and
``click``); each case asserts the exact errors.
"""

from __future__ import annotations

import pytest

from mcp_actions.manifest.limits import Limits
from mcp_actions.manifest.validate import check_manifest

from .builders import _DELETE, base, edit, errors, warnings

WF = "/tools/1/workflow"
FIND = f"{WF}/steps/0"
CLICK = f"{WF}/steps/1"
SCROLL_RETRY = {"retry_until": "{% steps.find.output.visible %}", "max_attempts": 3}

# (pointer, value or _DELETE, expected errors)
EDITS = [
    # -- workflow object
    (WF, "steps", [("invalid_type", WF)]),
    (f"{WF}/version", _DELETE, [("missing_field", f"{WF}/version")]),
    (f"{WF}/version", "1", [("invalid_type", f"{WF}/version")]),
    (f"{WF}/expression_language", _DELETE, [("missing_field", f"{WF}/expression_language")]),
    (f"{WF}/expression_language", 7, [("invalid_type", f"{WF}/expression_language")]),
    (f"{WF}/steps", _DELETE, [("missing_field", f"{WF}/steps")]),
    (f"{WF}/steps", {"find": {}}, [("invalid_type", f"{WF}/steps")]),
    (f"{WF}/output", _DELETE, []),  # output is optional
    (f"{WF}/output", {"clicked": True, "at": ["{% steps.find.output %}"]}, []),  # templated output
    (f"{WF}/output", {"label": "clicked {% 1 %}"}, [("expression_partial_slot", f"{WF}/output/label")]),
    (f"{WF}/postcondition", "site.board", []),  # names a declared projection
    (f"{WF}/postcondition", {"projection": "site.board"}, []),
    (f"{WF}/postcondition", "site.cards", [("unknown_projection", f"{WF}/postcondition")]),
    (f"{WF}/postcondition", {"summary": "x"}, [("missing_field", f"{WF}/postcondition/projection")]),
    (f"{WF}/postcondition", 1, [("invalid_type", f"{WF}/postcondition")]),
    # -- steps: shape and ids
    (f"{WF}/steps/2", "page.info", [("invalid_type", f"{WF}/steps/2")]),
    (f"{FIND}/id", _DELETE, [("missing_field", f"{FIND}/id")]),
    (f"{FIND}/id", "findButton_2", []),
    (f"{FIND}/id", "_private", []),  # a leading underscore works in JSONata paths
    (f"{FIND}/id", "find.button", [("invalid_step_id", f"{FIND}/id")]),
    (f"{FIND}/id", "2find", [("invalid_step_id", f"{FIND}/id")]),
    (f"{FIND}/id", "f" * 129, [("invalid_step_id", f"{FIND}/id")]),
    (f"{FIND}/id", ["find"], [("invalid_type", f"{FIND}/id")]),
    (f"{FIND}/description", 1, [("invalid_type", f"{FIND}/description")]),
    (f"{FIND}/timeout_ms", -1, [("invalid_value", f"{FIND}/timeout_ms")]),
    (f"{FIND}/timeout_ms", 1.5, [("invalid_type", f"{FIND}/timeout_ms")]),
    # -- primitive and args
    (f"{FIND}/primitive", _DELETE, [("missing_field", f"{FIND}/primitive")]),
    (f"{FIND}/primitive", ["locator.element_info"], [("invalid_type", f"{FIND}/primitive")]),
    (f"{FIND}/args", _DELETE, [("primitive_args_invalid", f"{FIND}/args")]),  # locator is required
    (f"{FIND}/args/locator", "{% input.locator %}", []),  # a slot may stand for a whole argument
    (f"{FIND}/args/locator", 5, [("primitive_args_invalid", f"{FIND}/args/locator")]),  # a literal of the wrong type
    (f"{FIND}/args/near", {"selector": "x"}, [("primitive_args_invalid", f"{FIND}/args/near")]),  # unknown argument
    (f"{FIND}/args/locator", {"selector": "{% input.css %}", "fallback_selectors": ["{% input.alt %}", "button"]}, []),
    (f"{FIND}/args/locator", {"selector": ""}, [("invalid_selector", f"{FIND}/args/locator/selector")]),
    (f"{FIND}/args/locator", {"selector": "{% input.css"}, [("expression_partial_slot", f"{FIND}/args/locator/selector")]),
    (f"{CLICK}/args/x", 10, []),
    (f"{CLICK}/args/x", "10", [("primitive_args_invalid", f"{CLICK}/args/x")]),  # a literal string is not a number
    (f"{CLICK}/args/button", "{% input.button %}", []),  # enum checks skip slots
    (f"{CLICK}/args/button", "thumb", [("primitive_args_invalid", f"{CLICK}/args/button")]),
    (f"{CLICK}/args/x", "{% %}", [("expression_invalid", f"{CLICK}/args/x")]),  # an empty slot
    (f"{CLICK}/args/x", "{% $random() %}", [("expression_forbidden_function", f"{CLICK}/args/x")]),
    (f"{CLICK}/args/x", "{% $now() %}", [("expression_forbidden_function", f"{CLICK}/args/x")]),
    (f"{CLICK}/args/x", "{% $millis() %}", [("expression_forbidden_function", f"{CLICK}/args/x")]),
    (f"{CLICK}/args/x", "%} steps.find %}", [("expression_partial_slot", f"{CLICK}/args/x")]),
    # -- when
    (f"{CLICK}/when", "{% $exists(steps.find.output) %}", []),
    (f"{CLICK}/when", True, [("invalid_type", f"{CLICK}/when")]),
    # one slot by the interpreter's reading ("{%" … "%}"), whose expression "a %} and {% b" does not compile
    (f"{CLICK}/when", "{% a %} and {% b %}", [("expression_invalid", f"{CLICK}/when")]),
    # -- for_each / max_items
    (f"{FIND}/max_items", 5, [("unpaired_field", f"{FIND}/max_items")]),
    # -- retry_until / max_attempts / after_each
    (f"{FIND}/max_attempts", 3, [("unpaired_field", f"{FIND}/max_attempts")]),
    (f"{FIND}/after_each", {"primitive": "viewport.scroll"}, [("unpaired_field", f"{FIND}/after_each")]),
    # -- on_error
    (f"{CLICK}/on_error", "continue", []),
    (f"{CLICK}/on_error", False, [("invalid_type", f"{CLICK}/on_error")]),
    # -- settle_after
    (f"{CLICK}/settle_after", {"delay_ms": 300}, []),
    (f"{CLICK}/settle_after", {"locator": {"selector": "#done"}}, []),
    (f"{CLICK}/settle_after", {"locator": {"selector": "#done"}, "state": "attached", "timeout_ms": 0}, []),
    (f"{CLICK}/settle_after", "300ms", [("invalid_type", f"{CLICK}/settle_after")]),
    (f"{CLICK}/settle_after", {"delay_ms": -1}, [("invalid_value", f"{CLICK}/settle_after/delay_ms")]),
    (f"{CLICK}/settle_after", {"delay_ms": 100, "state": "visible"}, [("unpaired_field", f"{CLICK}/settle_after/state")]),
    (f"{CLICK}/settle_after", {"delay_ms": 100, "timeout_ms": 5}, [("unpaired_field", f"{CLICK}/settle_after/timeout_ms")]),
    (f"{CLICK}/settle_after", {"locator": {"selector": "#d"}, "state": "gone"}, [("invalid_value", f"{CLICK}/settle_after/state")]),
    (f"{CLICK}/settle_after", {"locator": {"selector": "#d"}, "wait": 1}, [("field_not_allowed", f"{CLICK}/settle_after/wait")]),
    (f"{CLICK}/settle_after", {"locator": "#done"}, [("invalid_type", f"{CLICK}/settle_after/locator")]),
    (f"{CLICK}/settle_after", {"locator": {"selector": 1}}, [("invalid_selector", f"{CLICK}/settle_after/locator/selector")]),
    (f"{CLICK}/settle_after", {"locator": {"selector": "{% input.css %}"}}, []),  # slots work in the locator
    (f"{CLICK}/settle_after", {"locator": {"selector": "{% input. %}"}}, [("expression_invalid", f"{CLICK}/settle_after/locator/selector")]),
    (f"{CLICK}/settle_after", {"locator": {"text_contains": "n={% 1 %}"}}, [("expression_partial_slot", f"{CLICK}/settle_after/locator/text_contains")]),
]


@pytest.mark.parametrize(("pointer", "value", "expected"), EDITS, ids=[f"{p}={v!r:.30}" for p, v, _ in EDITS])
def test_one_edit_gives_exactly_these_errors(pointer: str, value: object, expected: list[tuple[str, str]]) -> None:
    assert errors(edit(base(), pointer, value)) == expected


# (extra step fields on 'find', expected errors) for the bounded forms
BOUNDED = [
    ({"for_each": "{% input.items %}", "max_items": 50}, []),  # exactly at the limit
    ({"for_each": "{% input.items %}", "max_items": 0}, [("invalid_value", f"{FIND}/max_items")]),
    ({"for_each": "{% input.items %}", "max_items": "5"}, [("invalid_type", f"{FIND}/max_items")]),
    ({"for_each": "{% input.items %}", "max_items": True}, [("invalid_type", f"{FIND}/max_items")]),
    ({"for_each": "{% input.items %}", "max_items": 51}, [("limit_loop_items_exceeded", f"{FIND}/max_items")]),
    ({"for_each": "input.items", "max_items": 5}, [("expression_not_slot", f"{FIND}/for_each")]),
    ({"for_each": "{% input.items[ %}", "max_items": 5}, [("expression_invalid", f"{FIND}/for_each")]),
    ({**SCROLL_RETRY}, []),
    ({**SCROLL_RETRY, "max_attempts": 0}, [("invalid_value", f"{FIND}/max_attempts")]),
    ({**SCROLL_RETRY, "max_attempts": 2.5}, [("invalid_type", f"{FIND}/max_attempts")]),
    ({**SCROLL_RETRY, "retry_until": "{% ) %}"}, [("expression_invalid", f"{FIND}/retry_until")]),
    ({**SCROLL_RETRY, "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": 400}}}, []),
    ({**SCROLL_RETRY, "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": "{% index * 100 %}"}}}, []),
    ({**SCROLL_RETRY, "after_each": {"primitive": "viewport.zoom"}}, [("unknown_primitive", f"{FIND}/after_each/primitive")]),
    ({**SCROLL_RETRY, "after_each": {"args": {}}}, [("missing_field", f"{FIND}/after_each/primitive")]),
    ({**SCROLL_RETRY, "after_each": "viewport.scroll"}, [("invalid_type", f"{FIND}/after_each")]),
    ({**SCROLL_RETRY, "after_each": {"primitive": "viewport.scroll", "args": []}}, [("invalid_type", f"{FIND}/after_each/args")]),
    (
        {**SCROLL_RETRY, "after_each": {"primitive": "viewport.scroll", "args": {"dy": 1}}},
        [("primitive_args_invalid", f"{FIND}/after_each/args/dy")],  # after_each args are checked like step args
    ),
    (
        {**SCROLL_RETRY, "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": "{% x %"}}},
        [("expression_partial_slot", f"{FIND}/after_each/args/delta_y")],
    ),
]


@pytest.mark.parametrize(("fields", "expected"), BOUNDED)
def test_loops_and_retries_are_bounded_and_paired(fields: dict[str, object], expected: list[tuple[str, str]]) -> None:
    document = base()
    document["tools"][1]["workflow"]["steps"][0].update(fields)
    assert errors(document) == expected


def test_a_step_with_every_field_is_valid() -> None:
    step = {
        "id": "everything",
        "description": "uses every step field",
        "primitive": "locator.wait_for",
        "args": {"locator": {"selector": "{% item %}"}, "state": "visible"},
        "when": "{% $count(input.items) > 0 %}",
        "for_each": "{% input.items %}",
        "max_items": 10,
        "retry_until": "{% steps.everything.output.visible %}",
        "max_attempts": 4,
        "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": 300}},
        "settle_after": {"locator": {"selector": "#ready"}, "state": "visible", "timeout_ms": 2000},
        "on_error": "continue",
        "timeout_ms": 10000,
    }
    assert errors(edit(base(), f"{WF}/steps/2", step)) == []


def test_unknown_step_field_message_names_the_step_and_the_field() -> None:
    report = check_manifest(edit(base(), f"{CLICK}/retry", 3))
    (problem,) = report.errors
    assert (problem.code, problem.path) == ("field_not_allowed", f"{CLICK}/retry")
    assert "'click'" in problem.message and "'retry'" in problem.message


def test_syntax_error_message_names_the_step_and_the_field() -> None:
    (problem,) = check_manifest(edit(base(), f"{CLICK}/when", "{% (1 %}")).errors
    assert "step 'click' when" in problem.message


def test_every_unknown_key_of_a_workflow_is_reported() -> None:
    document = edit(edit(base(), f"{WF}/stepz", []), f"{WF}/mode", "fast")
    assert errors(document) == [("field_not_allowed", f"{WF}/mode"), ("field_not_allowed", f"{WF}/stepz")]


def test_duplicate_step_ids_are_reported_for_each_repeat() -> None:
    document = edit(base(), f"{WF}/steps/2", {"id": "find", "primitive": "page.info"})
    document = edit(document, f"{WF}/steps/3", {"id": "find", "primitive": "page.info"})
    assert errors(document) == [("duplicate_name", f"{WF}/steps/2/id"), ("duplicate_name", f"{WF}/steps/3/id")]


def test_workflow_under_x_actions_is_checked_the_same_way() -> None:
    document = base()
    document["tools"][1]["x_actions"] = {"workflow": document["tools"][1].pop("workflow")}
    assert errors(document) == []
    document["tools"][1]["x_actions"]["workflow"]["steps"][0]["retries"] = 2
    assert errors(document) == [("field_not_allowed", "/tools/1/x_actions/workflow/steps/0/retries")]


# -- limits are figures


def test_step_limit_follows_the_configured_limits() -> None:
    document = base()
    steps = document["tools"][1]["workflow"]["steps"]
    steps.extend({"id": f"extra{i}", "primitive": "page.info"} for i in range(3))  # 5 steps
    assert errors(document, limits=Limits(max_steps=5)) == []
    assert errors(document, limits=Limits(max_steps=4)) == [("limit_steps_exceeded", f"{WF}/steps")]


def test_loop_limit_follows_the_configured_limits() -> None:
    document = edit(edit(base(), f"{FIND}/for_each", "{% input.items %}"), f"{FIND}/max_items", 10)
    assert errors(document, limits=Limits(max_loop_items=10)) == []
    assert errors(document, limits=Limits(max_loop_items=9)) == [("limit_loop_items_exceeded", f"{FIND}/max_items")]


def test_expression_size_follows_the_configured_limits() -> None:
    expression = "{% " + " + ".join(["1"] * 20) + " %}"  # 77 bytes of source
    document = edit(base(), f"{CLICK}/args/x", expression)
    assert errors(document, limits=Limits(max_expression_bytes=100)) == []
    assert errors(document, limits=Limits(max_expression_bytes=50)) == [("limit_expression_bytes_exceeded", f"{CLICK}/args/x")]


def test_summary_limit_follows_the_configured_limits() -> None:
    document = edit(base(), "/state_projections/0/summaries/0/max_bytes", 500)
    assert errors(document, limits=Limits(max_summary_bytes=500)) == []
    assert errors(document, limits=Limits(max_summary_bytes=499)) == [
        ("limit_summary_bytes_exceeded", "/state_projections/0/summaries/0/max_bytes")
    ]


# -- the primitive dictionary


def test_primitives_default_to_the_bundled_dictionary() -> None:
    assert errors(edit(base(), f"{CLICK}/primitive", "pointer.double_click")) == []


def test_a_runtime_supplied_primitive_list_replaces_the_dictionary() -> None:
    document = edit(base(), f"{CLICK}/primitive", "vendor.tap")
    assert errors(document) == [("unknown_primitive", f"{CLICK}/primitive")]
    # a primitive only the runtime knows: its name passes, its arguments cannot be checked
    assert errors(document, primitives=["locator.element_info", "vendor.tap"]) == []
    assert errors(base(), primitives=["locator.element_info"]) == [("unknown_primitive", f"{CLICK}/primitive")]


def test_an_argument_our_dictionary_adds_to_the_reference_is_a_warning_only_when_checking_for_reference_runtimes() -> None:
    by_locator = edit(base(), f"{CLICK}/args", {"target": {"selector": "button[type='submit']"}})
    assert errors(by_locator) == []
    assert warnings(by_locator) == []  # our runtimes take it: the default (and the server's load path) says nothing
    assert errors(by_locator, reference_only=True) == []
    assert warnings(by_locator, reference_only=True) == [("non_reference_argument", f"{CLICK}/args/target")]
    assert warnings(base(), reference_only=True) == []  # x and y: the reference's own arguments
    # A map carrying its own primitive_dictionary describes the runtime that publishes it: no portability warning.
    own = edit(by_locator, "/primitive_dictionary", {"host": "extension", "primitives": [{"name": "pointer.click", "input_schema": {"type": "object"}}]})
    assert "non_reference_argument" not in [code for code, _ in warnings(own, reference_only=True)]
