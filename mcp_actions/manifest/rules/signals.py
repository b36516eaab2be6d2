"""Signals (page-originated events) and attachments (runtime-installed affordances).

An enabled signal (``ingestion: "enabled"``) needs the DOM ``event`` it
listens for, and its ``payload`` is a valid JSON Schema object. An attachment
needs a ``target`` and a ``lifecycle`` policy; the signals it emits are named
with safe identifiers (they may be runtime-defined, so they need not be
declared), and what its affordance opens is a declared tool or a primitive.
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import ATTACHMENT_FIELDS, DIRECTIONS, INGESTION_VALUES, SIGNAL_FIELDS
from .base import (
    Checks,
    Rules,
    check_enum,
    check_identifier,
    check_keys,
    check_required_identifier,
    check_string,
    check_unique_names,
    error,
    json_type,
    object_entries,
)
from .hints import did_you_mean
from .schema import check_schema
from .targets import check_target

__all__ = ["check_attachments", "check_signals"]


def check_signals(document: dict[str, Any], rules: Rules) -> Checks:
    """signals: names, direction, event (required when enabled), target, payload schema."""
    signals = yield from object_entries(document, "signals", "", what="a signal")
    for where, signal in signals:
        signal = yield from check_keys(signal, where, SIGNAL_FIELDS, rules, subject="signal")
        yield from check_required_identifier(signal, "name", where, missing="signal: 'name' is required", what="signal name")
        yield from check_string(signal, "description", where)
        yield from check_enum(signal, "direction", where, DIRECTIONS)
        yield from check_enum(signal, "ingestion", where, INGESTION_VALUES)
        if signal.get("ingestion") == "enabled" and "event" not in signal:
            yield error(child_pointer(where, "event"), ErrorCode.MISSING_FIELD, "an enabled signal needs 'event'")
        yield from check_string(signal, "event", where, non_empty=True)
        if "target" in signal:
            yield from check_target(signal["target"], child_pointer(where, "target"), rules)
        if "payload" in signal:
            yield from check_schema(signal["payload"], child_pointer(where, "payload"), "payload")
        for key in ("protocol", "source"):
            if key in signal and not isinstance(signal[key], dict):
                yield error(child_pointer(where, key), ErrorCode.INVALID_TYPE, f"{key} must be an object, got {json_type(signal[key])}")
    yield from check_unique_names(signals, "name", "signal name")


def _check_attachment_signals(value: Any, path: str) -> Checks:
    # An object (lifecycle event -> signal name), as the published simple-form map writes it
    # and as the manifest model loads it.
    if not isinstance(value, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"signals must be an object mapping events to signal names, got {json_type(value)}")
        return
    for key, name in value.items():
        yield from check_identifier(name, child_pointer(path, key), "attachment signal name")


def _check_affordance(affordance: Any, path: str, rules: Rules) -> Checks:
    if not isinstance(affordance, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"affordance must be an object, got {json_type(affordance)}")
        return
    opens = affordance.get("opens")
    if "opens" not in affordance:
        return
    opens_path = child_pointer(path, "opens")
    if not isinstance(opens, dict):
        yield error(opens_path, ErrorCode.INVALID_TYPE, f"opens must be an object, got {json_type(opens)}")
        return
    if "tool" in opens:
        tool = opens["tool"]
        where = child_pointer(opens_path, "tool")
        if not isinstance(tool, str):
            yield error(where, ErrorCode.INVALID_TYPE, f"a tool reference must be a string, got {json_type(tool)}")
        elif tool not in rules.primitives and not rules.index.declares("tool", tool):
            hint = did_you_mean(tool, rules.index.names.get("tool", frozenset()) | rules.primitives)
            yield error(where, ErrorCode.UNKNOWN_TOOL, f"{tool!r} is neither a declared tool nor a primitive{hint}")


def check_attachments(document: dict[str, Any], rules: Rules) -> Checks:
    """attachments: ids, a target and a lifecycle each, affordance, signal names."""
    attachments = yield from object_entries(document, "attachments", "", what="an attachment")
    for where, attachment in attachments:
        attachment = yield from check_keys(attachment, where, ATTACHMENT_FIELDS, rules, subject="attachment")
        yield from check_required_identifier(attachment, "id", where, missing="attachment: 'id' is required", what="attachment id")
        yield from check_string(attachment, "kind", where, non_empty=True)
        yield from check_string(attachment, "description", where)
        if "target" not in attachment:
            yield error(child_pointer(where, "target"), ErrorCode.MISSING_FIELD, "an attachment needs a 'target'")
        else:
            yield from check_target(attachment["target"], child_pointer(where, "target"), rules)
        if "lifecycle" not in attachment:
            yield error(child_pointer(where, "lifecycle"), ErrorCode.MISSING_FIELD, "an attachment needs a 'lifecycle' policy")
        elif not isinstance(attachment["lifecycle"], dict):
            yield error(child_pointer(where, "lifecycle"), ErrorCode.INVALID_TYPE, f"lifecycle must be an object, got {json_type(attachment['lifecycle'])}")
        if "affordance" in attachment:
            yield from _check_affordance(attachment["affordance"], child_pointer(where, "affordance"), rules)
        if "signals" in attachment:
            yield from _check_attachment_signals(attachment["signals"], child_pointer(where, "signals"))
    yield from check_unique_names(attachments, "id", "attachment id")
