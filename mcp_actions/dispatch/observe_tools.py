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

from ..bridge.registry import RuntimeInfo
from ..bridge.routing import Route
from ..catalog.catalog import ToolBinding
from ..deadline import Deadline
from .builtin_tool import BuiltinTool, builtin_binding
from .service import ActionService

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


async def _runtime(service: ActionService, routing: dict[str, Any], need: str) -> RuntimeInfo:
    return await service.resolve_runtime(Route.from_arguments(routing), need=need)


async def _call(service: ActionService, runtime: RuntimeInfo, name: str, arguments: dict[str, Any], deadline: Deadline) -> Any:
    return await service.bridge.call(name, arguments, runtime_id=runtime.runtime_id, timeout_ms=deadline.remaining_ms())


async def _observe(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    runtime = await _runtime(service, routing, "refs.observe")
    output = await _call(service, runtime, "refs.observe", own, deadline)
    return {**output, "runtime_id": runtime.runtime_id} if isinstance(output, dict) else output


async def _click(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    runtime = await _runtime(service, routing, "refs.resolve")
    target = await _call(service, runtime, "refs.resolve", {"ref": own["ref"]}, deadline)
    info = await _call(service, runtime, "locator.element_info", {"locator": {"selector": target["selector"]}}, deadline)
    await _call(service, runtime, "pointer.click", info["clickable_center"], deadline)
    return {"clicked": True, "ref": target["ref"], "role": target.get("role"), "name": target.get("name")}


async def _fill(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    runtime = await _runtime(service, routing, "refs.resolve")
    target = await _call(service, runtime, "refs.resolve", {"ref": own["ref"]}, deadline)
    out = await _call(service, runtime, "text.insert", {"text": own["text"], "target": {"selector": target["selector"]}, "mode": "replace"}, deadline)
    return {"filled": True, "ref": target["ref"], "inserted_length": out.get("inserted_length") if isinstance(out, dict) else None}


async def _press(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    runtime = await _runtime(service, routing, "refs.resolve")
    target = await _call(service, runtime, "refs.resolve", {"ref": own["ref"], "focus": True}, deadline)
    out = await _call(service, runtime, "keyboard.press", {"key": own["key"]}, deadline)
    return {"pressed": True, "ref": target["ref"], "key": out.get("key") if isinstance(out, dict) else own["key"]}


async def _select(service: ActionService, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    runtime = await _runtime(service, routing, "refs.select")
    return await _call(service, runtime, "refs.select", {"ref": own["ref"], "values": own["values"]}, deadline)


#: The observe-and-act built-ins (group ``observe``), each with its runner.
OBSERVE_TOOLS: tuple[BuiltinTool, ...] = tuple(
    BuiltinTool(binding, run, "observe") for binding, run in ((OBSERVE, _observe), (CLICK, _click), (FILL, _fill), (PRESS, _press), (SELECT, _select))
)
