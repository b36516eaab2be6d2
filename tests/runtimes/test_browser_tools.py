"""The built-in browser tools through the MCP SDK's in-process Client, on a real headless Chromium.

The app runs with ``--browser auto``: the first browser tool launches the
browser (isolated profile), so every step below goes through MCP, dispatch,
the bridge and a real Playwright tab.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.catalog.naming import MCP_NAME_PATTERN
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser

BROWSER_TOOLS = {
    "browser_navigate": "browser.navigate",
    "browser_list_tabs": "browser.list_tabs",
    "browser_open_tab": "browser.open_tab",
    "browser_close_tab": "browser.close_tab",
    "browser_activate_tab": "browser.activate_tab",
    "browser_screenshot": "browser.screenshot",
    "browser_dismiss_dialog": "browser.dismiss_dialog",
}


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def picture(result: types.CallToolResult, mime_type: str) -> str:
    """The base64 data of the result's one image content, checked to be of ``mime_type``."""
    images = [c for c in result.content if isinstance(c, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == mime_type, result.content
    return images[0].data


def error_code(result: types.CallToolResult) -> str:
    assert result.is_error and result.structured_content is not None
    return result.structured_content["error"]["code"]


async def test_browser_tools_end_to_end(pages_url: str) -> None:
    app = ActionsApp(AppOptions(browser="auto", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for mcp_name, dotted in BROWSER_TOOLS.items():
            assert MCP_NAME_PATTERN.match(mcp_name) and tools[mcp_name].meta["mcp-actions/tool"] == dotted
            assert {"target", "timeout_ms"} <= set(tools[mcp_name].input_schema["properties"])  # routing, compactly, as every tool
        # The picture is image content; the structured output only describes it.
        shot_schema = tools["browser_screenshot"].output_schema
        assert "image" not in shot_schema["properties"] and shot_schema["required"] == ["bytes"]
        assert not app.browser.started  # auto: nothing launched yet

        navigated = ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/engine/inputs.html"}))
        first = navigated["runtime_id"]
        assert app.browser.started and navigated["ok"] is True and navigated["tab"]["title"] == "Input fixture"
        first_tab = navigated["tab"]["tab_id"]

        opened = ok(await client.call_tool("browser_open_tab", {"url": f"{pages_url}/engine/handlers.html"}))
        assert opened["ok"] and opened["url"] == f"{pages_url}/engine/handlers.html"
        listing = ok(await client.call_tool("browser_list_tabs", {}))
        by_id = {t["tab_id"]: t for t in listing["tabs"]}
        assert by_id[opened["tab_id"]]["active"] is True and by_id[first_tab]["title"] == "Input fixture"

        activated = ok(await client.call_tool("browser_activate_tab", {"tab_id": first_tab}))
        assert activated["runtime_id"] == first and app.bridge.registry.active_id == first
        # Without routing fields the screenshot is of the active tab, capped to the asked width.
        result = await client.call_tool("browser_screenshot", {"max_width": 240})
        shot = ok(result)
        image = base64.b64decode(picture(result, "image/png"))
        assert image[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(image[16:20], "big") == shot["width"] == 240
        assert shot["mime_type"] == "image/png" and shot["height"] > 0 and shot["bytes"] == len(image)
        # Small structured output, and no base64 in the text the model reads; the part of the page the
        # picture shows in CSS pixels (the browser's own layout metrics, not the page's scrollY).
        assert set(shot) == {"mime_type", "width", "height", "bytes", "viewport"}
        assert shot["viewport"] == {"x": 0, "y": 0, "width": 1280, "height": 720}
        text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
        assert len(text) < 200 and picture(result, "image/png")[:40] not in text
        # Routing fields choose the tab, as for every tool.
        routed_result = await client.call_tool("browser_screenshot", {"format": "jpeg", "max_width": 100, "target_runtime_id": opened["runtime_id"]})
        routed = ok(routed_result)
        assert routed["mime_type"] == "image/jpeg" and base64.b64decode(picture(routed_result, "image/jpeg"))[:2] == b"\xff\xd8"
        # The size cap still holds: a tiny budget is met by recompression, or refused with capture_failed.
        capped_result = await client.call_tool("browser_screenshot", {"max_kilobytes": 4})
        if capped_result.is_error:
            assert error_code(capped_result) == "capture_failed"
        else:
            assert ok(capped_result)["bytes"] <= 4 * 1024

        closed = ok(await client.call_tool("browser_close_tab", {"tab_id": opened["tab_id"]}))
        assert closed["closed_tab_id"] == opened["tab_id"]
        assert opened["tab_id"] not in {t["tab_id"] for t in ok(await client.call_tool("browser_list_tabs", {}))["tabs"]}
        assert ok(await client.call_tool("browser_dismiss_dialog", {}))["dismissed"] is False

        new_tab = ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/engine/locators.html", "new_tab": True}))
        assert new_tab["runtime_id"] != first and new_tab["tab"]["title"] == "Locator fixture"
        assert app.bridge.registry.active_id == new_tab["runtime_id"]
        # The navigation answers the title as of the page's load (one read, shared with the load's report).
        loaded = ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/engine/load-title.html"}))
        assert loaded["tab"]["title"] == "Loaded title", loaded
        assert [t["title"] for t in ok(await client.call_tool("browser_list_tabs", {}))["tabs"] if t["active"]] == ["Loaded title"]
        # A title the page sets after its load is the one listed (it was the title read at load).
        ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/engine/late-title.html"}))
        await asyncio.sleep(0.8)
        listed = ok(await client.call_tool("browser_list_tabs", {}))["tabs"]
        assert [t["title"] for t in listed if t["active"]] == ["Later title"], listed

        # Errors are tool results with stable codes.
        assert error_code(await client.call_tool("browser_activate_tab", {"tab_id": 999})) == "target_not_found"
        assert error_code(await client.call_tool("browser_navigate", {})) == "invalid_input"
    assert not app.browser.started  # the server's lifespan stopped the browser


async def test_browser_tools_without_a_browser_are_capability_unavailable() -> None:
    app = ActionsApp(AppOptions(browser="none", serve_bridge=False))
    async with Client(build_server(app)) as client:
        result = await client.call_tool("browser_list_tabs", {})
        assert error_code(result) == "capability_unavailable"
        assert result.structured_content["error"]["evidence"]["capability"] == "browser.claimed_tabs.list"
