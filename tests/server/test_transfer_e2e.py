"""A transfer between tabs through the MCP surface: no tool result carries the payload.

The server (``ActionsApp``) drives its own headless Chromium and serves the fixture map
``tests/fixtures/transfer/actions.json`` from a storage root; the SDK's in-process
``Client`` calls the tools. The report's total is copied in one tab and inserted into
a textarea in a second tab and a contenteditable editor in a third, and every
``CallToolResult`` (its text content and its structuredContent) is checked for the
payload. The session's name reaches the bridge's status page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from playwright.async_api import async_playwright

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser
from mcp_actions.server.mcp_server import build_server
from tests.runtimes.test_transfer_clipboard_session import PAYLOAD, storage_root

pytestmark = [pytest.mark.asyncio, pytest.mark.browser]


def ok(result: types.CallToolResult, results: list[types.CallToolResult]) -> dict[str, Any]:
    results.append(result)
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


def carries(result: types.CallToolResult, text: str) -> bool:
    """Whether ``text`` appears anywhere the model would see it: the content blocks or structuredContent."""
    shown = [block.text for block in result.content if isinstance(block, types.TextContent)]
    return text in json.dumps(result.structured_content, ensure_ascii=False) or any(text in s for s in shown)


async def test_a_total_moves_between_tabs_without_passing_through_any_tool_result(tmp_path: Path, pages_url: str) -> None:
    root = storage_root(tmp_path / "store", pages_url)
    app = ActionsApp(AppOptions(manifests=[str(root)], browser="launch", headless=True, isolated=True, bridge_port=0, watch=False))
    results: list[types.CallToolResult] = []
    async with Client(build_server(app)) as client:
        ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/transfer/source.html"}), results)
        written = ok(await client.call_tool("report_copy_total", {}), results)
        assert written["label"] == "total" and written["size_bytes"] == len(PAYLOAD.encode())
        ok(await client.call_tool("browser_open_tab", {"url": f"{pages_url}/transfer/notes.html"}), results)
        pasted = ok(await client.call_tool("notes_paste", {"label": "total", "selector": "#notes", "target": {"url_contains": "notes.html"}}), results)
        assert pasted["inserted"] is True and pasted["inserted_bytes"] == len(PAYLOAD.encode())
        ok(await client.call_tool("report_copy_summary", {"target": {"url_contains": "source.html"}}), results)
        ok(await client.call_tool("browser_open_tab", {"url": f"{pages_url}/transfer/editor.html"}), results)
        ok(await client.call_tool("notes_paste", {"label": "summary", "selector": "#editor", "render": {"template": "{{title}} / {{total}}"},
                                                  "target": {"url_contains": "editor.html"}}), results)
        ok(await client.call_tool("transfer_read", {"label": "total", "target": {"url_contains": "editor.html"}}), results)
        ok(await client.call_tool("runtime_session_name", {"name": "Weekly report transfer", "target": {"url_contains": "editor.html"}}), results)

        assert app.browser is not None
        tabs = {tab.page.url.rsplit("/", 1)[-1]: tab.page for tab in app.browser.tabs}
        assert await tabs["notes.html"].input_value("#notes") == PAYLOAD
        assert (await tabs["editor.html"].inner_text("#editor")).strip() == f"Weekly report / {PAYLOAD}"
        assert [r for r in results if carries(r, PAYLOAD) or carries(r, "secret-7f3a")] == []
        # Asked for, the value comes back: the check above would have seen it.
        revealed = await client.call_tool("transfer_read", {"label": "total", "include_value": True, "target": {"url_contains": "editor.html"}})
        assert carries(revealed, PAYLOAD)

        assert app.endpoint is not None
        async with async_playwright() as pw:
            viewer = await pw.chromium.launch(executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
            try:
                page = await viewer.new_page()
                await page.goto(app.endpoint.status_url())
                assert await page.inner_text("#browser-session") == "Browser session: Weekly report transfer"
            finally:
                await viewer.close()
