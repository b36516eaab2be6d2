"""History, double click, upload, drag and each element's tagName and bounds, with the released client (docs/bap.md).

Each method is a built-in MCP agents call too (``browser_navigate {history}``, ``page_click {double}``,
``page_fill {files}``, ``page_drag``, ``page_observe {tags, bounds}``): the last test calls them
through the MCP door of the same server (tests/bap/bap_server.py), on the same fixture pages.
"""

from __future__ import annotations

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import css, label, text  # after the skip
from browseragentprotocol.errors import BAPError
from mcp import Client

from tests.bap.bap_server import Server, client


async def _status(c) -> str:  # type: ignore[no-untyped-def]  # the client
    return (await c.content()).content


async def test_go_back_and_forward_through_the_tabs_history(server: Server) -> None:
    async with client(server, "history") as c:
        await c.create_page(url=server.site)
        await c.navigate(server.page("more.html"))
        back = await c._request("page/goBack", {})
        assert back["url"] == server.site
        assert "Order" in await _status(c)
        await c.go_forward()
        assert "Files" in await _status(c)
        with pytest.raises(BAPError) as caught:
            await c.go_forward()
        assert caught.value.code == -32015, caught.value  # NavigationFailed: no page forward
        assert "no page forward" in caught.value.message


async def test_double_click_upload_and_drag(server: Server) -> None:
    async with client(server, "more") as c:
        await c.create_page(url=server.page("more.html"))
        await c.dblclick(text("report.pdf"))
        assert "Opened report.pdf after 2 clicks" in await _status(c)
        await c.upload(label("Receipt"), [{"path": str(server.uploads / "receipt.txt")}])
        assert "Attached receipt.txt (5 bytes)" in await _status(c)
        # The client's own bytes are refused (files are read from the server's --upload-root), with a hint.
        with pytest.raises(BAPError) as caught:
            await c.upload(label("Receipt"), [{"name": "a.txt", "mimeType": "text/plain", "buffer": "cGFpZAo="}])
        assert caught.value.code == -32602 and "--upload-root" in caught.value.message
        # A path outside the upload roots is the policy's refusal, as for MCP's page_fill {files}.
        with pytest.raises(BAPError) as caught:
            await c.upload(label("Receipt"), [{"path": "/etc/hostname"}])
        assert caught.value.code == -32041 and caught.value.details is not None

        await c.navigate(f"{server.origin}/frames/sortable.html")
        # The released client sends a target given as a selector model unserialized (its drag() checks `"type" in target`): a dict.
        await c.drag(text("Outro"), css("li:nth-child(2)").model_dump())
        assert "Order: Intro, Outro, Verse, Chorus" in await _status(c)
        with pytest.raises(BAPError) as caught:
            await c.drag(text("Intro"), {"x": 10, "y": 10})
        assert caught.value.code == -32601  # coordinates are not taken: act on an element


async def test_observed_elements_have_their_tag_name_and_bounds(server: Server) -> None:
    async with client(server, "bounds") as c:
        await c.create_page(url=server.site)
        observed = await c.observe(max_elements=50)
        by_name = {e.name: e for e in observed.interactive_elements or []}
        name, order, gift = by_name["Your name"], by_name["Place order"], by_name["Gift wrap"]
        assert (name.tag_name, order.tag_name, gift.tag_name, by_name["Size"].tag_name) == ("input", "button", "input", "select")
        assert name.bounds is not None and name.bounds.width > 0 and name.bounds.height > 0
        assert order.bounds is not None and order.bounds.y >= name.bounds.y
        # A box that moves is not a change of the element: a second look finds every element stable.
        again = await c.observe(include_bounds=False)
        assert all(e.stability is not None and e.stability.value == "stable" and e.bounds is None for e in again.interactive_elements or [])
        assert {e.tag_name for e in again.interactive_elements or []} >= {"input", "button", "select"}


async def test_the_same_built_ins_through_the_mcp_door(server: Server) -> None:
    async with Client(server.mcp_url, mode="legacy") as mcp:
        await mcp.call_tool("browser_navigate", {"url": server.site})
        await mcp.call_tool("browser_navigate", {"url": server.page("more.html")})
        back = await mcp.call_tool("browser_navigate", {"history": "back"})
        assert not back.is_error and back.structured_content["tab"]["url"] == server.site, back.content
        refused = await mcp.call_tool("browser_navigate", {"history": "back", "url": server.site})
        assert refused.is_error and refused.structured_content["error"]["code"] == "invalid_input"
        forward = await mcp.call_tool("browser_navigate", {"history": "forward"})
        assert forward.structured_content["tab"]["url"] == server.page("more.html")
        none = await mcp.call_tool("browser_navigate", {"history": "forward"})
        assert none.is_error and none.structured_content["error"]["code"] == "target_not_found", none.content
        clicked = await mcp.call_tool("page_click", {"text": "report.pdf", "double": True})
        assert not clicked.is_error and clicked.content[0].text.startswith("double-clicked @e"), clicked.content
        assert "Opened report.pdf after 2 clicks" in clicked.content[0].text
        observed = (await mcp.call_tool("page_observe", {"tags": True})).content[0].text
        assert '"report.pdf" <button>' in observed and '"Receipt" <input>' in observed, observed
