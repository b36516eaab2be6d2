"""The validator on the locator extension filters ``within``, ``has``, ``has_text`` (docs/manifest-language.md, "Extensions").

They are accepted wherever a target descriptor is (a tool's target, step
arguments with slots, settle_after, check assertions), nested descriptors are
closed and must locate, and each bad shape is one error at its path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.manifest.validate import check_manifest

from .builders import base, edit, errors, warnings

TODOMVC = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "todomvc" / "actions.json"
ROW = {"selector": "ul.todo-list li", "has_text": "{% input.title %}"}
CLICK = "/tools/1/workflow/steps/1/args"


def clicking(target: Any) -> dict[str, Any]:
    """The base map whose workflow clicks ``target`` (a locator in step arguments, slots allowed)."""
    return edit(base(), CLICK, {"target": target})


def test_the_todomvc_map_with_row_scoped_locators_is_valid_without_warnings() -> None:
    report = check_manifest(json.loads(TODOMVC.read_text()))
    assert not report.errors and not report.warnings


@pytest.mark.parametrize(
    "target",
    [
        {"role": "checkbox", "within": ROW},
        {"selector": "li", "has": {"selector": "label", "text_equals": "{% input.title %}"}},
        {"selector": ".toggle", "has_text": "Don't forget: \"quoted\" Straße"},
        {"role": "checkbox", "within": {"selector": "li", "within": {"selector": "ul", "has": {"role": "heading", "name": "Today"}}}},
        {"role": "checkbox", "within": "{% input.scope %}"},
    ],
)
def test_filters_are_accepted_in_step_arguments(target: dict[str, Any]) -> None:
    document = clicking(target)
    assert errors(document) == [] and warnings(document) == []


def test_filters_are_accepted_on_tool_targets_settle_after_and_check_assertions() -> None:
    document = edit(base(), "/tools/0/target", {"selector": "form", "has": {"selector": "button", "has_text": "Send"}})
    document = edit(document, "/checks/0/assertions/0/target", {"selector": "form", "within": {"selector": "main"}})
    document = edit(document, "/tools/1/workflow/steps/1/settle_after", {"locator": {"selector": "li", "has_text": "{% 'Done' %}"}})
    assert errors(document) == [] and warnings(document) == []


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ({"role": "checkbox", "within": "li"}, [("invalid_type", f"{CLICK}/target/within")]),
        ({"role": "checkbox", "has": ["li"]}, [("invalid_type", f"{CLICK}/target/has")]),
        ({"role": "checkbox", "has_text": 3}, [("invalid_type", f"{CLICK}/target/has_text")]),
        ({"role": "checkbox", "has_text": "  "}, [("invalid_value", f"{CLICK}/target/has_text")]),
        # a nested descriptor must locate something ...
        ({"role": "checkbox", "within": {"has_text": "Buy milk"}}, [("invalid_target", f"{CLICK}/target/within")]),
        # ... and only locate: no URL, state or confidence inside
        ({"role": "checkbox", "within": {"selector": "li", "state": "form_ready"}}, [("field_not_allowed", f"{CLICK}/target/within/state")]),
        ({"role": "checkbox", "within": {"selector": "li", "url_contains": "/x"}}, [("field_not_allowed", f"{CLICK}/target/within/url_contains")]),
        # what is wrong inside a nested descriptor is reported at its path
        ({"role": "checkbox", "within": {"selector": ""}}, [("invalid_selector", f"{CLICK}/target/within/selector")]),
        ({"role": "checkbox", "has": {"selector": "li", "within": {"selectors": "li"}}}, [("invalid_selector", f"{CLICK}/target/has/within/selectors")]),
    ],
)
def test_bad_shapes_are_one_error_at_their_path(target: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert errors(clicking(target)) == expected


def test_nesting_deeper_than_eight_is_refused() -> None:
    target: dict[str, Any] = {"selector": "li"}
    for _ in range(8):
        target = {"selector": "*", "within": target}
    assert errors(clicking(target)) == []  # eight nested descriptors: fine
    deeper = {"selector": "*", "within": target}
    assert [code for code, _ in errors(clicking(deeper))] == ["invalid_target"]


def test_a_check_target_with_only_filters_locates_nothing() -> None:
    document = edit(base(), "/checks/0/assertions/0/target", {"has_text": "Welcome"})
    assert errors(document) == [("invalid_target", "/checks/0/assertions/0/target")]


def test_reference_only_warns_about_each_filter_a_reference_runtime_does_not_know() -> None:
    document = clicking({"role": "checkbox", "within": ROW})
    assert warnings(document) == []
    assert warnings(document, reference_only=True) == [
        ("non_reference_argument", f"{CLICK}/target"),  # pointer.click's target itself
        ("non_reference_argument", f"{CLICK}/target/within"),
        ("non_reference_argument", f"{CLICK}/target/within/has_text"),
    ]
