"""BAP on remote browsers: ``serve --cdp-endpoint`` (a Chromium with a debugging port) and ``--browser-endpoint``
(a Playwright browser server), each driven by the released client through one session (docs/bap.md).

The remote browser is started by the test as tests/server does for MCP (``debuggable_chromium``,
``browser_server``); the BAP door goes through the same built-ins there as on a launched browser.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient, label, role  # after the skip

from mcp_actions.demo.static import StaticSite
from tests.bap.bap_server import PAGES, TOKEN, _wait_for
from tests.server.session_servers import chromium_processes, free_port, http_serve
from tests.server.test_browser_server import browser_server
from tests.server.test_cdp_sessions import debuggable_chromium

pytestmark = pytest.mark.browser


@contextlib.contextmanager
def _bap_on(tmp: Path, *browser: str) -> Iterator[tuple[str, str, int]]:
    """A server speaking BAP on the browser ``browser`` names; yields its BAP URL, the fixture pages' origin and its pid."""
    with StaticSite(PAGES) as site:
        port = free_port()
        with http_serve(tmp / "serve", "--bap-port", str(port), "--bap-token", TOKEN, *browser) as served:
            _wait_for(port)
            yield f"ws://127.0.0.1:{port}/", site.url.rstrip("/"), served.process.pid


async def _a_session(url: str, origin: str) -> None:
    """One agent's few calls: a page, a fill and a click, an observation, a navigation back."""
    async with BAPClient(url, token=TOKEN, name="remote", timeout=30) as c:
        await c.launch(browser="chromium")
        page = await c.create_page(url=f"{origin}/bap/form.html")
        assert page.title == "BAP form"
        await c.fill(label("Your name"), "Ada")
        await c.fill(label("Item wanted"), "tea")
        await c.click(role("button", "Place order"))
        assert "Ordered tea for Ada" in (await c.content()).content
        observed = await c.observe(max_elements=20)
        tags = {e.name: e.tag_name for e in observed.interactive_elements or []}
        assert tags["Place order"] == "button" and tags["Your name"] == "input"
        await c.navigate(f"{origin}/bap/more.html")
        assert (await c._request("page/goBack", {}))["url"] == f"{origin}/bap/form.html"


async def test_bap_on_a_browser_reached_over_cdp(tmp_path: Path) -> None:
    with debuggable_chromium(tmp_path) as (port, _), _bap_on(tmp_path, "--cdp-endpoint", f"http://127.0.0.1:{port}") as (url, origin, pid):
        await _a_session(url, origin)
        assert not chromium_processes(pid)  # the server launched no browser: the remote one served the session


async def test_bap_on_a_playwright_browser_server(tmp_path: Path) -> None:
    with browser_server(tmp_path, free_port()) as (endpoint, _), _bap_on(tmp_path, "--browser-endpoint", endpoint) as (url, origin, pid):
        await _a_session(url, origin)
        assert not chromium_processes(pid)
