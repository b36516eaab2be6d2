"""What the journal of acting calls asks of an acting page tool's own round trips, and what it got.

Learning a tool from a session (``dispatch/builtins/learning/act_journal.py``) needs, around each acting call, the
acted-on element described as a person would find it again and the counts of a few watched texts
before and after the action. Asking for them in calls of their own cost three extra round trips per
acting call; instead the journal hands the call an :class:`ActProbe`, and the acting tool
(``dispatch/builtins/acting/observe_tools.py``) adds its arguments to the two calls it makes anyway:
the change mark before the action (``refs.change_mark {describe, watch}``, or ``refs.resolve {mark}``
when the tool resolves its element and marks in one round trip) and ``refs.change_report`` after it
(``watch``), then gives the probe their outputs. A tool that runs without a probe asks nothing extra.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["WATCH_CAP", "ActProbe"]

#: Texts the page engine counts in one call (describe.js WATCH_CAP).
WATCH_CAP = 20


@dataclass
class ActProbe:
    """The journal's questions for one acting call, and the answers its page round trips carried."""

    #: How the acting tool names its element (``ref``/``text``, ``field``), or None: it names none to describe.
    describe: dict[str, Any] | None
    #: The texts to count before and after the action (typed values so far, then the element's row).
    watch: list[str] = field(default_factory=list)
    #: ``refs.change_mark``'s ``journal``: ``element``, ``texts``, or ``why_not``; None until the mark ran.
    before: dict[str, Any] | None = None
    #: ``refs.change_report``'s ``texts``; None until the report ran (or when it could not, the page gone).
    after: dict[str, Any] | None = None
    #: ``refs.change_report``'s ``added``: the lines the action made appear (learning/settle.py waits for their like).
    appeared: list[str] = field(default_factory=list)

    def mark_arguments(self) -> dict[str, Any]:
        """What ``refs.change_mark`` is asked beside its own work."""
        out: dict[str, Any] = {}
        if self.describe is not None:
            out["describe"] = self.describe
        if self.watch or self.describe is not None:
            # Even empty: the row the described element sits in is counted too (describe.js adds it,
            # keeping one place free for it), so the journal sees whether the step made the row go.
            out["watch"] = self.watch[-(WATCH_CAP - 1) :]
        return out

    def resolve_mark_arguments(self) -> dict[str, Any]:
        """What ``refs.resolve {mark}`` is asked when the tool takes its mark while resolving its element.

        The element it resolves is the one the journal describes (the tool resolves it as the journal would),
        so ``describe`` only says to describe it; the rest is what ``refs.change_mark`` is asked.
        """
        out = self.mark_arguments()
        if "describe" in out:
            out["describe"] = True
        return out

    def marked(self, output: Any) -> None:
        """``refs.change_mark`` answered: keep its journal part, and watch the element's row after the action too."""
        journal = output.get("journal") if isinstance(output, dict) else None
        self.before = journal if isinstance(journal, dict) else {}
        element = self.before.get("element")
        row = element.get("container") if isinstance(element, dict) else None
        text = row.get("text") if isinstance(row, dict) else None
        if isinstance(text, str) and text and text not in self.watch:
            self.watch.append(text)  # did the step make its row go?

    def report_arguments(self) -> dict[str, Any]:
        """What ``refs.change_report`` is asked beside its own work."""
        return {"watch": self.watch[-WATCH_CAP:]} if self.watch else {}

    def reported(self, output: Any) -> None:
        """``refs.change_report`` answered: keep the counts after the action."""
        texts = output.get("texts") if isinstance(output, dict) else None
        self.after = texts if isinstance(texts, dict) else {}
        added = output.get("added") if isinstance(output, dict) else None
        self.appeared = [line for line in added if isinstance(line, str)] if isinstance(added, list) else []
