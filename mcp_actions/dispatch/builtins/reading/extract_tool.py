"""``page.extract``: data read from a page into the shape of a small JSON Schema (docs/mcp-surface.md, "page_extract").

The schema is an object whose fields are strings, numbers, integers or booleans, or an array of
such objects: shapes a page shows as labelled values, definition lists, tables and repeated
items. The page engine reads them (``refs.extract``, ``runtimes/page/extract_schema.js``) and
says, for each value, the ref of the element it was read from (``sources``); a field the page
does not show is ``null`` and listed in ``missing``, never guessed, so an agent can tell "the
page says nothing" from a value. BAP's ``agent/extract`` is this tool (``bap/extract.py``).
"""

from __future__ import annotations

from typing import Any

from ....errors import ActionError, ErrorCode
from ...call.service import ActionService
from ...call.targets import TargetRule
from ..tool import BuiltinCall, BuiltinTool, builtin_binding

__all__ = ["EXTRACT_TOOL", "check_schema"]

_FIELD_TYPES = frozenset({"string", "number", "integer", "boolean"})
#: Fields one extraction may ask for (each is looked for across the page or each record).
MAX_FIELDS = 50

EXTRACT = builtin_binding(
    "page.extract",
    "Read data from the current page (or the part under `ref`) into `schema`: an object of string, number, integer "
    "or boolean fields, or an array of such objects (rows, items; `limit`: the first N only). Fields are found by their title or name where the "
    "page labels a value (labels, terms, row and column headers, 'Label: value'). Answers {data, sources: [{path, ref, "
    "text}], missing: [paths]}: a field the page does not show is null and in missing, never guessed.",
    {
        "type": "object",
        "required": ["schema"],
        "properties": {
            "schema": {"type": "object", "description": "A JSON Schema: {type: object, properties: {name: {type, title?}}} or {type: array, items: that}."},
            "ref": {"type": "string", "pattern": "^@?e[0-9]+$", "description": "Read only the part under this element ref (@e12)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "An array schema: at most this many items, the first ones (records still counts them all)."},
        },
        "additionalProperties": False,
    },
    {"title": "Extract data", "readOnlyHint": True, "openWorldHint": True},
)


def _record_fields(schema: Any, path: str) -> None:
    if not isinstance(schema, dict) or schema.get("type", "object") != "object" or not isinstance(schema.get("properties"), dict) or not schema["properties"]:
        raise ActionError(f"{path} must be an object schema with properties", code=ErrorCode.INVALID_INPUT, evidence={"path": path})
    if len(schema["properties"]) > MAX_FIELDS:
        raise ActionError(f"{path} asks for more than {MAX_FIELDS} fields", code=ErrorCode.INVALID_INPUT, evidence={"path": path})
    for key, field in schema["properties"].items():
        kind = field.get("type", "string") if isinstance(field, dict) else None
        if kind not in _FIELD_TYPES:
            raise ActionError(
                f"{path}/properties/{key} must be a string, number, integer or boolean field (no nesting)",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": f"{path}/properties/{key}"},
            )


def check_schema(schema: Any) -> None:
    """``invalid_input`` unless ``schema`` is an object of scalar fields, or an array of such objects."""
    if isinstance(schema, dict) and schema.get("type") == "array":
        _record_fields(schema.get("items"), "/schema/items")
    else:
        _record_fields(schema, "/schema")


async def _extract(service: ActionService, call: BuiltinCall) -> Any:
    check_schema(call.own["schema"])
    out = await service.bridge.call("refs.extract", call.own, runtime_id=call.runtime.runtime_id, timeout_ms=call.deadline.remaining_ms())
    answer: dict[str, Any] = {"data": out.get("data"), "sources": out.get("sources") or [], "missing": out.get("missing") or []}
    if "records" in out:
        answer["records"] = out["records"]
    return answer


#: The extracting built-in (group ``observe``, with the other page tools).
EXTRACT_TOOL = BuiltinTool(EXTRACT, _extract, "observe", TargetRule("refs.extract", "reads"))
