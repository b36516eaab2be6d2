"""The WebSocket client half of runtime.js, against a tiny stand-in bridge.

The stand-in (a real ``websockets`` server) serves ``/runtime.js`` and
``/bridge`` on one port like the real bridge does, records every item a page
sends and lets the test send items back. The page loads the runtime through a
``<script src=…/runtime.js?token=…>`` tag, so URL discovery is real too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from mcp_actions.runtimes.page_script import ENGINE_EXTENSIONS, ENGINE_PRIMITIVES, engine_js, engine_version, runtime_js

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

TOKEN = "secret-token"


@dataclass
class Connection:
    ws: ServerConnection
    query: dict[str, list[str]]
    items: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)

    async def next(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next item of this type (heartbeats and other types in between are skipped)."""
        async with asyncio.timeout(timeout):
            while True:
                item = await self.items.get()
                if item.get("type") == kind:
                    return item

    async def send(self, item: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(item))


class StandInBridge:
    """Accepts runtime connections and serves the runtime script."""

    def __init__(self) -> None:
        self.connections: asyncio.Queue[Connection] = asyncio.Queue()
        self.server: Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path == "/runtime.js":
            response = connection.respond(200, runtime_js())
            response.headers["Content-Type"] = "application/javascript; charset=utf-8"
            return response
        if path != "/bridge":
            return connection.respond(404, "not found\n")
        return None

    async def handler(self, ws: ServerConnection) -> None:
        conn = Connection(ws, parse_qs(urlsplit(ws.request.path).query))
        await self.connections.put(conn)
        async for message in ws:
            await conn.items.put(json.loads(message))

    async def accept(self, timeout: float = 5.0) -> Connection:
        async with asyncio.timeout(timeout):
            return await self.connections.get()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def stand_in() -> AsyncIterator[StandInBridge]:
    bridge = StandInBridge()
    async with serve(bridge.handler, "127.0.0.1", 0, process_request=bridge.process_request) as server:
        bridge.server = server
        yield bridge


@pytest_asyncio.fixture(loop_scope="module")
async def page(chromium: Browser) -> AsyncIterator[Page]:
    context = await chromium.new_context()
    page = await context.new_page()
    yield page
    await context.close()


async def load_runtime(page: Page, stand_in: StandInBridge, url: str) -> Connection:
    await page.goto(url)
    await page.add_script_tag(url=f"http://127.0.0.1:{stand_in.port}/runtime.js?token={TOKEN}")
    return await stand_in.accept()


async def test_ready_calls_events_and_errors(page: Page, stand_in: StandInBridge, pages_url: str) -> None:
    conn = await load_runtime(page, stand_in, f"{pages_url}/simple-form/index.html")
    ready = await conn.next("runtime_ready")
    assert conn.query == {"token": [TOKEN]}
    assert ready["runtime_id"].startswith("page-") and ready["runtime_key"].startswith("page:")
    assert ready | {"runtime_id": None, "runtime_key": None} == {
        "type": "runtime_ready",
        "runtime_id": None,
        "runtime_key": None,
        "url": f"{pages_url}/simple-form/index.html",
        "title": "actions.json simple form example",
        "capabilities": [*ENGINE_PRIMITIVES, *ENGINE_EXTENSIONS],
        "extension_version": f"page-runtime/{engine_version()}",
    }
    runtime_id = ready["runtime_id"]

    # Declared DOM events are forwarded, naming the call that caused them.
    await conn.send({"type": "runtime_config", "runtime_id": runtime_id, "listen": [{"name": "contact.submitted", "event": "contact:submitted"}]})
    await conn.send({"type": "action_call", "call_id": "c1", "runtime_id": runtime_id, "name": "contact.submit_name",
                     "handler": "contactForm.submitName", "arguments": {"name": "Ada"}, "timeout_ms": 5000})  # fmt: skip
    event = await conn.next("dom_event")
    output = await conn.next("action_call_output")
    # The handler's value looks like the protocol's {ok, result} envelope, so it travels inside a real one (docs/bridge-protocol.md).
    assert output == {"type": "action_call_output", "call_id": "c1", "runtime_id": runtime_id, "output": {"ok": True, "result": {"ok": True, "result": "Submitted Ada"}}}
    assert event["event_id"].startswith("evt-") and event["observed_at"].endswith("Z")
    assert {k: event[k] for k in ("runtime_id", "name", "event", "payload", "previous_call_id", "url")} == {
        "runtime_id": runtime_id,
        "name": "contact.submitted",
        "event": "contact:submitted",
        "payload": {"name": "Ada", "result": "Submitted Ada"},
        "previous_call_id": "c1",
        "url": f"{pages_url}/simple-form/index.html",
    }

    # A primitive, a privileged primitive, an unknown name, a missing handler.
    await conn.send({"type": "action_call", "call_id": "c2", "name": "page.info", "arguments": {}})
    assert (await conn.next("action_call_output"))["output"] == {"url": f"{pages_url}/simple-form/index.html", "title": "actions.json simple form example"}
    expected_errors = [
        ({"name": "browser.screenshot"}, "capability_unavailable", {"capability": "browser.screenshot", "host": "page"}),
        ({"name": "no.such.thing"}, "unknown_action", {"name": "no.such.thing"}),
        ({"name": "x", "handler": "contactForm.nope"}, "missing_handler", {"handler": "contactForm.nope", "missing": "contactForm.nope"}),
    ]
    for i, (fields, code, evidence) in enumerate(expected_errors):
        await conn.send({"type": "action_call", "call_id": f"e{i}", "arguments": {}, **fields})
        error = await conn.next("action_error")
        assert (error["call_id"], error["runtime_id"], error["error"]["code"], error["error"]["evidence"]) == (f"e{i}", runtime_id, code, evidence)

    # The call's timeout is honoured by the page too.
    await page.evaluate("() => { window.stuck = () => new Promise(() => {}); }")
    await conn.send({"type": "action_call", "call_id": "t1", "name": "x", "handler": "stuck", "arguments": {}, "timeout_ms": 100})
    timeout = await conn.next("action_error")
    assert (timeout["call_id"], timeout["error"]["code"]) == ("t1", "handler_timeout")


