"""The bridge over real WebSockets: auth, frames, ordering, lifecycle, routing, timeouts, signals, HTTP.

Every runtime here is a real ``websockets`` client on loopback talking to a
real ``BridgeServer`` on a free port.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import time
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from mcp_actions.bridge.events import PageEvent, RuntimeArrived, RuntimeEvent, RuntimeUpdated
from mcp_actions.bridge.routing import Route
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.bridge.websocket import CLOSE_REPLACED, CLOSE_STALE, BridgeServer
from mcp_actions.runtimes.page_script import runtime_js

from .conftest import MakeRuntime, MakeServer
from .wsclient import TOKEN, WsRuntime, echo, eventually, outcome

# -- authentication and origin ---------------------------------------------


@pytest.mark.parametrize("how", ["query", "header"])
async def test_token_by_query_or_bearer_header(server: BridgeServer, how: str) -> None:
    runtime = WsRuntime(server.url, "rt-auth")
    if how == "query":
        await runtime.open()
    else:
        await runtime.open(query_token=False, headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        info = server.bridge.registry.get("rt-auth")
        assert info is not None and info.transport == "websocket"
    finally:
        await runtime.close()


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("", {}),  # no token at all
        ("?token=wrong", {}),  # wrong token in the query
        ("?token=", {}),  # empty token
        (f"?token={TOKEN[:-1]}", {}),  # a prefix of the right token
        (f"?token={TOKEN}x", {}),  # the right token plus a character
        ("", {"Authorization": "Bearer wrong"}),  # wrong bearer token
        ("", {"Authorization": f"Basic {TOKEN}"}),  # right secret, wrong scheme
        ("", {"Authorization": TOKEN}),  # no scheme at all
        ("?token=wrong", {"Authorization": f"Bearer {TOKEN}"}),  # the query token is the one checked
    ],
)
async def test_missing_or_wrong_token_is_refused_with_401(server: BridgeServer, query: str, headers: dict[str, str]) -> None:
    kinds: list[type[RuntimeEvent]] = []
    server.bridge.events.subscribe(RuntimeEvent, lambda event: kinds.append(type(event)))
    with pytest.raises(InvalidStatus) as refused:
        await connect(server.url + query, additional_headers=headers, open_timeout=3)
    assert refused.value.response.status_code == 401
    assert server.connection_count == 0
    assert server.bridge.session_count == 0 and len(server.bridge.registry) == 0
    assert kinds == []


def _masked_text_frame(text: str) -> bytes:
    payload = text.encode()
    assert len(payload) < 126
    mask = b"\x01\x02\x03\x04"
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def test_a_refused_client_never_gets_an_item_read(server: BridgeServer) -> None:
    # A client that pipelines runtime_ready right behind a handshake with a wrong token:
    # the bridge answers 401 and registers nothing, because items are only read after auth.
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    handshake = (
        f"GET /bridge?token=wrong HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    writer.write(handshake.encode() + _masked_text_frame(json.dumps({"type": "runtime_ready", "runtime_id": "sneaky", "url": "x"})))
    await writer.drain()
    async with asyncio.timeout(3):
        response = await reader.read()
    writer.close()
    assert response.startswith(b"HTTP/1.1 401")
    await asyncio.sleep(0.1)
    assert len(server.bridge.registry) == 0 and server.connection_count == 0


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("https://shop.test", None),  # a listed origin connects
        ("https://evil.test", 403),  # any other origin is refused
        ("http://shop.test", 403),  # the scheme is part of the origin
        ("https://shop.test:8443", 403),  # so is the port
        ("https://sub.shop.test", 403),  # no implicit subdomains
        ("null", 403),  # an opaque origin (sandboxed frame, file:)
        (None, None),  # no Origin header: not a browser, the token alone decides
    ],
)
async def test_allowed_origins(make_server: MakeServer, origin: str | None, status: int | None) -> None:
    server = await make_server(allowed_origins=["https://shop.test", "http://127.0.0.1:8000/"])
    headers = {"Origin": origin} if origin else {}
    runtime = WsRuntime(server.url, "rt-origin")
    if status is None:
        await runtime.open(headers=headers)
        assert "rt-origin" in server.bridge.registry
        await runtime.close()
    else:
        with pytest.raises(InvalidStatus) as refused:
            await runtime.open(headers=headers)
        assert refused.value.response.status_code == status
        assert len(server.bridge.registry) == 0


async def test_an_allowed_origin_does_not_replace_the_token(make_server: MakeServer) -> None:
    server = await make_server(allowed_origins=["https://shop.test"])
    with pytest.raises(InvalidStatus) as refused:
        await connect(server.url + "?token=wrong", additional_headers={"Origin": "https://shop.test"})
    assert refused.value.response.status_code == 401


async def test_without_allowed_origins_any_origin_with_the_token_connects(server: BridgeServer) -> None:
    # As a page runtime: a web page's Origin makes it one whatever it presented (tests/bridge/test_runtime_identity.py).
    runtime = WsRuntime(server.url, "rt-any", url="https://anywhere.test/")
    await runtime.open(headers={"Origin": "https://anywhere.test"})
    info = server.bridge.registry.get("rt-any")
    assert info is not None and info.trust == "page"
    await runtime.close()


# -- bad frames --------------------------------------------------------------

MAX_ITEM = 4096


@pytest.mark.parametrize(
    ("frame", "code", "path"),
    [
        ("{", "invalid_item", None),  # not JSON
        ("[1, 2]", "invalid_item", None),  # JSON, not an object
        ('{"type": "hello"}', "invalid_item", None),  # unknown item type
        ('{"type": "runtime_status"}', "invalid_item", "/runtime_id"),  # missing required field
        ('{"type": "action_call", "call_id": "x", "name": "n", "arguments": {}}', "invalid_item", None),  # calls go bridge → runtime only
        ('{"type": "runtime_status", "runtime_id": "someone-else"}', "invalid_item", None),  # names another runtime
        ('{"type": "action_call_output", "call_id": "nope", "runtime_id": "rt-1", "output": 1}', "invalid_item", None),  # no such call
        (b'{"type": "runtime_status", "runtime_id": "rt-1"}', "invalid_item", None),  # binary frame
        ('{"pad": "' + "x" * MAX_ITEM + '"}', "item_too_large", None),  # over the item limit, under the frame cap
        ("[" * 3000 + "]" * 3000, "item_too_large", None),  # absurd nesting is caught by size first
        ("[" * 2000, "invalid_item", None),  # deep nesting under the size limit must not crash the handler
    ],
)
async def test_a_bad_frame_is_answered_and_the_connection_stays_usable(
    make_server: MakeServer, frame: str | bytes, code: str, path: str | None
) -> None:
    server = await make_server(max_item_bytes=MAX_ITEM)
    runtime = await WsRuntime(server.url, "rt-1").open()
    try:
        await runtime.send(frame)
        reply = await runtime.recv()
        assert reply["type"] == "action_error"
        assert reply["error"]["code"] == code
        assert reply["runtime_id"] == "rt-1"
        if path is not None:
            assert reply["error"]["evidence"]["path"] == path
        # Same connection, next call: it works.
        runtime.serve(echo)
        assert await server.bridge.call("cart.add", {"sku": "A1"}, runtime_id="rt-1", timeout_ms=2000) == {
            "name": "cart.add",
            "arguments": {"sku": "A1"},
        }
    finally:
        await runtime.close()


async def test_a_frame_beyond_the_transport_cap_closes_the_connection(make_server: MakeServer) -> None:
    server = await make_server(max_item_bytes=1024, max_frame_bytes=2048)
    runtime = await WsRuntime(server.url, "rt-big").open()
    await runtime.send("x" * 4096)
    code, _ = await runtime.wait_closed()
    assert code == 1009  # message too big: the bridge does not buffer arbitrarily large frames
    await eventually(lambda: "rt-big" not in server.bridge.registry)


# -- ordering ------------------------------------------------------------------


async def test_items_keep_their_order_per_connection(server: BridgeServer) -> None:
    runtime = await WsRuntime(server.url, "rt-order").open()
    runtime.serve(echo)  # answers strictly in arrival order
    finished: list[int] = []

    async def one(i: int) -> None:
        await server.bridge.call("step", {"i": i}, runtime_id="rt-order", call_id=f"c-{i:04d}", timeout_ms=5000)
        finished.append(i)

    tasks = [asyncio.create_task(one(i)) for i in range(300)]
    await asyncio.gather(*tasks)
    # The runtime saw the calls in the order they were made...
    assert [c["call_id"] for c in runtime.calls] == [f"c-{i:04d}" for i in range(300)]
    # ...and the outputs, sent back in that order, ended the calls in that order.
    assert finished == list(range(300))
    await runtime.close()


# -- runtime_ready, runtime_status -------------------------------------------


@pytest.mark.parametrize(
    "item",
    [
        {"type": "runtime_status", "runtime_id": "rt-1"},  # a heartbeat before announcing
        {"type": "action_call_output", "call_id": "c-1", "runtime_id": "rt-1", "output": {}},  # an answer before announcing
        {"type": "dom_event", "event_id": "e-1", "runtime_id": "rt-1", "name": "x", "payload": {}},  # an event before announcing
        {"type": "action_error", "runtime_id": "rt-1", "error": {"code": "x", "message": "m"}},  # an error before announcing
    ],
)
async def test_runtime_ready_comes_first(make_runtime: MakeRuntime, bridge: Any, item: dict[str, Any]) -> None:
    runtime = await make_runtime("rt-1", ready=False)
    await runtime.send(item)
    reply = await runtime.recv()
    assert reply["error"]["code"] == "runtime_not_ready"
    assert reply.get("call_id") == item.get("call_id")
    assert len(bridge.registry) == 0
    await runtime.announce()  # announcing afterwards works on the same connection
    assert "rt-1" in bridge.registry


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"runtime_id": None}, "/runtime_id"),  # runtime_id is required
        ({"url": None}, "/url"),  # url is required
        ({"runtime_id": ""}, "/runtime_id"),  # and non-empty
        ({"url": 42}, "/url"),  # url is text
        ({"capabilities": "dom.query"}, "/capabilities"),  # capabilities is a list of names
        ({"title": {"text": "Shop"}}, "/title"),  # title is text
        ({"manifest": ["actions.json"]}, "/manifest"),  # an inline manifest is an object
        ({"runtime_key": ""}, "/runtime_key"),  # a key, when sent, is non-empty
    ],
)
async def test_runtime_ready_fields_are_enforced(make_runtime: MakeRuntime, bridge: Any, fields: dict[str, Any], path: str) -> None:
    runtime = await make_runtime("rt-1", ready=False)
    item = {"type": "runtime_ready", "runtime_id": "rt-1", "url": "https://shop.test/", **fields}
    await runtime.send({k: v for k, v in item.items() if v is not None})
    reply = await runtime.recv()
    assert reply["error"]["code"] == "invalid_item"
    assert reply["error"]["evidence"]["path"] == path
    assert len(bridge.registry) == 0


async def test_runtime_ready_accepts_title_capabilities_and_inline_manifest(make_runtime: MakeRuntime, bridge: Any) -> None:
    manifest = {"version": 1, "namespace": "shop", "surface": {"origin": "https://shop.test"}, "tools": []}
    await make_runtime(
        "rt-full",
        url="https://shop.test/cart",
        runtime_key="tab:7",
        title="Cart — Shop",
        capabilities=["dom.query", "pointer.click"],
        manifest=manifest,
        authorization_id="auth-1",
        extension_version="0.1.30",
    )
    info = bridge.registry.get("rt-full")
    assert (info.url, info.runtime_key, info.title) == ("https://shop.test/cart", "tab:7", "Cart — Shop")
    assert info.capabilities == ("dom.query", "pointer.click")
    assert info.manifest == manifest
    # A claimed authorization_id is not the runtime's: only a pairing its connection proved is (the start token proves none).
    assert (info.authorization_id, info.extension_version, info.transport, info.trust) == (None, "0.1.30", "websocket", "operator")


async def test_runtime_status_heartbeats_update_last_seen_and_page_state(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-hb", url="https://shop.test/")
    changes: list[type[RuntimeEvent]] = []
    bridge.events.subscribe(RuntimeEvent, lambda event: changes.append(type(event)))
    info = bridge.registry.get("rt-hb")
    before = info.last_seen
    await asyncio.sleep(0.05)
    await runtime.status()  # a bare heartbeat
    await eventually(lambda: info.last_seen > before)
    assert changes == []  # nothing changed but the clock
    await runtime.status(url="https://shop.test/cart", title="Cart", states=["cart_visible"])
    await eventually(lambda: info.url == "https://shop.test/cart")
    assert (info.title, info.states) == ("Cart", ("cart_visible",))
    assert changes == [RuntimeUpdated]


async def test_stale_runtimes_are_retired_and_their_calls_fail(make_server: MakeServer) -> None:
    server = await make_server(stale_after_s=0.3)
    bridge = server.bridge
    lively = await WsRuntime(server.url, "rt-lively").open()
    silent = await WsRuntime(server.url, "rt-silent").open()

    async def heartbeat() -> None:
        while True:
            await lively.status()
            await asyncio.sleep(0.08)

    beating = asyncio.create_task(heartbeat())
    try:
        started = time.monotonic()
        kind, error = await outcome(bridge.call("slow", {}, runtime_id="rt-silent", timeout_ms=10_000))
        assert kind == "transport_failed"
        assert "stale" in error.message
        assert time.monotonic() - started < 2.0  # retired by the sweeper, not by the call's timeout
        code, _ = await silent.wait_closed()
        assert code == CLOSE_STALE  # tells the runtime it may reconnect
        assert "rt-silent" not in bridge.registry
        assert "rt-lively" in bridge.registry  # heartbeats kept it
    finally:
        beating.cancel()
        await lively.close()


async def test_reconnect_with_same_key_replaces_old_connection_and_keeps_id(server: BridgeServer) -> None:
    bridge = server.bridge
    old = await WsRuntime(server.url, "page-aaa", runtime_key="tab:1", url="https://shop.test/").open()
    pending = asyncio.create_task(outcome(bridge.call("wait", {}, runtime_id="page-aaa", timeout_ms=10_000)))
    await eventually(lambda: bridge.pending_count == 1)
    kinds: list[type[RuntimeEvent]] = []
    bridge.events.subscribe(RuntimeEvent, lambda event: kinds.append(type(event)))
    # The tab reloads: a new connection, a new runtime id, the same key.
    new = await WsRuntime(server.url, "page-bbb", runtime_key="tab:1", url="https://shop.test/cart").open()
    try:
        code, _ = await old.wait_closed()
        assert code == CLOSE_REPLACED
        kind, _ = await pending
        assert kind == "transport_failed"  # the old connection's call cannot finish
        assert [info.runtime_id for info in bridge.registry.list()] == ["page-aaa"]
        assert bridge.registry.get("page-aaa").url == "https://shop.test/cart"
        assert kinds == [RuntimeUpdated]  # the same runtime changed; nothing left
        assert new.config["runtime_id"] == "page-aaa"
        # Routing by the kept id (or the key) reaches the new connection, which may answer under either id.

        async def answer(call: dict[str, Any]) -> Any:
            return None if call["name"] == "manual" else await echo(call)

        new.serve(answer)
        assert (await bridge.call("ping", {}, runtime_id="page-aaa"))["name"] == "ping"
        assert (await bridge.call("ping", {}, route=Route(runtime_key="tab:1")))["name"] == "ping"
        call = asyncio.create_task(bridge.call("manual", {}, runtime_id="page-aaa", call_id="c-alias", timeout_ms=3000))
        await eventually(lambda: any(c["call_id"] == "c-alias" for c in new.calls))
        await new.output("c-alias", "via alias", runtime_id="page-bbb")
        assert await call == "via alias"
    finally:
        await new.close()


# -- routing -------------------------------------------------------------------

RUNTIMES = [
    # (id, key, url, title)
    ("shop-1", "tab:1", "https://shop.test/cart", "Cart — Shop"),
    ("shop-2", "tab:2", "https://shop.test/search?q=maps", "Search — Shop"),
    ("docs", "tab:3", "https://docs.test/guide", "Guide"),
    ("local", None, "http://127.0.0.1:8000/app", "Local app"),
]


async def _connect_fleet(make_runtime: MakeRuntime) -> None:
    for runtime_id, key, url, title in RUNTIMES:
        fields = {"runtime_key": key} if key else {}
        runtime = await make_runtime(runtime_id, url=url, title=title, **fields)

        async def answer(call: dict[str, Any], runtime_id: str = runtime_id) -> Any:
            return {"ran_on": runtime_id}

        runtime.serve(answer)


@pytest.mark.parametrize(
    ("route", "expected"),
    [
        (Route(runtime_id="docs"), "docs"),  # exact id
        (Route(runtime_key="tab:2"), "shop-2"),  # key
        (Route(url_contains="/cart"), "shop-1"),  # URL substring
        (Route(title_contains="Guide"), "docs"),  # title substring
        (Route(url_contains="shop.test", title_contains="Search"), "shop-2"),  # predicates combine
        (Route(surface_origin="https://docs.test"), "docs"),  # a manifest's surface
        (Route(surface_origin="http://127.0.0.1:8000"), "local"),  # surface with a port
        (Route(surface_origin="https://shop.test"), "shop-1"),  # two on the surface: the active one (first connected)
        (Route(), "shop-1"),  # nothing asked: the active runtime
        (Route(runtime_id="docs", surface_origin="https://shop.test"), "docs"),  # an explicit id beats the surface
    ],
)
async def test_routing_over_websocket(make_runtime: MakeRuntime, bridge: Any, route: Route, expected: str) -> None:
    await _connect_fleet(make_runtime)
    assert await bridge.call("who", {}, route=route, timeout_ms=2000) == {"ran_on": expected}


async def test_the_active_runtime_decides_between_surface_matches(make_runtime: MakeRuntime, bridge: Any) -> None:
    await _connect_fleet(make_runtime)
    bridge.registry.set_active("shop-2")
    assert await bridge.call("who", {}, route=Route(surface_origin="https://shop.test")) == {"ran_on": "shop-2"}
    # The active runtime does not capture calls for another surface.
    assert await bridge.call("who", {}, route=Route(surface_origin="https://docs.test")) == {"ran_on": "docs"}


async def test_ambiguous_routes_list_the_candidates(make_runtime: MakeRuntime, bridge: Any) -> None:
    await _connect_fleet(make_runtime)
    kind, error = await outcome(bridge.call("who", {}, route=Route(url_contains="shop.test")))
    assert kind == "ambiguous_runtime"
    assert error.evidence["asked"] == {"url_contains": "shop.test"}
    assert error.evidence["candidates"] == [
        {"runtime_id": "shop-1", "runtime_key": "tab:1", "url": "https://shop.test/cart", "title": "Cart — Shop"},
        {"runtime_id": "shop-2", "runtime_key": "tab:2", "url": "https://shop.test/search?q=maps", "title": "Search — Shop"},
    ]
    assert bridge.pending_count == 0


@pytest.mark.parametrize(
    ("route", "asked"),
    [
        (Route(runtime_id="nope"), {"runtime_id": "nope"}),  # unknown id
        (Route(runtime_key="tab:9"), {"runtime_key": "tab:9"}),  # unknown key
        (Route(title_contains="Checkout"), {"title_contains": "Checkout"}),  # no such title
        (Route(url_contains="docs.test", title_contains="Cart"), {"url_contains": "docs.test", "title_contains": "Cart"}),  # both hold, never together
        (Route(surface_origin="https://other.test"), {"surface_origin": "https://other.test"}),  # nothing on that surface
    ],
)
async def test_runtime_not_found_says_what_was_asked(make_runtime: MakeRuntime, bridge: Any, route: Route, asked: dict[str, str]) -> None:
    await _connect_fleet(make_runtime)
    kind, error = await outcome(bridge.call("who", {}, route=route))
    assert kind == "runtime_not_found"
    # Asked only for a map's site, the way out is to open a page of it.
    surface_only = list(asked) == ["surface_origin"]
    assert error.evidence == {"asked": asked, "connected": 4, **({"next": "browser_navigate"} if surface_only else {})}
    for value in asked.values():
        assert repr(value) in error.message
    assert ("browser_navigate" in error.message) is surface_only


# -- correlation ---------------------------------------------------------------


async def test_a_duplicate_call_id_is_refused(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-1")
    first = asyncio.create_task(bridge.call("one", {}, runtime_id="rt-1", call_id="dup", timeout_ms=3000))
    call = await runtime.recv()
    kind, error = await outcome(bridge.call("two", {}, runtime_id="rt-1", call_id="dup"))
    assert kind == "duplicate_call_id" and error.evidence == {"call_id": "dup"}
    await runtime.expect_silence(0.1)  # the refused duplicate was never sent
    await runtime.output(call["call_id"], "first")
    assert await first == "first"  # the original is unaffected


async def test_timeout_then_late_output_is_dropped_and_logged(make_runtime: MakeRuntime, bridge: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_actions.bridge")
    runtime = await make_runtime("rt-slow")
    started = time.monotonic()
    task = asyncio.create_task(outcome(bridge.call("slow", {}, runtime_id="rt-slow", timeout_ms=200)))
    call = await runtime.recv()
    assert call["timeout_ms"] == 200  # the runtime is told the budget
    kind, error = await task
    elapsed = time.monotonic() - started
    assert kind == "handler_timeout"
    assert 200 <= error.evidence["elapsed_ms"] < 1000
    assert error.evidence["timeout_ms"] == 200 and error.evidence["call_id"] == call["call_id"]
    assert 0.2 <= elapsed < 1.0
    assert bridge.pending_count == 0
    # The runtime is told the call ended, so its work stops (docs/bridge-protocol.md, "Deadlines and cancellation").
    cancel = await runtime.recv()
    assert cancel == {"type": "action_cancel", "call_id": call["call_id"], "runtime_id": "rt-slow", "reason": "timed out"}
    # A runtime that finishes anyway: its answer is dropped (logged), not answered with an error.
    await runtime.output(call["call_id"], "too late")
    await eventually(lambda: any("dropped late answer" in r.getMessage() for r in caplog.records))
    await runtime.expect_silence(0.1)
    runtime.serve(echo)
    assert (await bridge.call("next", {}, runtime_id="rt-slow"))["name"] == "next"  # the connection is fine


@pytest.mark.parametrize("how", ["drop", "close"])
async def test_a_dropped_connection_fails_all_its_pending_calls_at_once(make_runtime: MakeRuntime, bridge: Any, how: str) -> None:
    runtime = await make_runtime("rt-gone")
    other = await make_runtime("rt-stays")
    other.serve(echo)
    ended: list[float] = []

    async def one(i: int) -> str:
        kind, _ = await outcome(bridge.call("wait", {"i": i}, runtime_id="rt-gone", timeout_ms=10_000))
        ended.append(time.monotonic())
        return kind

    tasks = [asyncio.create_task(one(i)) for i in range(25)]
    await eventually(lambda: bridge.pending_count == 25)
    dropped_at = time.monotonic()
    # A clean close is sent at once; the client then waits for the handshake (it stopped
    # reading, so that takes its close_timeout): measure the bridge, not the client.
    leaving = asyncio.create_task(runtime.drop() if how == "drop" else runtime.close())
    kinds = await asyncio.gather(*tasks)
    await leaving
    assert kinds == ["transport_failed"] * 25
    assert max(ended) - dropped_at < 0.5  # at once, not after the 10 s timeout
    assert bridge.pending_count == 0 and "rt-gone" not in bridge.registry
    assert (await bridge.call("ping", {}, runtime_id="rt-stays"))["name"] == "ping"  # others are untouched


async def test_an_output_for_another_runtimes_call_is_refused(make_runtime: MakeRuntime, bridge: Any) -> None:
    owner = await make_runtime("rt-owner")
    intruder = await make_runtime("rt-intruder")
    task = asyncio.create_task(bridge.call("mine", {}, runtime_id="rt-owner", call_id="c-owned", timeout_ms=3000))
    await owner.recv()
    # Answering someone else's call, under one's own id...
    await intruder.output("c-owned", "hijacked")
    reply = await intruder.recv()
    assert reply["error"]["code"] == "invalid_item" and reply["call_id"] == "c-owned"
    # ...or claiming to be the owner: both refused.
    await intruder.output("c-owned", "hijacked", runtime_id="rt-owner")
    reply = await intruder.recv()
    assert reply["error"]["code"] == "invalid_item"
    assert not task.done()
    await owner.output("c-owned", "genuine")
    assert await task == "genuine"


async def test_a_runtime_error_reaches_the_caller_with_its_code(make_runtime: MakeRuntime, bridge: Any) -> None:
    runtime = await make_runtime("rt-err")
    task = asyncio.create_task(outcome(bridge.call("search.submit", {}, runtime_id="rt-err")))
    call = await runtime.recv()
    error = {"code": "target_not_found", "message": "no search form", "severity": "major", "recoverable": True, "evidence": {"selector": "form[role=search]"}}
    await runtime.send({"type": "action_error", "call_id": call["call_id"], "runtime_id": "rt-err", "error": error})
    kind, exc = await task
    assert kind == "target_not_found"
    assert exc.to_error() == error


async def test_stopping_the_server_fails_pending_calls(make_server: MakeServer) -> None:
    server = await make_server()
    runtime = await WsRuntime(server.url, "rt-stop").open()
    task = asyncio.create_task(outcome(server.bridge.call("wait", {}, runtime_id="rt-stop", timeout_ms=10_000)))
    await eventually(lambda: server.bridge.pending_count == 1)
    await server.stop()
    kind, error = await task
    assert kind == "transport_failed"
    assert error.evidence["reason"] == "bridge stopping"
    code, _ = await runtime.wait_closed()
    assert code == 1001
    assert len(server.bridge.registry) == 0


# -- signals -------------------------------------------------------------------

ITEM_ADDED = SignalSpec(
    name="cart.item_added",
    event="shop:item-added",
    enabled=True,
    payload_schema={
        "type": "object",
        "required": ["sku"],
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
    },
)
SILENCED = SignalSpec(name="cart.cleared", event="shop:cleared", enabled=False)


def _signals(info: Any) -> dict[str, SignalSpec]:
    # Declared for the shop surface only.
    return {s.name: s for s in (ITEM_ADDED, SILENCED)} if info.url.startswith("https://shop.test") else {}


def _event(**fields: Any) -> dict[str, Any]:
    return {
        "type": "dom_event",
        "event_id": "e-1",
        "runtime_id": "rt-shop",
        "name": "cart.item_added",
        "event": "shop:item-added",
        "url": "https://shop.test/cart",
        "payload": {"sku": "A1", "qty": 2},
        "previous_call_id": "c-9",
        **fields,
    }


async def test_runtime_config_lists_the_enabled_declared_events(make_server: MakeServer) -> None:
    server = await make_server(signal_source=_signals)
    shop = await WsRuntime(server.url, "rt-shop", url="https://shop.test/").open()
    docs = await WsRuntime(server.url, "rt-docs", url="https://docs.test/").open()
    assert shop.config == {"type": "runtime_config", "runtime_id": "rt-shop", "listen": [{"name": "cart.item_added", "event": "shop:item-added"}]}
    assert docs.config["listen"] == []
    await shop.close()
    await docs.close()


async def test_a_declared_event_is_accepted_as_untrusted_page_data(make_server: MakeServer) -> None:
    server = await make_server(signal_source=_signals)
    heard: list[RuntimeEvent] = []
    server.bridge.events.subscribe(RuntimeEvent, heard.append)
    shop = await WsRuntime(server.url, "rt-shop", url="https://shop.test/").open()
    await shop.send(_event())
    info = server.bridge.registry.get("rt-shop")
    await eventually(lambda: len(info.events) == 1)
    record = info.events[0]
    assert record["trust"] == "untrusted_page_data"
    assert {k: record[k] for k in ("event_id", "name", "event", "payload", "previous_call_id")} == {
        "event_id": "e-1",
        "name": "cart.item_added",
        "event": "shop:item-added",
        "payload": {"sku": "A1", "qty": 2},
        "previous_call_id": "c-9",
    }
    assert [type(event) for event in heard] == [RuntimeArrived, PageEvent]
    await shop.expect_silence(0.1)  # accepted events are not answered
    await shop.close()


@pytest.mark.parametrize(
    ("fields", "code", "evidence"),
    [
        ({"name": "cart.stolen"}, "unknown_signal", {}),  # not declared for this surface
        ({"name": "cart.cleared", "event": "shop:cleared"}, "permission_denied", {}),  # declared, ingestion disabled
        ({"event": "shop:item-removed"}, "invalid_event", {"expected_event": "shop:item-added"}),  # wrong DOM event name
        ({"payload": {"qty": 2}}, "invalid_event", {"path": ""}),  # payload misses a required field: RFC 6901 pointer of the whole payload
        ({"payload": {"sku": "A1", "qty": 0}}, "invalid_event", {"path": "/qty"}),  # payload field out of range
        ({"payload": ["A1"]}, "invalid_event", {"path": ""}),  # payload of the wrong type (whole payload)
        ({"payload": {"sku": "x" * 20_000}}, "invalid_event", {"max_bytes": 16_000}),  # oversize payload
    ],
)
async def test_invalid_events_are_refused_with_a_structured_code(
    make_server: MakeServer, fields: dict[str, Any], code: str, evidence: dict[str, Any]
) -> None:
    server = await make_server(signal_source=_signals)
    shop = await WsRuntime(server.url, "rt-shop", url="https://shop.test/").open()
    await shop.send(_event(**fields))
    reply = await shop.recv()
    assert reply["type"] == "action_error" and reply["runtime_id"] == "rt-shop"
    assert reply["error"]["code"] == code
    assert reply["error"]["evidence"]["event_id"] == "e-1"
    for key, value in evidence.items():
        assert reply["error"]["evidence"][key] == value
    assert len(server.bridge.registry.get("rt-shop").events) == 0
    await shop.close()


async def test_events_are_refused_on_a_surface_without_signals(make_server: MakeServer) -> None:
    server = await make_server(signal_source=_signals)
    docs = await WsRuntime(server.url, "rt-docs", url="https://docs.test/").open()
    await docs.send(_event(runtime_id="rt-docs"))
    assert (await docs.recv())["error"]["code"] == "unknown_signal"
    await docs.close()


# -- HTTP routes -----------------------------------------------------------------


async def test_runtime_js_is_served_to_any_origin(server: BridgeServer) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.get(server.http_url + "/runtime.js", headers={"Origin": "https://anywhere.test"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/javascript")
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.text == runtime_js()
    assert TOKEN not in response.text  # the script carries no secret


async def test_runtime_js_is_what_the_composition_root_supplies(make_server: MakeServer) -> None:
    served = await make_server(runtime_script=lambda: "/* assembled elsewhere */")
    async with httpx.AsyncClient() as client:
        response = await client.get(served.http_url + "/runtime.js")
    assert (response.status_code, response.text) == (200, "/* assembled elsewhere */")


async def test_a_failing_runtime_script_is_a_logged_503(make_server: MakeServer, caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> str:
        raise FileNotFoundError("page/runtime.js")

    served = await make_server(runtime_script=broken)
    with caplog.at_level(logging.ERROR, logger="mcp_actions.bridge"):
        async with httpx.AsyncClient() as client:
            response = await client.get(served.http_url + "/runtime.js")
    assert response.status_code == 503 and "page/runtime.js" not in response.text
    assert any("page runtime is not available" in r.getMessage() and r.exc_info for r in caplog.records)


async def test_healthz_needs_no_token_and_reveals_nothing(make_runtime: MakeRuntime, server: BridgeServer) -> None:
    await make_runtime("rt-secret", url="https://bank.test/")
    async with httpx.AsyncClient() as client:
        response = await client.get(server.http_url + "/healthz")
    assert (response.status_code, response.text) == (200, "ok\n")


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 401),  # the status page needs the token
        ("/?token=wrong", 401),  # the right one
        ("/nope", 404),  # unknown path
        ("/runtime.json", 404),  # near miss
        (f"/secrets?token={TOKEN}", 404),  # a token opens no other path
        ("/bridge", 401),  # the socket path without token
    ],
)
async def test_http_refusals(make_runtime: MakeRuntime, server: BridgeServer, path: str, status: int) -> None:
    await make_runtime("rt-secret", url="https://bank.test/account")
    async with httpx.AsyncClient() as client:
        response = await client.get(server.http_url + path)
    assert response.status_code == status
    assert "bank.test" not in response.text and "rt-secret" not in response.text


async def test_only_get_is_served(server: BridgeServer) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(server.http_url + "/runtime.js")
    assert response.status_code == 405


async def test_status_page_shows_runtimes_escaped_and_the_bookmarklet(make_runtime: MakeRuntime, server: BridgeServer) -> None:
    evil_title = '<script>alert("x")</script>'
    await make_runtime("rt-<b>", url='https://shop.test/?q="><img src=x>', title=evil_title, runtime_key="tab:&1")
    await make_runtime("rt-2", url="https://docs.test/")
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{server.http_url}/?token={TOKEN}")
    page = response.text
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "no-store"
    assert "<script>" not in page and "<img" not in page and "<b>" not in page
    assert html.escape(evil_title) in page and "rt-&lt;b&gt;" in page and "tab:&amp;1" in page
    assert "https://docs.test/" in page and "2 runtime(s) connected, 0 call(s) in flight" in page
    # The bookmarklet injects runtime.js with the page credential (never the start token) into whatever page it is clicked on.
    href = html.unescape(page.split('id="bookmarklet" href="', 1)[1].split('"', 1)[0])
    assert href == server.bookmarklet()
    source = unquote(href.removeprefix("javascript:"))
    assert f'"{server.http_url}/runtime.js?token={server.page_credential}"' in source
    assert TOKEN not in page.split("<h2>Connect a page</h2>", 1)[1]
    assert "createElement('script')" in source


async def test_status_page_counts_calls_in_flight(make_runtime: MakeRuntime, server: BridgeServer) -> None:
    await make_runtime("rt-1")
    task = asyncio.create_task(outcome(server.bridge.call("wait", {}, runtime_id="rt-1", timeout_ms=5000)))
    await eventually(lambda: server.bridge.pending_count == 1)
    async with httpx.AsyncClient() as client:
        page = (await client.get(f"{server.http_url}/?token={TOKEN}")).text
    assert "1 runtime(s) connected, 1 call(s) in flight" in page
    task.cancel()


def test_addresses_and_bookmarklet_quote_the_token() -> None:
    from mcp_actions.bridge.bridge import Bridge

    server = BridgeServer(Bridge(), host="0.0.0.0", port=17345, token="a b/%&\"'<", runtime_script=runtime_js)
    assert server.url == "ws://127.0.0.1:17345/bridge"  # a wildcard bind is reached over loopback
    assert server.http_url == "http://127.0.0.1:17345"
    # Pages get the page credential (URL-safe already); the status page, for the operator, the start token quoted.
    assert server.script_url() == f"http://127.0.0.1:17345/runtime.js?token={server.page_credential}"
    assert server.status_url() == "http://127.0.0.1:17345/?token=a%20b%2F%25%26%22%27%3C"
    bookmarklet = server.bookmarklet()
    assert bookmarklet.startswith("javascript:")
    # A browser percent-decodes a javascript: URL once before running it: that must yield a
    # script whose src is exactly the script URL, percent-encoded token included.
    assert json.dumps(server.script_url()) in unquote(bookmarklet)
    assert BridgeServer(Bridge(), host="::", port=1, token="t", runtime_script=runtime_js).url == "ws://[::1]:1/bridge"
    with pytest.raises(ValueError):
        BridgeServer(Bridge(), token="", runtime_script=runtime_js)
