"""parse_item: every malformed frame gets the exact code and evidence path; good items parse."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_actions.bridge.items import (
    ActionCall,
    ActionCallOutput,
    ActionErrorItem,
    DomEvent,
    RuntimeReady,
    RuntimeStatus,
    parse_item,
)
from mcp_actions.errors import ActionError

READY = {"type": "runtime_ready", "runtime_id": "rt-1", "url": "https://shop.test/"}
STATUS = {"type": "runtime_status", "runtime_id": "rt-1"}
CALL = {"type": "action_call", "call_id": "c-1", "name": "cart.add", "arguments": {"sku": "A1"}}
OUTPUT = {"type": "action_call_output", "call_id": "c-1", "runtime_id": "rt-1", "output": {"ok": True}}
ERROR = {"type": "action_error", "call_id": "c-1", "error": {"code": "target_not_found", "message": "no form"}}
EVENT = {"type": "dom_event", "event_id": "e-1", "runtime_id": "rt-1", "name": "cart.item_added", "payload": {"sku": "A1"}}


def without(item: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != key}


def with_(item: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**item, **fields}


def refusal(frame: Any, **kwargs: Any) -> ActionError:
    with pytest.raises(ActionError) as info:
        parse_item(frame, **kwargs)
    return info.value


@pytest.mark.parametrize(
    ("frame", "json_type"),
    [
        ("[1, 2]", "list"),  # an array is not an item
        ("42", "int"),  # a bare number
        ('"runtime_ready"', "str"),  # a bare string
        ("null", "NoneType"),  # JSON null
    ],
)
def test_a_frame_that_is_not_an_object_is_invalid(frame: str, json_type: str) -> None:
    error = refusal(frame)
    assert error.code == "invalid_item"
    assert error.evidence == {"json_type": json_type}


@pytest.mark.parametrize(
    "frame",
    [
        "{",  # truncated
        "not json at all",  # prose
        "{'type': 'runtime_ready'}",  # Python, not JSON
        "",  # empty frame
        "[" * 100_000,  # nested deeper than the interpreter's stack: must not escape as RecursionError
        b"\xff\xfe{}",  # bytes that are not UTF-8
    ],
)
def test_a_frame_that_is_not_json_is_invalid(frame: str | bytes) -> None:
    error = refusal(frame)
    assert error.code == "invalid_item"
    assert "not JSON" in error.message


@pytest.mark.parametrize(
    ("item", "evidence_type"),
    [
        ({"type": "hello"}, "hello"),  # unknown type name
        ({"type": "function_call", "call_id": "c"}, "function_call"),  # a Responses item is not a bridge item
        ({"runtime_id": "rt-1", "url": "x"}, None),  # no type at all
        ({"type": 7}, None),  # type of the wrong JSON type
    ],
)
def test_unknown_item_types_are_invalid(item: dict[str, Any], evidence_type: str | None) -> None:
    error = refusal(json.dumps(item))
    assert error.code == "invalid_item"
    assert error.evidence == {"type": evidence_type}


@pytest.mark.parametrize(
    ("item", "path"),
    [
        # runtime_ready requires runtime_id and url
        (without(READY, "runtime_id"), "/runtime_id"),
        (without(READY, "url"), "/url"),
        # runtime_status requires runtime_id
        (without(STATUS, "runtime_id"), "/runtime_id"),
        # action_call requires call_id, name, arguments
        (without(CALL, "call_id"), "/call_id"),
        (without(CALL, "name"), "/name"),
        (without(CALL, "arguments"), "/arguments"),
        # action_call_output requires call_id, runtime_id, output
        (without(OUTPUT, "call_id"), "/call_id"),
        (without(OUTPUT, "runtime_id"), "/runtime_id"),
        (without(OUTPUT, "output"), "/output"),
        # action_error requires error.code and error.message
        (without(ERROR, "error"), "/error"),
        (with_(ERROR, error={"message": "m"}), "/error/code"),
        (with_(ERROR, error={"code": "handler_failed"}), "/error/message"),
        # dom_event requires event_id, runtime_id, name, payload
        (without(EVENT, "event_id"), "/event_id"),
        (without(EVENT, "runtime_id"), "/runtime_id"),
        (without(EVENT, "name"), "/name"),
        (without(EVENT, "payload"), "/payload"),
    ],
)
def test_missing_required_fields_name_the_field(item: dict[str, Any], path: str) -> None:
    error = refusal(json.dumps(item))
    assert error.code == "invalid_item"
    assert error.evidence["type"] == item["type"]
    assert error.evidence["path"] == path
    assert "Field required" in error.message


@pytest.mark.parametrize(
    ("item", "path"),
    [
        (with_(READY, url=5), "/url"),  # url must be a string
        (with_(READY, runtime_id=""), "/runtime_id"),  # ids are non-empty
        (with_(READY, runtime_id="x" * 513), "/runtime_id"),  # ...and bounded
        (with_(READY, capabilities="dom.query"), "/capabilities"),  # a list, not a string
        (with_(READY, capabilities=["dom.query", 3]), "/capabilities/1"),  # of strings
        (with_(READY, title=["Shop"]), "/title"),  # title is text
        (with_(READY, manifest="actions.json"), "/manifest"),  # an inline manifest is an object
        (with_(STATUS, states="ready"), "/states"),  # states is a list
        (with_(CALL, arguments=["A1"]), "/arguments"),  # arguments is an object
        (with_(CALL, timeout_ms=-1), "/timeout_ms"),  # no negative timeouts
        (with_(CALL, timeout_ms="100"), "/timeout_ms"),  # strict: no numeric strings
        (with_(CALL, timeout_ms=True), "/timeout_ms"),  # strict: a boolean is not a number
        (with_(OUTPUT, call_id=12), "/call_id"),  # correlation ids are strings
        (with_(ERROR, error={"code": "x", "message": "m", "severity": "fatal"}), "/error/severity"),  # closed set
        (with_(ERROR, error={"code": "", "message": "m"}), "/error/code"),  # codes are non-empty
        (with_(EVENT, name=5), "/name"),  # signal names are strings
    ],
)
def test_wrong_types_name_the_field(item: dict[str, Any], path: str) -> None:
    error = refusal(json.dumps(item))
    assert error.code == "invalid_item"
    assert error.evidence["path"] == path


def test_invalid_call_scoped_items_carry_their_call_id() -> None:
    # The call id travels in the evidence so the refusal can be correlated.
    error = refusal(json.dumps(with_(OUTPUT, runtime_id=None)))
    assert error.evidence == {"type": "action_call_output", "path": "/runtime_id", "call_id": "c-1"}


@pytest.mark.parametrize(
    ("frame", "max_bytes", "size"),
    [
        ('{"type":"x","pad":"' + "a" * 100 + '"}', 64, 121),  # ASCII over the limit
        ('{"p":"' + "é" * 40 + '"}', 64, 88),  # 40 characters but 80 bytes of UTF-8: bytes count
        (("{" + " " * 99 + "}").encode(), 64, 101),  # bytes frames are measured too
    ],
)
def test_oversize_frames_are_refused_before_parsing(frame: str | bytes, max_bytes: int, size: int) -> None:
    error = refusal(frame, max_bytes=max_bytes)
    assert error.code == "item_too_large"
    assert error.evidence == {"bytes": size, "max_bytes": max_bytes}


def test_a_frame_at_the_limit_is_accepted() -> None:
    frame = json.dumps(READY, separators=(",", ":"))
    assert isinstance(parse_item(frame, max_bytes=len(frame)), RuntimeReady)


@pytest.mark.parametrize(
    ("item", "model"),
    [
        (READY, RuntimeReady),
        (STATUS, RuntimeStatus),
        (CALL, ActionCall),
        (OUTPUT, ActionCallOutput),
        (ERROR, ActionErrorItem),
        (EVENT, DomEvent),
    ],
)
def test_minimal_items_parse_from_text_bytes_and_dicts(item: dict[str, Any], model: type) -> None:
    for frame in (json.dumps(item), json.dumps(item).encode(), item):
        parsed = parse_item(frame)
        assert isinstance(parsed, model)
        assert parsed.dump() == item


def test_contract_fields_and_adapter_extras_are_kept() -> None:
    # The contract adds title, capabilities and manifest to runtime_ready; adapters may add more.
    item = with_(READY, title="Shop", capabilities=["dom.query"], manifest={"version": 1}, x_adapter={"tab": 3})
    parsed = parse_item(json.dumps(item))
    assert parsed.title == "Shop"
    assert parsed.capabilities == ["dom.query"]
    assert parsed.manifest == {"version": 1}
    assert parsed.dump()["x_adapter"] == {"tab": 3}
