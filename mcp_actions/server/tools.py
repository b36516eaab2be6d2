"""MCP tools from catalog bindings, and MCP results from call outcomes.

An unknown tool is a protocol error (JSON-RPC ``METHOD_NOT_FOUND``). Arguments
that break the input schema never reach a runtime and, like an action that ran
and failed, are a result with ``isError: true`` whose ``structuredContent``
holds the structured error (MCP 2025-11-25, SEP-1303: the model sees results,
not JSON-RPC errors, and corrects itself from the error's path).
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..catalog.catalog import ToolBinding
from ..dispatch.builtins.answers import META_UNTRUSTED, BriefAnswer
from ..dispatch.call.after_action import Unchecked
from ..dispatch.call.tab_notes import TabChange
from ..errors import ActionError, UnknownTool
from ..jsonutil import fit_json
from .media import split_image
from .tool_list import listed_hints, tool_fields

__all__ = ["META_STATE_SUMMARY", "META_TAB", "META_UNCHECKED", "META_UNTRUSTED", "TEXT_LIMIT", "error_result", "listed_hints", "mark_page_content", "mcp_tool", "protocol_error", "success_result"]


def mcp_tool(binding: ToolBinding) -> types.Tool:
    """The MCP ``Tool`` for one binding (``tool_list.tool_fields``: name, title, schemas, annotations and ``_meta``)."""
    return types.Tool.model_validate(tool_fields(binding))


# META_UNTRUSTED marks a tool a page declared, its results, and the page tools' answers that hand on
# page text (dispatch/builtins/answers.py, which defines it): page words, never instructions.
#: The tab a call opened or moved to (``dispatch/call/tab_notes.py``), beside the line the model reads.
META_TAB = "mcp-actions/tab"
#: Checks after the action that could not finish (``dispatch/call/after_action.py``): the action ran, they are unknown.
META_UNCHECKED = "mcp-actions/unchecked"

#: Where a result carries the state summary its map asks for (``x_actions.result_summary``).
#: ``_meta`` rather than ``structuredContent``, so the tool's ``outputSchema`` (its map's
#: ``result_schema``, maybe ``additionalProperties: false``) still describes the output exactly.
META_STATE_SUMMARY = "mcp-actions/state_summary"

#: Longest text a result carries beside its structuredContent (the full value is structured).
TEXT_LIMIT = 4000


def _image_tool(binding: ToolBinding) -> bool:
    # Declared by the tool (a built-in's ``image_output``), never guessed from its name.
    return binding.image_output


def success_result(
    output: Any,
    binding: ToolBinding | None = None,
    *,
    state_summary: dict[str, Any] | None = None,
    tab: TabChange | None = None,
    unchecked: tuple[Unchecked, ...] = (),
) -> types.CallToolResult:
    """A successful call: the output as ``structuredContent`` (objects as they are, others wrapped) and a short text.

    For an image tool (its binding's ``image_output``) the image is MCP image content and
    the structured output keeps only its description (see ``media.py``). A
    ``state_summary`` (the map's ``x_actions.result_summary``, read after the
    call) goes to ``_meta["mcp-actions/state_summary"]`` and, for the model,
    into a second text block. ``tab``: the tab the call opened or moved to, said in one
    more short text line the model reads (and in ``_meta["mcp-actions/tab"]``). ``unchecked``: checks
    after the action that could not finish, in ``_meta["mcp-actions/unchecked"]`` and a note line each.
    """
    if binding is not None and binding.text_output and isinstance(output, str):
        # The answer is text for the model (page_read): sent once, as it is, never cut to TEXT_LIMIT.
        # A text answer may carry _meta for the host (a page tool's runtime_id), never shown to the model.
        text_meta = dict(getattr(output, "meta", None) or {})
        text = str(output) + "".join(f"\nNote: {each.note}." for each in unchecked)
        if unchecked:
            text_meta[META_UNCHECKED] = [each.to_meta() for each in unchecked]
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=False, _meta=text_meta or None)
    image = None
    if binding is not None and _image_tool(binding):
        output, image = split_image(output)
    structured = output if isinstance(output, dict) else {"result": output}
    # Compact: the text is what most hosts put in the model's context, on every call. A BriefAnswer
    # (browser_navigate) says it in one line of its own rather than the structured JSON again.
    if isinstance(output, BriefAnswer):
        text = output.text if len(output.text) <= TEXT_LIMIT else f"{output.text[:TEXT_LIMIT]}… ({len(output.text)} characters)"
    else:
        # Cut for size, the text stays JSON a host can parse: the first items that fit, and a line
        # saying how many were left out (never a cut mid-token).
        text, left_out = fit_json(output, TEXT_LIMIT)
        if left_out:
            text = f"{text}\n{left_out}"
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
    if image is not None:
        content.append(image)
    meta: dict[str, Any] | None = dict(output.meta) if isinstance(output, BriefAnswer) and output.meta else None
    if state_summary is not None:
        meta = {**(meta or {}), META_STATE_SUMMARY: state_summary}
        content.append(types.TextContent(type="text", text=_summary_text(state_summary)))
    if tab is not None:
        meta = {**(meta or {}), META_TAB: tab.to_meta()}
        content.append(types.TextContent(type="text", text=f"Note: {tab.line()}."))
    if unchecked:
        meta = {**(meta or {}), META_UNCHECKED: [each.to_meta() for each in unchecked]}
        content.extend(types.TextContent(type="text", text=f"Note: {each.note}.") for each in unchecked)
    return types.CallToolResult(content=content, structured_content=structured, is_error=False, _meta=meta)


def _summary_text(state_summary: dict[str, Any]) -> str:
    """The state summary as the model reads it: which summary, then its value (or why it is missing)."""
    name = f"{state_summary.get('projection')}/{state_summary.get('summary')}"
    if "error" in state_summary:
        error = state_summary["error"]
        return f"State summary {name} unavailable: {error.get('code')}: {error.get('message')}"
    # The summary already fits its max_bytes; no cut needed.
    return f"State summary {name} after the call: " + json.dumps(state_summary.get("value"), ensure_ascii=False, default=str)


#: Where a text-answer tool's error (page tools) carries its structured ``error``: the model reads the text.
META_ERROR = "mcp-actions/error"


def error_result(error: ActionError, binding: ToolBinding | None = None) -> types.CallToolResult:
    """A call refused for its arguments, or that ran and failed: ``isError`` with the structured error.

    A tool that declares a text answer (``text_output``: the page tools) answers its errors as text too:
    ``code: message`` once, the structured ``error`` in ``_meta["mcp-actions/error"]`` for the host.
    """
    body = error.to_error()
    if binding is not None and binding.text_output:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{error.code}: {error.message}")], is_error=True, _meta={META_ERROR: body}
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{error.code}: {error.message}")],
        structured_content={"error": body},
        is_error=True,
    )


def protocol_error(error: ActionError) -> MCPError:
    """The JSON-RPC error for a call of a tool that does not exist (or, given another error, invalid params)."""
    code = types.METHOD_NOT_FOUND if isinstance(error, UnknownTool) else types.INVALID_PARAMS
    return MCPError(code, f"{error.code}: {error.message}", data=error.to_error())



def mark_page_content(result: types.CallToolResult, binding: ToolBinding) -> types.CallToolResult:
    """Results of tools a page declared (WebMCP, ABP, WAB) are the page's words: untrusted data.

    ``_meta["mcp-actions/untrusted"]`` is true and ``_meta["mcp-actions/protocol"]``
    names the protocol, so a host can show or fence them as page content.
    """
    if not binding.page_tool:
        return result
    meta = dict(result.meta or {})
    meta.update({META_UNTRUSTED: True, "mcp-actions/protocol": binding.protocol})
    result.meta = meta
    return result
