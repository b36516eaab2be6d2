"""Recording the acting built-ins' calls in the service's journal (``act_journal.py`` says what is kept, and why).

``journaled(tool)`` wraps the runner of an acting page tool or of ``browser.navigate`` where the
registry of built-ins is assembled (``dispatch/builtins/registry.py``). Apart from the journal itself because
it runs on the service (``service.py``), which holds the journal: the service imports the journal,
this module imports both, and no circle joins them (issue 43).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ...call.service import ActionService
from ..acting.act_probe import ActProbe
from ..tool import BuiltinCall, BuiltinTool
from .act_journal import ACTING_TOOLS, NAVIGATE, ActStep, values_of

__all__ = ["journaled"]


def _resolve_arguments(tool: str, own: dict[str, Any]) -> dict[str, Any] | None:
    """What ``refs.resolve`` is asked, as the tool itself asks it: its ref, text or locator (None: it names no element).

    Resolving through the page tools' own resolver (observe_refs.js) means a call that named its
    element by text is described as exactly the element it acted on.
    """
    where: dict[str, Any] = {key: own[key] for key in ("ref", "text", "locator") if key in own}
    if tool == "page.fill" and "files" in own:
        return None  # an upload is not learned: a saved tool would carry the user's file paths (docs/mcp-surface.md)
    if "locator" in where and tool in ("page.select", "page.scroll"):
        return None  # their change mark describes a ref or a text (refs.change_mark); the others find a locator in refs.resolve {mark}
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
        watch = [*journal.typed_values(runtime.runtime_id), *values_of(tool, kept)]
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
        last, last_kept, last_why_not = tool, kept, why_not
        if tool in ("page.fill", "page.select") and call.own.get("submit") is True and "files" not in call.own:
            # page_fill {submit}: two steps a saved tool repeats, the fill then Enter in the same field; what
            # the call made appear is the Enter's. A <select>'s form is submitted instead (observe_tools.py
            # _submitted), which no saved step repeats yet: recorded, so saving says why rather than leave it out.
            journal.record(runtime.runtime_id, ActStep(tool, kept, element, runtime.url, why_not, texts_before, texts_before))
            last, last_kept = "page.press", {"key": "Enter"}
            if tool == "page.select" or (element or {}).get("tag") == "select":
                last_why_not = why_not or "a <select>'s form submitted by submit: true is not repeated by saved tools yet"
        journal.record(runtime.runtime_id, ActStep(last, last_kept, element, runtime.url, last_why_not, texts_before, texts_after, appeared=tuple(probe.appeared)))
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
