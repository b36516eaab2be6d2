"""Built-in tools: the one registry (``BUILTIN_TOOLS``), and the one-tool facade (``actions.site``).

Built-ins are catalog entries like manifest tools (same naming, same
``_meta`` key, same argument checking) whose implementation is Python here
instead of a page handler or workflow: browser control (``browser_tools``),
observe and act on a ref (``observe_tools``) and ``actions.site``. Each is one
``BuiltinTool`` (binding, runner, group); the catalogue, dispatch and
``--builtin-tools`` all read this registry.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...bridge.routing import Route
from ...catalog.catalog import ToolBinding
from ...catalog.context import context_for
from ...deadline import Deadline
from ...errors import ActionError, ErrorCode
from ...manifest.execution import ToolKind
from ..call.service import ActionService
from .acting.act_steps import ACT_TOOL
from .acting.observe_tools import OBSERVE_TOOLS
from .learning.journaling import journaled
from .learning.save_tool import SAVE_TOOL
from .reading.extract_tool import EXTRACT_TOOL
from .reading.read_tools import READ_TOOLS
from .tabs.browser_tools import BROWSER_TOOLS
from .tool import BuiltinCall, BuiltinTool, builtin_binding

__all__ = ["BUILTIN_TOOLS", "builtin_bindings"]

SITE = builtin_binding(
    "actions.site",
    # Listed beside maps' tools when a map has projections or context (see groups.py): each word is paid for on every turn.
    "One tool for every site action. mode=list: the maps' tools and the context blocks (documentation, not "
    "permission) for this page; mode=call: run `action` (dotted tool name) with `arguments`; state_read, "
    "state_summary (`summary_name`) and state_diff (JSON Patch since your last read) read the state projection "
    "`projection_name`.",
    {
        "type": "object",
        "required": ["mode"],
        "properties": {
            "mode": {"type": "string", "enum": ["list", "call", "state_read", "state_summary", "state_diff"]},
            "action": {"type": "string"},
            "arguments": {"type": "object"},
            "projection_name": {"type": "string"},
            "summary_name": {"type": "string"},
        },
        "additionalProperties": False,
    },
    {"title": "Site actions", "readOnlyHint": False, "openWorldHint": True},
)


async def _site(service: ActionService, call: BuiltinCall) -> Any:
    own, routing, deadline = call.own, call.routing, call.deadline
    mode = own["mode"]
    if mode == "list":
        listing: dict[str, Any] = {
            "tools": [
                {"name": b.name, "mcp_name": b.mcp_name, "description": b.description, "input_schema": b.input_schema, "kind": b.kind.listed_as, "manifest": b.namespace}
                for b in service.catalog.tools.values()
                if b.kind is not ToolKind.BUILTIN
            ],
            "context": _context_summaries(service, routing),
        }
        if service.catalog.failed_maps:
            # Their tools are missing; the agent (and through it the user) should know why.
            listing["failed_maps"] = service.catalog.failed_maps
        return listing
    if mode == "call":
        action = own.get("action")
        if not action:
            raise ActionError("mode=call needs `action`", code=ErrorCode.INVALID_INPUT, evidence={"path": "/action"})
        binding = service.catalog.find(action)
        if binding is None or binding.kind is ToolKind.BUILTIN and binding.name == "actions.site":
            raise ActionError(f"unknown action {action!r}", code=ErrorCode.UNKNOWN_ACTION, evidence={"path": "/action", "action": action})
        # The action gets what is left of this call's time (its own timeout_ms is this call's).
        arguments = {**(own.get("arguments") or {}), **routing, "timeout_ms": deadline.remaining_ms()}
        # The same guards as a direct call (a tool that needs the user's yes asks through the caller
        # of actions.site), and its steps are reported to that caller, as a direct call's would be.
        context = replace(service.current_context(), via="actions.site", on_admitted=None)
        return (await service.handle(binding.mcp_name, arguments, context)).output
    return await _state(service, mode, own, routing, deadline)


async def _state(service: ActionService, mode: str, own: dict[str, Any], routing: dict[str, Any], deadline: Deadline) -> Any:
    """The state modes: read, summarise or diff a state projection of the routed runtime."""
    if service.projections is None:
        raise ActionError(
            f"mode={mode} needs state projections, which this server does not run",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"path": "/mode", "capability": "state_projections"},
        )
    runtime = await service.resolve_runtime(Route.from_arguments(routing))
    remaining = deadline.remaining_ms()
    projection = own.get("projection_name")
    if mode == "state_read":
        return await service.projections.read(runtime.runtime_id, projection, timeout_ms=remaining)
    if mode == "state_summary":
        return await service.projections.summary(runtime.runtime_id, projection, own.get("summary_name"), timeout_ms=remaining)
    return await service.projections.diff(runtime.runtime_id, projection, timeout_ms=remaining)


def _context_summaries(service: ActionService, routing: dict[str, Any]) -> list[dict[str, Any]]:
    """The context blocks that apply to the routed runtime now (documentation, never permission).

    Listing never launches a browser: with no runtime to route to, there is no page and no context.
    """
    try:
        runtime = service.bridge.resolve(Route.from_arguments(routing))
    except ActionError:
        return []
    return [applied.summary() for applied in context_for(service.catalog, runtime)]


#: Every built-in tool, in the order docs/mcp-surface.md lists them: the one registry of built-ins.
#: The acting page tools and navigation are journaled (act_journal.py): what actions.save_tool saves.
#: page.act is not journaled itself: each of its steps is a call of an acting tool, journaled as such.
BUILTIN_TOOLS: tuple[BuiltinTool, ...] = (*map(journaled, (*BROWSER_TOOLS, *OBSERVE_TOOLS)), ACT_TOOL, *READ_TOOLS, EXTRACT_TOOL, SAVE_TOOL, BuiltinTool(SITE, _site, "site"))


def builtin_bindings() -> list[ToolBinding]:
    """The built-in tools, as catalog entries."""
    return [tool.binding for tool in BUILTIN_TOOLS]
