"""One mistake, one error that names the fix (issue 34, item 7; docs/cli.md, "`mcp-actions validate`": messages say how to fix).

A key of a closed object written for a key the object lacks (a close spelling, or a word of a
neighbouring format: MCP's ``arguments`` for a step's ``args``, a primitive's ``target`` for
``settle_after.locator``) is one ``field_not_allowed`` with "did you mean"; the rest of the map is
judged as if it were renamed, so nothing is reported about the member it leaves missing, nor at a
pointer that does not exist. Before this, each mistake below gave two to four problems.
"""

from __future__ import annotations

from typing import Any

from mcp_actions.manifest.validate import check_manifest

from .builders import base, edit

WF = "/tools/1/workflow"
CLICK = f"{WF}/steps/1"

Report = list[tuple[str, str, str, str]]


def report(document: object) -> Report:
    found = check_manifest(document)
    return [(p.severity, p.code, p.path, p.message) for p in found.errors + found.warnings]


def with_step(step: dict[str, Any]) -> Any:
    return edit(base(), f"{WF}/steps", [step])


def test_target_where_settle_after_wants_locator_is_one_error_saying_locator() -> None:
    document = edit(base(), f"{CLICK}/settle_after", {"target": {"selector": "#status"}, "state": "visible", "timeout_ms": 2000})
    assert report(document) == [
        ("error", "field_not_allowed", f"{CLICK}/settle_after/target", "step 'click' settle_after: field 'target' is not allowed; did you mean 'locator'?"),
    ]


def test_what_is_wrong_inside_the_renamed_value_points_at_the_key_as_written() -> None:
    document = edit(base(), f"{CLICK}/settle_after", {"target": {"selectr": "#status"}})
    problems = report(document)
    assert problems[0][:3] == ("error", "field_not_allowed", f"{CLICK}/settle_after/target")
    assert [p[2] for p in problems[1:]] == [f"{CLICK}/settle_after/target/selectr"]  # judged as the locator it stands for
    assert all("/settle_after/locator" not in p[2] for p in problems)


def test_arguments_for_args_is_one_error_and_nothing_at_args() -> None:
    document = with_step({"id": "type", "primitive": "text.insert", "arguments": {"text": "hello"}})
    assert report(document) == [
        ("error", "field_not_allowed", f"{WF}/steps/0/arguments", "step 'type': field 'arguments' is not allowed; did you mean 'args'?"),
    ]


def test_arguments_for_args_still_has_its_own_value_checked_at_its_pointer() -> None:
    document = with_step({"id": "type", "primitive": "text.insert", "arguments": {"txt": "hello"}})
    problems = report(document)
    assert [p[:3] for p in problems] == [
        ("error", "field_not_allowed", f"{WF}/steps/0/arguments"),
        ("error", "primitive_args_invalid", f"{WF}/steps/0/arguments/txt"),
    ]
    assert "did you mean 'text'" in problems[1][3]


def test_a_misspelt_field_is_one_error() -> None:
    step = {"id": "find", "primitve": "locator.element_info", "args": {"locator": {"selector": "#x"}}}
    assert report(with_step(step)) == [
        ("error", "field_not_allowed", f"{WF}/steps/0/primitve", "step 'find': field 'primitve' is not allowed; did you mean 'primitive'?"),
    ]


def test_a_misspelt_argument_is_one_error() -> None:
    step = {"id": "find", "primitive": "locator.element_info", "args": {"locatr": {"selector": "#x"}}}
    assert report(with_step(step)) == [
        (
            "error",
            "primitive_args_invalid",
            f"{WF}/steps/0/args/locatr",
            "step 'find': locator.element_info args: unknown argument 'locatr'; its one argument is 'locator'; did you mean 'locator'?",
        ),
    ]


def test_a_key_written_beside_the_one_it_stands_for_is_not_read_as_it() -> None:
    # Both given: the map says which it means, and the stray key is the one error about keys.
    step = {"id": "type", "primitive": "text.insert", "args": {"text": "a"}, "arguments": {"text": "b"}}
    assert report(with_step(step)) == [
        ("error", "field_not_allowed", f"{WF}/steps/0/arguments", "step 'type': field 'arguments' is not allowed; did you mean 'args'?"),
    ]


def test_a_loose_likeness_stays_a_suggestion() -> None:
    # 'retry' may mean retry_until or max_attempts: it is not read as either (no 'needs max_attempts').
    assert report(edit(base(), f"{CLICK}/retry", 3)) == [
        ("error", "field_not_allowed", f"{CLICK}/retry", "step 'click': field 'retry' is not allowed; did you mean 'retry_until'?"),
    ]
