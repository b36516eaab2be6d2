"""Built-in browser tools: navigate, list/open/close/activate tabs, screenshot, answer a dialog.

Each tool runs one privileged primitive of the browser host (the reference
dictionary's ``browser.*``) on the runtime dispatch chose for it before the
policy judged it (its ``TargetRule``, ``targets.py``): the runtime the routing
fields name, else the active runtime when it provides the primitive, else the
newest that does; when none is connected the browser is launched first
(unless ``--browser none``). A navigation is judged by its destination and,
once it ran, by where it landed (``ActionService.judge_landing``). Their
output schemas are the dictionary's.
``browser.screenshot`` returns ``image`` (base64), ``mime_type``, ``width``
and ``height``; its binding says so (``image_output``), and the MCP layer sends the image as image content (server/media.py).
``browser_screenshot {marks: true}`` asks the page engine which elements ``page_observe`` lists in the
viewport and where the browser lays them out (``refs.marks``, observe_marks.js), takes the plain picture,
and draws the numbered badges onto it here, outside the page (``marks_picture.py``): the answer adds the
list of badge → ref (``marks_text``). The boxes are read again once the picture is taken, and an element
that moved meanwhile gets no badge (it would sit where the element no longer is).
"""

from __future__ import annotations

import copy
from typing import Any

from ....catalog.catalog import ToolBinding
from ....defaults import SCREENSHOT_MAX_KILOBYTES
from ....errors import ActionError, ErrorCode
from ....manifest.dictionary import host_dictionary
from ....page_chars import shown
from ...call.service import ActionService
from ...call.targets import TargetRule
from ..answers import BriefAnswer, navigate_text, page_meta, quote
from ..tool import BuiltinCall, BuiltinRunner, BuiltinTool, builtin_binding
from .marks_picture import draw_marks, unmoved

__all__ = ["BROWSER_TOOLS"]

_TAB_ID = {"type": "integer", "minimum": 1, "description": "tab_id from browser.list_tabs; omit for the routed (active) tab."}


def _binding(
    name: str,
    primitive: str,
    description: str,
    schema: dict[str, Any],
    annotations: dict[str, Any],
    *,
    image_output: bool = False,
    more_output: dict[str, Any] | None = None,
) -> ToolBinding:
    """A browser tool whose result has the shape of ``primitive``'s dictionary output (``image_output``: a picture), plus ``more_output``'s properties."""
    output_schema = copy.deepcopy(host_dictionary()[primitive]["output_schema"])
    if more_output:
        output_schema["properties"] = {**output_schema.get("properties", {}), **more_output}
    return builtin_binding(name, description, schema, annotations, result_schema=output_schema, image_output=image_output)


