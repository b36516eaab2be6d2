"""What the bridge sends runtimes, byte for byte as the WebSocket link encodes it (compact JSON of ``dump()``).

Every bridge → runtime item is built from a model of ``bridge/items.py``; these
pin the keys, their order and which optional keys are left out.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.items import ActionCallOutput, InputResponse, error_body
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.errors import ActionError


class _Link:
    """A runtime's transport that keeps each item as the WebSocket link would send it."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    async def send(self, item: dict[str, Any]) -> None:
        self.frames.append(json.dumps(item, separators=(",", ":")))

    async def close(self, reason: str) -> None:
        pass


def _signals(info: Any) -> dict[str, SignalSpec]:
    return {
        "cart.item_added": SignalSpec(name="cart.item_added", event="shop:item-added", enabled=True),
        "cart.cleared": SignalSpec(name="cart.cleared", event="shop:cleared", enabled=False),  # not forwarded
    }


async def _until(condition: Any) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition never held")


async def test_every_item_the_bridge_sends_keeps_its_keys_and_their_order() -> None:
    bridge = Bridge(signal_source=_signals)
    link = _Link()
    session = bridge.connect(link, transport="inprocess")
    await session.receive({"type": "runtime_status", "runtime_id": "r1"})  # before runtime_ready: refused
    await session.receive({"type": "runtime_ready", "runtime_id": "r1", "url": "https://shop.test/"})
    await session.receive({"type": "action_call_output", "call_id": "nobody", "runtime_id": "r1", "output": 1})  # answers no call

    async def answer(request: dict[str, Any]) -> Any:
        return None  # an answer may be null: it is still sent

    call = asyncio.create_task(bridge.call("cart.add", {"sku": "A1", "note": None}, runtime_id="r1", handler="h", timeout_ms=5000, call_id="c-1", on_input=answer))
    await _until(lambda: len(link.frames) == 4)
    await session.receive({"type": "input_request", "call_id": "c-1", "runtime_id": "r1", "request_id": "q-1", "request": {}})
    await _until(lambda: len(link.frames) == 5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await _until(lambda: len(link.frames) == 6)
    assert link.frames == [
        '{"type":"action_error","error":{"code":"runtime_not_ready","message":"send runtime_ready before any other item","severity":"major",'
        '"recoverable":true,"evidence":{"type":"runtime_status","call_id":null}}}',
        '{"type":"runtime_config","runtime_id":"r1","listen":[{"name":"cart.item_added","event":"shop:item-added"}]}',
        '{"type":"action_error","error":{"code":"invalid_item","message":"no pending call has id \'nobody\'","severity":"major",'
        '"recoverable":true,"evidence":{"call_id":"nobody"}},"call_id":"nobody","runtime_id":"r1"}',
        '{"type":"action_call","call_id":"c-1","runtime_id":"r1","name":"cart.add","arguments":{"sku":"A1","note":null},"timeout_ms":5000,"handler":"h"}',
        '{"type":"input_response","call_id":"c-1","request_id":"q-1","runtime_id":"r1","response":null}',
        '{"type":"action_cancel","call_id":"c-1","runtime_id":"r1","reason":"cancelled by the caller"}',
    ]
    await bridge.stop()


async def test_a_call_without_handler_leaves_the_key_out() -> None:
    bridge = Bridge()
    link = _Link()
    session = bridge.connect(link, transport="inprocess")
    await session.receive({"type": "runtime_ready", "runtime_id": "r1", "url": "https://shop.test/"})
    call = asyncio.create_task(bridge.call("cart.add", {}, runtime_id="r1", timeout_ms=5000))
    await _until(lambda: len(link.frames) == 2)
    sent = json.loads(link.frames[1])
    assert list(sent) == ["type", "call_id", "runtime_id", "name", "arguments", "timeout_ms"]
    assert re.fullmatch(r"call-[0-9a-f]{6}-\d+", sent["call_id"])
    await session.receive({"type": "action_call_output", "call_id": sent["call_id"], "runtime_id": "r1", "output": None})
    assert await call is None
    await bridge.stop()


async def test_an_item_the_model_refuses_is_not_sent() -> None:
    bridge = Bridge()
    link = _Link()
    session = bridge.connect(link, transport="inprocess")
    await session.receive({"type": "runtime_ready", "runtime_id": "r1", "url": "https://shop.test/"})
    with pytest.raises(ActionError) as refused:
        await bridge.call("cart.add", {}, runtime_id="r1", timeout_ms=-1)  # a time limit below zero is no item
    assert refused.value.code == "invalid_input"
    assert refused.value.evidence["path"] == "/timeout_ms"
    assert len(link.frames) == 1  # the runtime_config only
    await bridge.stop()


@pytest.mark.parametrize(
    ("item", "sent"),
    [
        # A null output is the output: kept.
        (ActionCallOutput(type="action_call_output", call_id="c", runtime_id="r", output=None), {"type": "action_call_output", "call_id": "c", "runtime_id": "r", "output": None}),
        # An answer, even null, is sent when there is no error...
        (InputResponse(type="input_response", call_id="c", request_id="q", response=None), {"type": "input_response", "call_id": "c", "request_id": "q", "response": None}),
        # ...and only the error when there is one.
        (
            InputResponse(type="input_response", call_id="c", request_id="q", error=error_body(ActionError("no", code="permission_denied"))),
            {"type": "input_response", "call_id": "c", "request_id": "q", "error": {"code": "permission_denied", "message": "no", "severity": "major", "recoverable": True}},
        ),
    ],
)
def test_dump_keeps_a_null_that_is_a_value(item: Any, sent: dict[str, Any]) -> None:
    assert item.dump() == sent
