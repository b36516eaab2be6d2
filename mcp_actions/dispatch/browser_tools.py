"""Built-in browser tools: navigate, list/open/close/activate tabs, screenshot, answer a dialog.

Each tool runs one privileged primitive of the browser host (the reference
dictionary's ``browser.*``) on a runtime that advertises it: the runtime the
routing fields name, else the active runtime when it can, else the newest
runtime that can; when none is connected the browser is launched first
(unless ``--browser none``). Their output schemas are the dictionary's.
``browser.screenshot`` returns ``image`` (base64), ``mime_type``, ``width``
and ``height``; the MCP layer sends the image as image content (server/media.py).
"""

from __future__ import annotations

import copy
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..bridge.routing import Route
from ..catalog.catalog import ToolBinding
from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from ..manifest.dictionary import host_dictionary
from .builtin_tool import BuiltinRunner, BuiltinTool, builtin_binding
from .service import ActionService

__all__ = ["BROWSER_TOOLS"]

_TAB_ID = {"type": "integer", "minimum": 1, "description": "tab_id from browser.list_tabs; omit for the routed (active) tab."}


def _binding(name: str, primitive: str, description: str, schema: dict[str, Any], annotations: dict[str, Any]) -> ToolBinding:
    """A browser tool whose result has the shape of ``primitive``'s dictionary output."""
    return builtin_binding(name, description, schema, annotations, result_schema=copy.deepcopy(host_dictionary()[primitive]["output_schema"]))


NAVIGATE = builtin_binding(
    "browser.navigate",
    # Listed beside every map (a map names its site, not its tools' page): each byte is paid on every turn,
    # so no outputSchema either; the answer is small and says what it is (see _navigate).
    "Open url in the tab (reload: true reloads; new_tab: true opens a tab). Open a site's page before calling its tools.",
    {
        "type": "object",
        "properties": {
            "url": {"type": "string", "minLength": 1},
            "reload": {"type": "boolean"},
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
        },
        "additionalProperties": False,
    },
    {"title": "Screenshot", "readOnlyHint": True, "openWorldHint": False},
)
DISMISS_DIALOG = _binding(
    "browser.dismiss_dialog",
    "browser.dismiss_dialog",
    "Answer the JavaScript dialog (confirm, prompt, beforeunload) blocking a tab: accept (default) or cancel, with prompt_text for a prompt. "
    "Calls on a tab with an open dialog fail with dialog_open until it is answered.",
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


async def _runtime_for(service: ActionService, routing: dict[str, Any], need: str) -> RuntimeInfo:
    """The runtime to ask for ``need``: the routed one, else the active or newest runtime that has it."""
    route = Route.from_arguments(routing)
    if route.explicit:
        return await service.resolve_runtime(route, need=need)
    for attempt in range(2):
        registry = service.bridge.registry
        active = registry.active
        if active is not None and need in active.capabilities:
            return active
        capable = [r for r in registry.list() if need in r.capabilities]
        if capable:
            return capable[-1]
        if attempt or service.browser is None or service.browser_mode == "none":
            break
        await service.browser.ensure_started()
    connected = service.bridge.registry.list()
    raise ActionError(
        f"no connected runtime can run {need}" + ("" if service.browser is not None and service.browser_mode != "none" else " (the browser host is off: --browser none)"),
        code=ErrorCode.CAPABILITY_UNAVAILABLE,
        evidence={"capability": need, "runtimes": [{**r.describe(), "host": r.transport} for r in connected]},
    )


async def _run(service: ActionService, primitive: str, arguments: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> tuple[Any, RuntimeInfo]:
    runtime = await _runtime_for(service, routing, primitive)
    output = await service.bridge.call(primitive, arguments, runtime_id=runtime.runtime_id, timeout_ms=deadline.remaining_ms())
    return output, runtime


async def _navigate(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    if not own.get("url") and not own.get("reload"):
        raise ActionError("give a url, or reload: true", code=ErrorCode.INVALID_INPUT, evidence={"path": "/url"})
    if own.get("new_tab"):
        opened, runtime = await _run(service, "browser.open_tab", {"url": own["url"]}, routing, deadline)
        info = service.bridge.registry.get(opened["runtime_id"])
        tab = {"tab_id": opened.get("tab_id"), "runtime_id": opened["runtime_id"], "url": info.url if info else opened.get("url"), "title": info.title if info else None}
        return {"ok": True, "runtime_id": opened["runtime_id"], "tab": tab}
    arguments: dict[str, Any] = {key: own[key] for key in ("url", "reload", "tab_id") if key in own}
    output, runtime = await _run(service, "browser.navigate", arguments, routing, deadline)
    if isinstance(output, dict):
        navigated = (output.get("tab") or {}).get("runtime_id", runtime.runtime_id)
        service.bridge.registry.set_active(navigated)
        # The answer an agent reads after every navigation: the page, its title, its status and the
        # runtime, nothing else (``navigated`` only repeats ``ok``).
        output = {**{k: v for k, v in output.items() if k != "navigated"}, "runtime_id": navigated}
    return output


def _passthrough(primitive: str) -> BuiltinRunner:
    async def run(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
        output, _runtime = await _run(service, primitive, own, routing, deadline)
        return output

    return run


#: The browser built-ins, each with its runner and ``--builtin-tools`` group.
BROWSER_TOOLS: tuple[BuiltinTool, ...] = (
    BuiltinTool(NAVIGATE, _navigate, "navigate"),
    BuiltinTool(LIST_TABS, _passthrough("browser.claimed_tabs.list"), "tabs"),
    BuiltinTool(OPEN_TAB, _passthrough("browser.open_tab"), "tabs"),
    BuiltinTool(ACTIVATE_TAB, _passthrough("browser.claimed_tabs.activate"), "tabs"),
    BuiltinTool(CLOSE_TAB, _passthrough("browser.close_tab"), "tabs"),
    BuiltinTool(SCREENSHOT, _passthrough("browser.screenshot"), "capture"),
    BuiltinTool(DISMISS_DIALOG, _passthrough("browser.dismiss_dialog"), "dialogs"),
)