NAVIGATE = builtin_binding(
    "browser.navigate",
    # Listed beside every map (a map names its site, not its tools' page): each byte is paid on every turn,
    # so no outputSchema either; the answer is small and says what it is (see _navigate).
    "Open url in the tab (reload: true reloads; history: back|forward; new_tab: true opens a tab). Open a site's page before calling its tools.",
    {
        "type": "object",
        "properties": {
            "url": {"type": "string", "minLength": 1},
            "reload": {"type": "boolean"},
            "history": {"type": "string", "enum": ["back", "forward"]},
            "new_tab": {"type": "boolean"},
            "tab_id": {"type": "integer", "minimum": 1},
        },
        "additionalProperties": False,
    },
    {"title": "Navigate browser", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
)
LIST_TABS = _binding(
    "browser.list_tabs",
    "browser.claimed_tabs.list",
    "List the browser's tabs: tab_id, url, title, which one is active, their runtime ids and same-origin frames, any open dialog.",
    {"type": "object", "properties": {}, "additionalProperties": False},
    {"title": "List tabs", "readOnlyHint": True, "openWorldHint": False},
)
OPEN_TAB = _binding(
    "browser.open_tab",
    "browser.open_tab",
    "Open a new tab (at url, once loaded); it becomes a runtime and, unless active is false, the active one.",
    {
        "type": "object",
        "properties": {
            "url": {"type": "string", "minLength": 1, "description": "URL to open; a blank tab when omitted."},
            "active": {"type": "boolean", "description": "Bring the new tab to the front and make it active (default true)."},
        },
        "additionalProperties": False,
    },
    {"title": "Open tab", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
)
CLOSE_TAB = _binding(
    "browser.close_tab",
    "browser.close_tab",
    "Close a tab (the active one by default). The last tab is never closed.",
    {"type": "object", "properties": {"tab_id": _TAB_ID}, "additionalProperties": False},
    {"title": "Close tab", "readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
)
ACTIVATE_TAB = _binding(
    "browser.activate_tab",
    "browser.claimed_tabs.activate",
    "Bring a tab to the front and make it the active runtime, so calls without routing fields go to it.",
    {"type": "object", "required": ["tab_id"], "properties": {"tab_id": {**_TAB_ID, "description": "tab_id from browser.list_tabs."}}, "additionalProperties": False},
    {"title": "Activate tab", "readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
)
SCREENSHOT = _binding(
    "browser.screenshot",
    "browser.screenshot",
    "A screenshot of the tab's viewport, scaled and compressed to fit max_width/max_height (default 1600) and max_kilobytes (default 512).",
    {
        "type": "object",
        "properties": {
            "format": {"type": "string", "enum": ["png", "jpeg"]},
            "quality": {"type": "integer", "minimum": 1, "maximum": 100, "description": "JPEG quality."},
            "max_width": {"type": "integer", "minimum": 1},
            "max_height": {"type": "integer", "minimum": 1},
            "max_kilobytes": {"type": "integer", "minimum": 1},
            "marks": {"type": "boolean", "description": "Numbered badges on what page_observe lists in view, and the list badge → ref."},
        },
        "additionalProperties": False,
    },
    {"title": "Screenshot", "readOnlyHint": True, "openWorldHint": False},
    image_output=True,  # the MCP adapter sends the picture as image content (server/media.py)
    more_output={"marks": {"type": "array", "items": {"type": "object"}}},  # with marks: [{n, ref, role, name?, bounds}]
)
DISMISS_DIALOG = _binding(
    "browser.dismiss_dialog",
    "browser.dismiss_dialog",
    "Answer the JavaScript dialog (confirm, prompt, beforeunload) blocking a tab: accept (default) or cancel, with prompt_text for a prompt. "
    "Calls on a tab with an open dialog fail with dialog_open until it is answered. Accepting a page's leave-site question "
    "(beforeunload) leaves it: the navigation that asked goes on, and navigated.url says where the tab is.",
    {
        "type": "object",
        "properties": {
            "tab_id": _TAB_ID,
            "accept": {"type": "boolean", "description": "Accept (true, default) or cancel (false)."},
            "prompt_text": {"type": "string", "description": "Text for a prompt() dialog."},
        },
        "additionalProperties": False,
    },
    {"title": "Answer dialog", "readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
)


async def _run(service: ActionService, primitive: str, arguments: dict[str, Any], call: BuiltinCall) -> Any:
    """``primitive`` on the runtime dispatch chose for the call (``TargetRule``)."""
    return await service.bridge.call(primitive, arguments, runtime_id=call.runtime.runtime_id, timeout_ms=call.deadline.remaining_ms())


async def _navigate(service: ActionService, call: BuiltinCall) -> Any:
    own = call.own
    if not own.get("url") and not own.get("reload") and not own.get("history"):
        raise ActionError("give a url, reload: true or history: back|forward", code=ErrorCode.INVALID_INPUT, evidence={"path": "/url"})
    if own.get("history") and any(own.get(key) for key in ("url", "reload", "new_tab")):
        raise ActionError("history goes back or forward in the tab: give it without url, reload or new_tab", code=ErrorCode.INVALID_INPUT, evidence={"path": "/history"})
    if own.get("new_tab"):
        opened = await _run(service, "browser.open_tab", {"url": own["url"]}, call)
        info = service.bridge.registry.get_visible(opened["runtime_id"])
        tab = {"tab_id": opened.get("tab_id"), "runtime_id": opened["runtime_id"], "url": info.url if info else opened.get("url"), "title": info.title if info else None}
        await service.judge_landing(opened["runtime_id"], tab["url"])
        answer = {"ok": True, "runtime_id": opened["runtime_id"], "tab": tab}
        return BriefAnswer(answer, navigate_text(answer, asked=own["url"]))
    arguments: dict[str, Any] = {key: own[key] for key in ("url", "reload", "history", "tab_id") if key in own}
    output = await _run(service, "browser.navigate", arguments, call)
    if isinstance(output, dict):
        tab = output.get("tab") or {}
        navigated = tab.get("runtime_id", call.runtime.runtime_id)
        # Judged by its destination before it ran; a redirect is judged by where it landed.
        await service.judge_landing(navigated, tab.get("url") or output.get("url"))
        service.bridge.registry.set_active(navigated)
        # The answer an agent reads after every navigation: the page, its title, its status and the
        # runtime, nothing else (``navigated`` only repeats ``ok``). Programs read it as
        # structuredContent; the model reads one line in the text (page_answers.navigate_text).
        output = {**{k: v for k, v in output.items() if k != "navigated"}, "runtime_id": navigated}
        if isinstance(tab, dict) and isinstance(tab.get("title"), str):
            output["tab"] = {**tab, "title": shown(tab["title"])}  # the page's title as a person sees it
        return BriefAnswer(output, navigate_text(output, asked=own.get("url")))
    return output


async def _open_tab(service: ActionService, call: BuiltinCall) -> Any:
    active_before = service.bridge.registry.active_id
    opened = await _run(service, "browser.open_tab", call.own, call)
    if isinstance(opened, dict) and isinstance(opened.get("runtime_id"), str):
        await service.judge_landing(opened["runtime_id"], opened.get("url"))
        if call.own.get("active") is False and active_before is not None:
            # A tab opened in the background does not take the calls without routing fields.
            service.bridge.registry.set_active(active_before)
    return opened


def marks_text(marks: list[Any], moved: list[Any] | None = None) -> str:
    """The badges for the model, one line each in page_observe's order: ``1 @e3 button "Save"`` (names are the page's, quoted).

    ``moved``: the marks left out because their element moved while the picture was taken, said in one last line.
    """
    lines = []
    for mark in marks:
        if isinstance(mark, dict):
            name = mark.get("name")
            lines.append(" ".join(str(part) for part in (mark.get("n"), mark.get("ref"), mark.get("role"), quote(name) if name else None) if part))
    if moved:
        refs = ", ".join(str(m.get("ref")) for m in moved if isinstance(m, dict))
        lines.append(f"(no badge for {refs}: moved while the picture was taken)")
    return "\n".join(lines) or "(no element to act on is in view: no badges)"


async def _screenshot(service: ActionService, call: BuiltinCall) -> Any:
    """The viewport's picture; with ``marks``, numbered badges drawn onto the picture (not the page), and the list of them."""
    arguments = {key: value for key, value in call.own.items() if key != "marks"}
    if call.own.get("marks") is not True:
        return await _run(service, "browser.screenshot", arguments, call)
    if not call.runtime.provides("refs.marks"):
        raise ActionError("this tab cannot list marks (it has no page engine)", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"path": "/marks"})
    # The page is asked only what is in view and where the browser put it; it draws nothing (observe_marks.js).
    listed = await _run(service, "refs.marks", {}, call)
    shot = await _run(service, "browser.screenshot", arguments, call)
    if not isinstance(shot, dict):
        return shot
    marks = [m for m in (listed.get("marks") or []) if isinstance(m, dict)] if isinstance(listed, dict) else []
    moved: list[dict[str, Any]] = []
    if marks:
        # Where the elements are now, the picture taken: one that moved meanwhile gets no badge (observe_marks.js).
        now = await _run(service, "refs.marks", {"refs": [m.get("ref") for m in marks]}, call)
        marks, moved = unmoved(marks, now.get("bounds") if isinstance(now, dict) else None)
    viewport = listed.get("viewport") if isinstance(listed, dict) and isinstance(listed.get("viewport"), dict) else None
    quality, kilobytes = arguments.get("quality", 80), arguments.get("max_kilobytes", SCREENSHOT_MAX_KILOBYTES)
    marked = draw_marks(shot, marks, viewport, quality=quality, max_bytes=kilobytes * 1024)
    return BriefAnswer({**marked, "marks": marks}, marks_text(marks, moved), page_meta(call.runtime.runtime_id, "quoted"))


def _passthrough(primitive: str) -> BuiltinRunner:
    async def run(service: ActionService, call: BuiltinCall) -> Any:
        return await _run(service, primitive, call.own, call)

    return run


#: What a tab listing leaves out of its structured answer: bookkeeping no caller acts on (the host's claim time,
#: its internal routing key, the host's labels); tab_id and runtime_id name a tab (issue 44: said once, compactly).
_TAB_BOOKKEEPING = ("claimed_at", "runtime_key")


def tabs_text(output: dict[str, Any]) -> str:
    """``browser_list_tabs`` for the model: one line per tab, ``tab 2: "Title" https://… (active)``, and what else it has."""
    lines = []
    for tab in output.get("tabs") or []:
        if not isinstance(tab, dict):
            continue
        title = str(tab.get("title") or "")
        line = f"tab {tab.get('tab_id')}: " + " ".join(part for part in (quote(title) if title else "", str(tab.get("url") or "")) if part)
        notes = [note for note, shown in (("active", tab.get("active")), ("crashed", tab.get("crashed")), ("not connected", tab.get("connected") is False)) if shown]
        frames = [f for f in tab.get("frames") or [] if isinstance(f, dict)]
        if frames:
            notes.append(f"{len(frames)} frame{'s' if len(frames) > 1 else ''}")
        dialog = tab.get("dialog")
        if isinstance(dialog, dict):
            notes.append(f"{dialog.get('type') or 'dialog'} open: {quote(dialog.get('message') or '')}")
        lines.append(line + (f" ({', '.join(notes)})" if notes else ""))
    return "\n".join(lines) or "no tabs"


async def _list_tabs(service: ActionService, call: BuiltinCall) -> Any:
    """The host's tabs: the structured list for programs (BAP's pages), a line per tab for the model (BriefAnswer)."""
    output = await _run(service, "browser.claimed_tabs.list", call.own, call)
    if not isinstance(output, dict):
        return output
    tabs = [{k: v for k, v in tab.items() if k not in _TAB_BOOKKEEPING} if isinstance(tab, dict) else tab for tab in output.get("tabs") or []]
    for tab in tabs:
        if isinstance(tab, dict) and isinstance(tab.get("title"), str):
            tab["title"] = shown(tab["title"])  # the page's title as a person sees it (no invisible characters)
        if isinstance(tab, dict) and isinstance(tab.get("dialog"), dict) and isinstance(tab["dialog"].get("message"), str):
            tab["dialog"] = {**tab["dialog"], "message": shown(tab["dialog"]["message"])}  # the page's words, as seen
        if isinstance(tab, dict) and isinstance(tab.get("frames"), list):
            tab["frames"] = [
                {k: shown(v) if k == "title" and isinstance(v, str) else v for k, v in f.items() if k not in _TAB_BOOKKEEPING} if isinstance(f, dict) else f
                for f in tab["frames"]
            ]
    answer = {key: value for key, value in output.items() if key != "inventory"}
    answer["tabs"] = tabs
    return BriefAnswer(answer, tabs_text(answer))


#: The browser built-ins, each with its runner, ``--builtin-tools`` group and target: a navigation is
#: judged by its destination, a call given a ``tab_id`` by that tab (``targets.py``).
BROWSER_TOOLS: tuple[BuiltinTool, ...] = (
    BuiltinTool(NAVIGATE, _navigate, "navigate", TargetRule("browser.navigate", "acts", tab_argument="tab_id", destination_argument="url")),
    BuiltinTool(LIST_TABS, _list_tabs, "tabs", TargetRule("browser.claimed_tabs.list", "none")),
    BuiltinTool(OPEN_TAB, _open_tab, "tabs", TargetRule("browser.open_tab", "none", destination_argument="url")),
    BuiltinTool(ACTIVATE_TAB, _passthrough("browser.claimed_tabs.activate"), "tabs", TargetRule("browser.claimed_tabs.activate", "none", tab_argument="tab_id")),
    BuiltinTool(CLOSE_TAB, _passthrough("browser.close_tab"), "tabs", TargetRule("browser.close_tab", "acts", tab_argument="tab_id")),
    BuiltinTool(SCREENSHOT, _screenshot, "capture", TargetRule("browser.screenshot", "reads")),
    BuiltinTool(DISMISS_DIALOG, _passthrough("browser.dismiss_dialog"), "dialogs", TargetRule("browser.dismiss_dialog", "acts", tab_argument="tab_id")),
)
