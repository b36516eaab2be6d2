"""``serve --cdp-endpoint URL --cdp-header 'Name: value'`` over HTTP: a context per session on a browser reached over CDP.

The test starts Debian's Chromium with a debugging port, puts a TCP relay in front of it that
keeps what each connection sent first (so the test sees the headers the server sent), and
has two SDK clients browse through it. The browser is the user's: when the sessions end their
contexts are gone and the browser still runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.demo.static import StaticSite
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser

from .session_servers import http_serve, wait_until

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "sessions"


@contextlib.contextmanager
def debuggable_chromium(tmp: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A headless Chromium with a debugging port (the one it chose, read from its profile)."""
    profile = tmp / "user-browser"
    proc = subprocess.Popen([find_browser(), *CHROMIUM_ARGS, "--headless", "--remote-debugging-port=0", f"--user-data-dir={profile}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        assert wait_until(lambda: port_file.exists() and bool(port_file.read_text().strip()), timeout=20), "no debugging port"
        yield int(port_file.read_text().split("\n")[0]), proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.asynccontextmanager
async def recording_relay(target_port: int) -> AsyncIterator[tuple[int, list[bytes]]]:
    """A TCP relay to ``target_port`` on loopback; yields its port and the first bytes of each connection."""
    heard: list[bytes] = []

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: list[bytes] | None) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while data := await reader.read(65536):
                if first is not None and not first:
                    first.append(data)
                    heard.append(data)  # kept at once: the connection may outlive the test's look
                writer.write(data)
                await writer.drain()
        writer.close()

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target_port)
        first: list[bytes] = []
        await asyncio.gather(pipe(client_reader, upstream_writer, first), pipe(upstream_reader, client_writer, None))

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], heard
    finally:
        server.close()


def _pages(port: int) -> list[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
        return [t["url"] for t in json.load(response) if t.get("type") == "page"]


def _data(result) -> dict:
    assert not result.is_error, result
    return result.structured_content


async def test_sessions_on_a_browser_reached_over_cdp_with_headers(tmp_path):
    with StaticSite(PAGES) as site, debuggable_chromium(tmp_path) as (port, browser):
        page = f"{site.url.rstrip('/')}/index.html"
        async with recording_relay(port) as (relay_port, heard):
            args = ("--cdp-endpoint", f"http://127.0.0.1:{relay_port}", "--cdp-header", "X-Pool-Key: s3cret", "--cdp-header", "X-Team: qa")
            with http_serve(tmp_path / "serve", *args) as served:
                async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
                    opened = _data(await a.call_tool("browser_navigate", {"url": f"{page}?secret=alice&set=alice"}))
                    assert opened["tab"]["title"] == "cookies:who=alice"
                    tabs = _data(await b.call_tool("browser_list_tabs", {}))
                    assert "alice" not in json.dumps(tabs)
                    assert _data(await b.call_tool("browser_navigate", {"url": page}))["tab"]["title"] == "cookies:"
                    assert any("secret=alice" in url for url in _pages(port))
                # Both sessions ended: their contexts (and tabs) are gone; the user's browser runs on.
                start = time.monotonic()
                while any("secret=alice" in url for url in _pages(port)) and time.monotonic() - start < 10:
                    await asyncio.sleep(0.2)
                assert not any("secret=alice" in url for url in _pages(port))
                assert browser.poll() is None
        sent = b"".join(heard).lower()
        assert b"x-pool-key: s3cret" in sent and b"x-team: qa" in sent