async def test_single_page_navigation_is_announced(page: Page, stand_in: StandInBridge, pages_url: str) -> None:
    conn = await load_runtime(page, stand_in, f"{pages_url}/simple-form/index.html")
    await conn.next("runtime_ready")
    await page.evaluate("() => { history.pushState({}, '', '/simple-form/step-2'); document.title = 'Step 2'; }")
    status = await conn.next("runtime_status")
    assert (status["url"], status["title"]) == (f"{pages_url}/simple-form/step-2", "Step 2")
    await page.evaluate("() => { location.hash = 'part'; }")
    status = await conn.next("runtime_status")
    assert status["url"] == f"{pages_url}/simple-form/step-2#part"


async def test_reconnects_with_the_same_identity(page: Page, stand_in: StandInBridge, pages_url: str) -> None:
    conn = await load_runtime(page, stand_in, f"{pages_url}/simple-form/index.html")
    first = await conn.next("runtime_ready")
    # Loading the runtime a second time does nothing: no second connection.
    await page.add_script_tag(url=f"http://127.0.0.1:{stand_in.port}/runtime.js?token={TOKEN}")
    await asyncio.sleep(0.3)
    assert stand_in.connections.empty()
    # The bridge drops the connection: the runtime comes back after its backoff.
    await conn.ws.close()
    again = await (await stand_in.accept(timeout=5)).next("runtime_ready")
    assert (again["runtime_id"], again["runtime_key"]) == (first["runtime_id"], first["runtime_key"])
    # A reload of the same tab keeps the identity too (sessionStorage).
    reloaded = await load_runtime(page, stand_in, f"{pages_url}/simple-form/index.html")
    assert (await reloaded.next("runtime_ready"))["runtime_id"] == first["runtime_id"]
    assert stand_in.connections.empty()


async def test_config_object_and_engine_only(page: Page, stand_in: StandInBridge, pages_url: str) -> None:
    await page.goto(f"{pages_url}/simple-form/index.html")
    # Engine only (what the browser host injects): installs the engine, opens no connection,
    # even with a bridge configured.
    await page.evaluate("(port) => { window.__MCP_ACTIONS_BRIDGE__ = {url: `http://127.0.0.1:${port}`, token: 'x'}; }", stand_in.port)
    await page.add_script_tag(content=engine_js())
    assert await page.evaluate("() => window.__mcpActions.status().client") is None
    # Inline script (no src): the bridge comes from window.__MCP_ACTIONS_BRIDGE__.
    await page.goto(f"{pages_url}/simple-form/index.html")
    await page.evaluate("(port) => { window.__MCP_ACTIONS_BRIDGE__ = {url: `http://127.0.0.1:${port}`, token: 'from-config'}; }", stand_in.port)
    await page.add_script_tag(content=runtime_js())
    conn = await stand_in.accept()
    ready = await conn.next("runtime_ready")
    assert conn.query == {"token": ["from-config"]}
    status = await page.evaluate("() => window.__mcpActions.status().client")
    assert status == {"connected": True, "runtime_id": ready["runtime_id"], "runtime_key": ready["runtime_key"],
                      "bridge_url": f"ws://127.0.0.1:{stand_in.port}/bridge", "listening": 0}  # fmt: skip
