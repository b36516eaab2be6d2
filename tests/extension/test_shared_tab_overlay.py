"""Attachments and overlays in a tab of the user's own browser, shared through the extension.

The same single-page app and map as the server's own browser test
(``tests/server/test_overlay_e2e.py``), this time in a tab the user shared from
the connect page: the map's launcher stays one beside the re-rendering
section, the user's click opens the map's HTML in an overlay and reaches the
agent as the map's signal, the agent closes the overlay through the MCP
client, and a launcher that opens a map tool has the server run it in that tab.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from mcp import Client

from ..server.test_overlay_e2e import CATEGORIES, spa_map
from .harness import chromium_with_extension, eventually, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser

SPA_TITLE = "attachments single-page app"


async def events(client: Client, runtime_id: str) -> list[dict[str, Any]]:
    text = (await client.read_resource(f"actions://runtimes/{runtime_id}/events")).contents[0].text  # type: ignore[union-attr]
    listed: list[dict[str, Any]] = json.loads(text)["events"]
    return listed


async def test_a_shared_tab_keeps_the_maps_launchers_and_opens_its_overlay(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = tmp_path / "maps"
    (maps / "overlays").mkdir(parents=True)
    (maps / "spa.actions.json").write_text(json.dumps(spa_map("{0.scheme}://{0.netloc}".format(urlsplit(pages_url)))))
    (maps / "overlays" / "categories.html").write_text(CATEGORIES)
    async with chromium_with_extension(tmp_path / "profile") as context:
        spa = context.pages[0] if context.pages else await context.new_page()
        await spa.goto(f"{pages_url}/attachments-spa/index.html")
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_role("checkbox", name=f"Share {SPA_TITLE}").check()

            async def shared() -> dict[str, Any] | None:
                return next((r for r in await runtimes(client) if r.get("title") == SPA_TITLE), None)

            runtime = await eventually(shared, "the shared tab's runtime")
            assert str(runtime["runtime_key"]).startswith("chrome-tab:")
            categories = spa.get_by_role("button", name="Categories", exact=True)
            await eventually(categories.count, "the launcher beside the late section")
            await spa.evaluate("spa.rerender(5, 40)")
            await eventually(lambda: spa.evaluate("document.querySelector('li').textContent === 'Render 6'"), "five re-renders")
            await spa.wait_for_timeout(1200)  # reattaching takes at most a second
            assert await categories.count() == 1
            assert (await spa.evaluate("window.maxLaunchers"))["results-categories-launcher"] == 1

            # The user's click: the map's HTML in an overlay, and the map's signal to the agent.
            await categories.click()

            async def launcher_event() -> dict[str, Any] | None:
                return next((e for e in await events(client, runtime["runtime_id"]) if e["name"] == "overlay.launcher_opened"), None)

            event = await eventually(launcher_event, "the launcher's signal")
            assert event["payload"] == {"launcher_id": "results-categories-launcher"}

            async def overlay_text() -> str | None:
                frame = next((f for f in spa.frames if f is not spa.main_frame), None)
                return await frame.inner_text("body") if frame is not None else None

            assert "Books" in await eventually(overlay_text, "the overlay")
            assert (await spa.evaluate("spy()"))["html_has_secret"] is False
            closed = await client.call_tool("overlay_close", {"target_runtime_id": runtime["runtime_id"]})
            assert not closed.is_error and closed.structured_content == {"ok": True}

            async def no_overlay() -> bool:
                return all(f is spa.main_frame for f in spa.frames)

            await eventually(no_overlay, "the overlay closed")
            # A launcher that opens a map tool: the server runs it in this tab.
            await spa.get_by_role("button", name="Refresh results", exact=True).click()
            await eventually(lambda: spa.evaluate("document.querySelector('li').textContent === 'Render 7'"), "the map tool's re-render")
