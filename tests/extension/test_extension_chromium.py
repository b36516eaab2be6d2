"""The shipped browser extension in real Chromium, driven as a user drives it, with the real server.

The extension is loaded unpacked (``--load-extension``) into a headless
Chromium (new headless mode loads extensions). A person opens the connect link
the server prints, shares one tab of two; the agent (the SDK's ``Client``)
calls a map tool in that tab, after a navigation, and after a server restart
on the same bridge port without any click. The unshared tab never reaches the
server. A wrong token is refused and the connect page says so; taking the
share back removes the runtime.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import httpx
import pytest
from mcp import Client

from mcp_actions.extension import extension_id, extension_version, refresh_extension

from .harness import FORM_TITLE, chromium_with_extension, eventually, form_map, free_port, open_connect, runtimes, server, shared_runtime, submit

pytestmark = pytest.mark.browser


async def test_share_one_tab_call_navigate_restart_refuse_and_unshare(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    refresh_extension()
    maps = form_map(tmp_path, pages_url)
    port = free_port()
    form_url = f"{pages_url}/simple-form/index.html"
    board_url = f"{pages_url}/board/index.html"
    async with chromium_with_extension(tmp_path / "profile") as context:
        # Chrome gives the unpacked extension the id we compute from the manifest's key.
        worker = context.service_workers[0] if context.service_workers else await context.wait_for_event("serviceworker")
        assert worker.url == f"chrome-extension://{extension_id()}/sw.js"
        form = context.pages[0] if context.pages else await context.new_page()
        await form.goto(form_url)
        board = await context.new_page()
        await board.goto(board_url)

        async with server(maps, port) as (app, client):
            connect_url = app.extension_connect_url()
            assert connect_url and connect_url.startswith(f"chrome-extension://{extension_id()}/connect.html#")
            launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)  # type: ignore[union-attr]
            assert launch["bridge"]["extension_connect_url"] == connect_url

            connect = await open_connect(context, connect_url)
            await connect.get_by_role("status").filter(has_text="Paired").wait_for()
            await connect.locator("#asker").filter(has_text="asks to operate the tabs you share").wait_for()
            # Both tabs are offered; the person shares the form only.
            assert await connect.get_by_role("checkbox", name="Share Board").count() >= 1
            await connect.get_by_role("checkbox", name=f"Share {FORM_TITLE}").check()

            runtime = await eventually(lambda: shared_runtime(client, board_url), "the shared tab's runtime")
            assert runtime["url"] == form_url and runtime["title"] == FORM_TITLE
            assert runtime["extension_version"] == extension_version()
            assert str(runtime["authorization_id"]).startswith("auth-")
            assert "input.trusted" not in runtime.get("capabilities", [])

            tool = next(t.name for t in (await client.list_tools()).tools if (t.meta or {}).get("mcp-actions/tool", "").endswith("contact.submit_name"))
            assert "Submitted Ada" in json.dumps(await submit(client, tool, "Ada"))

            # A navigation of the shared tab: the engine is injected again, the same runtime answers.
            await form.goto(form_url + "?again=1")
            await eventually(lambda: _url_is(client, form_url + "?again=1"), "the navigated URL")
            assert "Submitted Grace" in json.dumps(await submit(client, tool, "Grace"))
            # The agent navigates it too (browser.navigate through the extension's tabs API).
            navigated = await client.call_tool("browser_navigate", {"url": form_url + "?by=agent", "target_runtime_key": runtime["runtime_key"]})
            assert not navigated.is_error, navigated
            await form.wait_for_url(form_url + "?by=agent")
            await eventually(lambda: _url_is(client, form_url + "?by=agent"), "the URL the agent navigated to")
            assert "Submitted Ada" in json.dumps(await submit(client, tool, "Ada"))

            # The status page shows the connect link too.
            assert app.endpoint is not None
            async with httpx.AsyncClient() as http:
                status = (await http.get(app.endpoint.status_url())).text
            assert 'id="extension-connect-url"' in status and html.escape(connect_url) in status

        # The server restarts on the same bridge port (a new start token): the tab comes back by itself.
        async with server(maps, port) as (app, client):
            runtime = await eventually(lambda: shared_runtime(client, board_url), "the runtime after a restart", timeout=15)
            assert runtime["runtime_key"].startswith("chrome-tab:")
            assert "Submitted Linus" in json.dumps(await submit(client, tool, "Linus"))

            # A stale link (the first start's token) is refused, and the page says so.
            stale = await open_connect(context, connect_url)
            await stale.get_by_role("status").filter(has_text="Refused").wait_for()
            wrong = await open_connect(context, app.extension_connect_url().replace("token=", "token=wrong"))  # type: ignore[union-attr]
            await wrong.get_by_role("status").filter(has_text="Refused").wait_for()

            # The popup lists the shared tab only, with a way to take the share back.
            popup = await open_connect(context, f"chrome-extension://{extension_id()}/popup.html")
            await popup.get_by_role("button", name=f"Stop sharing {FORM_TITLE}").wait_for()
            assert await popup.get_by_role("button", name="Stop sharing Board fixture").count() == 0

            # Taking the share back: the runtime is gone.
            await connect.reload()
            await connect.get_by_role("checkbox", name=f"Share {FORM_TITLE}").uncheck()

            async def gone() -> bool:
                return not any(str(r.get("runtime_key", "")).startswith("chrome-tab:") for r in await runtimes(client))

            await eventually(gone, "the runtime to go")


async def _url_is(client: Client, url: str) -> bool:
    return any(r.get("url") == url for r in await runtimes(client))
