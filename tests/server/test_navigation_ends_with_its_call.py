"""No navigation outlives its call (issue 42): the next call on the tab starts clean.

Session B's first call is a map tool whose site is not up: the server opens the site's front page
for it in B's blank tab, the browser refuses the connection, and the call answers ``could not open
…``. Chromium then commits its error page, a navigation of its own: before this was waited for,
B's next ``browser_navigate`` on that tab was broken by it (``Navigation to … is interrupted by
another navigation to "chrome-error://chromewebdata/"``), in 3 of 6 runs and every run under load.
A navigation given up (its call's deadline) went on loading and committed whenever the site
answered, under the agent's next calls; now it is stopped, and the tab keeps the page it showed.
Here two streamable-HTTP sessions (each with its own browser context) work at once, a busy process
loads the machine, and the scene is played several times with fresh sessions: B's navigation must
succeed every time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.demo.static import StaticSite

from .session_servers import free_port, http_serve

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "sessions"
#: Rounds of the scene, each with fresh sessions. Before the fix (5735e83) 5 of 5 rounds failed beside the busy process,
#: so 3 still catch it with a wide margin; each round holds a core busy for all its time.
ROUNDS = 3


@contextlib.contextmanager
def busy_process() -> Iterator[None]:
    """A process that spins for the block: the server competes with it for the CPU."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def _down_site_map(folder: Path) -> Path:
    """A map whose site (``surface.origin``) is a port nothing listens on."""
    down = f"http://127.0.0.1:{free_port()}"
    tool = {"name": "ping", "description": "Ping the site", "input_schema": {"type": "object", "properties": {}}, "x_actions": {"handler": "site.ping"}}
    path = folder / "down.actions.json"
    path.write_text(json.dumps({"protocol": "actions.json", "version": 1, "surface": {"origin": down}, "tools": [tool]}))
    return path


async def _session_a(a: Client, page: str) -> None:
    opened = await a.call_tool("browser_navigate", {"url": page})
    assert not opened.is_error, opened


async def _session_b(b: Client, ping: str, page: str, round_: int, failures: list[tuple[int, str]]) -> None:
    refused = await b.call_tool(ping, {})
    assert refused.is_error and "could not open" in refused.content[0].text, refused
    moved = await b.call_tool("browser_navigate", {"url": page})
    if moved.is_error:
        failures.append((round_, moved.content[0].text))


async def test_a_site_that_could_not_be_opened_leaves_the_tab_clean_for_the_next_call(tmp_path: Path) -> None:
    manifest = _down_site_map(tmp_path)
    with StaticSite(PAGES) as site, http_serve(tmp_path / "server", "--manifests", str(manifest)) as served, busy_process():
        page = site.url.rstrip("/") + "/index.html"
        failures: list[tuple[int, str]] = []
        for round_ in range(ROUNDS):
            async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
                ping = next(tool.name for tool in (await b.list_tools()).tools if tool.name.endswith("ping"))

                await asyncio.gather(_session_a(a, page), _session_b(b, ping, page, round_, failures))
        assert failures == [], failures


class _SlowPage(BaseHTTPRequestHandler):
    """Answers after SLOW_S: a site slower than the call that opens it."""

    def do_GET(self) -> None:
        time.sleep(SLOW_S)
        body = b"<!doctype html><title>slow page</title><p>late</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        with contextlib.suppress(ConnectionError):  # the browser stopped loading it: nobody reads the answer
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


SLOW_S = 1.5


@contextlib.contextmanager
def slow_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


async def test_a_navigation_given_up_does_not_land_later(tmp_path: Path) -> None:
    with StaticSite(PAGES) as site, slow_site() as slow, http_serve(tmp_path / "server") as served:
        page = site.url.rstrip("/") + "/index.html"
        async with Client(served.url, mode="legacy") as client:
            opened = await client.call_tool("browser_navigate", {"url": page})
            assert not opened.is_error, opened
            given_up = await client.call_tool("browser_navigate", {"url": slow, "timeout_ms": 500})
            assert given_up.is_error and "handler_timeout" in given_up.content[0].text, given_up
            await asyncio.sleep(SLOW_S + 1)  # the slow site has answered by now
            tabs = (await client.call_tool("browser_list_tabs", {})).structured_content
            assert tabs is not None
            assert [tab["url"] for tab in tabs["tabs"]] == [page], tabs  # the page it showed, not the slow one
