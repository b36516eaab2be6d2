"""What the journal of acting calls asks of an acting tool's change mark and report (dispatch/builtins/acting/act_probe.py).

The journal's questions ride on the two page round trips an acting tool makes anyway; these are the
arguments it adds and how it reads the answers (the page side is tests/observe/test_action_settle.py,
the whole loop tests/learning/test_save_tool_e2e.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.dispatch.builtins.acting.act_probe import WATCH_CAP, ActProbe

ROW = {"text": "Buy milk ✕", "role": "listitem"}


@pytest.mark.parametrize(
    ("describe", "watch", "expected"),
    [
        # A click by ref with nothing typed yet: the element described, an empty watch (the row is added by the page).
        ({"ref": "@e3"}, [], {"describe": {"ref": "@e3"}, "watch": []}),
        # An upload names no element to describe: only the typed values are counted.
        (None, ["Buy milk"], {"watch": ["Buy milk"]}),
        # Nothing to describe, nothing to count: the mark is asked nothing extra.
        (None, [], {}),
        # A long session: the newest texts, one place left for the row.
        ({"text": "Save", "field": True}, [f"t{i}" for i in range(30)], {"describe": {"text": "Save", "field": True}, "watch": [f"t{i}" for i in range(11, 30)]}),
    ],
)
def test_the_mark_is_asked_to_describe_and_count(describe: dict[str, Any] | None, watch: list[str], expected: dict[str, Any]) -> None:
    assert ActProbe(describe, list(watch)).mark_arguments() == expected


def test_a_mark_taken_while_resolving_describes_the_element_found() -> None:
    # refs.resolve {mark}: the element it resolves is the one described, so only "describe it" is asked.
    assert ActProbe({"text": "Save"}, ["Buy milk"]).resolve_mark_arguments() == {"describe": True, "watch": ["Buy milk"]}
    assert ActProbe({"ref": "@e3"}).resolve_mark_arguments() == {"describe": True, "watch": []}
    assert ActProbe(None).resolve_mark_arguments() == {}


def test_the_row_is_watched_after_the_action_and_the_answers_are_kept() -> None:
    probe = ActProbe({"ref": "@e3"}, ["Buy milk"])
    assert probe.report_arguments() == {"watch": ["Buy milk"]}
    probe.marked({"marked": True, "journal": {"ref": "@e3", "element": {"role": "checkbox", "container": ROW}, "texts": {"Buy milk": 1, ROW["text"]: 1}}})
    assert probe.before is not None and probe.before["texts"] == {"Buy milk": 1, ROW["text"]: 1}
    # The row it sits in is counted after the action too: did the step make it go?
    assert probe.report_arguments() == {"watch": ["Buy milk", ROW["text"]]}
    probe.reported({"added": [], "texts": {"Buy milk": 1, ROW["text"]: 0}})
    assert probe.after == {"Buy milk": 1, ROW["text"]: 0}
    assert len(ActProbe(None, [f"t{i}" for i in range(40)]).report_arguments()["watch"]) == WATCH_CAP


def test_a_mark_or_report_without_the_journal_part_leaves_empty_answers() -> None:
    probe = ActProbe({"ref": "@e3"})
    probe.marked({"marked": True})  # an engine that answered nothing for the journal
    probe.reported("not an object")
    assert probe.before == {} and probe.after == {} and probe.watch == []
