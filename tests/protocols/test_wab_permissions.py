"""WAB: a command whose trigger needs a permission the site's discovery document denies never reaches the page.

The page's own bridge may list a command the document does not (``openPartnerSite``, trigger
``navigate``) while the document says ``"navigate": false``. The page's commands are exposed only
once the look for the document has ended (``wab_discovery.py``), so even a call made the moment the
tool appears is refused by the server (``wab.py``), not by the page (issue 34 item 9).
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import product

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "wab-partner"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture()
def partner_url() -> Iterator[str]:
    """The partner shop at its own origin, so /agent-bridge.json is its discovery document."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_a_denied_trigger_is_refused_before_the_page_even_at_once(partner_url):
    async with product() as s:
        await s.navigate(f"{partner_url}/index.html")
        # Called as soon as it is listed: the first moment a model could call it.
        partner = await s.page_tool("wab", "openPartnerSite")
        refused = await s.client.call_tool(partner.name, {})
        assert refused.is_error
        error = refused.structured_content["error"]
        assert error["code"] == "permission_denied", error
        assert error["evidence"]["permission"] == "navigate" and error["evidence"]["trigger"] == "navigate"
        page = s.tab().page
        assert await page.evaluate("() => wabLog") == [], "the command reached the page"

        # A permitted command of the same page still runs there.
        search = await s.page_tool("wab", "searchMenu")
        found = await s.client.call_tool(search.name, {"query": "x"})
        assert not found.is_error, found.structured_content
        assert await page.evaluate("() => wabLog") == ["searchMenu"]
