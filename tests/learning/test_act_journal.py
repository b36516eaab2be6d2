"""The journal of acting calls per tab: what "since the last navigation" and "the last N" mean.

``ActJournal`` is plain data: these tests record steps and navigations the way
the hook in ``dispatch/builtins/learning/act_journal.py`` does and read them back.
"""

from __future__ import annotations

from mcp_actions.dispatch.builtins.learning.act_journal import ActJournal
from mcp_actions.learning.steps import ActStep


def act(name: str) -> ActStep:
    return ActStep("page.click", {"text": name}, {"name": name}, "http://127.0.0.1:8000/")


def names(steps: list[ActStep]) -> list[str]:
    return ["|" if s.boundary else s.arguments["text"] for s in steps]


def test_since_navigation_and_the_last_n_with_the_navigations_between_them() -> None:
    journal = ActJournal()
    journal.navigated("tab-1", "http://127.0.0.1:8000/")
    for name in ("a", "b"):
        journal.record("tab-1", act(name))
    journal.navigated("tab-1", "http://127.0.0.1:8000/next")
    journal.record("tab-1", act("c"))
    journal.record("tab-2", act("elsewhere"))  # another tab's journal is its own

    assert names(journal.since_navigation("tab-1")) == ["c"]
    assert names(journal.last("tab-1", 1)) == ["c"]
    assert names(journal.last("tab-1", 2)) == ["b", "|", "c"]  # the navigation between them is kept
    assert names(journal.last("tab-1", 9)) == ["a", "b", "|", "c"]  # not the one before the first
    journal.navigated("tab-1", "http://127.0.0.1:8000/last")
    assert names(journal.last("tab-1", 1)) == ["c"]  # nor one after the last
    assert journal.since_navigation("tab-1") == []
    journal.forget("tab-1")
    assert journal.last("tab-1", 3) == [] and names(journal.last("tab-2", 3)) == ["elsewhere"]


def test_the_journal_keeps_a_bounded_number_of_steps_per_tab() -> None:
    journal = ActJournal(per_tab=3)
    for name in "abcde":
        journal.record("tab-1", act(name))
    assert names(journal.last("tab-1", 10)) == ["c", "d", "e"]


def test_typed_values_are_what_was_typed_or_chosen_since_the_navigation() -> None:
    journal = ActJournal()
    journal.record("tab-1", ActStep("page.fill", {"text": "old"}, None, "http://h/"))
    journal.navigated("tab-1", "http://h/")
    journal.record("tab-1", ActStep("page.fill", {"text": "Buy milk"}, None, "http://h/"))
    journal.record("tab-1", ActStep("page.select", {"values": ["Title"]}, None, "http://h/"))
    journal.record("tab-1", ActStep("page.press", {"key": "Enter"}, None, "http://h/"))
    assert journal.typed_values("tab-1") == ["Buy milk", "Title"]
