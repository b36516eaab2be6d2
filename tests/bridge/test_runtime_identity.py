"""Runtime identity is proved, never claimed (issue 28): each attack on the bridge, tried for real.

A page that received the page runtime (the bookmarklet's own code, in real
headless Chromium) reads the credential from the script tag it left, opens a
WebSocket of its own and announces what it likes: the id of a tab of the
server's own browser, the site of a loaded map, a bank's URL, a pairing it
never made. None of it takes: the server's tab stays the runtime (and the
map's call, password included, reaches it through the SDK ``Client``), the
claimed origin is refused, the claimed pairing ignored. The bridge port
answers a foreign ``Host`` with 421 on every route, and only the paired
browser itself may revoke its pairing. A page runtime still gets its own id
back after its socket drops and after the server restarts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest
import pytest_asyncio
from mcp import Client
from playwright.async_api import Browser, Page
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge import websocket
from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.pairings import PairingStore
from mcp_actions.bridge.websocket import CLOSE_REVOKED, BridgeServer
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.runtimes.page_script import runtime_js
from mcp_actions.server.mcp_server import build_server

from .wsclient import TOKEN, WsRuntime, eventually

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

#: What a hostile page script does with the runtime it was given: read the credential from the
#: script tag the bookmarklet left, open its own socket, announce ``ready`` and record every item.
HIJACK = """async (ready) => {
  const src = document.querySelector('script[src*="/runtime.js"]').src;
  const url = new URL(src);
  const credential = url.searchParams.get("token");
  const ws = new WebSocket(`ws://${url.host}/bridge?token=${encodeURIComponent(credential)}`);
  window.__got = [];
  ws.onmessage = (event) => window.__got.push(JSON.parse(event.data));
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  ws.send(JSON.stringify(ready));
  window.__hijack = ws;
  return credential;
}"""


@pytest_asyncio.fixture(loop_scope="module")
async def page(chromium: Browser) -> AsyncIterator[Page]:
    context = await chromium.new_context()
    yield await context.new_page()
    await context.close()


@contextlib.asynccontextmanager
async def bridge_server(port: int = 0, **options: Any) -> AsyncIterator[BridgeServer]:
    server = BridgeServer(Bridge(), port=port, token=TOKEN, runtime_script=runtime_js, **options)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
        await server.bridge.stop()


async def inject(page: Page, server: BridgeServer | None, url: str, bookmarklet: str | None = None) -> None:
    """Open ``url`` and click the bookmarklet there (its javascript: URL, percent-decoded once, as a browser runs it)."""
    await page.goto(url)
    link = bookmarklet or (server.bookmarklet() if server else "")
    await page.evaluate(unquote(link.removeprefix("javascript:")))


async def first_item(page: Page, timeout: float = 5.0) -> dict[str, Any]:
    """The first item the hijacking socket received."""
    async with asyncio.timeout(timeout):
        while not await page.evaluate("() => (window.__got || []).length"):
            await asyncio.sleep(0.02)
    return dict(await page.evaluate("() => window.__got[0]"))


def page_runtime(bridge: Bridge, url: str) -> str:
    return next(i.runtime_id for i in bridge.registry.list() if i.url == url and (i.runtime_key or "").startswith("page:"))


# -- the server's own tab, a map's call and its password -------------------------------------------


def _counter_map(directory: Path, origin: str) -> Path:
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin, "name": "Counter"},
        "tools": [
            {
                "name": "counter.login",
                "description": "Sign in.",
                "input_schema": {
                    "type": "object",
                    "required": ["user", "password"],
                    "properties": {"user": {"type": "string"}, "password": {"type": "string"}},
                    "additionalProperties": False,
                },
                "x_actions": {"handler": "counter.login"},
            },
            {
                "name": "counter.bump",
                "description": "Count one call.",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                "x_actions": {"handler": "counter.bump"},
            },
        ],
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "actions.json").write_text(json.dumps(document))
    return directory


async def _count(page: Page) -> int:
    return int(await page.evaluate("() => window.counter.read().count"))


async def test_a_page_cannot_take_the_servers_tab_and_the_maps_call_reaches_the_real_tab(tmp_path: Path, page: Page, pages_url: str) -> None:
    site = f"{pages_url}/audit-counter/index.html"
    maps = _counter_map(tmp_path / "maps", pages_url)
    app = ActionsApp(AppOptions(manifests=[str(maps)], headless=True, isolated=True, bridge_port=0, bridge_token="start-token-of-this-run", watch=False))
    async with Client(build_server(app)) as client:
        tools = {t.meta["mcp-actions/tool"]: t.name for t in (await client.list_tools()).tools if t.meta}
        navigated = await client.call_tool("browser_navigate", {"url": site})
        assert not navigated.is_error, navigated.content
        assert app.browser is not None and app.endpoint is not None
        tab = app.browser.tabs[0]
        real = app.bridge.registry.get(tab.runtime_id)
        assert real is not None and real.trust == "host"
        real_session = app.bridge._sessions[tab.runtime_id]

        # The user clicks the bookmarklet on the same site in their own browser: a page runtime of the site.
        await inject(page, None, site, app.endpoint.bookmarklet())
        await eventually(lambda: any((i.runtime_key or "").startswith("page:") for i in app.bridge.registry.list()), timeout=10)
        bookmarked = page_runtime(app.bridge, site)
        # A script of that page takes the credential and claims the server's tab, its key and a pairing.
        credential = await page.evaluate(HIJACK, {"type": "runtime_ready", "runtime_id": tab.runtime_id, "runtime_key": real.runtime_key, "url": site, "authorization_id": "auth-claimed"})
        assert credential != app.token and app.token not in await page.content()  # the start token never reached the page
        config = await first_item(page)
        assert config["type"] == "runtime_config" and config["runtime_id"] not in (tab.runtime_id, bookmarked)
        assert config["renamed"]["runtime_id"] == tab.runtime_id and config["renamed"]["runtime_key"] == real.runtime_key
        hijacker = app.bridge.registry.get(config["runtime_id"])
        assert hijacker is not None and (hijacker.trust, hijacker.authorization_id, hijacker.runtime_key) == ("page", None, None)
        # The server's tab is still its runtime, on its own connection.
        assert app.bridge.registry.get(tab.runtime_id) is real and app.bridge._sessions[tab.runtime_id] is real_session

        # The map's call (a password in it) goes to the server's tab, not to either page runtime announcing the site.
        login = await client.call_tool(tools["counter.login"], {"user": "ann", "password": "hunter2"})
        assert login.is_error
        assert await _count(tab.page) == 1
        assert await _count(page) == 0
        assert not [item for item in await page.evaluate("() => window.__got") if item.get("type") == "action_call"]
        # Naming the page runtime still reaches it.
        bumped = await client.call_tool(tools["counter.bump"], {"target_runtime_id": bookmarked})
        assert not bumped.is_error, bumped.content
        assert (await _count(page), await _count(tab.page)) == (1, 1)


# -- in-process runtimes and squatters, without a browser of the server's --------------------------


async def test_an_in_process_runtimes_id_is_never_given_to_a_page_and_a_squatter_gives_it_up(page: Page, pages_url: str) -> None:
    site = f"{pages_url}/simple-form/index.html"
    async with bridge_server() as server:
        bridge = server.bridge
        host = MemoryRuntime(bridge, runtime_id="tab-1", url=site, runtime_key="playwright:tab-1")
        await host.start()
        await inject(page, server, site)
        await page.evaluate(HIJACK, {"type": "runtime_ready", "runtime_id": "tab-1", "runtime_key": "playwright:tab-1", "url": site})
        config = await first_item(page)
        assert config["runtime_id"] != "tab-1" and config["renamed"]["runtime_id"] == "tab-1"
        assert bridge.registry.get("tab-1").trust == "host" and bridge.registry.find_by_key("playwright:tab-1").runtime_id == "tab-1"

        # A page that squats an id before the server's own runtime exists is dropped when it arrives.
        await page.evaluate("() => window.__hijack.close()")
        await page.evaluate(HIJACK, {"type": "runtime_ready", "runtime_id": "tab-2", "url": site})
        assert (await first_item(page))["runtime_id"] == "tab-2"
        second = MemoryRuntime(bridge, runtime_id="tab-2", url=site)
        await second.start()
        assert bridge.registry.get("tab-2").trust == "host"
        closed = await page.evaluate("() => new Promise((r) => { const ws = window.__hijack; if (ws.readyState === 3) r(true); else ws.onclose = () => r(true); })")
        assert closed
        await host.stop()
        await second.stop()


async def test_a_proved_runtime_of_another_credential_is_not_replaced() -> None:
    async with bridge_server() as server:
        # A runtime of the start token (no Origin) and a page runtime (a web Origin, the start token too)
        # announcing the operator's key: the page gets a fresh id, the operator keeps its connection.
        operator = await WsRuntime(server.url, "prog-1", runtime_key="prog:1", url="https://shop.test/").open()
        page = WsRuntime(server.url, "prog-1", runtime_key="prog:1", url="https://shop.test/")
        await page.open(headers={"Origin": "https://shop.test"})
        assert page.config is not None and page.config["runtime_id"] != "prog-1" and "runtime_secret" in page.config
        assert server.bridge.registry.get("prog-1").trust == "operator" and server.bridge.registry.get(page.config["runtime_id"]).trust == "page"
        await operator.send({"type": "runtime_status", "runtime_id": "prog-1"})
        await operator.expect_silence()  # still connected, nothing refused
        await operator.close()
        await page.close()


# -- what a page says of its page ------------------------------------------------------------------


async def test_a_page_cannot_claim_another_origin(page: Page, pages_url: str) -> None:
    site = f"{pages_url}/simple-form/index.html"
    async with bridge_server() as server:
        bridge = server.bridge
        await inject(page, server, site)
        await eventually(lambda: len(bridge.registry) == 1, timeout=10)
        before = {i.runtime_id for i in bridge.registry.list()}
        # The bank's URL in runtime_ready: refused whole, with a stable code and the path of the problem.
        await page.evaluate(HIJACK, {"type": "runtime_ready", "runtime_id": "page-bank", "url": "https://bank.example/login"})
        refusal = await first_item(page)
        assert refusal["type"] == "action_error" and refusal["error"]["code"] == "permission_denied"
        assert refusal["error"]["evidence"] == {"reason": "origin_mismatch", "path": "/url", "origin": urlsplit(pages_url)._replace(path="").geturl(), "url": "https://bank.example/login"}
        assert {i.runtime_id for i in bridge.registry.list()} == before
        # Announced as what it is, it connects; a runtime_status moving it to the bank is refused and changes nothing.
        await page.evaluate("(ready) => window.__hijack.send(JSON.stringify(ready))", {"type": "runtime_ready", "runtime_id": "page-own", "url": site})
        await eventually(lambda: "page-own" in bridge.registry)
        await page.evaluate("(status) => window.__hijack.send(JSON.stringify(status))", {"type": "runtime_status", "runtime_id": "page-own", "url": "https://bank.example/"})
        async with asyncio.timeout(5):
            # The second origin_mismatch refusal this socket got (the first was its runtime_ready's).
            while len([i for i in await page.evaluate("() => window.__got") if i.get("type") == "action_error"]) < 2:
                await asyncio.sleep(0.02)
        assert bridge.registry.get("page-own").url == site


async def test_the_page_credential_needs_an_origin_and_the_start_token_from_a_page_makes_a_page_runtime() -> None:
    async with bridge_server() as server:
        with pytest.raises(InvalidStatus) as refused:
            await connect(f"{server.url}?token={server.page_credential}", open_timeout=3)
        assert refused.value.response.status_code == 403
        runtime = WsRuntime(server.url, "rt-page", token=server.page_credential, url="http://127.0.0.1:9/x")
        await runtime.open(headers={"Origin": "http://127.0.0.1:9"})
        assert server.bridge.registry.get("rt-page").trust == "page"
        await runtime.close()


# -- the bridge port and foreign Hosts ---------------------------------------------------------------


async def _raw_upgrade(port: int, host: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"GET /bridge?token={TOKEN} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    await writer.drain()
    async with asyncio.timeout(3):
        head = await reader.readuntil(b"\r\n\r\n")
    writer.close()
    return head


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("rebind.evil.example", False),  # DNS rebinding: a hostile name resolving to loopback
        ("rebind.evil.example:{port}", False),  # with our port
        ("127.0.0.1.evil.example:{port}", False),  # loopback as a prefix only
        ("localhost.:{port}", False),  # not the same name
        ("127.0.0.1:{port}", True),
        ("localhost:{port}", True),
        ("[::1]:{port}", True),
        ("LOCALHOST:{port}", True),  # host names ignore case
    ],
)
async def test_every_route_refuses_a_foreign_host(tmp_path: Path, host: str, allowed: bool) -> None:
    async with bridge_server(pairings=PairingStore(tmp_path / "pairings.json")) as server:
        named = host.format(port=server.port)
        routes = {"/healthz": {}, "/runtime.js": {}, f"/?token={TOKEN}": {}, "/pair": {"Authorization": f"Bearer {TOKEN}"}}
        async with httpx.AsyncClient() as http:
            for path, headers in routes.items():
                answer = await http.get(f"{server.http_url}{path}", headers={**headers, "Host": named})
                assert answer.status_code == (200 if allowed else 421), (path, answer.status_code)
        head = await _raw_upgrade(server.port, named)
        assert head.startswith(b"HTTP/1.1 101" if allowed else b"HTTP/1.1 421"), head
        if not allowed:
            assert PairingStore(tmp_path / "pairings.json").entries() == []  # no pairing was handed out


# -- pairings: only their holder revokes them ---------------------------------------------------------


async def test_only_the_paired_browser_revokes_its_pairing(tmp_path: Path, page: Page, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(websocket, "PAIRING_CHECK_S", 30.0)  # only the re-pairing itself may end the connection in time
    store = PairingStore(tmp_path / "pairings.json")
    victim, other = store.create("chrome at home"), store.create("chrome at work")
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    async with bridge_server(pairings=store) as server:
        paired = await WsRuntime(server.url, "chrome-tab:1", token=victim.secret, runtime_key="chrome-tab:1").open()
        async with httpx.AsyncClient() as http:
            pair = f"{server.http_url}/pair"
            # The start token alone, or with another pairing's secret, does not revoke it.
            for extra in ({}, {"X-MCP-Actions-Replaces": other.secret}, {"X-MCP-Actions-Replaces": "guess"}):
                refused = await http.get(pair, params={"replaces": victim.authorization_id}, headers={**bearer, **extra})
                assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"
            # The token in the query (what a page could send with a no-cors request) is not taken.
            assert (await http.get(pair, params={"token": TOKEN, "replaces": victim.authorization_id})).status_code == 401
            # A web page's Origin is refused, even with the token; an extension's page is not.
            from_page = await http.get(pair, headers={**bearer, "Origin": "https://evil.example"})
            assert from_page.status_code == 403 and from_page.json()["error"]["evidence"]["reason"] == "web_origin"
            assert store.authorization_ids() == {victim.authorization_id, other.authorization_id}
        # A real page holding the token fires the revocation with a no-cors request: nothing happens.
        await page.goto(f"{pages_url}/simple-form/index.html")
        await page.evaluate("(url) => fetch(url, {mode: 'no-cors'}).catch(() => null)", f"{server.http_url}/pair?token={TOKEN}&replaces={victim.authorization_id}")
        await asyncio.sleep(0.2)
        assert store.authorization_ids() == {victim.authorization_id, other.authorization_id}
        assert paired.ws is not None and paired.ws.close_code is None

        # The paired browser itself (its secret) re-pairs: the old pairing ends, and its connection at once.
        async with httpx.AsyncClient() as http:
            again = await http.get(
                f"{server.http_url}/pair",
                params={"replaces": victim.authorization_id},
                headers={**bearer, "Origin": "chrome-extension://abcdefghijklmnopabcdefghijklmnop", "X-MCP-Actions-Replaces": victim.secret},
            )
        assert again.status_code == 200
        assert store.authorization_ids() == {other.authorization_id, again.json()["authorization_id"]}
        async with asyncio.timeout(3):
            await paired.ws.wait_closed()
        assert paired.ws.close_code == CLOSE_REVOKED


async def test_a_paired_runtime_is_not_replaced_by_another_pairing(tmp_path: Path) -> None:
    store = PairingStore(tmp_path / "pairings.json")
    home, work = store.create("home"), store.create("work")
    async with bridge_server(pairings=store) as server:
        first = await WsRuntime(server.url, "chrome-tab:5", token=home.secret, runtime_key="chrome-tab:5").open()
        second = await WsRuntime(server.url, "chrome-tab:5", token=work.secret, runtime_key="chrome-tab:5").open()
        assert second.config is not None and second.config["runtime_id"] != "chrome-tab:5"
        info = server.bridge.registry.find_by_key("chrome-tab:5")
        assert info is not None and (info.runtime_id, info.authorization_id, info.trust) == ("chrome-tab:5", home.authorization_id, "paired")
        # The same pairing reconnecting takes its runtime back (its old connection is told it was replaced).
        again = await WsRuntime(server.url, "chrome-tab:5", token=home.secret, runtime_key="chrome-tab:5").open()
        assert again.config is not None and again.config["runtime_id"] == "chrome-tab:5"
        code, _ = await first.wait_closed()
        assert code == websocket.CLOSE_REPLACED
        for runtime in (second, again):
            await runtime.close()


# -- a page runtime comes back as itself -----------------------------------------------------------------


async def test_a_page_runtime_keeps_its_id_after_a_drop_and_after_a_restart(page: Page, pages_url: str) -> None:
    site = f"{pages_url}/simple-form/index.html"
    async with bridge_server() as server:
        bridge = server.bridge
        await inject(page, server, site)
        await eventually(lambda: len(bridge.registry) == 1, timeout=10)
        runtime_id = page_runtime(bridge, site)
        port = server.port
        # The socket drops (the bridge closes it, code 4000): the runtime reconnects with its secret.
        session = bridge._sessions[runtime_id]
        await session.link.close("dropped for the test")
        await eventually(lambda: runtime_id not in bridge.registry, timeout=5)
        # Meanwhile another page (a forged Origin of the same site, the page credential) claims the free id: it is reserved.
        squatter = WsRuntime(server.url, runtime_id, token=server.page_credential, url=site)
        await squatter.open(headers={"Origin": pages_url})
        assert squatter.config is not None and squatter.config["runtime_id"] != runtime_id
        await eventually(lambda: runtime_id in bridge.registry, timeout=10)
        assert bridge._sessions[runtime_id] is not session and bridge.registry.get(runtime_id).trust == "page"
        await squatter.close()

    # The server restarts on the same port with the same token: the secret is unknown, the free id is the page's again.
    async with bridge_server(port=port) as restarted:
        await eventually(lambda: runtime_id in restarted.bridge.registry, timeout=20)
        assert restarted.bridge.registry.get(runtime_id).url == site
