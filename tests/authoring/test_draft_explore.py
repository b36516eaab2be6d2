"""The drafter's rules for what exploring found, on explorations written out by hand (``explore.Exploration``).

What a real page gives is covered by ``test_init_explore.py`` (Chromium); these are the edges a fixture
would have to be contrived for: a row control nothing tells apart, a field whose text showed outside
any row, a risky row checkbox, a check whose tool validate refuses, and the cut-off budget.
"""

from __future__ import annotations

from typing import Any

from mcp_actions.authoring import draft_map
from mcp_actions.authoring.explore import Adder, Exploration
from mcp_actions.manifest import check_manifest

URL = "http://127.0.0.1:8000/list"
FIELD = {"name": "", "id": "", "type": "text", "label": "New entry", "required": False, "control": "text", "locator": {"role": "textbox", "name": "New entry"}, "region": "main"}
ROW = {"selector": "ul.entries li", "title": {"selector": "span", "text_equals": "probe"}, "text": "probe"}


def page(**parts: Any) -> dict[str, Any]:
    base = {"url": URL, "title": "Entries", "forms": [], "search_boxes": [], "buttons": [], "links": [], "regions": [], "lone_fields": [FIELD]}
    return {**base, **parts}


def control(kind: str, locator: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "role": "button" if kind == "button" else "checkbox", "name": "", "class": "", "locator": locator, "visible": True, "checked": False, "words": "", **extra}


def drafted(found: Exploration, **parts: Any) -> tuple[dict[str, Any], list[str]]:
    result = draft_map(page(**parts), url=URL, created_at="2026-01-01T00:00:00Z", exploration=found)
    report = check_manifest(result.manifest)
    assert report.errors == () and report.warnings == (), (report.errors, report.warnings)
    return result.manifest, [item.line() for item in result.review]


def test_a_row_control_nothing_tells_apart_is_named_not_drafted() -> None:
    row = {**ROW, "controls": [control("checkbox", {"role": "checkbox"}, pressed=True), control("button", None, **{"class": ""})]}
    manifest, review = drafted(Exploration(adders=[Adder(field=FIELD, row=row)], after=page()))
    assert [t["name"] for t in manifest["tools"]] == ["x127_0_0_1.add", "x127_0_0_1.toggle"]
    assert "skipped the row's button 'button': nothing in the row tells it apart (no role, name or class of its own)" in review
    # The check redoes add and the pressed checkbox with a title that has an apostrophe and non-ASCII text.
    [check] = manifest["checks"]
    assert [(s["tool"], s["arguments"]["title"]) for s in check["setup"]] == [("x127_0_0_1.add", "Row of the check — l'essai"), ("x127_0_0_1.toggle", "Row of the check — l'essai")]


def test_text_that_showed_outside_any_row_drafts_a_submit_tool_and_no_row_tools() -> None:
    manifest, review = drafted(Exploration(adders=[Adder(field=FIELD, row=None)], after=page()))
    [tool] = manifest["tools"]
    assert tool["name"] == "x127_0_0_1.submit_new_entry" and [s["primitive"] for s in tool["workflow"]["steps"]][-1] == "dom.settle"
    assert "checks" not in manifest  # nothing appeared that a check could look for
    assert any("in no row or list item, so no row tools were drafted" in line for line in review)


def test_a_row_button_whose_words_say_delete_asks_first() -> None:
    row = {**ROW, "controls": [control("button", {"selector": "button.trash"}, words=" trash delete-entry", **{"class": "trash"})]}
    manifest, _ = drafted(Exploration(adders=[Adder(field=FIELD, row=row)], after=page()))
    delete = next(t for t in manifest["tools"] if t["name"] == "x127_0_0_1.delete")
    assert delete["x_actions"]["annotations"] == {"destructiveHint": True}
    at = next(s for s in delete["workflow"]["steps"] if s["id"] == "at_click")
    assert at["args"]["locator"] == {"selector": "button.trash", "within": {"selector": "ul.entries li", "has": {"selector": "span", "text_equals": "{% input.title %}"}}}


def test_out_of_time_says_so_and_how_to_give_more() -> None:
    found = Exploration(skipped=["skipped the field 'New entry': the exploring time was up"], out_of_time=True)
    manifest, review = drafted(found)
    assert manifest["tools"] == []
    assert "nothing on the page became a tool (skipped the field 'New entry': see why below)" in review
    assert "the exploring time was up before init tried everything: give it more with --explore-budget SECONDS" in review
