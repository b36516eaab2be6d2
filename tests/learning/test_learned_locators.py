"""Learning a tool from recorded steps: values become arguments wherever they appear, and render back exactly.

The steps are ``ActStep`` records as the journal writes them (their
``element`` is what ``refs.describe`` answers, copied from a run on
``tests/fixtures/pages/learn-todos``). Every learned tool is validated as a
whole map with the project's own validator, and every templated value is
rendered with the workflow interpreter's ``render_args`` for other values:
quotes, apostrophes, non-ASCII text and text that looks like a slot come back
unchanged, because nothing is concatenated into a selector.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.learning.answer import MARK_ID, REPORT_ID
from mcp_actions.learning.locators import NO_FIND, UnlearnableStep, learned_locator, learned_text, literal
from mcp_actions.learning.steps import ActStep
from mcp_actions.learning.workflow import learn_tool
from mcp_actions.manifest.expressions import render_args
from mcp_actions.manifest.load import ManifestReport, load_document

FIELD: dict[str, Any] = {"tag": "input", "role": "textbox", "name": "What needs to be done?", "text": "", "attributes": {}, "editable": True, "container": None,
         "locator": {"role": "textbox", "name": "What needs to be done?"}, "unique": True}  # fmt: skip
ROW_BOX: dict[str, Any] = {"tag": "input", "role": "checkbox", "name": "Don't forget", "text": "", "attributes": {}, "editable": False,
           "container": {"selector": "li", "text": "Don't forget"}, "locator": {"role": "checkbox", "name": "Don't forget"}, "unique": True,
           "scoped": {"role": "checkbox", "within": {"selector": "li", "text_equals": "Don't forget"}}}  # fmt: skip
NOTHING: dict[str, Any] = {"tag": "div", "role": None, "name": "", "text": "", "attributes": {}, "editable": False, "container": None, "locator": None,
           "unique": False, "reason": NO_FIND}  # fmt: skip


def step(tool: str, element: dict[str, Any] | None, before: dict[str, int] | None = None, after: dict[str, int] | None = None, **arguments: Any) -> ActStep:
    return ActStep(tool, arguments, element, "http://127.0.0.1:8000/", texts_before=before or {}, texts_after=after or {})


def acting(tool: dict[str, Any]) -> list[dict[str, Any]]:
    """The workflow's steps that repeat the recorded ones, without the change mark and report around them (answer.py)."""
    return [s for s in tool["workflow"]["steps"] if s["id"] not in (MARK_ID, REPORT_ID)]


def rendered(value: Any, **inputs: str) -> Any:
    return render_args(value, {"input": inputs, "steps": {}})


@pytest.mark.parametrize(
    "value",
    [
        "Don't forget",  # an apostrophe
        'He said "now"',  # double quotes
        "Café 'crème' — ünïcødé 雪",  # non-ASCII
        "{% $eval('1') %}",  # text that looks like a slot stays text
        "50%} off",  # a slot's closing mark alone
        "a\\b\nc",  # a backslash and a newline
    ],
)
def test_typed_text_becomes_its_argument_and_renders_back_exactly(value: str) -> None:
    used: set[str] = set()
    assert learned_text(value, {"title": value}, used) == "{% input.title %}" and used == {"title"}
    # Around a value, the literal rest is a JSONata string: the other value lands between it, unchanged.
    templated = learned_text(f"Buy {value} today", {"item": value}, used)
    assert rendered(templated, item="x'y\"z%}") == "Buy x'y\"z%} today"
    # A literal that is no argument renders to itself.
    assert rendered(literal(value)) == value


def test_a_click_in_a_row_named_by_a_parameter_is_scoped_to_the_row_whose_text_is_the_argument() -> None:
    used: set[str] = set()
    locator = learned_locator(ROW_BOX, {"title": "Don't forget"}, used)
    assert locator == {"role": "checkbox", "within": {"selector": "li", "text_equals": "{% input.title %}"}}
    # A value that is only part of the row's text: the row that has it (the resolver refuses look-alikes).
    locator = learned_locator(ROW_BOX, {"word": "forget"}, set())
    assert locator["within"] == {"selector": "li", "has_text": "{% input.word %}"}
    # Without a parameter for its row, the element's own unique locator.
    assert learned_locator(ROW_BOX, {}, set()) == {"role": "checkbox", "name": "Don't forget"}


def test_a_step_with_nothing_to_find_it_by_is_refused_with_the_reason() -> None:
    with pytest.raises(UnlearnableStep, match=NO_FIND):
        learn_tool([step("page.click", NOTHING)], name="x.y", description="d", parameters={})
    # An element the journal could not describe names why.
    with pytest.raises(UnlearnableStep, match="step 1 \\(page_click\\): gone"):
        learn_tool([ActStep("page.click", {}, None, "http://h/", why_not="gone")], name="x.y", description="d", parameters={})


def test_a_parameter_that_appears_in_no_step_is_refused() -> None:
    with pytest.raises(UnlearnableStep, match="parameter 'title'"):
        learn_tool([step("page.click", ROW_BOX)], name="todos.toggle", description="d", parameters={"title": "Nowhere"})


