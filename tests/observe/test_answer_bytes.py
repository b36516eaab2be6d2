"""Answers that cost what they carry (issue 30): nothing the model already knows, nothing said twice.

Through the MCP SDK's Client against the whole product (a launched headless Chromium):
``browser_navigate`` keeps its JSON as ``structuredContent`` for programs, and its text is one line
for the model, not the same JSON again; an acting tool called with a ref answers that ref alone (the
model has just read its role and name), and called by text, the ref, role and name the text found.
Fixture: tests/fixtures/pages/observe-text/late.html.
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_navigate_says_its_page_in_one_line_and_keeps_its_structured_answer(pages_url: str) -> None:
    async with product() as s:
        url = f"{pages_url}/observe-text/late.html"
        result = await s.client.call_tool("browser_navigate", {"url": url})
        # The URL the call gave is not said back; the title says the page came.
        assert text_of(result) == 'tab 1: "Late replies"'
        structured = result.structured_content
        assert structured is not None and structured["ok"] is True and structured["status"] == 200
        assert structured["tab"]["url"] == url and structured["runtime_id"] == structured["tab"]["runtime_id"]
        # A page that did not load says its status.
        missing = await s.client.call_tool("browser_navigate", {"url": f"{pages_url}/observe-text/nowhere.html"})
        assert text_of(missing).endswith(", status 404"), text_of(missing)
        # Where the tab is not at the URL given, it is said: a redirect, a relative URL, a reload.
        redirected = await s.client.call_tool("browser_navigate", {"url": f"{pages_url}/observe-text"})
        assert text_of(redirected) == f'tab 1: "Directory listing for /observe-text/" {pages_url}/observe-text/', text_of(redirected)
        relative = await s.client.call_tool("browser_navigate", {"url": "late.html"})
        assert text_of(relative) == f'tab 1: "Late replies" {url}', text_of(relative)
        reloaded = await s.client.call_tool("browser_navigate", {"reload": True})
        assert text_of(reloaded) == f'tab 1: "Late replies" {url}', text_of(reloaded)
        # A page with no title is named by its URL, even the one asked for.
        untitled = await s.client.call_tool("browser_navigate", {"url": f"{pages_url}/observe-text/late-data.json"})
        assert text_of(untitled) == f"tab 1: {pages_url}/observe-text/late-data.json", text_of(untitled)
        # The same address written differently (host in capitals, no path) is the page asked for.
        upper = await s.client.call_tool("browser_navigate", {"url": url.replace("http://", "HTTP://")})
        assert text_of(upper) == 'tab 1: "Late replies"', text_of(upper)


async def test_an_acting_tool_names_by_ref_alone_what_the_call_named_by_ref(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/late.html")
        ref = re.findall(r"@e\d+", text_of(await s.client.call_tool("page_find", {"text": "Save", "role": "button"})))[0]
        by_ref = text_of(await s.client.call_tool("page_click", {"ref": ref}))
        assert by_ref == f'clicked {ref}\n+ "Saved after 300 ms"', by_ref
        by_text = text_of(await s.client.call_tool("page_click", {"text": "Copy link"}))
        assert re.fullmatch(r'clicked @e\d+ button "Copy link"\n\+ "Link copied"', by_text), by_text
