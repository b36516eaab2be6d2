"""One transfer buffer per server: labelled items with a format, an expiry and a size cap.

The buffer lives in the server, not in a page, so an item written from one
tab can be inserted into another tab (or another runtime altogether) and the
payload never has to travel back through the model. Items are addressed by
``label`` (unique; writing a label again replaces or appends to its item) or
by ``id`` (``tr-…``, new for every replacement). An expired item is kept as
a tombstone for a while so reading it says ``transfer_expired`` rather than
``transfer_label_not_found``.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..errors import ActionError, ErrorCode

__all__ = ["DEFAULT_TTL_SECONDS", "FORMATS", "MAX_ITEMS", "MAX_ITEM_BYTES", "MAX_TOTAL_BYTES", "TransferBuffer", "TransferItem"]

#: The formats the buffer keeps (the reference dictionary's enum).
FORMATS = ("text/plain", "application/json", "text/uri-list")
#: An item without ``ttl_seconds`` lives this long; ``ttl_seconds: 0`` means until cleared or the server stops.
DEFAULT_TTL_SECONDS = 3600
#: One item's payload: it must still fit in one bridge item when inserted (1 MiB), with room for the envelope.
MAX_ITEM_BYTES = 512 * 1024
#: Every live item together.
MAX_TOTAL_BYTES = 8 * 1024 * 1024
MAX_ITEMS = 256
#: How long an expired item is remembered as expired.
TOMBSTONE_SECONDS = 3600


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def payload_size(fmt: str, value: Any) -> int:
    """The payload's size in bytes: UTF-8 text, URI lines, or compact JSON (a lone surrogate counts 3, never raises)."""
    if fmt == "text/plain":
        return len(str(value).encode("utf-8", "surrogatepass"))
    if fmt == "text/uri-list":
        return len("\n".join(value).encode("utf-8", "surrogatepass"))
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


@dataclass
class TransferItem:
    """One item of the buffer; ``source`` says which runtime and page wrote it."""

    id: str
    label: str
    format: str
    value: Any
    size_bytes: int
    created_at: float
    expires_at: float | None
    metadata: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)

    def expired(self, now: float) -> bool:
        """True once the item's ttl has run out."""
        return self.expires_at is not None and now >= self.expires_at

    def describe(self, *, include_value: bool = False) -> dict[str, Any]:
        """The item's metadata (never its value unless ``include_value``): what tool results may carry."""
        out: dict[str, Any] = {
            "id": self.id,
            "label": self.label,
            "format": self.format,
            "size_bytes": self.size_bytes,
            "created_at": _iso(self.created_at),
        }
        if self.expires_at is not None:
            out["expires_at"] = _iso(self.expires_at)
        if self.metadata:
            out["metadata"] = self.metadata
        if self.source:
            out["source"] = self.source
        if include_value:
            out["value"] = self.value
        return out


def _normalise(fmt: str, value: Any) -> Any:
    """Check ``value`` fits ``fmt``; URI lists become a list of URIs."""
    if fmt not in FORMATS:
        raise ActionError(f"transfer format {fmt!r} is not one of {', '.join(FORMATS)}", code=ErrorCode.TRANSFER_FORMAT_UNSUPPORTED, evidence={"format": fmt, "formats": list(FORMATS)})
    if fmt == "text/plain":
        if not isinstance(value, str):
            raise ActionError("a text/plain transfer value must be a string", code=ErrorCode.INVALID_INPUT, evidence={"path": "/value", "format": fmt})
        return value
    if fmt == "text/uri-list":
        lines = value.splitlines() if isinstance(value, str) else value
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise ActionError("a text/uri-list value is a string of lines or an array of strings", code=ErrorCode.INVALID_INPUT, evidence={"path": "/value", "format": fmt})
        # RFC 2483: lines starting with '#' are comments.
        return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return value


def _appended(item: TransferItem, fmt: str, value: Any) -> Any:
    """The value of ``item`` with ``value`` appended, or ``transfer_append_incompatible``."""
    evidence = {"label": item.label, "format": item.format, "appended_format": fmt}
    if fmt != item.format:
        raise ActionError(f"cannot append {fmt} to the {item.format} item {item.label!r}", code=ErrorCode.TRANSFER_APPEND_INCOMPATIBLE, evidence=evidence)
    if fmt == "text/plain":
        return item.value + value
    if fmt == "text/uri-list":
        return [*item.value, *value]
    if not isinstance(item.value, list):
        raise ActionError(
            f"the application/json item {item.label!r} holds a {type(item.value).__name__}; only an array can be appended to",
            code=ErrorCode.TRANSFER_APPEND_INCOMPATIBLE,
            evidence=evidence,
        )
    # An array extends the array; any other value becomes one more element.
    return [*item.value, *value] if isinstance(value, list) else [*item.value, value]


