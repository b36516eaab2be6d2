"""Declarative WebMCP ``<select>`` fields follow Chromium's own ``getTools()`` (issue 34 item 10).

Chromium (Debian's, started with ``--enable-features=WebMCP``) exposes its WebMCP as
``document.modelContext`` (``navigator.modelContext`` is undefined in this build) and describes a
``<select>`` as ``{type: "string", anyOf: [{type, const: value, title: label}, …], enum: [values]}``,
the empty placeholder option included, and a multiple select as an array of those with
``uniqueItems``. The schema our page engine gives the same form in a browser without WebMCP
(``webmcp_forms.js``) is compared with the one Chromium itself gives, and the tool runs with a value
the titles name.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import async_playwright

from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser

from .conftest import product

pytestmark = pytest.mark.browser

SELECTS = ("range", "regions", "currency")


async def chromiums_own_schema(url: str) -> dict[str, Any]:
    """The inputSchema Chromium's own WebMCP gives the page's ``show_report`` form."""
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_browser(), headless=True, args=[*CHROMIUM_ARGS, "--enable-features=WebMCP"])
        try:
            page = await browser.new_page()
            await page.goto(url)
            assert await page.evaluate("() => typeof navigator.modelContext") == "undefined"
            schema: dict[str, Any] = await page.evaluate(
                "async () => { const tools = await document.modelContext.getTools();"
                " return JSON.parse(JSON.stringify(tools.find((t) => t.name === 'show_report').inputSchema)); }"
            )
            return schema
        finally:
            await browser.close()


async def test_select_fields_are_described_as_chromium_describes_them(pages_url):
    url = f"{pages_url}/webmcp/report.html"
    native = await chromiums_own_schema(url)
    # What Chromium gives, as the issue describes it: the labels, and the placeholder kept.
    assert native["properties"]["range"]["anyOf"][2] == {"type": "string", "const": "30d", "title": "Last 30 Days"}
    assert native["properties"]["range"]["anyOf"][0] == {"type": "string", "const": "", "title": "Choose a period"}

    async with product() as s:
        await s.navigate(url)
        tool = await s.page_tool("webmcp", "show_report")
        ours = tool.input_schema["properties"]
        for name in SELECTS:
            assert ours[name] == native["properties"][name], name
        assert tool.input_schema["required"] == native["required"] == ["range"]

        done = await s.client.call_tool(tool.name, {"range": "30d", "regions": ["emea", "amer"], "currency": "USD"})
        assert not done.is_error, done.structured_content
        assert done.structured_content == {"range": "30d", "regions": ["emea", "amer"], "currency": "USD", "agent": True}
        # A value no option has is refused before the page, with its path.
        wrong = await s.client.call_tool(tool.name, {"range": "Last 30 Days"})
        assert wrong.is_error and wrong.structured_content["error"]["code"] == "invalid_input"
        assert wrong.structured_content["error"]["evidence"]["path"] == "/range"
