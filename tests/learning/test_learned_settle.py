"""A learned tool waits for the like of what the first time saw appear, and answers what its call changed.

The lines are what an acting tool's change report lists (``refs.change_report``'s ``added``); the
settle is rendered with the workflow interpreter's ``render_args`` for other argument values, as a
later call renders it, and the tool's answer (its workflow ``output``) from a report shaped as the
page engine's. Every learned tool is validated as a whole map with the project's own loader.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from mcp_actions.learning.answer import MARK_ID, OUTPUT, REPORT_ID, RESULT_SCHEMA, with_change_report
from mcp_actions.learning.settle import appeared_settle, line_runs
from mcp_actions.learning.steps import ActStep
from mcp_actions.learning.workflow import learn_tool
from mcp_actions.manifest.expressions import render_args
from mcp_actions.manifest.load import ManifestReport, load_document

BOOK = {"name": "Ada Lovelace", "phone": "0123456789", "date": "2026-12-24", "time": "19:30", "guests": "4"}
LATER = {"name": "Grace O'Hopper", "phone": "0987654321", "date": "2027-01-15", "time": "20:00", "guests": "2"}
#: The bistro's confirmation (bench/pages/bistro.html): the values booked and a reference number.
BOOKED = "Booked: a table for 4 on 2026-12-24 at 19:30, under Ada Lovelace. Reference LPB-1234."
BUTTON: dict[str, Any] = {"tag": "button", "role": "button", "name": "Request booking", "text": "Request booking", "attributes": {}, "editable": False,
          "container": None, "locator": {"role": "button", "name": "Request booking"}, "unique": True}  # fmt: skip
FIELD: dict[str, Any] = {"tag": "input", "role": "textbox", "name": "Full name", "text": "", "attributes": {}, "editable": True, "container": None,
         "locator": {"role": "textbox", "name": "Full name"}, "unique": True}  # fmt: skip


def rendered(value: Any, **inputs: str) -> Any:
    return render_args(value, {"input": inputs, "steps": {}})


def test_a_confirmation_naming_the_values_is_waited_for_with_the_calls_values_and_without_its_reference() -> None:
    locator = appeared_settle([BOOKED], BOOK)
    assert locator is not None
    # "4" is the guests, not the 4 of the date or of the reference; the reference number is left out, and so
    # are the words before the first argument and after the last.
    assert rendered(locator["text_contains"], **LATER) == "2 on 2027-01-15 at 20:00, under Grace O'Hopper"


@pytest.mark.parametrize(
    ("lines", "parameters", "waited"),
    [
        # A record a search found: its other words are the record's, so the argument alone.
        (["Michael Bruce Javascript Developer Singapore 29 2011/06/27 $183,000"], {"query": "Michael Bruce"}, "Michael Bruce"),
        # A line with an argument beats a longer one without (a count that changed).
        (["Showing 1 to 1 of 1 entries (filtered from 57 total entries)", "Welcome back, kanye"], {"username": "kanye"}, "kanye"),
        # No argument anywhere: fixed text, the whole line.
        (["Your changes are saved", "Saved"], {}, "Your changes are saved"),
        # The words around a count or a time are no fixed text ("1 item left" next time).
        (["0 items left", "Saved at 12:04 — your changes are safe with us"], {}, None),
        # An argument too short to find alone ("4" is everywhere) and short fixed text: nothing to wait for.
        (["for 4", "ok 3"], {"guests": "4"}, None),
        # A value glued into a word is not the value ("4" in "x4y" would make a template of two arguments).
        (["Order x4y for Ada Lovelace"], {"n": "4", "name": "Ada Lovelace"}, "Ada Lovelace"),
        # A value with regex and slot characters is found as it is, and stays an argument.
        (["Added a+b {% x %} and c.d to the list"], {"first": "a+b {% x %}", "second": "c.d"}, "a+b {% x %} and c.d"),
        # A list's state line: one argument shown twice is one argument, and the words around it are state.
        (["todos: [x] Walk the dog; [ ] Walk the dog twice; [ ] Don't forget"], {"title": "Walk the dog"}, "Walk the dog"),
        # Two arguments with other rows between them: no template (the glue is too long), the longer argument alone.
        (["todos: [ ] Buy milk; [ ] Walk the dog twice; [ ] Don't forget; [ ] Call mum"], {"a": "Buy milk", "b": "Call mum"}, "Buy milk"),
    ],
)
def test_what_is_waited_for(lines: list[str], parameters: dict[str, str], waited: str | None) -> None:
    locator = appeared_settle(lines, parameters)
    if waited is None:
        assert locator is None
        return
    assert locator is not None
    # Rendered with the same values, as the first time's call would: what the settle waits for.
    assert rendered(locator["text_contains"], **parameters) == waited


def test_a_line_cut_at_the_reports_cap_loses_its_last_half_word() -> None:
    line = ("Booked for Ada Lovelace and Charles Babbage in the small room by the window, with a view of the garden")[:100]
    assert len(line) == 100
    runs = line_runs(line, {"a": "Ada Lovelace", "b": "Charles Babbage"})
    assert "".join(text for text, _ in runs[0]).endswith("view of the")


def learned(steps: list[ActStep], parameters: dict[str, str]) -> dict[str, Any]:
    tool = learn_tool(steps, name="bistro.book", description="Book a table.", parameters=parameters)
    loaded = load_document({"protocol": "actions.json", "version": 1, "surface": {"origin": "http://127.0.0.1:8000"}, "tools": [tool]}, source="learned")
    assert not isinstance(loaded, ManifestReport), loaded.errors
    return tool


def test_the_last_click_settles_on_the_confirmation_and_a_watched_text_still_comes_first() -> None:
    url = "http://127.0.0.1:8000/"
    fill = ActStep("page.fill", {"text": "Ada Lovelace"}, FIELD, url)
    click = ActStep("page.click", {}, BUTTON, url, appeared=("Checking availability…", BOOKED))
    tool = learned([fill, click], {"name": "Ada Lovelace"})
    settle = next(s for s in tool["workflow"]["steps"] if s["id"] == "s2_click")["settle_after"]
    assert settle["state"] == "visible"
    assert rendered(settle["locator"]["text_contains"], name="Grace") == "Grace"  # one argument in the line: the argument alone
    # A watched text that appeared whole (a new row whose text is the typed title) is still the settle.
    press = ActStep("page.press", {"key": "Enter"}, FIELD, url, texts_before={"Buy milk": 0}, texts_after={"Buy milk": 1}, appeared=("Buy milk", "2 items left"))
    tool = learn_tool([ActStep("page.fill", {"text": "Buy milk"}, FIELD, url), press], name="todos.add", description="d", parameters={"title": "Buy milk"})
    assert next(s for s in tool["workflow"]["steps"] if s["id"] == "s2_press")["settle_after"]["locator"] == {"text_equals": "{% input.title %}"}


def test_the_tool_marks_the_page_before_its_first_action_and_answers_the_report() -> None:
    url = "http://127.0.0.1:8000/"
    steps = [
        ActStep("page.click", {}, BUTTON, url),
        ActStep("browser.navigate", {}, None, url, boundary=True),
        ActStep("page.fill", {"text": "Ada Lovelace"}, FIELD, url),
        ActStep("page.click", {}, BUTTON, url, appeared=(BOOKED,)),
    ]
    tool = learned(steps, {"name": "Ada Lovelace"})
    ids = [s["id"] for s in tool["workflow"]["steps"]]
    # After the navigation (it replaces the page and its mark) and after the field was found (late rows are not the call's doing).
    assert ids == ["s1_find", "s1_click", "s2_open", "s3_find", MARK_ID, "s3_fill", "s4_find", "s4_click", REPORT_ID]
    report = next(s for s in tool["workflow"]["steps"] if s["id"] == REPORT_ID)
    assert report["primitive"] == "refs.change_report" and report["on_error"] == "continue"
    # The click learned to wait for the confirmation: the report reads the page at once.
    assert report["args"] == {}
    # A last step with no wait of its own: the report waits as the acting tools do.
    steps, _ = with_change_report([{"id": "s1_click", "primitive": "pointer.click", "args": {}}])
    assert steps[-1]["args"] == {"settle": {"quiet_ms": 40, "timeout_ms": 1500}}
    assert tool["workflow"]["output"] == OUTPUT


@pytest.mark.parametrize(
    ("report", "answer"),
    [
        # What appeared and went, as the page engine reports it (its settle and counts of watched texts left out).
        (
            {"added": [BOOKED], "added_count": 1, "removed": ["Checking availability…"], "removed_count": 1, "dialogs_opened": [], "dialogs_closed": 0, "settle": {"settled": True, "waited_ms": 130}},
            {"added": [BOOKED], "removed": ["Checking availability…"]},
        ),
        # More lines changed than are listed: the count says so; a dialog and a same-document navigation are said.
        (
            {"added": ["a", "b"], "added_count": 9, "removed": [], "removed_count": 0, "dialogs_opened": ["Confirm"], "dialogs_closed": 1, "url": "http://h/#done"},
            {"added": ["a", "b"], "added_count": 9, "dialogs_opened": ["Confirm"], "dialogs_closed": 1, "url": "http://h/#done"},
        ),
        # Nothing visible changed.
        ({"added": [], "added_count": 0, "removed": [], "removed_count": 0, "dialogs_opened": [], "dialogs_closed": 0}, {"changed": False}),
        # The report step failed (the page navigated away under the call): the answer says so.
        (None, {"navigated": True, "note": "the page navigated or reloaded: page_read to see the new one"}),
    ],
)
def test_the_answer_is_what_the_call_changed(report: dict[str, Any] | None, answer: dict[str, Any]) -> None:
    _, output = with_change_report([{"id": "s1_click", "primitive": "pointer.click", "args": {}}])
    assert render_args(output, {"input": {}, "steps": {REPORT_ID: {"output": report}}}) == answer
    # The tool's result_schema (its MCP outputSchema) holds every answer, and only answers.
    jsonschema.validate(answer, RESULT_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**answer, "settle": {"settled": True}}, RESULT_SCHEMA)
