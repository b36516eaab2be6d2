"""WAB discovery fetches only what the server can vouch for (issue 28, item 5).

A runtime announced ``url: "http://127.0.0.1:P/admin/reset?confirm=yes"`` and the
server itself GET that URL (the meta-tag fallback fetched the page's HTML). Here the
whole server runs (``ActionsApp`` with its bridge port and its own headless Chromium,
behind the SDK's ``Client``); a real local HTTP server counts every request it gets,
and runtimes connect over a real WebSocket (``tests/bridge/wsclient.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server
from tests.bridge.wsclient import TOKEN, WsRuntime

pytestmark = [pytest.mark.asyncio, pytest.mark.browser]

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
ADMIN = "/admin/reset?confirm=yes"


class _Counting(http.server.SimpleHTTPRequestHandler):
    """Serves a fixture site and records every request line's path (the admin route included)."""

    requested: list[str]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.requested.append(self.path)
        if self.path.startswith("/admin/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b'<meta name="wab-discovery" content="/agent-bridge.json">reset done')
            return
        super().do_GET()


class Site:
    """A local site that counts requests."""

    def __init__(self, directory: Path) -> None:
        self.requested: list[str] = []
        handler = type("Handler", (_Counting,), {"requested": self.requested})
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def bakery() -> Iterator[Site]:
    """The WAB bakery: /agent-bridge.json is its discovery document."""
    site = Site(PAGES / "wab")
    yield site
    site.close()


@pytest.fixture()
def bare_site() -> Iterator[Site]:
    """A site with no discovery document at either well-known path."""
    site = Site(PAGES / "wab-meta")
    yield site
    site.close()


class Server:
    def __init__(self, app: ActionsApp, client: Client) -> None:
        self.app = app
        self.client = client

    async def runtime(self, url: str, runtime_id: str, *, headers: dict[str, str] | None = None, **fields: Any) -> WsRuntime:
        assert self.app.endpoint is not None
        runtime = WsRuntime(self.app.endpoint.url, runtime_id, url=url, token=TOKEN, **fields)
        return await runtime.open(headers=headers)

    async def discovery_settled(self) -> None:
        """Past the quiet spell discovery waits for, and no discovery under way."""
        await asyncio.sleep(0.8)
        for _ in range(200):
            if not self.app.wab.pending_count:
                return
            await asyncio.sleep(0.05)
        raise AssertionError("WAB discovery never finished")


@contextlib.asynccontextmanager
async def serving() -> AsyncIterator[Server]:
    """The whole server, its bridge port open with the test token, behind the SDK's Client."""
    app = ActionsApp(AppOptions(browser="launch", headless=True, isolated=True, bridge_port=0, bridge_token=TOKEN, watch=False))
    async with Client(build_server(app)) as client:
        yield Server(app, client)


async def test_a_page_runtime_announcing_an_admin_url_gets_no_request_sent(bakery: Site) -> None:
    async with serving() as server:
        # A web page's WebSocket (its handshake carries the page's Origin): a page runtime, unproved.
        page = await server.runtime(bakery.url + ADMIN, "rt-page", headers={"Origin": bakery.url})
        info = server.app.bridge.registry.get(page.runtime_id)
        assert info is not None and info.trust == "page" and not info.proved
        await server.discovery_settled()
        assert bakery.requested == []  # not the admin URL, not even the well-known paths of its origin
        assert server.app.wab.documents == {}
        await page.close()


async def test_the_servers_own_tab_still_has_its_origins_well_known_path_fetched(bakery: Site) -> None:
    async with serving() as server:
        await _own_tab(server, bakery)


async def _own_tab(server: Server, bakery: Site) -> None:
    # A page the server's own browser opened: its origin's well-known path is fetched, and only that.
    opened = await server.client.call_tool("browser_navigate", {"url": f"{bakery.url}/index.html"})
    assert not opened.is_error, opened.structured_content
    tab_id = opened.structured_content["tab"]["runtime_id"]
    await server.discovery_settled()
    assert server.app.wab.documents[tab_id]["url"] == f"{bakery.url}/agent-bridge.json"
    assert [p for p in bakery.requested if p != "/index.html" and not p.startswith("/favicon")] == ["/agent-bridge.json"]
    assert ADMIN not in bakery.requested


async def test_a_proved_runtime_gets_only_the_fixed_paths_of_its_origin_fetched(bare_site: Site) -> None:
    async with serving() as server:
        await _operator(server, bare_site)


async def _operator(server: Server, bare_site: Site) -> None:
    # A program holding the start token (no web Origin): proved, so its origin is looked at,
    # but only at the fixed discovery paths: the announced path and query are never requested.
    operator = await server.runtime(bare_site.url + ADMIN, "rt-operator")
    info = server.app.bridge.registry.get(operator.runtime_id)
    assert info is not None and info.proved

    async def answer(call: dict[str, Any]) -> Any:
        # The live page's wab-discovery meta tag names the admin URL: refused, never fetched.
        return {"records": {"wab": {"content": ADMIN}}, "diagnostics": {}}

    operator.serve(answer)
    await server.discovery_settled()
    assert [call["name"] for call in operator.calls] == ["dom.extract"]  # the meta tag was asked for in the page
    assert bare_site.requested == ["/agent-bridge.json", "/.well-known/wab.json"]
    await operator.close()


async def test_a_runtime_that_cannot_read_its_page_has_its_page_url_never_fetched(bare_site: Site) -> None:
    async with serving() as server:
        # No dom.extract on this runtime: the old fallback fetched the announced page URL for its HTML.
        operator = await server.runtime(bare_site.url + ADMIN, "rt-blind", capabilities=["wab.execute"])
        await server.discovery_settled()
        assert bare_site.requested == ["/agent-bridge.json", "/.well-known/wab.json"]
        await operator.close()
