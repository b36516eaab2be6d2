"""WAB sites end to end: discovery document over HTTP, commands through window.AICommands, permissions and rate limits."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from .conftest import product

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "wab"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - stdlib signature
        pass


@pytest.fixture()
def bakery_url():
    """The bakery site at its own origin, so /agent-bridge.json is its discovery document."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_wab_commands_permissions_and_rate_limits(bakery_url):
    async with product() as s:
        await s.navigate(f"{bakery_url}/index.html")
        search = await s.page_tool("wab", "searchMenu")
        assert search.meta["mcp-actions/protocol"] == "wab" and search.meta["mcp-actions/tool"] == "x127_0_0_1.searchMenu"
        assert search.input_schema["required"] == ["query"]
        specials = await s.page_tool("wab", "openSpecials")
        add = await s.page_tool("wab", "addToCart")

        found = await s.client.call_tool(search.name, {"query": "croiss"})
        assert not found.is_error, found.structured_content
        assert found.structured_content == {"items": [{"id": "croissant", "name": "Butter croissant", "price": 2.2}]}
        assert found.meta["mcp-actions/untrusted"] is True

        # navigate is false in the site's permissions: refused here, never reaching the page.
        refused = await s.client.call_tool(specials.name, {})
        assert refused.is_error
        error = refused.structured_content["error"]
        assert error["code"] == "permission_denied" and error["evidence"]["permission"] == "navigate"
        page = s.tab().page
        assert [c["name"] for c in await page.evaluate("() => wabLog")] == ["searchMenu"]
        assert page.url.endswith("/index.html")

        assert not (await s.client.call_tool(add.name, {"item": "croissant"})).is_error
        limited = await s.client.call_tool(add.name, {"item": "baguette"})
        assert limited.is_error
        error = limited.structured_content["error"]
        assert error["code"] == "rate_limited" and error["evidence"]["wab_code"] == "RATE_LIMITED" and error["evidence"]["retry_after_s"] == 2
        # The site's retryAfter is honoured: the next command is refused here, not sent.
        again = await s.client.call_tool(add.name, {"item": "baguette"})
        assert again.structured_content["error"]["code"] == "rate_limited" and again.structured_content["error"]["evidence"]["source"] == "site"
        assert len(await page.evaluate("() => wabLog")) == 3
