"""WAB sites end to end: discovery document over HTTP, commands through window.AICommands, permissions and rate limits."""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import threading
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from mcp_actions.protocols.wab import meta_from_records, meta_target

from .conftest import product

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "wab"
#: The same bakery with no /agent-bridge.json nor /.well-known/wab.json: only its meta tag names the document.
META_SITE = SITE.parent / "wab-meta"


#: Paths requested from the test sites, in order (the meta-tag test counts the page's own).
REQUESTED: list[str] = []


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def do_GET(self):
        REQUESTED.append(self.path)
        super().do_GET()


def _serve(directory: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    REQUESTED.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def bakery_url():
    """The bakery site at its own origin, so /agent-bridge.json is its discovery document."""
    yield from _serve(SITE)


@pytest.fixture()
def meta_bakery_url():
    """The bakery whose discovery document only its wab-discovery meta tag names."""
    yield from _serve(META_SITE)


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


def test_the_meta_tag_as_a_live_page_reads_it():
    # What dom.extract answers for META_EXTRACT, and what discovery makes of it.
    assert meta_from_records({"records": {"wab": {"content": " /wab.json "}}}) == " /wab.json "
    assert meta_from_records({"records": {"wab": None}}) is None and meta_from_records({"records": {}}) is None
    page = "http://127.0.0.1:8000/shop/index.html"
    assert meta_target(" wab/doc.json ", page) == "http://127.0.0.1:8000/shop/wab/doc.json"
    assert meta_target("https://elsewhere.example/wab.json", page) is None and meta_target(None, page) is None


def test_a_meta_tag_names_a_document_of_the_page_origin_without_query():
    page = "http://127.0.0.1:8000/shop/index.html"
    assert meta_target("/agent-bridge.json", page) == "http://127.0.0.1:8000/agent-bridge.json"
    assert meta_target("", page) is None
    # The server GETs what the tag names: nothing a page wrote may carry parameters or credentials.
    for refused in ("/admin/reset?confirm=yes", "/wab.json#x", "//user@127.0.0.1:8000/wab.json", "http://127.0.0.1:8001/wab.json"):
        assert meta_target(refused, page) is None, refused


async def test_meta_tag_discovery_and_the_discovery_resource(meta_bakery_url):
    async with product() as s:
        opened = await s.navigate(f"{meta_bakery_url}/index.html")
        runtime_id = opened["tab"]["runtime_id"]
        search = await s.page_tool("wab", "searchMenu")  # found through the meta tag alone
        # The tag was read in the live page: the page's HTML was fetched once, by the browser.
        assert REQUESTED.count("/index.html") == 1 and "/bakery/discovery.json" in REQUESTED
        found = await s.client.call_tool(search.name, {"query": "tart"})
        assert not found.is_error and found.structured_content == {"items": [{"id": "tart", "name": "Lemon tart", "price": 3.9}]}

        # The discovery document is a resource of the runtime: listed, templated, readable.
        uri = f"actions://runtimes/{runtime_id}/wab"
        assert uri in {str(r.uri) for r in (await s.client.list_resources()).resources}
        assert "actions://runtimes/{runtime_id}/wab" in {t.uri_template for t in (await s.client.list_resource_templates()).resource_templates}
        body = json.loads((await s.client.read_resource(uri)).contents[0].text)
        assert body["url"] == f"{meta_bakery_url}/bakery/discovery.json" and body["trust"] == "untrusted_page_data"
        assert body["document"] == json.loads((META_SITE / "bakery" / "discovery.json").read_text())


async def test_discovery_resource_of_a_site_without_wab_is_not_found(pages_url):
    async with product() as s:
        opened = await s.navigate(f"{pages_url}/engine/inputs.html")
        uri = f"actions://runtimes/{opened['tab']['runtime_id']}/wab"
        await asyncio.sleep(0.5)  # discovery ran (and found nothing)
        assert uri not in {str(r.uri) for r in (await s.client.list_resources()).resources}
        with pytest.raises(MCPError):
            await s.client.read_resource(uri)
