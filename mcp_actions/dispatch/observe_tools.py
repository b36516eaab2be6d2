"""Built-in tools for pages with no map: observe with stable refs, and act on a ref.

``page.observe`` lists the visible interactive elements of the routed page
(``refs.observe`` in the page engine: ``@e1``-style refs stable across
observations, role, accessible name, value, allowed actions, optional
bounds, ``change`` of new/stable/moved) under a byte budget, with the total
count when it truncates. ``page.click``, ``page.fill``, ``page.press`` and
``page.select`` act on a ref through the ordinary primitives (trusted input
in the browser host): the page engine marks the ref's element
(``refs.resolve``) and the primitive targets it by that mark.
"""

from __future__ import annotations

from typing import Any

from ..catalog.catalog import ToolBinding
from .builtin_tool import BuiltinCall, BuiltinTool, builtin_binding
from .service import ActionService
from .targets import TargetRule

__all__ = ["OBSERVE_TOOLS"]

_REF = {"type": "string", "pattern": "^@?e[0-9]+$", "description": "An element ref from page_observe, e.g. @e12."}


def _binding(name: str, description: str, properties: dict[str, Any], required: list[str], annotations: dict[str, Any]) -> ToolBinding:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return builtin_binding(name, description, schema, annotations)


OBSERVE = _binding(
    "page.observe",
    "List the visible interactive elements of the current page with stable refs (@e1...), role, name, value and "
    "allowed actions; use it on pages with no declared tools, then act with page_click/page_fill/page_press/page_select.",
    {
        "max_bytes": {"type": "integer", "minimum": 256, "maximum": 1000000, "default": 16000, "description": "Byte budget of the element list."},
        "bounds": {"type": "boolean", "description": "Include each element's viewport box."},
        "viewport_only": {"type": "boolean", "description": "Only elements inside the viewport."},
    },
    [],
    {"title": "Observe page", "readOnlyHint": True, "openWorldHint": True},
)
CLICK = _binding("page.click", "Click the element with this ref (from page_observe).", {"ref": _REF}, ["ref"], {"title": "Click ref", "readOnlyHint": False, "openWorldHint": True})
FILL = _binding(
    "page.fill",
    "Replace the text of the editable element with this ref.",
    {"ref": _REF, "text": {"type": "string"}},
    ["ref", "text"],
    {"title": "Fill ref", "readOnlyHint": False, "openWorldHint": True},
)
PRESS = _binding(
    "page.press",
    "Focus the element with this ref and press a key or chord (Enter, Tab, Control+A...).",
    {"ref": _REF, "key": {"type": "string", "minLength": 1}},
    ["ref", "key"],
    {"title": "Press on ref", "readOnlyHint": False, "openWorldHint": True},
)
SELECT = _binding(
    "page.select",
    "Choose options of the <select> with this ref, by value or visible label.",
    {"ref": _REF, "values": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    ["ref", "values"],
    {"title": "Select on ref", "readOnlyHint": False, "openWorldHint": True},
)


async def _call(service: ActionService, call: BuiltinCall, name: str, arguments: dict[str, Any]) -> Any:
    return await service.bridge.call(name, arguments, runtime_id=call.runtime.runtime_id, timeout_ms=call.deadline.remaining_ms())


async def _observe(service: ActionService, call: BuiltinCall) -> Any:
    output = await _call(service, call, "refs.observe", call.own)
    return {**output, "runtime_id": call.runtime.runtime_id} if isinstance(output, dict) else output


async def _click(service: ActionService, call: BuiltinCall) -> Any:
    target = await _call(service, call, "refs.resolve", {"ref": call.own["ref"]})
    info = await _call(service, call, "locator.element_info", {"locator": {"selector": target["selector"]}})
    await _call(service, call, "pointer.click", info["clickable_center"])
    return {"clicked": True, "ref": target["ref"], "role": target.get("role"), "name": target.get("name")}


async def _fill(service: ActionService, call: BuiltinCall) -> Any:
    own = call.own
    target = await _call(service, call, "refs.resolve", {"ref": own["ref"]})
    out = await _call(service, call, "text.insert", {"text": own["text"], "target": {"selector": target["selector"]}, "mode": "replace"})
    return {"filled": True, "ref": target["ref"], "inserted_length": out.get("inserted_length") if isinstance(out, dict) else None}


async def _press(service: ActionService, call: BuiltinCall) -> Any:
    own = call.own
    target = await _call(service, call, "refs.resolve", {"ref": own["ref"], "focus": True})
    out = await _call(service, call, "keyboard.press", {"key": own["key"]})
    return {"pressed": True, "ref": target["ref"], "key": out.get("key") if isinstance(out, dict) else own["key"]}


async def _select(service: ActionService, call: BuiltinCall) -> Any:
    return await _call(service, call, "refs.select", {"ref": call.own["ref"], "values": call.own["values"]})


#: The observe-and-act built-ins (group ``observe``), each with its runner.
OBSERVE_TOOLS: tuple[BuiltinTool, ...] = (
    BuiltinTool(OBSERVE, _observe, "observe", TargetRule("refs.observe", "reads")),
    BuiltinTool(CLICK, _click, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(FILL, _fill, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(PRESS, _press, "observe", TargetRule("refs.resolve", "acts")),
    BuiltinTool(SELECT, _select, "observe", TargetRule("refs.select", "acts")),
)
