"""A tab shared through the extension is not acted on for an origin it has left (issue 29: the policy holds through the whole call).

A call the policy judged by the page's origin carries that origin
(``action_call.origin``). The bridge holds a runtime to its last report; the
extension's service worker holds the tab to where Chrome says it is now, so a
tab that moved before its report reached the server (a link, a redirect) is
not acted on: ``permission_denied``, reason ``origin_changed``, naming where it
is now. Real headless Chromium with the shipped extension and the real server,
on ``tests/fixtures/pages/deadline`` (its count moves whenever an effect lands).
The report's delay is made by setting the runtime's URL back to the page it
left, as the bridge would still have it. Before, the extension ran the call
wherever the tab was (the count moved).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mcp_actions.errors import ActionError, ErrorCode

from .harness import chromium_with_extension, eventually, fixture_map, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser

TITLE = "Deadline"


async def test_a_shared_tab_that_moved_before_its_report_is_not_acted_on(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = fixture_map(tmp_path, "deadline", pages_url)
    parts = urlsplit(pages_url)
    judged = f"{parts.scheme}://{parts.netloc}"
    elsewhere = f"{parts.scheme}://localhost:{parts.port}"  # the same server under another name: another origin
    async with chromium_with_extension(tmp_path / "profile") as context:
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(f"{pages_url}/deadline/index.html")
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_role("checkbox", name=f"Share {TITLE}").check()

            async def shared() -> str | None:
                found = [r for r in await runtimes(client) if r.get("title") == TITLE and str(r.get("runtime_key", "")).startswith("chrome-tab:")]
                return str(found[0]["runtime_id"]) if found else None

            runtime_id = await eventually(shared, "the shared tab's runtime")
            await page.goto(f"{elsewhere}/deadline/index.html")

            async def moved() -> bool:
                info = app.bridge.registry.get(runtime_id)
                return info is not None and info.url.startswith(elsewhere)

            await eventually(moved, "the moved tab's report")
            info = app.bridge.registry.get(runtime_id)
            assert info is not None
            info.url = f"{pages_url}/deadline/index.html"  # its report has not reached the server yet
            with pytest.raises(ActionError) as caught:
                await app.bridge.call("deadline.slow_bump", {"ms": 0}, runtime_id=runtime_id, handler="deadline.slowBump", timeout_ms=5000, origin=judged)
            assert caught.value.code == ErrorCode.PERMISSION_DENIED
            assert caught.value.evidence["reason"] == "origin_changed" and caught.value.evidence["origin"] == elsewhere
            assert await page.inner_text("#count") == "0"  # nothing was done there
            # The same call with no origin to hold runs there: the origin is what stopped it.
            assert await app.bridge.call("deadline.slow_bump", {"ms": 0}, runtime_id=runtime_id, handler="deadline.slowBump", timeout_ms=5000) == {"count": 1}
