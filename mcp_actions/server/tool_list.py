"""The tools of ``tools/list`` as wire JSON, from catalog bindings, without the MCP SDK.

Apart from ``tools.py`` (which makes the SDK's models and results) so that the stdio
server can answer its first ``tools/list`` before the SDK is imported (``early_answers.py``).
"""

from __future__ import annotations

from typing import Any

from ..catalog.catalog import ToolBinding
from ..dispatch.builtins.answers import META_UNTRUSTED
from .media import image_output_schema

__all__ = ["listed_hints", "tool_fields"]

#: The hints MCP defines (a map's other annotation keys are not sent).
_ANNOTATION_KEYS = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})


#: Hints whose value here is what MCP assumes when a tool says nothing.
_SILENT_DEFAULTS = {"readOnlyHint": False, "idempotentHint": False, "openWorldHint": True}


def listed_hints(hints: dict[str, Any] | None) -> dict[str, Any]:
    """The hints worth sending: those that differ from MCP's defaults and mean something.

    Every byte of ``tools/list`` is paid in the host's context on every turn, so a
    hint equal to MCP's default (``openWorldHint: true``, ``readOnlyHint: false``)
    is left out, and so are ``destructiveHint``/``idempotentHint`` of a read-only
    tool (the spec gives them meaning only when ``readOnlyHint`` is false).
    ``destructiveHint`` is kept either way when set: true is the default, but
    said explicitly it is the map's warning. The title is the tool's own
    ``title``, not repeated here.
    """
    listed = {key: value for key, value in (hints or {}).items() if key in _ANNOTATION_KEYS and _SILENT_DEFAULTS.get(key, not value) != value}
    if listed.get("readOnlyHint"):
        listed.pop("destructiveHint", None)
        listed.pop("idempotentHint", None)
    return listed


def tool_fields(binding: ToolBinding) -> dict[str, Any]:
    """The MCP ``Tool`` for one binding as it goes on the wire: name, title, schemas, annotations and ``_meta``.

    Plain JSON, so that ``tools/list`` can be answered before the SDK is loaded
    (``early_answers.py``); ``tools.mcp_tool`` makes the SDK's model of the same. A field
    with no value is left out, as the SDK leaves it out.
    """
    annotations = listed_hints(binding.annotations)
    output_schema = binding.result_schema if isinstance(binding.result_schema, dict) and binding.result_schema.get("type") == "object" else None
    if output_schema is not None and _image_tool(binding):
        output_schema = image_output_schema(output_schema)
    meta = binding.meta()
    if binding.page_tool:
        # A page declared it (WebMCP, ABP, WAB): its description and schema are the page's words
        # (the description also says so in its text, protocols/page_maps.py).
        meta[META_UNTRUSTED] = True
        # And its output schema is not handed on: a host's client checks every result against an
        # outputSchema with its own validator (the MCP SDK's: plain jsonschema, backtracking regexes,
        # uniqueItems comparing every pair), so a page could stall the host with a schema it wrote.
        # The server has already held the result to it, on RE2 and under the call's deadline.
        output_schema = None
    if binding.confirm:
        meta["mcp-actions/confirm"] = True  # the server asks the user before the call reaches the page
    fields = {
        "name": binding.mcp_name,
        "title": binding.title,
        "description": binding.description,
        "inputSchema": binding.mcp_input_schema,
        "outputSchema": output_schema,
        "annotations": annotations or None,
        "_meta": meta,
    }
    return {key: value for key, value in fields.items() if value is not None}


def _image_tool(binding: ToolBinding) -> bool:
    # Declared by the tool (a built-in's ``image_output``), never guessed from its name.
    return binding.image_output
