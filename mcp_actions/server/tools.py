"""MCP tools from catalog bindings, and MCP results from call outcomes.

Protocol errors stay protocol errors: an unknown tool or arguments that break
the input schema are JSON-RPC errors (``INVALID_PARAMS``) and never reach a
runtime. An action that ran and failed is a result with ``isError: true``
whose ``structuredContent`` holds the structured error.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..catalog.catalog import ToolBinding
from ..errors import ActionError, UnknownTool

__all__ = ["TEXT_LIMIT", "error_result", "mark_page_content", "mcp_tool", "protocol_error", "success_result"]

_ANNOTATION_KEYS = {
    "title": "title",
    "readOnlyHint": "read_only_hint",
    "destructiveHint": "destructive_hint",
    "idempotentHint": "idempotent_hint",
    "openWorldHint": "open_world_hint",
}


def mcp_tool(binding: ToolBinding) -> types.Tool:
    """The MCP ``Tool`` for one binding: name, title, schemas, annotations and ``_meta``."""
    annotations = None
    if binding.annotations:
        values = {ours: binding.annotations[theirs] for theirs, ours in _ANNOTATION_KEYS.items() if theirs in binding.annotations}
        annotations = types.ToolAnnotations(**values) if values else None
    output_schema = binding.result_schema if isinstance(binding.result_schema, dict) and binding.result_schema.get("type") == "object" else None
    meta = binding.meta()
    if binding.confirm:
        meta["mcp-actions/confirm"] = True  # the server asks the user before the call reaches the page
    return types.Tool(
        name=binding.mcp_name,
        title=binding.title,
        description=binding.description,
        input_schema=binding.mcp_input_schema,
        output_schema=output_schema,
        annotations=annotations,
        meta=meta,
    )


#: Longest text a result carries beside its structuredContent (the full value is structured).
TEXT_LIMIT = 4000


def success_result(output: Any) -> types.CallToolResult:
    """A successful call: the output as ``structuredContent`` (objects as they are, others wrapped) and a short text."""
    structured = output if isinstance(output, dict) else {"result": output}
    text = json.dumps(output, ensure_ascii=False, default=str)
    if len(text) > TEXT_LIMIT:
        text = f"{text[:TEXT_LIMIT]}… ({len(text)} characters; the whole result is in structuredContent)"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=False,
    )


def error_result(error: ActionError) -> types.CallToolResult:
    """A call that ran and failed: ``isError`` with the structured error."""
    body = error.to_error()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{error.code}: {error.message}")],
        structured_content={"error": body},
        is_error=True,
    )


def protocol_error(error: ActionError) -> MCPError:
    """The JSON-RPC error for a call refused before it ran (unknown tool, invalid arguments)."""
    code = types.METHOD_NOT_FOUND if isinstance(error, UnknownTool) else types.INVALID_PARAMS
    return MCPError(code, f"{error.code}: {error.message}", data=error.to_error())



def mark_page_content(result: types.CallToolResult, binding: ToolBinding) -> types.CallToolResult:
    """Results of tools a page declared (WebMCP, ABP, WAB) are the page's words: untrusted data.

    ``_meta["mcp-actions/untrusted"]`` is true and ``_meta["mcp-actions/protocol"]``
    names the protocol, so a host can show or fence them as page content.
    """
    if binding.protocol == "actions.json":
        return result
    meta = dict(result.meta or {})
    meta.update({"mcp-actions/untrusted": True, "mcp-actions/protocol": binding.protocol})
    result.meta = meta
    return result
