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

The hook is generic: ``journaled`` wraps the runners of those built-ins where
the registry of built-ins is assembled (``dispatch/builtins.py``) and hands
each call an ``ActProbe`` (``dispatch/act_probe.py``); the tools only pass it
on in the change mark and report they make anyway, so the journal costs no
round trip of its own. A step whose element could not be described
is still recorded (with ``why_not``), so saving it is refused with the
reason instead of silently leaving a step out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..learning.steps import ActStep
from .act_probe import ActProbe
from .builtin_tool import BuiltinCall, BuiltinTool

if TYPE_CHECKING:
    from .service import ActionService

__all__ = ["ACTING_TOOLS", "ActJournal", "ActStep", "journaled"]

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
            values.extend(_values_of(step.tool, step.arguments))
        return values

    def forget(self, runtime_id: str) -> None:
        """A runtime left: its journal goes with it."""
        self._tabs.pop(runtime_id, None)


def _values_of(tool: str, arguments: dict[str, Any]) -> list[str]:
    if tool == "page.fill" and isinstance(arguments.get("text"), str):
        return [arguments["text"]]
    if tool == "page.select" and isinstance(arguments.get("values"), list):
        return [v for v in arguments["values"] if isinstance(v, str)]
    return []


def _resolve_arguments(tool: str, own: dict[str, Any]) -> dict[str, Any] | None:
    """What ``refs.resolve`` is asked, as the tool itself asks it: its ref or its text (None: it names no element).

    Resolving through the page tools' own resolver (observe_refs.js) means a call that named its
    element by text is described as exactly the element it acted on.
    """
    where: dict[str, Any] = {key: own[key] for key in ("ref", "text") if key in own}
    if tool == "page.fill" and "files" in own:
        return None  # an upload is not learned: a saved tool would carry the user's file paths (docs/mcp-surface.md)
    if tool == "page.fill":
        # page_fill {ref, text} types text into ref; {ref|text, value} types value into the field ref or text names.
        where = where if "value" in own else {key: own[key] for key in ("ref",) if key in own}
        return {**where, "field": True} if where else None
    if tool == "page.select" and "text" in where:
        where["field"] = True  # a <select> is a field (combobox): the text names the field, as page_select means it
    return where or None


def _kept_arguments(tool: str, own: dict[str, Any]) -> dict[str, Any]:
    """The values a step repeats: typed text, key, chosen options (the text naming an element is not a value)."""
    if tool == "page.fill":
        if "files" in own:
            return {}
        typed = own["value"] if "value" in own else own.get("text")
        return {"text": typed} if isinstance(typed, str) else {}
    keep = {"page.press": ("key",), "page.select": ("values",)}.get(tool, ())
    return {key: own[key] for key in keep if key in own}


def _counts(texts: Any, watch: list[str], element: dict[str, Any] | None) -> dict[str, int]:
    """The counts of the texts the journal watched (and the element's row), nothing else a page answered."""
    row = (element or {}).get("container") or {}
    wanted = {*watch, *([row["text"]] if isinstance(row, dict) and isinstance(row.get("text"), str) else [])}
    if not isinstance(texts, dict):
        return {}
    return {k: v for k, v in texts.items() if k in wanted and isinstance(v, int) and not isinstance(v, bool)}


def _why_not(before: dict[str, Any] | None, asked: dict[str, Any] | None) -> str | None:
    """Why a step cannot be repeated, from what ``refs.change_mark`` said before the action (None: it can)."""
    if before is None:
        return "its element could not be described (the action ran no change mark)"
    failed = before.get("why_not")
    if isinstance(failed, dict):
        return f"its element could not be described ({failed.get('code')}: {failed.get('message')})"
    if asked is None or not isinstance(before.get("element"), dict):
        return "this step names no element that can be described again"
    return None


def _acting(run: Callable[[ActionService, BuiltinCall], Awaitable[Any]], tool: str) -> Callable[[ActionService, BuiltinCall], Awaitable[Any]]:
    async def journaled_run(service: ActionService, call: BuiltinCall) -> Any:
        runtime = call.runtime
        journal = service.journal
        kept = _kept_arguments(tool, call.own)
        asked = _resolve_arguments(tool, call.own)
        watch = [*journal.typed_values(runtime.runtime_id), *_values_of(tool, kept)]
        # The element's description and the watched counts ride on the tool's own change mark and
        # report (act_probe.py): no round trip of their own.
        probe = ActProbe(asked, watch)
        output = await run(service, replace(call, probe=probe))
        before = probe.before
        why_not = _why_not(before, asked)
        found = (before or {}).get("element") if why_not is None else None
        element = found if isinstance(found, dict) else None
        texts_before = _counts((before or {}).get("texts"), probe.watch, element)
        texts_after = _counts(probe.after, probe.watch, None)
        last, last_kept = tool, kept
        if tool == "page.fill" and call.own.get("submit") is True and "files" not in call.own:
            # page_fill {submit}: two steps a saved tool repeats, the fill then Enter in the same field; what
            # the call made appear is the Enter's.
            journal.record(runtime.runtime_id, ActStep(tool, kept, element, runtime.url, why_not, texts_before, texts_before))
            last, last_kept = "page.press", {"key": "Enter"}
        journal.record(runtime.runtime_id, ActStep(last, last_kept, element, runtime.url, why_not, texts_before, texts_after, appeared=tuple(probe.appeared)))
        return output

    return journaled_run


def _navigating(run: Callable[[ActionService, BuiltinCall], Awaitable[Any]]) -> Callable[[ActionService, BuiltinCall], Awaitable[Any]]:
    async def journaled_run(service: ActionService, call: BuiltinCall) -> Any:
        output = await run(service, call)
        # The tab it navigated: the one its answer names (a new tab), else the one it ran on.
        named = output.get("runtime_id") if isinstance(output, dict) else None
        runtime_id = named if isinstance(named, str) else call.target.runtime.runtime_id if call.target.runtime is not None else None
        if runtime_id is not None:
            # Where it landed: the answer's tab (after redirects), else the runtime's page now.
            tab = output.get("tab") if isinstance(output, dict) else None
            landed = tab.get("url") if isinstance(tab, dict) else None
            if not isinstance(landed, str) or not landed:
                info = service.bridge.registry.get(runtime_id)
                landed = info.url if info is not None else ""
            service.journal.navigated(runtime_id, landed)
        return output

    return journaled_run


def journaled(tool: BuiltinTool) -> BuiltinTool:
    """The built-in with its successful calls recorded in the service's journal (acting tools and navigation)."""
    if tool.name in ACTING_TOOLS:
        return replace(tool, run=_acting(tool.run, tool.name))
    if tool.name == NAVIGATE:
        return replace(tool, run=_navigating(tool.run))
    return tool
