"""Forgetting a pairing while its tabs are shared: the server lets them go, and the extension stops.

Real headless Chromium with the shipped extension, the real server and the SDK
``Client``. The user shares a tab, then revokes the browser's pairing from the
command line (``mcp-actions extension --forget``, the same store the running
server reads): the tab's runtime leaves within seconds, the connection is
closed with 4003, and the connect page says the pairing was revoked instead of
retrying with a secret that opens nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_actions.bridge import websocket
from mcp_actions.cli import main

from .harness import FORM_TITLE, chromium_with_extension, eventually, form_map, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser


async def test_forgetting_the_pairing_ends_the_shared_tabs_and_the_page_says_so(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(websocket, "PAIRING_CHECK_S", 0.2)
    maps = form_map(tmp_path, pages_url)
    async with chromium_with_extension(tmp_path / "profile") as context:
        form = context.pages[0] if context.pages else await context.new_page()
        await form.goto(f"{pages_url}/simple-form/index.html")
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_role("checkbox", name=f"Share {FORM_TITLE}").check()

            async def shared() -> dict[str, object] | None:
                return next((r for r in await runtimes(client) if str(r.get("runtime_key", "")).startswith("chrome-tab:")), None)

            runtime = await eventually(shared, "the shared tab's runtime")
            assert main(["extension", "--forget", str(runtime["authorization_id"])]) == 0

            async def gone() -> bool:
                return await shared() is None

            await eventually(gone, "the runtime to leave after its pairing was revoked")
            await connect.get_by_text("pairing revoked").wait_for(timeout=10_000)
