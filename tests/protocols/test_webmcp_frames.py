"""WebMCP tools a same-origin frame declares: listed for the frame's runtime, and a call reaches the frame.

The fixture follows what sites embed (a support or booking widget in an iframe of the same
origin) whose own document registers its tool through ``document.modelContext``.
"""

from __future__ import annotations

import pytest

from .conftest import product

pytestmark = pytest.mark.browser


async def test_a_same_origin_frames_webmcp_tool_is_listed_and_runs_in_the_frame(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-frame/index.html")
        tool = await s.page_tool("webmcp", "open_ticket")
        frame_runtime = tool.meta["mcp-actions/runtime_id"]
        runtime = s.app.bridge.registry.get(frame_runtime)
        assert runtime is not None and runtime.frame and runtime.url.endswith("/webmcp-frame/widget.html")
        result = await s.client.call_tool(tool.name, {"subject": "Broken link"})
        assert not result.is_error, result.structured_content
        assert "Ticket 1: Broken link" in result.content[0].text
        frame = next(f for f in s.tab().page.frames if f.url.endswith("widget.html"))
        assert await frame.text_content("#tickets") == "1 tickets (last: Broken link)"


async def test_a_frame_of_another_origin_declares_no_tools(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-frame/cross.html")
        page = s.tab().page
        frame = None
        for _ in range(50):
            frame = next((f for f in page.frames if f.url.endswith("widget.html")), None)
            if frame is not None and await frame.evaluate("() => document.readyState") == "complete":
                break
            await page.wait_for_timeout(100)
        assert frame is not None and frame.url.startswith("http://localhost:")
        await page.wait_for_timeout(600)  # past the widget's registration
        assert await frame.evaluate("() => typeof document.modelContext") == "object"  # it did register, in its own document
        tools = await s.tools()
        assert not any(t.meta.get("mcp-actions/protocol") == "webmcp" for t in tools.values())
