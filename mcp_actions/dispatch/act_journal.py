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
appear or go. ``browser.navigate`` is a boundary: "since the last
navigation" starts after it.

The hook is generic: ``journaled`` wraps the runners of those built-ins where
the registry of built-ins is assembled (``dispatch/builtins.py``); the tools
themselves know nothing of it. A step whose element could not be described
is still recorded (with ``why_not``), so saving it is refused with the
reason instead of silently leaving a step out.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import ActionError
from ..learning.steps import ActStep
from .builtin_tool import BuiltinCall, BuiltinTool

if TYPE_CHECKING:
    from .service import ActionService

__all__ = ["ACTING_TOOLS", "ActJournal", "ActStep", "journaled"]

log = logging.getLogger(__name__)

#: The acting page tools whose successful calls are journaled (dotted names).
ACTING_TOOLS = frozenset({"page.click", "page.fill", "page.press", "page.select", "page.hover"})
NAVIGATE = "browser.navigate"
#: Steps kept per tab: enough for any tool worth saving (a workflow has at most 25 steps).
STEPS_PER_TAB = 40
#: The describe and count calls around an action are bookkeeping: they get a short time of their own.
DESCRIBE_TIMEOUT_MS = 3000


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


def _bookkeeping_ms(call: BuiltinCall) -> int:
    # Never longer than what is left of the call itself.
    return max(1, min(DESCRIBE_TIMEOUT_MS, call.deadline.remaining_ms()))


async def _engine(service: ActionService, call: BuiltinCall, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    output = await service.bridge.call(name, arguments, runtime_id=call.runtime.runtime_id, timeout_ms=_bookkeeping_ms(call))
    return output if isinstance(output, dict) else {}


def _acting(run: Callable[[ActionService, BuiltinCall], Awaitable[Any]], tool: str) -> Callable[[ActionService, BuiltinCall], Awaitable[Any]]:
    async def journaled_run(service: ActionService, call: BuiltinCall) -> Any:
        runtime = call.runtime
        journal = service.journal
        kept = _kept_arguments(tool, call.own)
        watch = [*journal.typed_values(runtime.runtime_id), *_values_of(tool, kept)]
        element: dict[str, Any] | None = None
        why_not: str | None = None
        before: dict[str, int] = {}
        asked = _resolve_arguments(tool, call.own)
        try:
            ref = (await _engine(service, call, "refs.resolve", asked)).get("ref") if asked is not None else None
            described = await _engine(service, call, "refs.describe", {**({"ref": ref} if isinstance(ref, str) else {}), "watch": watch[-19:]})
            found = described.get("element") if isinstance(ref, str) else None
            element = found if isinstance(found, dict) else None
            before = _counts(described.get("texts"), watch, element)
            if element is None:
                why_not = "this step names no element that can be described again"
        except ActionError as exc:
            # The action itself decides whether the call fails; the journal only notes why it cannot repeat it.
            why_not = f"its element could not be described ({exc.code}: {exc})"
        row = element.get("container") if element is not None else None
        if isinstance(row, dict):
            container = row.get("text")
            if isinstance(container, str) and container and container not in watch:
                watch.append(container)  # the row it sits in (counted before by refs.describe): did the step make it go?
        output = await run(service, call)
        after: dict[str, int] = {}
        if watch:
            try:
                after = _counts((await _engine(service, call, "refs.describe", {"watch": watch[-20:]})).get("texts"), watch, None)
            except ActionError as exc:  # a click that navigated away: nothing to count on this page
                log.debug("counting texts after %s failed: %s", tool, exc)
        journal.record(runtime.runtime_id, ActStep(tool, kept, element, runtime.url, why_not, before, after))
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
