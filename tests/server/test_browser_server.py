"""``serve --browser-endpoint WS_URL``: sessions on a real Playwright browser server (issue #32, docs/sessions.md).

The test starts the browser server itself with node: ``playwright-core`` from npm at the
version of the Python ``playwright``'s own driver (client and server must match), run with
Debian's Chromium. Each MCP session gets its own connection and context there; a browser
server that goes away fails the call that was running on it (``transport_failed``), and
once it is back, the session's next call connects again.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.demo.static import StaticSite
from tests.npm_cache import missing, npm_package

from .session_servers import chromium_processes, free_port, http_serve, wait_until

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "sessions"
SERVER_JS = """
const { chromium } = require(process.argv[2]);
(async () => {
  const server = await chromium.launchServer({
    executablePath: process.argv[4], headless: true, args: ["--no-sandbox"], port: Number(process.argv[3]), wsPath: "/pw",
  });
  console.log(server.wsEndpoint());
  const stop = async () => { await server.close(); process.exit(0); };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
})();
"""


def _driver_version() -> str:
    import playwright

    package = Path(playwright.__file__).parent / "driver" / "package" / "package.json"
    return str(json.loads(package.read_text())["version"])


@contextlib.contextmanager
def browser_server(tmp: Path, port: int) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A Playwright browser server (node + playwright-core) on ``port``; yields its ws endpoint and process."""
    node, chromium = shutil.which("node"), shutil.which("chromium") or "/usr/bin/chromium"
    if node is None:
        missing("node is not installed (Debian: apt-get install nodejs npm)")
    core = npm_package(f"playwright-core@{_driver_version()}")
    script = tmp / "browser-server.js"
    script.write_text(SERVER_JS)
    process = subprocess.Popen([node, str(script), str(core), str(port), chromium], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        endpoint = process.stdout.readline().strip()
        assert endpoint.startswith("ws://"), (endpoint, process.stderr.read() if process.stderr else "")
        yield endpoint, process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextlib.contextmanager
def silent_site() -> Iterator[str]:
    """A URL whose server accepts and never answers: a navigation there runs until something ends it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                held.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        listener.close()
        for conn in held:
            conn.close()


def _data(result) -> dict:
    assert not result.is_error, result
    return result.structured_content


async def test_sessions_on_a_playwright_browser_server(tmp_path):
    port = free_port()
    with StaticSite(PAGES) as site, silent_site() as silent:
        base = site.url.rstrip("/")
        with browser_server(tmp_path, port) as (endpoint, node), http_serve(tmp_path / "serve", "--browser-endpoint", endpoint, "--timeout-ms", "20000") as served:
            async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
                opened = _data(await a.call_tool("browser_navigate", {"url": f"{base}/index.html?secret=alice&set=alice"}))
                assert opened["tab"]["title"] == "cookies:who=alice"
                b_tabs = _data(await b.call_tool("browser_list_tabs", {}))
                assert "alice" not in json.dumps(b_tabs)
                assert _data(await b.call_tool("browser_navigate", {"url": f"{base}/index.html"}))["tab"]["title"] == "cookies:"
                # This server launched no browser of its own: the browser runs in the browser server.
                assert not chromium_processes(served.process.pid)
                launch = json.loads((await a.read_resource("actions://bridge/launch")).contents[0].text)
                assert launch["session"]["isolated"] is True
                # The browser server goes away while A's navigation runs: that call fails, at once, as transport_failed.
                import asyncio

                running = asyncio.ensure_future(a.call_tool("browser_navigate", {"url": silent}))
                await asyncio.sleep(1.0)
                stopper = asyncio.get_running_loop().run_in_executor(None, _stop, node)
                failed = await asyncio.wait_for(running, 20)
                await stopper
                assert failed.is_error and failed.structured_content["error"]["code"] == "transport_failed", failed.structured_content
                # The next call, with the server back at the same address, connects again.
                with browser_server(tmp_path, port):
                    again = _data(await a.call_tool("browser_navigate", {"url": f"{base}/index.html"}))
                    assert again["tab"]["title"] == "cookies:"  # a new context: the old one's cookie went with it
                    assert _data(await b.call_tool("browser_list_tabs", {}))["tabs"]
        assert wait_until(lambda: served.process.poll() is not None, timeout=5)


def _stop(process: subprocess.Popen[str]) -> None:
    """End the browser server (it closes its browser first) and wait for it."""
    process.terminate()
    process.wait(15)
