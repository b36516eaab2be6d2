"""What ``mcp-actions check`` calls drift, case by case, on the unchanged board and simple-form pages.

The tables below are assembled into one map per page (each row a check, a
state or a tool of it), checked once through the command's Python entry
(``run_check_command``, real headless Chromium); each row then asserts its
own item of the report. The board has three look-alike lists, three
look-alike Add card buttons, a hidden list template and no dialog at load;
the simple form has an empty ``<output>``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.checks.command import run_check_command
from mcp_actions.checks.probe import url_drift

pytestmark = pytest.mark.browser

LISTS = "[data-testid='list']"
NAMES = "[data-testid='list-name']"
ADD = "[data-testid='add-card']"
TODO_INPUT = "[data-list-id='todo'] input[name='title']"
INVALID = "[data-testid="  # not CSS: the engine refuses it (invalid_locator)

# (check id, assertion, status, what the item's message or evidence must show)
CHECKS = [
    # The issue's assertion: three visible lists hold "visible", with the count in the evidence.
    ("lists_visible", {"target": {"selector": LISTS}, "visible": True}, "pass", {"count": 3, "visible_count": 3}),
    # count counts the matches...
    ("lists_count_3", {"target": {"selector": LISTS}, "count": 3}, "pass", {"count": 3}),
    # ...and fails when they differ.
    ("lists_count_4", {"target": {"selector": LISTS}, "count": 4}, "fail", "3 element(s) match, count is 4"),
    # max_count too.
    ("lists_max_2", {"target": {"selector": LISTS}, "max_count": 2}, "fail", "max_count is 2"),
    # With visible: true the count keys count the visible matches: five card titles.
    ("titles_min_5", {"target": {"selector": "[data-testid='card-title']"}, "visible": True, "min_count": 5}, "pass", {"visible_count": 5}),
    # One of four list names (three visible, one hidden template) is Done: a text assertion holds on any match.
    ("name_done", {"target": {"selector": NAMES}, "text_equals": "Done"}, "pass", {"count": 4}),
    # None of them is Blocked.
    ("name_blocked", {"target": {"selector": NAMES}, "text_equals": "Blocked"}, "fail", "none of the 4 matches has the text 'Blocked'"),
    # Only the hidden template is named Template: with visible: true it does not count...
    ("template_visible", {"target": {"selector": NAMES}, "visible": True, "text_equals": "Template"}, "fail", "none of the 4 matches"),
    # ...without it, it does.
    ("template_any", {"target": {"selector": NAMES}, "text_equals": "Template"}, "pass", {}),
    # Text is compared with whitespace collapsed (the title is "  Write spec  " in the DOM).
    ("title_spaces", {"target": {"selector": "[data-testid='card-title']"}, "text_equals": "Write spec"}, "pass", {}),
    # A text found only elsewhere on the page (the h1) is not an element of this target.
    ("name_page_text", {"target": {"selector": NAMES}, "text_contains": "Sprint board"}, "fail", "none of the 4 matches contains"),
    # The target's own text_contains ("Do": To do, Doing, Done) narrowed by the assertion's ("Done").
    ("own_text_implied", {"target": {"selector": NAMES, "text_contains": "Do"}, "text_contains": "Done"}, "pass", {}),
    # The target's own text_equals excludes the assertion's.
    ("own_text_excluded", {"target": {"selector": NAMES, "text_equals": "Done"}, "text_equals": "Doing"}, "fail", "excludes 'Doing'"),
    # No dialog is open at load: visible: false holds.
    ("dialog_hidden", {"target": {"selector": "[role='dialog']"}, "visible": False}, "pass", {"count": 0}),
    # The lists are visible, so visible: false fails.
    ("lists_hidden", {"target": {"selector": LISTS}, "visible": False}, "fail", "3 visible element(s) match, expected none visible"),
    # exists: false on nothing holds...
    ("absent", {"target": {"selector": ".nothing-like-this"}, "exists": False}, "pass", {}),
    # ...and fails on the lists.
    ("lists_absent", {"target": {"selector": LISTS}, "exists": False}, "fail", "must be absent"),
    # enabled is a property of one element: the To do list's button...
    ("todo_add_enabled", {"target": {"selector": f"[data-list-id='todo'] {ADD}"}, "enabled": True}, "pass", {}),
    # ...but not of three look-alike buttons at once.
    ("add_enabled_ambiguous", {"target": {"selector": ADD}, "enabled": True}, "fail", "multiple_targets"),
    # A locator the engine refuses fails its assertion (it can never match).
    ("invalid_target", {"target": {"selector": INVALID}, "visible": True}, "fail", "locator is invalid"),
    # Found only through a fallback selector: holds, with a warning.
    ("board_fallback", {"target": {"selector": "[data-testid='board-gone']", "fallback_selectors": ["[data-testid='board']"]}, "visible": True},
     "warn", {"matched_by": "fallback_selectors[0]"}),
    # A check that asserts a state which is not current fails: that is what it asserts.
    ("asserts_detail_open", {"state": "detail_open"}, "fail", "state 'detail_open' is not current"),
]

# (state name, diagnostics, status, note, current)
STATES = [
    # Its diagnostic matches: current.
    ("ready", [{"name": "rendered", "target": {"selector": "[data-testid='board'][data-ready='true']"}}], "pass", None, True),
    # The issue's card_detail_open: no dialog at load, so not current; information, not drift.
    ("detail_open", [{"name": "dialog", "target": {"selector": "[role='dialog'][data-testid='card-detail']"}}], "pass", "not_current", False),
    # A hidden element is not current by default (states need a visible match, as the server judges them)...
    ("template_shown", [{"name": "template", "target": {"selector": "[data-testid='list-template']"}}], "pass", "not_current", False),
    # ...and current with "visible": false, which asks only that it be attached.
    ("template_attached", [{"name": "template", "target": {"selector": "[data-testid='list-template']"}, "visible": False}], "pass", None, True),
    # A path the page is not on could hold on another page of the site: not current, not drift.
    ("on_other_page", [{"name": "path", "target": {"selector": LISTS, "url_contains": "/other-page.html"}}], "pass", "not_current", False),
    # An invalid selector can never match: drift.
    ("broken_selector", [{"name": "broken", "target": {"selector": INVALID}}], "fail", None, False),
    # url_matches anchored on another origin can never hold here: drift.
    ("other_origin", [{"name": "origin", "target": {"selector": LISTS, "url_matches": "^https://elsewhere\\.example/"}}], "fail", None, False),
    # url_matches that is not a regular expression: drift.
    ("bad_regex", [{"name": "regex", "target": {"selector": LISTS, "url_matches": "(["}}], "fail", None, False),
    # url_contains naming another origin: drift.
    ("other_origin_contains", [{"name": "origin", "target": {"selector": LISTS, "url_contains": "https://elsewhere.example/board"}}], "fail", None, False),
    # Current only through a fallback selector: a warning.
    ("fallback", [{"name": "board", "target": {"selector": "[data-testid='board-gone']", "fallback_selectors": ["[data-testid='board']"]}}],
     "warn", None, True),
    # Nothing to diagnose.
    ("undiagnosed", [], "pass", "no_diagnostics", False),
]


def _find(step_id: str, locator: dict[str, Any], **extra: Any) -> list[dict[str, Any]]:
    """An element_info step and the click at its centre (the element_info-then-click pattern)."""
    center = f"steps.{step_id}.output.clickable_center"
    return [{"id": step_id, "primitive": "locator.element_info", "args": {"locator": locator}, **extra},
            {"id": "click", "primitive": "pointer.click", "args": {"x": f"{{% {center}.x %}}", "y": f"{{% {center}.y %}}"}}]


TYPE_TODO = {"id": "type", "primitive": "text.insert", "args": {"target": {"selector": TODO_INPUT}, "text": "x", "mode": "replace"}}

# (tool name, its target (area) or None, its steps, the items expected: (kind, id, status, note, severity))
TOOLS = [
    # The issue's tool area: the three lists are where it applies.
    ("area.lists", {"selector": LISTS}, [TYPE_TODO], [("tool", "area.lists", "pass", None, "major")]),
    # An area matching nothing is a warning, not drift.
    ("area.none", {"selector": "[data-testid='list-wrapper']"}, [TYPE_TODO], [("tool", "area.none", "warn", "no_match", "major")]),
    # An area matching only a hidden element: a warning too.
    ("area.hidden", {"selector": "[data-testid='list-template']"}, [TYPE_TODO], [("tool", "area.hidden", "warn", "no_match", "major")]),
    # An area whose locator is invalid can never match: drift.
    ("area.invalid", {"selector": INVALID}, [TYPE_TODO], [("tool", "area.invalid", "fail", None, "major")]),
    # An area scoped to another page of the site: it applies elsewhere.
    ("area.elsewhere", {"selector": LISTS, "url_contains": "/elsewhere/"}, [TYPE_TODO], [("tool", "area.elsewhere", "warn", "url_mismatch", "major")]),
    # A tool of the dialog state, not current at load: its area warns, its first step only informs.
    ("area.dialog", {"selector": "[role='dialog']", "state": "detail_open"},
     [{"id": "rename", "primitive": "text.insert", "args": {"target": {"selector": "[role='dialog'] input"}, "text": "x"}}],
     [("tool", "area.dialog", "warn", "no_match", "major"), ("tool_step", "area.dialog#rename", "pass", "state_not_current", "info")]),
    # A click that would land on any of three Add card buttons: ambiguous where an action must land.
    ("step.click_ambiguous", None, _find("find", {"selector": ADD}), [("tool_step", "step.click_ambiguous#find", "fail", None, "major")]),
    # The To do list's own button: exactly one.
    ("step.click_one", None, _find("find", {"selector": f"[data-list-id='todo'] {ADD}"}), [("tool_step", "step.click_one#find", "pass", None, "major")]),
    # Four visible buttons narrowed to one by role+name, as the engine narrows them.
    ("step.role_name", None, _find("find", {"selector": "button", "role": "button", "name": "Clear done"}),
     [("tool_step", "step.role_name#find", "pass", None, "major")]),
    # Waiting for any of the three lists takes many.
    ("step.wait_many", None, [{"id": "lists", "primitive": "locator.wait_for", "args": {"locator": {"selector": LISTS}}}, TYPE_TODO],
     [("tool_step", "step.wait_many#lists", "pass", None, "major")]),
    # A step before the first click that finds nothing: drift, major.
    ("step.missing_before", None, _find("find", {"selector": "#no-such-button"}), [("tool_step", "step.missing_before#find", "fail", None, "major")]),
    # A hidden element cannot be clicked now, but the locator still finds it: the page may show it in another
    # state ("Clear completed" while nothing is completed), so a warning, not drift (issue 31).
    ("step.hidden_click", None, _find("find", {"selector": "[data-testid='list-template']"}),
     [("tool_step", "step.hidden_click#find", "warn", "hidden_now", "major")]),
    # locator.text_content reads one hidden element (a read-only tool: its drift would be minor).
    ("step.hidden_read", None, [{"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": f"[data-testid='list-template'] {NAMES}"}}}],
     [("tool_step", "step.hidden_read#read", "pass", None, "minor")]),
    # What appears only after the action (the activity log's "added" entry) is information.
    ("step.after_missing", None,
     [TYPE_TODO, {"id": "logged", "primitive": "locator.wait_for", "args": {"locator": {"selector": "[data-testid='history-entry']", "text_contains": "added"}}}],
     [("tool_step", "step.after_missing#type", "pass", None, "major"), ("tool_step", "step.after_missing#logged", "pass", "after_action", "info")]),
    # After the action, three look-alike buttons are ambiguous now: a warning at severity info, not drift.
    ("step.after_ambiguous", None, [TYPE_TODO, *_find("find", {"selector": ADD})],
     [("tool_step", "step.after_ambiguous#find", "warn", "after_action", "info")]),
    # A step that may not run (when) and finds nothing: information.
    ("step.optional", None, _find("find", {"selector": "#no-such-button"}, when="{% $exists(input.x) %}"),
     [("tool_step", "step.optional#find", "pass", "optional_step", "info")]),
    # A step locator the engine refuses: drift.
    ("step.invalid", None, _find("find", {"selector": INVALID}), [("tool_step", "step.invalid#find", "fail", None, "major")]),
]

# (check id, assertion, status, note expected among the assertion's notes)
FORM_CHECKS = [
    # The empty <output>: rendered with zero size; "visible" holds, with a note.
    ("result_visible", {"target": {"selector": "#result"}, "visible": True}, "pass", "rendered but empty"),
    # Nothing is seen in it either: "visible: false" holds too.
    ("result_not_visible", {"target": {"selector": "#result"}, "visible": False}, "pass", None),
    # Its text is empty (judged on its one element).
    ("result_empty", {"target": {"selector": "#result"}, "text_equals": ""}, "pass", None),
    # The published map's own check, on its own page.
    ("name_visible", {"target": {"selector": "#name"}, "visible": True, "enabled": True}, "pass", None),
]


def board_map() -> dict[str, Any]:
    """One map holding every row of CHECKS, STATES and TOOLS."""
    tools = []
    for name, area, steps, _ in TOOLS:
        tool: dict[str, Any] = {"name": name, "description": f"{name} (table row)",
                                "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}},
                                "workflow": {"version": 1, "expression_language": "jsonata", "steps": steps}}
        if area is not None:
            tool["target"] = area
        tools.append(tool)
    return {
        "protocol": "actions.json", "version": 1,
        "surface": {"name": "Board fixture, drift cases"},
        "states": [{"name": name, "description": name, "diagnostics": diagnostics} for name, diagnostics, *_ in STATES],
        "tools": tools,
        "checks": [{"id": cid, "severity": "major", "assertions": [assertion]} for cid, assertion, *_ in CHECKS],
    }


def form_map() -> dict[str, Any]:
    return {"protocol": "actions.json", "version": 1, "surface": {"name": "Simple form, drift cases"}, "tools": [],
            "checks": [{"id": cid, "severity": "major", "assertions": [assertion]} for cid, assertion, *_ in FORM_CHECKS]}


def check_map(document: dict[str, Any], path: Path, url: str) -> tuple[int, dict[str, Any]]:
    """Run the real command through its Python entry; (exit status, report)."""
    path.write_text(json.dumps(document), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = run_check_command(str(path), url, as_json=True, fail_on="minor", out=out, err=err)
    assert status in (0, 1), err.getvalue()
    return status, json.loads(out.getvalue())


@pytest.fixture(scope="module")
def board_report(tmp_path_factory, pages_url) -> dict[tuple[str, str], dict[str, Any]]:
    status, report = check_map(board_map(), tmp_path_factory.mktemp("board") / "cases.actions.json", f"{pages_url}/board/index.html")
    assert status == 1  # the tables hold failing rows on purpose
    return {(item["kind"], item["id"]): item for item in report["items"]}


@pytest.fixture(scope="module")
def form_report(tmp_path_factory, pages_url) -> dict[tuple[str, str], dict[str, Any]]:
    status, report = check_map(form_map(), tmp_path_factory.mktemp("form") / "cases.actions.json", f"{pages_url}/simple-form/index.html")
    assert status == 0
    return {(item["kind"], item["id"]): item for item in report["items"]}


@pytest.mark.parametrize(("check_id", "assertion", "status", "shows"), CHECKS, ids=[c[0] for c in CHECKS])
def test_assertions(board_report, check_id, assertion, status, shows):
    item = board_report[("check", check_id)]
    assert item["status"] == status, item["message"]
    outcome = item["evidence"]["evidence"]["assertions"][0]
    if isinstance(shows, str):
        assert shows in item["message"], item["message"]
    else:
        assert shows.items() <= outcome.get("target", {}).items(), outcome
    if status == "fail":
        assert item["evidence"]["drift_detected"] is True and item["evidence"]["error"]["code"] == "drift_detected"


@pytest.mark.parametrize(("name", "diagnostics", "status", "note", "current"), STATES, ids=[s[0] for s in STATES])
def test_states(board_report, name, diagnostics, status, note, current):
    item = board_report[("state", name)]
    assert (item["status"], item["note"], item["current"]) == (status, note, current), item["message"]
    assert item["evidence"]["current"] is current
    if status == "fail":
        assert item["evidence"]["drift"] and item["message"].startswith("can never match on this page")
    # Not needed by a tool or a check of the map: minor (detail_open is asserted by a check: major).
    assert item["severity"] in (("major",) if name == "detail_open" else ("minor", "info"))


@pytest.mark.parametrize(("name", "area", "steps", "expected"), TOOLS, ids=[t[0] for t in TOOLS])
def test_tool_areas_and_steps(board_report, name, area, steps, expected):
    for kind, item_id, status, note, severity in expected:
        item = board_report[(kind, item_id)]
        assert (item["status"], item["note"], item["severity"]) == (status, note, severity), item["message"]
        assert "count" in item["evidence"] or "state_current" in item["evidence"] or item["note"] == "url_mismatch"


def test_the_issues_area_reports_its_count(board_report):
    item = board_report[("tool", "area.lists")]
    assert (item["evidence"]["count"], item["evidence"]["visible_count"]) == (3, 3)
    assert "ambiguous" in board_report[("tool_step", "step.click_ambiguous#find")]["message"]


@pytest.mark.parametrize(("check_id", "assertion", "status", "note"), FORM_CHECKS, ids=[c[0] for c in FORM_CHECKS])
def test_an_empty_output(form_report, check_id, assertion, status, note):
    item = form_report[("check", check_id)]
    assert item["status"] == status, item["message"]
    notes = item["evidence"]["evidence"]["assertions"][0].get("notes", [])
    assert any(note in n for n in notes) if note else notes == []


# (target, page URL, the drift reason's start, or None when the predicate could hold on that origin)
URL_CASES = [
    # Anchored on another origin: never.
    ({"url_matches": "^https://elsewhere\\.example/"}, "http://127.0.0.1:8000/board/", "url_matches"),
    # Anchored on this origin with a port class: could hold.
    ({"url_matches": "^http://127\\.0\\.0\\.1:\\d+/"}, "http://127.0.0.1:8000/board/", None),
    # Only its literal prefix ("http", before the optional "s") is certain, and it fits: nothing claimed.
    ({"url_matches": "^https?://elsewhere\\.example/"}, "http://127.0.0.1:8000/board/", None),
    # A path anchored at the start can never match a full URL.
    ({"url_matches": "^/board/"}, "http://127.0.0.1:8000/board/", "url_matches"),
    # Unanchored: could hold somewhere.
    ({"url_matches": "/board/"}, "http://127.0.0.1:8000/other/", None),
    # An alternation: the anchor may not cover it, so nothing is claimed.
    ({"url_matches": "^https://elsewhere|board"}, "http://127.0.0.1:8000/board/", None),
    # Not a regular expression: never.
    ({"url_matches": "(["}, "http://127.0.0.1:8000/board/", "url_matches"),
    # A path: could hold on another page of the origin.
    ({"url_contains": "/search"}, "http://127.0.0.1:8000/board/", None),
    # Another origin named: never.
    ({"url_contains": "https://elsewhere.example/board"}, "http://127.0.0.1:8000/board/", "url_contains"),
    # This origin named, another path: could hold.
    ({"url_contains": "http://127.0.0.1:8000/other"}, "http://127.0.0.1:8000/board/", None),
    # A file page has no comparable origin: nothing claimed.
    ({"url_contains": "https://elsewhere.example/"}, "file:///tmp/page.html", None),
]


@pytest.mark.parametrize(("target", "url", "reason"), URL_CASES)
def test_url_predicates_that_can_never_hold(target, url, reason):
    found = url_drift(target, url)
    assert (found.split(" ", 1)[0] if found else None) == reason, found
