"""Responses-style mapping: function_call ⇄ action_call, function_call_output ⇄ output/error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_actions.bridge.items import parse_item
from mcp_actions.bridge.responses import (
    action_call_from_function_call,
    action_call_output_from_function_call_output,
    function_call_from_action_call,
    function_call_output_from,
)
from mcp_actions.errors import ActionError

FUNCTION_CALL = {
    "type": "function_call",
    "id": "fc_67ca09c5",  # the Responses item id is not the correlation id
    "call_id": "call_4Xb2",
    "name": "search.submit",
    "arguments": '{"query":"maps","filters":{"lang":"en"}}',
    "status": "completed",
}


def test_function_call_becomes_an_action_call_preserving_call_id() -> None:
    call = action_call_from_function_call(FUNCTION_CALL, runtime_id="rt-1", timeout_ms=5000)
    assert call == {
        "type": "action_call",
        "call_id": "call_4Xb2",
        "name": "search.submit",
        "arguments": {"query": "maps", "filters": {"lang": "en"}},
        "runtime_id": "rt-1",
        "timeout_ms": 5000,
    }
    # What comes out is a valid bridge item.
    assert parse_item(call).call_id == "call_4Xb2"


def test_routing_fields_are_only_added_when_given() -> None:
    call = action_call_from_function_call(FUNCTION_CALL)
    assert "runtime_id" not in call and "timeout_ms" not in call


@pytest.mark.parametrize(
    ("arguments", "decoded"),
    [
        ("{}", {}),  # no arguments
        ("", {}),  # models emit an empty string for parameterless functions
        ('  {"a": [1, 2]}  ', {"a": [1, 2]}),  # surrounding whitespace
        ({"already": "decoded"}, {"already": "decoded"}),  # an adapter that decoded it already
        ('{"text":"h\\u00e9llo ✓"}', {"text": "héllo ✓"}),  # escapes and non-ASCII
    ],
)
def test_arguments_decode(arguments: Any, decoded: dict[str, Any]) -> None:
    assert action_call_from_function_call({**FUNCTION_CALL, "arguments": arguments})["arguments"] == decoded


@pytest.mark.parametrize(
    ("item", "path"),
    [
        ({**FUNCTION_CALL, "arguments": '{"query": '}, "/arguments"),  # truncated JSON
        ({**FUNCTION_CALL, "arguments": "{'query': 'maps'}"}, "/arguments"),  # Python repr, not JSON
        ({**FUNCTION_CALL, "arguments": "[1, 2]"}, "/arguments"),  # JSON, but not an object
        ({**FUNCTION_CALL, "arguments": "null"}, "/arguments"),  # JSON null
        ({**FUNCTION_CALL, "arguments": 42}, "/arguments"),  # neither text nor object
        ({**FUNCTION_CALL, "arguments": "[" * 200_000 + "]" * 200_000}, "/arguments"),  # nested past the parser's stack
        ({**FUNCTION_CALL, "call_id": ""}, "/call_id"),  # no correlation id to preserve
        ({k: v for k, v in FUNCTION_CALL.items() if k != "call_id"}, "/call_id"),  # missing call_id
        ({**FUNCTION_CALL, "name": None}, "/name"),  # no function name
        ({**FUNCTION_CALL, "type": "function_call_output"}, "/type"),  # wrong item type
    ],
)
def test_bad_function_calls_are_invalid_input(item: dict[str, Any], path: str) -> None:
    with pytest.raises(ActionError) as info:
        action_call_from_function_call(item)
    assert info.value.code == "invalid_input"
    assert info.value.evidence["path"] == path


def test_action_call_output_becomes_compact_function_call_output() -> None:
    item = {"type": "action_call_output", "call_id": "call-123", "runtime_id": "rt", "output": {"ok": True, "result": {"url": "https://example.com/search?q=maps"}}}
    # Exactly the spec's example.
    assert function_call_output_from(item) == {
        "type": "function_call_output",
        "call_id": "call-123",
        "output": '{"ok":true,"result":{"url":"https://example.com/search?q=maps"}}',
    }


def test_action_error_becomes_function_call_output_with_error_json() -> None:
    error = {"code": "target_not_found", "message": "no search form", "severity": "major", "recoverable": True, "evidence": {"selector": "form"}}
    mapped = function_call_output_from({"type": "action_error", "call_id": "call-9", "runtime_id": "rt", "error": error})
    assert mapped["type"] == "function_call_output"
    assert mapped["call_id"] == "call-9"
    assert json.loads(mapped["output"]) == {"error": error}


@pytest.mark.parametrize(
    "item",
    [
        {"type": "action_error", "runtime_id": "rt", "error": {"code": "x", "message": "m"}},  # runtime-scoped: answers no call
        {"type": "action_call_output", "call_id": "c", "runtime_id": "rt"},  # no output
        {"type": "action_error", "call_id": "c", "error": "boom"},  # error is not an object
        {"type": "dom_event", "event_id": "e", "runtime_id": "rt", "name": "n", "payload": {}},  # not a call outcome
        ["action_call_output"],  # not an item at all
    ],
)
def test_items_that_answer_no_function_call_are_refused(item: Any) -> None:
    with pytest.raises(ActionError) as info:
        function_call_output_from(item)
    assert info.value.code == "invalid_item"


@pytest.mark.parametrize(
    "output",
    [
        {"ok": True, "result": [1, 2, {"é": None}]},  # nested structure, non-ASCII
        None,  # an action may return nothing
        "plain text",  # or a string
        {"error": "not structured"},  # an 'error' key that is not a structured error stays output
        {"error": {"code": "x", "message": "m"}, "also": 1},  # more than the error key stays output
    ],
)
def test_output_round_trip(output: Any) -> None:
    item = {"type": "action_call_output", "call_id": "c-7", "runtime_id": "rt-1", "output": output}
    back = action_call_output_from_function_call_output(function_call_output_from(item), runtime_id="rt-1")
    assert back == item
    assert parse_item(back).output == output


def test_error_round_trip() -> None:
    item = {"type": "action_error", "call_id": "c-8", "runtime_id": "rt-1", "error": {"code": "handler_timeout", "message": "slow", "evidence": {"elapsed_ms": 12}}}
    back = action_call_output_from_function_call_output(function_call_output_from(item), runtime_id="rt-1")
    assert back == item
    assert parse_item(back).error.code == "handler_timeout"


def test_non_json_function_output_stays_text() -> None:
    back = action_call_output_from_function_call_output({"type": "function_call_output", "call_id": "c", "output": "done."}, runtime_id="rt")
    assert back["output"] == "done."
    deep = "[" * 200_000 + "]" * 200_000  # nested past the parser's stack: text too, not a RecursionError
    assert action_call_output_from_function_call_output({"type": "function_call_output", "call_id": "c", "output": deep}, runtime_id="rt")["output"] == deep


def test_action_call_round_trip() -> None:
    call = action_call_from_function_call(FUNCTION_CALL)
    function_call = function_call_from_action_call(call)
    assert function_call == {"type": "function_call", "call_id": "call_4Xb2", "name": "search.submit", "arguments": '{"query":"maps","filters":{"lang":"en"}}'}
    assert action_call_from_function_call(function_call) == call


@pytest.mark.parametrize(
    "item",
    [
        {"type": "action_call", "call_id": "c", "name": "n", "arguments": [1]},  # arguments not an object
        {"type": "action_call", "name": "n", "arguments": {}},  # no call id
        {"type": "function_call", "call_id": "c", "name": "n", "arguments": "{}"},  # already a function call
    ],
)
def test_bad_action_calls_are_refused(item: dict[str, Any]) -> None:
    with pytest.raises(ActionError) as info:
        function_call_from_action_call(item)
    assert info.value.code == "invalid_item"


def test_function_call_output_reverse_refuses_other_items() -> None:
    with pytest.raises(ActionError) as info:
        action_call_output_from_function_call_output({"type": "function_call", "call_id": "c"}, runtime_id="rt")
    assert info.value.code == "invalid_item"
    assert info.value.evidence["path"] == "/type"
