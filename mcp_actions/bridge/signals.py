"""Page-originated signals: which events a runtime may send, and their checks.

A ``dom_event`` is accepted only for a signal a loaded manifest declares for
that runtime's surface, whose ingestion is enabled, whose DOM event name
matches, whose payload is valid against the declared schema and under a size
cap. Accepted events are stored as untrusted page data; they are never turned
into instructions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ActionError, ErrorCode
from ..jsonutil import json_pointer, json_size
from ..schema_check import CompiledSchema
from .items import DomEvent
from .registry import RuntimeInfo

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SignalSource", "SignalSpec", "accept_event", "page_event_record"]

#: Largest accepted event payload, in bytes of compact JSON.
DEFAULT_MAX_EVENT_BYTES = 16_000


@dataclass(frozen=True)
class SignalSpec:
    """One declared signal: its name, DOM event and payload schema."""

    name: str
    event: str | None
    enabled: bool
    payload_schema: dict[str, Any] | None = None

    def payload_check(self) -> CompiledSchema | None:
        """The compiled payload schema (None when the signal declares none)."""
        if not isinstance(self.payload_schema, dict):
            return None
        return _compiled_for(self.payload_schema, self.name)


_COMPILED: dict[int, CompiledSchema] = {}


def _compiled_for(schema: dict[str, Any], signal: str) -> CompiledSchema:
    # Keyed by identity: specs live as long as the catalog that owns the schema dicts, and a
    # schema that cannot be compiled is then reported once, not on every event.
    cached = _COMPILED.get(id(schema))
    if cached is None or cached.schema is not schema:
        cached = _COMPILED[id(schema)] = CompiledSchema(schema, label=f"the payload schema of signal {signal!r}")
    return cached


#: Given a runtime, the signals declared for it, by signal name.
SignalSource = Callable[[RuntimeInfo], Mapping[str, SignalSpec]]


def accept_event(item: DomEvent, signals: Mapping[str, SignalSpec], *, max_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> dict[str, Any]:
    """Check one ``dom_event`` against the declared signals; return the record to log.

    Raises ``ActionError`` (``unknown_signal`` / ``permission_denied`` / ``invalid_event``, or
    ``invalid_schema`` when the declared payload schema cannot be compiled) with evidence.
    """
    spec = signals.get(item.name)
    evidence: dict[str, Any] = {"event_id": item.event_id, "name": item.name}
    if spec is None:
        raise ActionError(f"signal {item.name!r} is not declared for this surface", code=ErrorCode.UNKNOWN_SIGNAL, evidence=evidence)
    if not spec.enabled:
        raise ActionError(f"ingestion of signal {item.name!r} is not enabled", code=ErrorCode.PERMISSION_DENIED, evidence=evidence)
    if item.event is not None and spec.event is not None and item.event != spec.event:
        raise ActionError(
            f"signal {item.name!r} is declared for DOM event {spec.event!r}, not {item.event!r}",
            code=ErrorCode.INVALID_EVENT,
            evidence={**evidence, "event": item.event, "expected_event": spec.event},
        )
    size = json_size(item.payload)
    if size > max_bytes:
        raise ActionError(
            f"event payload of {size} bytes exceeds the {max_bytes}-byte limit",
            code=ErrorCode.INVALID_EVENT,
            evidence={**evidence, "bytes": size, "max_bytes": max_bytes},
        )
    check = spec.payload_check()
    if check is not None:
        try:
            error = check.first_error(item.payload)
        except ActionError as exc:  # the declared schema cannot be compiled: refuse, never wave through
            raise ActionError(exc.message, code=exc.code, evidence={**evidence, **exc.evidence}) from exc
        if error is not None:
            pointer = json_pointer(error.absolute_path)
            raise ActionError(
                f"event payload invalid at {pointer}: {error.message}",
                code=ErrorCode.INVALID_EVENT,
                evidence={**evidence, "path": pointer},
            )
    return page_event_record(
        event_id=item.event_id,
        name=item.name,
        event=item.event or spec.event,
        url=item.url,
        payload=item.payload,
        previous_call_id=item.previous_call_id,
        observed_at=item.observed_at,
    )


def page_event_record(
    *, event_id: str, name: str, event: str | None, url: str | None, payload: Any, previous_call_id: str | None, observed_at: str | None
) -> dict[str, Any]:
    """A page event as the runtime's event log keeps it (``actions://runtimes/{id}/events``), marked untrusted."""
    return {
        "event_id": event_id,
        "name": name,
        "event": event,
        "url": url,
        "payload": payload,
        "previous_call_id": previous_call_id,
        "observed_at": observed_at,
        "received_at": time.time(),
        # Page data is never an instruction: say so where agents read it.
        "trust": "untrusted_page_data",
    }
