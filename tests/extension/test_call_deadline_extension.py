"""In a tab shared through the extension, a tool call's deadline and cancellation stop its work in the page.

Real headless Chromium with the shipped extension, the real server, the SDK's
``Client``, on ``tests/fixtures/pages/deadline`` (its count moves whenever an
effect lands). Its page handler waits a second and then counts unless its
call's signal aborted: timed out at 100 ms, or cancelled by the client, it
never counts (the extension passes the call's id and time to the engine, and
the cancel reaches the page). Before, it counted a second later.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from .harness import chromium_with_extension, eventually, fixture_map, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser

TITLE = "Deadline"


async def test_a_timed_out_or_cancelled_handler_does_not_act_later_in_a_shared_tab(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = fixture_map(tmp_path, "deadline", pages_url)
    async with chromium_with_extension(tmp_path / "profile") as context:
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(f"{pages_url}/deadline/index.html")
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_role("checkbox", name=f"Share {TITLE}").check()

            async def shared() -> bool:
                return any(r.get("title") == TITLE and str(r.get("runtime_key", "")).startswith("chrome-tab:") for r in await runtimes(client))

            await eventually(shared, "the shared tab's runtime")

            timed_out = await client.call_tool("deadline_slow_bump", {"ms": 1000, "timeout_ms": 100})
            assert timed_out.is_error and timed_out.structured_content is not None
            assert timed_out.structured_content["error"]["code"] == "handler_timeout"

            call = asyncio.create_task(client.call_tool("deadline_slow_bump", {"ms": 1000, "timeout_ms": 10_000}))
            await asyncio.sleep(0.4)
            assert not call.done()
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call

            await asyncio.sleep(1.5)
            assert await page.inner_text("#count") == "0"
            done = await client.call_tool("deadline_slow_bump", {"ms": 10, "timeout_ms": 10_000})
            assert not done.is_error, done
            assert await page.inner_text("#count") == "1"
