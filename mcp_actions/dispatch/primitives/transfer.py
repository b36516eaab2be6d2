"""``transfer.write``, ``transfer.read``, ``transfer.insert``, ``transfer.clear``, run server-side.

Items live in the server's ``TransferBuffer``, so an item written while one
tab is driven can be inserted into another tab's editor. Results carry the
item's metadata (id, label, format, size) and never its value, except
``transfer.read`` with ``include_value: true``: the payload does not travel
through the model again. ``transfer.insert`` renders the item
(``transfer/render.py``) and inserts it with the runtime's own
``text.insert``, so it works on every host that has ``text.insert``.
"""

from __future__ import annotations

from typing import Any

from ...errors import ActionError, ErrorCode
from ...transfer.render import render_item, select_items
from .context import ServerCall

__all__ = ["transfer_clear", "transfer_insert", "transfer_read", "transfer_write"]


def _object(arguments: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = arguments.get(key)
    if value is not None and not isinstance(value, dict):
        raise ActionError(f"{key} must be an object", code=ErrorCode.INVALID_INPUT, evidence={"path": f"/{key}"})
    return value


async def transfer_write(call: ServerCall, arguments: dict[str, Any]) -> dict[str, Any]:
    """Store ``value`` under ``label`` (``mode`` replace, the default, or append); its metadata."""
    value = arguments.get("value")
    redaction = _object(arguments, "redaction")
    if redaction:
        value = _redacted(value, redaction)
    item = call.services.transfer.write(
        arguments["label"],
        arguments["format"],
        value,
        ttl_seconds=arguments.get("ttl_seconds"),
        mode=arguments.get("mode", "replace"),
        metadata=_object(arguments, "metadata"),
        source=call.source(),
    )
    return item.describe()


def _redacted(value: Any, redaction: dict[str, Any]) -> Any:
    """``value`` without the object members ``redaction.keys`` names, at any depth."""
    keys = redaction.get("keys")
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise ActionError("redaction is {keys: [member names to drop]}", code=ErrorCode.INVALID_INPUT, evidence={"path": "/redaction/keys"})
    drop = set(keys)

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items() if k not in drop}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(value)


async def transfer_read(call: ServerCall, arguments: dict[str, Any]) -> dict[str, Any]:
    """An item's metadata; its value too with ``include_value: true``."""
    item = call.services.transfer.get(label=arguments.get("label"), item_id=arguments.get("id"))
    return item.describe(include_value=arguments.get("include_value") is True)


async def transfer_insert(call: ServerCall, arguments: dict[str, Any]) -> dict[str, Any]:
    """Render an item and insert it with the calling runtime's ``text.insert``; how much went in, never what."""
    item = call.services.transfer.get(label=arguments.get("label"), item_id=arguments.get("id"))
    selected = select_items(item.value, _object(arguments, "item_selector"))
    text = render_item(item.format, selected, _object(arguments, "render"))
    insert: dict[str, Any] = {"text": text, "mode": arguments.get("mode", "append")}
    target = _object(arguments, "target")
    if target is not None:
        insert["target"] = target
    done = await call.call_runtime("text.insert", insert)
    out: dict[str, Any] = {
        "inserted": bool(done.get("inserted", True)) if isinstance(done, dict) else True,
        "inserted_bytes": len(text.encode("utf-8", "surrogatepass")),  # a lone surrogate ("\ud800") counts, never raises
        "label": item.label,
        "id": item.id,
        "format": item.format,
        "runtime_id": call.runtime.runtime_id,
    }
    if isinstance(done, dict):
        out.update({k: done[k] for k in ("matched_by", "fidelity") if k in done})
    return out


async def transfer_clear(call: ServerCall, arguments: dict[str, Any]) -> dict[str, Any]:
    """Remove one item (label or id) or every item of the server's buffer (``scope: session``)."""
    return {"cleared_count": call.services.transfer.clear(label=arguments.get("label"), item_id=arguments.get("id"))}
