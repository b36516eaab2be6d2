"""The board scenario end to end: real headless Chromium, the page engine's dom.extract, the SDK Client."""

from __future__ import annotations

from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

from .scenario import run_board_scenario, structured
from .test_projection_memory import BOARD_DIR


async def test_board_scenario_in_headless_chromium(pages_url):
    app = ActionsApp(AppOptions(manifests=[str(BOARD_DIR)], browser="launch", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        opened = await client.call_tool("browser_navigate", {"url": f"{pages_url}/board/index.html"})
        assert not opened.is_error, opened
        runtime_id = structured(opened)["tab"]["runtime_id"]
        # The board renders after load; wait for it as an agent would, through the map's own state.
        waited = await client.call_tool("actions_site", {"mode": "state_read", "projection_name": "board.state", "target_runtime_id": runtime_id})
        if waited.is_error:
            import asyncio

            await asyncio.sleep(0.5)
        await run_board_scenario(client, runtime_id)
