"""Two tabs shared at once are both shared: the service worker changes the shared set one change at a time.

Real headless Chromium with the shipped extension and the real server. The connect
page sends two ``share`` messages without waiting for the first (what two quick
ticks do): each change reads the shared set, changes it and writes it back, so
before they were taken one at a time the second write carried the set it read
before the first was written, and the first tab's share (and its runtime) was lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import chromium_with_extension, eventually, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser


async def test_two_shares_sent_together_both_hold_and_both_tabs_connect(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = tmp_path / "maps"
    maps.mkdir()
    async with chromium_with_extension(tmp_path / "profile") as context:
        first = context.pages[0] if context.pages else await context.new_page()
        await first.goto(f"{pages_url}/simple-form/index.html")
        second = await context.new_page()
        await second.goto(f"{pages_url}/board/index.html")
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            shared = await connect.evaluate(
                """async (urls) => {
                    const tabs = await chrome.tabs.query({});
                    const ids = urls.map((u) => tabs.find((t) => t.url === u).id);
                    await Promise.all(ids.map((tabId) => chrome.runtime.sendMessage({ type: "share", tabId: tabId, on: true })));
                    return Object.keys((await chrome.storage.local.get("shared")).shared || {}).map(Number).filter((id) => ids.includes(id)).length;
                }""",
                [f"{pages_url}/simple-form/index.html", f"{pages_url}/board/index.html"],
            )
            assert shared == 2

            async def both() -> bool:
                keys = [str(r.get("runtime_key", "")) for r in await runtimes(client)]
                return sum(1 for key in keys if key.startswith("chrome-tab:") and "/" not in key) == 2

            await eventually(both, "both shared tabs' runtimes")
