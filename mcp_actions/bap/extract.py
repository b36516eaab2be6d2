"""``agent/extract``: MCP's ``page_extract`` in BAP's shapes (docs/bap.md, "Extract").

The data is read by the built-in ``page_extract`` (``dispatch/builtins/reading/extract_tool.py``), called through
``ActionService.handle`` as every BAP method is; nothing is read twice. BAP's schema may be a bare
string, number or boolean (read as one field named by the schema's description, else the
instruction) or an object with ``mode`` ``list``/``table`` (read as an array of them). Each value
comes with its ``sources`` entry (the element's ref, as a ref selector, and its text); a field
the page does not show is ``null``, listed in ``missing``, and lowers ``confidence``, which is
the share of the asked values the page showed: 1.0 when every one was read, 0 when none was
(then ``success`` is false). No value is ever guessed, so a confidence below 1 says exactly
which fields were not there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .errors import BapError

__all__ = ["agent_extract"]

_SCALARS = frozenset({"string", "number", "integer", "boolean"})


def _as_page_schema(schema: dict[str, Any], mode: Any, instruction: str) -> tuple[dict[str, Any], bool]:
    """``page_extract``'s schema for BAP's, and whether the answer is a bare value (a scalar schema)."""
    kind = schema.get("type")
    if kind in _SCALARS:
        title = schema.get("description") if isinstance(schema.get("description"), str) and schema["description"].strip() else instruction
        return {"type": "object", "properties": {"value": {"type": kind, "title": title}}}, True
    if kind == "object" and mode in ("list", "table"):
        return {"type": "array", "items": schema}, False
    return schema, False


async def agent_extract(params: dict[str, Any], call: Callable[[dict[str, Any]], Awaitable[Any]], scope_ref: str | None) -> dict[str, Any]:
    """The ``agent/extract`` result of ``params``; ``call`` runs ``page_extract`` with its arguments, ``scope_ref`` the selector's ref."""
    schema = params.get("schema")
    if not isinstance(schema, dict):
        raise BapError("InvalidParams", "agent/extract needs a schema", details={"code": "invalid_input"})
    given = params.get("instruction")
    instruction = given if isinstance(given, str) else ""
    page_schema, bare = _as_page_schema(schema, params.get("mode"), instruction)
    out = await call({"schema": page_schema, **({"ref": scope_ref} if scope_ref else {})})
    data, sources, missing = out.get("data"), list(out.get("sources") or []), list(out.get("missing") or [])
    if bare:
        data = data.get("value") if isinstance(data, dict) else None
    asked = len(sources) + len(missing)
    confidence = round(len(sources) / asked, 3) if asked else 0.0
    result: dict[str, Any] = {"success": bool(sources), "data": data, "confidence": confidence, "missing": missing}
    if params.get("includeSourceRefs") is not False:
        result["sources"] = [{"ref": s["ref"], "selector": {"type": "ref", "ref": s["ref"]}, "text": s.get("text", ""), "path": s.get("path")} for s in sources]
    if not sources:
        result["error"] = "the page shows none of the values asked for" if asked else "the page shows no record of that shape"
    return result
