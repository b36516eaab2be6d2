"""An ended agent session leaves nothing of its own referenced in the server (docs/sessions.md, "When a session ends").

In process, so that the server's objects can be looked at: the real HTTP app served by uvicorn,
a real SDK client over streamable HTTP (its own ``Mcp-Session-Id``, so its own browser context),
a real headless Chromium. The session opens a page; its client ends it (``DELETE``); then weak
references to its browser host, its tab runtime, the tab's Playwright page and the session's
browser context must all be dead, no runtime or WAB record of its tab may be left, and the
server must have given the freed memory back once (server/memory.py).
"""

from __future__ import annotations

import asyncio
import gc
import socket
import time
import weakref

import uvicorn
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.chromium import find_browser
from mcp_actions.server.http_guard import HttpPolicy
from mcp_actions.server.transports import http_app

from .session_servers import free_port


async def _eventually(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def _listening(port: int) -> None:
    def up() -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", port)) == 0

    await _eventually(up)


async def test_an_ended_session_leaves_no_host_tab_page_or_context_behind(pages_url: str) -> None:
    app = ActionsApp(AppOptions(browser="auto", browser_path=find_browser(), headless=True, bridge_port=0, watch=False, audit_log=None))
    port = free_port()
    await app.start()  # as serve does: the app runs before uvicorn, whose lifespan then stops it
    server = uvicorn.Server(uvicorn.Config(http_app(app, "streamable-http", HttpPolicy.for_bind("127.0.0.1")), host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    serving = asyncio.create_task(server.serve())
    try:
        await _listening(port)
        assert app.browser is not None and app.sessions is not None
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
            opened = await client.call_tool("browser_navigate", {"url": f"{pages_url}/browserhost/inner.html"})
            assert not opened.is_error, opened
            hosts = app.browser._hosts  # by session: the one isolated session's host
            (key,) = [k for k in hosts if k is not None]
            host = hosts[key]
            (tab,) = host.tabs
            refs = {
                "browser host": weakref.ref(host),
                "tab runtime": weakref.ref(tab),
                "playwright page": weakref.ref(tab.page),
                "browser context": weakref.ref(tab.page.context),
            }
            tab_id = tab.runtime_id
            del host, tab, hosts
            assert app.bridge.registry.get(tab_id) is not None
        # The client ended its session (DELETE): its context closes, the last one stops the browser.
        await _eventually(lambda: not app.browser._hosts and len(app.sessions) == 0)
        pool = app.browser.pool
        assert pool is not None
        await _eventually(lambda: pool.contexts == 0 and not pool.browser_running)
        await _eventually(lambda: app.sessions.memory.releases >= 1)
        gc.collect()
        alive = [name for name, ref in refs.items() if ref() is not None]
        assert alive == [], f"still referenced after the session ended: {alive}"
        assert app.bridge.registry.get(tab_id) is None
        assert tab_id not in app.wab.origins and tab_id not in app.wab._applied
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 60)
