"""The user's own browser through BAP: a tab shared through the shipped extension, driven by the released BAP client.

``serve --browser none --bap-port … --shared-browser-context``: the server launches no browser; the
user's Chromium (headless here, the shipped extension loaded unpacked) pairs with it through the
connect link the server prints, and shares one tab. Tabs shared through an extension pairing are the
operator's (docs/sessions.md, "Runtimes of a session, and the operator's"): a BAP connection is a
session, and sessions see them with ``--shared-browser-context``, the documented way. Then
``page/list`` shows the shared tab, and a fill and a click through BAP land in it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient, label, role  # after the skip
from browseragentprotocol.errors import BAPActionError

from tests.extension.harness import chromium_with_extension, eventually
from tests.server.session_servers import free_port, http_serve

pytestmark = pytest.mark.browser

TOKEN = "bap-extension-token"
_CONNECT = re.compile(r"to share tabs of your own browser \(mcp-actions extension\), open (\S+)")


async def test_a_bap_client_drives_the_tab_the_user_shared(tmp_path: Path, pages_url: str) -> None:
    port = free_port()
    args = ("--browser", "none", "--bap-port", str(port), "--bap-token", TOKEN, "--shared-browser-context")
    with http_serve(tmp_path / "server", *args) as served:
        async def connect_url() -> str | None:
            found = _CONNECT.search(served.stderr.read_text())
            return found.group(1) if found else None

        url = await eventually(connect_url, "the extension's connect link on stderr")
        async with chromium_with_extension(tmp_path / "profile") as context:
            tab = context.pages[0] if context.pages else await context.new_page()
            await tab.goto(f"{pages_url}/bap/marks.html")
            connect = await context.new_page()
            await connect.goto(url)
            await connect.get_by_role("status").filter(has_text="Paired").wait_for()
            # The user shares the tab (what its tick on the connect page does), then looks at it again.
            await connect.evaluate(
                """async (url) => {
                    const tab = (await chrome.tabs.query({})).find((t) => t.url === url);
                    await chrome.runtime.sendMessage({ type: "share", tabId: tab.id, on: true });
                }""",
                f"{pages_url}/bap/marks.html",
            )
            await tab.bring_to_front()

            async with BAPClient(f"ws://127.0.0.1:{port}/", token=TOKEN, name="own-browser", timeout=30) as client:

                async def shared() -> str | None:
                    try:
                        listed = await client.list_pages()
                    except BAPActionError:  # the extension's runtime has not registered the shared tab yet
                        return None
                    return next((p["id"] for p in listed["pages"] if p["url"].endswith("/bap/marks.html")), None)

                page = await eventually(shared, "the shared tab in page/list")
                await client.activate_page(page)
                observed = await client.observe(include_screenshot=True, annotate_screenshot=True)
                names = [e.name for e in observed.interactive_elements or []]
                assert names[:4] == ["Save", "Name", "Help", "Rename"]
                # The badges are drawn onto the picture captureVisibleTab took, never in the user's tab.
                assert observed.screenshot is not None and observed.screenshot.annotated is True
                assert [m.label for m in observed.annotation_map or []] == ["1", "2", "3", "4"]
                assert await tab.evaluate("() => document.querySelectorAll('mcp-actions-marks').length") == 0

                await client.fill(label("Name"), "Ada")
                await client.click(role("button", "Save"))
                assert await tab.locator("#out").text_content() == "Saved Ada"
        assert "bap:own-browser" in served.audit_log.read_text()