class TransferBuffer:
    """The items of one server, by label; ``clock`` gives seconds since the epoch."""

    def __init__(
        self,
        *,
        max_item_bytes: int = MAX_ITEM_BYTES,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        max_items: int = MAX_ITEMS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_item_bytes = max_item_bytes
        self.max_total_bytes = max_total_bytes
        self.max_items = max_items
        self.clock = clock
        self._items: dict[str, TransferItem] = {}
        self._expired: dict[str, tuple[str, float]] = {}  # label or id -> (label, when it expired)

    def __len__(self) -> int:
        self._sweep()
        return len(self._items)

    def _sweep(self) -> None:
        now = self.clock()
        for label, item in list(self._items.items()):
            if item.expired(now):
                del self._items[label]
                self._expired[label] = self._expired[item.id] = (label, item.expires_at or now)
        for key, (_, when) in list(self._expired.items()):
            if now - when > TOMBSTONE_SECONDS:
                del self._expired[key]

    def write(
        self,
        label: str,
        fmt: str,
        value: Any,
        *,
        ttl_seconds: int | None = None,
        mode: str = "replace",
        metadata: dict[str, Any] | None = None,
        source: dict[str, Any] | None = None,
    ) -> TransferItem:
        """Store ``value`` under ``label`` (``mode`` replace or append) and return the item.

        Raises ``transfer_format_unsupported``, ``transfer_append_incompatible``,
        ``transfer_payload_too_large`` (the item, or the buffer as a whole).
        """
        if not label:
            raise ActionError("a transfer item needs a non-empty label", code=ErrorCode.INVALID_INPUT, evidence={"path": "/label"})
        self._sweep()
        value = _normalise(fmt, value)
        now = self.clock()
        previous = self._items.get(label)
        if mode == "append" and previous is not None:
            value = _appended(previous, fmt, value)
        size = payload_size(fmt, value)
        if size > self.max_item_bytes:
            raise ActionError(
                f"the transfer item {label!r} would hold {size} bytes; the limit is {self.max_item_bytes}",
                code=ErrorCode.TRANSFER_PAYLOAD_TOO_LARGE,
                evidence={"label": label, "size_bytes": size, "max_bytes": self.max_item_bytes},
            )
        others = sum(item.size_bytes for key, item in self._items.items() if key != label)
        if others + size > self.max_total_bytes or (previous is None and len(self._items) >= self.max_items):
            raise ActionError(
                "the transfer buffer is full; clear items with transfer.clear",
                code=ErrorCode.TRANSFER_PAYLOAD_TOO_LARGE,
                evidence={"label": label, "size_bytes": size, "buffer_bytes": others, "max_total_bytes": self.max_total_bytes, "items": len(self._items)},
            )
        ttl = DEFAULT_TTL_SECONDS if ttl_seconds is None else ttl_seconds
        keep_id = mode == "append" and previous is not None
        item = TransferItem(
            id=previous.id if keep_id and previous is not None else f"tr-{secrets.token_hex(6)}",
            label=label,
            format=fmt,
            value=value,
            size_bytes=size,
            created_at=previous.created_at if keep_id and previous is not None else now,
            expires_at=now + ttl if ttl > 0 else None,
            metadata={**(previous.metadata if keep_id and previous is not None else {}), **(metadata or {})},
            source=dict(source or {}),
        )
        self._items[label] = item
        self._expired.pop(label, None)
        return item

    def get(self, *, label: str | None = None, item_id: str | None = None) -> TransferItem:
        """The live item with this label or id; ``transfer_expired`` or ``transfer_label_not_found`` otherwise."""
        if not label and not item_id:
            raise ActionError("name the transfer item by label or id", code=ErrorCode.INVALID_INPUT, evidence={"path": "/label"})
        self._sweep()
        found = self._items.get(label) if label else next((i for i in self._items.values() if i.id == item_id), None)
        if found is not None and (not item_id or found.id == item_id):
            return found
        key = label or item_id or ""
        if key in self._expired:
            raise ActionError(f"the transfer item {key!r} expired", code=ErrorCode.TRANSFER_EXPIRED, evidence={"label": self._expired[key][0], "expired_at": _iso(self._expired[key][1])})
        raise ActionError(
            f"no transfer item {'labelled ' + repr(label) if label else 'with id ' + repr(item_id)}",
            code=ErrorCode.TRANSFER_LABEL_NOT_FOUND,
            evidence={"label": label, "id": item_id, "labels": sorted(self._items)},
        )

    def clear(self, *, label: str | None = None, item_id: str | None = None) -> int:
        """Remove one item (by label or id) or, naming none, every item; how many were removed."""
        self._sweep()
        if not label and not item_id:
            count = len(self._items)
            self._items.clear()
            self._expired.clear()
            return count
        item = self.get(label=label, item_id=item_id)
        del self._items[item.label]
        return 1

    def labels(self) -> list[str]:
        """The labels of the live items."""
        self._sweep()
        return sorted(self._items)
