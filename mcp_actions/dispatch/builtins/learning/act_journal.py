"""The journal of acting page-tool calls per tab: what ``actions_save_tool`` turns into a tool.

Every successful ``page.click``, ``page.fill``, ``page.press``,
``page.select`` and ``page.hover`` (a hover menu opens before its item is
clicked) is recorded per runtime (a tab keeps its runtime id across
navigations) with how a person would find its element again: the page
engine's ``refs.describe`` (``runtimes/page/describe.js``) of the element the
tool's own resolver (``refs.resolve``: a ref, or the text naming one element)
finds, read *before* the action, since a click may remove what it clicked. Around the action
the engine also counts the texts the journal watches (values typed so far,
the row the element sits in), so learning can tell what the step made
appear or go: counted *after* the acting tool's settle, so a reply the page
shows a few hundred milliseconds later (a save, then the new row) is seen.
``browser.navigate`` is a boundary: "since the last navigation" starts after it.

The hook is generic: ``journaling.journaled`` wraps the runners of those built-ins
where the registry of built-ins is assembled (``dispatch/builtins/registry.py``) and hands
each call an ``ActProbe`` (``dispatch/builtins/acting/act_probe.py``); the tools only pass it
on in the change mark and report they make anyway, so the journal costs no
round trip of its own. A step whose element could not be described
is still recorded (with ``why_not``), so saving it is refused with the
reason instead of silently leaving a step out.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ....learning.steps import ActStep

__all__ = ["ACTING_TOOLS", "NAVIGATE", "ActJournal", "ActStep", "values_of"]

#: The acting page tools whose successful calls are journaled (dotted names).
ACTING_TOOLS = frozenset({"page.click", "page.fill", "page.press", "page.select", "page.hover"})
NAVIGATE = "browser.navigate"
#: Steps kept per tab: enough for any tool worth saving (a workflow has at most 25 steps).
STEPS_PER_TAB = 40


class ActJournal:
    """Acting calls per runtime, newest last, with navigation boundaries; bounded per tab."""

    def __init__(self, per_tab: int = STEPS_PER_TAB) -> None:
        self._tabs: dict[str, deque[ActStep]] = {}
        self._per_tab = per_tab

    def record(self, runtime_id: str, step: ActStep) -> None:
        """Add a step (or a boundary) to a runtime's journal."""
        self._tabs.setdefault(runtime_id, deque(maxlen=self._per_tab)).append(step)

    def navigated(self, runtime_id: str, url: str) -> None:
        """``browser.navigate`` ran on this runtime: later steps start a new stretch."""
        self.record(runtime_id, ActStep("browser.navigate", {}, None, url, boundary=True))

    def since_navigation(self, runtime_id: str) -> list[ActStep]:
        """The acting steps since the runtime's last navigation, oldest first."""
        out: list[ActStep] = []
        for step in reversed(self._tabs.get(runtime_id, ())):
            if step.boundary:
                break
            out.append(step)
        return out[::-1]

    def last(self, runtime_id: str, count: int) -> list[ActStep]:
        """The runtime's last ``count`` acting steps, oldest first, with the navigations between them.

        A ``browser_navigate`` between two of them stays in the list (a boundary entry with its URL):
        the tool repeats it. Fewer than ``count`` when the journal holds fewer.
        """
        out: list[ActStep] = []
        acting = 0
        for step in reversed(self._tabs.get(runtime_id, ())):
            if acting >= count:
                break
            if step.boundary and not out:
                continue  # a navigation after the last step is not part of it
            out.append(step)
            acting += not step.boundary
        while out and out[-1].boundary:
            out.pop()  # nor one before the first
        return out[::-1]

    def typed_values(self, runtime_id: str) -> list[str]:
        """The texts typed and options chosen since the last navigation: what the journal watches appear."""
        values: list[str] = []
        for step in self.since_navigation(runtime_id):
            values.extend(values_of(step.tool, step.arguments))
        return values

    def forget(self, runtime_id: str) -> None:
        """A runtime left: its journal goes with it."""
        self._tabs.pop(runtime_id, None)


def values_of(tool: str, arguments: dict[str, Any]) -> list[str]:
    """The texts a step typed or chose (what the journal watches appear after it)."""
    if tool == "page.fill" and isinstance(arguments.get("text"), str):
        return [arguments["text"]]
    if tool == "page.select" and isinstance(arguments.get("values"), list):
        return [v for v in arguments["values"] if isinstance(v, str)]
    return []
