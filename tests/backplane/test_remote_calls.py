"""Calls forwarded across replicas, in one process: two bridges joined by a real NATS server.

Each side is a real ``Bridge`` with its ``BridgeServer`` and its ``Backplane``;
runtimes are WebSocket clients (``tests/bridge/wsclient.py``) on replica a,
and the calls are made on replica b's bridge, the way dispatch makes them.
What these pin down that the process-level tests (``test_replicas.py``) only
see from outside: progress and input requests cross in order, cancelling and
timing out reach the runtime, a runtime moving to the caller's replica
replaces its mirror, and page events cross too.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.backplane.connection import BackplaneConnection
from mcp_actions.backplane.node import Backplane
from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.events import PageEvent
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.deadline import Deadline
from mcp_actions.dispatch.call.tab_turns import TabTurns
from mcp_actions.errors import ActionError
from mcp_actions.events import EventHub
from mcp_actions.runtimes.page_script import runtime_js
from tests.backplane.cluster import SECRET, NatsServer
from tests.bridge.wsclient import TOKEN, WsRuntime, eventually


@dataclass
class Side:
    bridge: Bridge
    server: BridgeServer
    backplane: Backplane
    turns: TabTurns

    @property
    def url(self) -> str:
        return self.server.url


@contextlib.asynccontextmanager
async def side(nats_url: str) -> AsyncIterator[Side]:
    events = EventHub()
    bridge = Bridge(events=events, signal_source=lambda info: {"shop.added": _signal()})
    server = BridgeServer(bridge, port=0, token=TOKEN, runtime_script=runtime_js)
    await bridge.start()
    await server.start()
    turns = TabTurns()
    backplane = Backplane(BackplaneConnection(nats_url, secret=SECRET), bridge, events, turns=turns)
    await backplane.start()
    try:
        yield Side(bridge, server, backplane, turns)
    finally:
        await backplane.stop()
        await server.stop()
        await bridge.stop()


def _signal() -> SignalSpec:
    return SignalSpec(name="shop.added", event="shop:added", enabled=True)


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Side, Side]]:
    nats = NatsServer(tmp_path / "jetstream")
    nats.start()
    try:
        async with side(nats.url) as a, side(nats.url) as b:
            yield a, b
    finally:
        nats.stop()


async def on_a(a: Side, b: Side, runtime_id: str = "rt-1") -> WsRuntime:
    runtime = await WsRuntime(a.url, runtime_id, token=TOKEN).open()
    await eventually(lambda: b.bridge.registry.get(runtime_id) is not None, timeout=5)
    return runtime


async def test_progress_and_an_input_request_cross_in_order(pair: tuple[Side, Side]) -> None:
    a, b = pair
    runtime = await on_a(a, b)
    heard: list[tuple[float, float | None, str | None]] = []
    asked: list[dict[str, Any]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async def answer(request: dict[str, Any]) -> Any:
        asked.append(request)
        return {"colour": "green"}

    call = asyncio.create_task(b.bridge.call("shop.pick", {}, runtime_id="rt-1", handler="shop.pick", on_progress=progress, on_input=answer))
    item = await runtime.recv()
    assert item["type"] == "action_call" and item["runtime_id"] == "rt-1"
    for step in (1, 2):
        await runtime.send({"type": "call_progress", "call_id": item["call_id"], "progress": step, "total": 3, "message": f"step {step}"})
    await runtime.send({"type": "input_request", "call_id": item["call_id"], "request_id": "q-1", "request": {"question": "colour?"}})
    response = await runtime.recv()
    assert response == {"type": "input_response", "call_id": item["call_id"], "request_id": "q-1", "runtime_id": "rt-1", "response": {"colour": "green"}}
    await runtime.output(item["call_id"], {"picked": "green"})
    assert await asyncio.wait_for(call, 5) == {"picked": "green"}
    assert heard == [(1, 3, "step 1"), (2, 3, "step 2")]
    assert asked == [{"question": "colour?"}]
    assert b.backplane.remote.in_flight == 0 and a.backplane.server.running == 0
    await runtime.close()


async def test_a_caller_giving_up_and_a_time_limit_reach_the_runtime(pair: tuple[Side, Side]) -> None:
    a, b = pair
    runtime = await on_a(a, b)
    call = asyncio.create_task(b.bridge.call("shop.slow", {}, runtime_id="rt-1", handler="shop.slow", timeout_ms=30000))
    first = await runtime.recv()
    call.cancel()
    cancel = await runtime.recv()
    assert cancel["type"] == "action_cancel" and cancel["call_id"] == first["call_id"]
    with pytest.raises(asyncio.CancelledError):
        await call
    # A time limit: the replica running the call answers handler_timeout itself and tells the runtime.
    with pytest.raises(ActionError) as timed_out:
        await b.bridge.call("shop.slow", {}, runtime_id="rt-1", handler="shop.slow", timeout_ms=300)
    assert timed_out.value.code == "handler_timeout" and timed_out.value.evidence["timeout_ms"] == 300
    items = [await runtime.recv(), await runtime.recv()]
    assert items[0]["type"] == "action_call" and items[1] == {"type": "action_cancel", "call_id": items[0]["call_id"], "runtime_id": "rt-1", "reason": "timed out"}
    # A late answer to the timed-out call reaches nobody: the next call gets its own answer.
    await runtime.output(items[0]["call_id"], {"late": True})
    runtime.serve()
    assert await b.bridge.call("shop.ping", {"n": 1}, runtime_id="rt-1", handler="shop.ping") == {"name": "shop.ping", "arguments": {"n": 1}}
    await runtime.close()


async def test_a_runtime_that_moves_to_the_callers_replica_replaces_its_mirror(pair: tuple[Side, Side]) -> None:
    a, b = pair
    runtime = await on_a(a, b)
    call = asyncio.create_task(b.bridge.call("shop.slow", {}, runtime_id="rt-1", handler="shop.slow", timeout_ms=30000))
    await runtime.recv()
    moved = await WsRuntime(b.url, "rt-1", token=TOKEN).open()  # same credential, same id: it takes its identity back on b
    with pytest.raises(ActionError) as failed:
        await asyncio.wait_for(call, 5)
    assert failed.value.code == "transport_failed"
    assert b.bridge.holds("rt-1") and "rt-1" not in b.bridge.remote_ids()
    moved.serve()
    assert await b.bridge.call("shop.ping", {}, runtime_id="rt-1", handler="shop.ping") == {"name": "shop.ping", "arguments": {}}
    await runtime.close()
    await moved.close()


async def test_page_events_of_a_runtime_reach_the_other_replica(pair: tuple[Side, Side]) -> None:
    a, b = pair
    seen: list[dict[str, Any]] = []
    b.bridge.events.subscribe(PageEvent, lambda event: seen.append(dict(event.record)))
    runtime = await on_a(a, b)
    await runtime.send({"type": "dom_event", "event_id": "e-1", "runtime_id": "rt-1", "name": "shop.added", "event": "shop:added", "url": "https://shop.test/", "payload": {"sku": "tea"}})
    await eventually(lambda: bool(seen), timeout=5)
    assert seen[0]["name"] == "shop.added" and seen[0]["payload"] == {"sku": "tea"}
    mirror = b.bridge.registry.get("rt-1")
    assert mirror is not None and list(mirror.events) == seen
    await runtime.close()
    await eventually(lambda: b.bridge.registry.get("rt-1") is None, timeout=5)


async def test_two_replicas_holding_one_runtime_the_newer_connection_is_it(tmp_path: Path) -> None:
    """A runtime reconnected to replica c while replica a still holds its old socket: replica b routes to c, steadily, across announcements."""
    nats = NatsServer(tmp_path / "jetstream")
    nats.start()
    try:
        async with side(nats.url) as a, side(nats.url) as b, side(nats.url) as c:
            stale = await on_a(a, b)  # a keeps this socket open: it does not know the runtime left
            stale.serve(lambda call: _answer("a"))
            fresh = await WsRuntime(c.url, "rt-1", token=TOKEN).open()
            fresh.serve(lambda call: _answer("c"))
            c_id = c.backplane.replica_id
            await eventually(lambda: _replica_of(b, "rt-1") == c_id, timeout=5)
            # Over three announcement rounds of both a and c, b keeps routing to the newer connection.
            for _ in range(12):
                assert _replica_of(b, "rt-1") == c_id
                assert await b.bridge.call("shop.ping", {}, runtime_id="rt-1", handler="shop.ping") == {"on": "c"}
                await asyncio.sleep(0.25)
            await stale.close()
            await fresh.close()
    finally:
        nats.stop()


async def _answer(where: str) -> dict[str, str]:
    return {"on": where}


def _replica_of(side_: Side, runtime_id: str) -> str | None:
    info = side_.bridge.registry.get(runtime_id)
    return info.replica if info is not None else None


async def test_a_tabs_turn_is_one_queue_on_the_replica_holding_it(pair: tuple[Side, Side]) -> None:
    """An acting call on replica b holds the turn of a's tab: a's own acting call waits for it, and gets it once b releases."""
    a, b = pair
    runtime = await on_a(a, b)
    order: list[str] = []
    holding = asyncio.Event()
    release = asyncio.Event()

    async def on_b() -> None:
        async with b.turns.turn("rt-1", acts=True, tool="shop.fill", deadline=Deadline.after_ms(5000)):
            order.append("b holds")
            holding.set()
            await release.wait()
            order.append("b releases")

    async def on_a_side() -> None:
        await holding.wait()
        async with a.turns.turn("rt-1", acts=True, tool="shop.submit", deadline=Deadline.after_ms(5000)):
            order.append("a holds")

    tasks = [asyncio.create_task(on_b()), asyncio.create_task(on_a_side())]
    await holding.wait()
    await asyncio.sleep(0.3)
    assert order == ["b holds"] and a.turns.busy("rt-1") == ["shop.fill (via replica " + b.backplane.replica_id + ")"]
    release.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert order == ["b holds", "b releases", "a holds"]
    # Waiting past its deadline on the holder: handler_timeout with the holder's evidence, and nothing left queued.
    async def b_waits() -> None:
        async with b.turns.turn("rt-1", acts=True, tool="shop.submit", deadline=Deadline.after_ms(300)):
            pass

    async with a.turns.turn("rt-1", acts=True, tool="shop.fill", deadline=Deadline.after_ms(5000)):
        # A context of its own: in one process both bridges share the record of turns this task holds.
        with pytest.raises(ActionError) as waited:
            await asyncio.create_task(b_waits(), context=contextvars.Context())
    assert waited.value.code == "handler_timeout" and waited.value.evidence["phase"] == "waiting_for_tab"
    await eventually(lambda: a.turns.busy("rt-1") == [] and not a.backplane.turn_server.callers(), timeout=5)
    await runtime.close()