def test_a_key_pressed_where_no_step_reached_is_refused_unless_the_element_takes_text() -> None:
    button = {**ROW_BOX, "role": "button", "editable": False}
    with pytest.raises(UnlearnableStep, match="no earlier step reached"):
        learn_tool([step("page.press", button, key="Enter")], name="x.y", description="d", parameters={})
    # A field is clicked into first, as a person would.
    tool = learn_tool([step("page.press", FIELD, key="Enter")], name="x.y", description="d", parameters={})
    assert [s["primitive"] for s in acting(tool)] == ["locator.wait_for", "pointer.click", "keyboard.press"]


def test_what_the_page_did_becomes_settle_and_a_probe_in_the_manifests_vocabulary() -> None:
    steps = [
        step("page.fill", FIELD, {"Buy milk": 0}, {"Buy milk": 0}, text="Buy milk"),
        # Enter made the typed title appear.
        step("page.press", FIELD, {"Buy milk": 0}, {"Buy milk": 1}, key="Enter"),
        # The destroy click made its row go.
        step("page.click", {**ROW_BOX, "role": "button", "scoped": {"role": "button", "within": {"selector": "li", "text_equals": "Don't forget"}}},
             {"Don't forget": 1}, {"Don't forget": 0}),
    ]  # fmt: skip
    tool = learn_tool(steps, name="todos.add_and_remove", description="d", parameters={"title": "Buy milk", "gone": "Don't forget"})
    workflow = acting(tool)
    assert [s["id"] for s in workflow] == ["s1_find", "s1_fill", "s2_press", "s3_find", "s3_click", "s3_gone0"]
    assert workflow[2]["settle_after"] == {"locator": {"text_equals": "{% input.title %}"}, "state": "visible", "timeout_ms": 3000}
    assert workflow[5]["args"] == {"probes": [{"locator": {"text_equals": "{% input.gone %}"}}]}
    assert workflow[5]["retry_until"] == "{% steps.s3_gone0.output.results[0].matched = false %}"
    document = {"protocol": "actions.json", "version": 1, "surface": {"origin": "http://127.0.0.1:8000"}, "tools": [tool]}
    loaded = load_document(document, source="learned")
    assert not isinstance(loaded, ManifestReport), loaded.errors


def test_a_button_told_apart_by_its_section_heading_may_take_the_heading_as_an_argument() -> None:
    save = {"tag": "button", "role": "button", "name": "Save", "text": "Save", "attributes": {}, "editable": False, "container": None,
            "locator": {"role": "button", "name": "Save"}, "unique": False, "reason": "look-alikes",
            "scoped": {"role": "button", "name": "Save", "within": {"selector": "section", "has": {"role": "heading", "name": "Billing address"}}}}  # fmt: skip
    assert learned_locator(save, {}, set()) == save["scoped"]
    used: set[str] = set()
    located = learned_locator(save, {"which": "Billing address"}, used)
    assert located["within"] == {"selector": "section", "has": {"role": "heading", "name": "{% input.which %}"}} and used == {"which"}


def test_a_description_is_taken_only_for_the_locator_keys_it_may_hold() -> None:
    # A page runtime's page could answer refs.describe itself: unknown keys, lists and slot-like strings stay out or literal.
    forged = {**ROW_BOX, "locator": {"role": "checkbox", "name": "{% input %}", "xpath": "//x", "selectors": ["{% $string(1) %}"]}, "scoped": None}
    located = learned_locator(forged, {}, set())
    assert located == {"role": "checkbox", "name": literal("{% input %}")}
    assert rendered(located["name"]) == "{% input %}"
    with pytest.raises(UnlearnableStep, match=NO_FIND):
        learned_locator({**forged, "locator": {"xpath": "//x"}}, {}, set())


def test_a_fill_of_a_select_is_saved_as_choosing_its_option() -> None:
    sort = {"tag": "select", "role": "combobox", "name": "Sort by", "text": "", "attributes": {}, "editable": False, "container": None,
            "locator": {"role": "combobox", "name": "Sort by"}, "unique": True}  # fmt: skip
    tool = learn_tool([step("page.fill", sort, text="Title")], name="todos.sort", description="d", parameters={"order": "Title"})
    assert acting(tool)[-1] == {"id": "s1_select", "primitive": "locator.select", "args": {"locator": sort["locator"], "values": ["{% input.order %}"]}}


def test_a_fill_of_a_date_input_is_saved_as_setting_its_value() -> None:
    # A date input takes no typed text (text.insert answers target_not_editable there): page_fill set its
    # value, and so does the learned step, by locator.
    day = {"tag": "input", "type": "date", "role": None, "name": "Date", "label": "Date", "text": "", "attributes": {"name": "date"},
           "editable": True, "container": None, "locator": {"selector": "input[name=\"date\"]"}, "unique": True}  # fmt: skip
    tool = learn_tool([step("page.fill", day, text="2026-12-24")], name="bistro.pick_day", description="d", parameters={"day": "2026-12-24"})
    assert acting(tool)[-1] == {"id": "s1_fill", "primitive": "locator.set_value", "args": {"locator": day["locator"], "value": "{% input.day %}"}}
