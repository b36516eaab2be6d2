"""A tab whose page asks something as it loads opens at once, and the policy judges that page (browser host).

A ``confirm()`` while a page loads blocks its load event and every read of the
page until someone answers it. ``browser_open_tab`` waited for both, so it ran
out its whole time (``handler_timeout`` after 30 s) and, meanwhile, the tab's
runtime still said ``about:blank``. That made issue 29's check of
``browser_dismiss_dialog {tab_id}`` on a denied tab fail now and then on a
loaded machine (the settings page asks 150 ms after loading). Now the tab
opens with its dialog waiting (``browser_list_tabs`` shows it), its runtime
reports the page's URL, and answering the dialog is judged by that page.

Real headless Chromium through the SDK's ``Client``; the pages are
``tests/fixtures/pages/call-path/`` (``confirm-at-load.html`` asks while it is
parsed, ``confirm.html`` just after it loaded).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.dispatch.test_call_path_chromium import _error, _ok, _server, _write_policy, site  # noqa: F401  (site: the pages' server fixture)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("page", ["confirm-at-load.html", "confirm.html"])
@pytest.mark.parametrize("active", [False, True])
async def test_a_tab_that_asks_as_it_loads_opens_at_once_with_its_dialog_waiting(tmp_path, site, page, active):  # noqa: F811
    async with _server(tmp_path, site, deny=False) as (app, client, _):
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        url = f"http://127.0.0.1:{site}/call-path/{page}"
        started = time.monotonic()
        opened = _ok(await client.call_tool("browser_open_tab", {"url": url, "active": active, "timeout_ms": 20_000}))
        assert time.monotonic() - started < 10  # not the call's whole time (it ran out before: handler_timeout)
        # Its runtime says where it is, dialog or not: what the policy judges next.
        runtime = app.bridge.registry.get(opened["runtime_id"])
        assert runtime is not None and runtime.url == url
        dialog = None
        for _ in range(50):
            tabs = {t["tab_id"]: t for t in _ok(await client.call_tool("browser_list_tabs", {}))["tabs"]}
            dialog = tabs[opened["tab_id"]].get("dialog")
            if dialog:
                break
            await asyncio.sleep(0.05)
        assert dialog is not None and dialog["message"] == "Delete everything?"
        # Answered, the page goes on: it loads and says what it was told.
        _ok(await client.call_tool("browser_dismiss_dialog", {"tab_id": opened["tab_id"], "accept": False}))
        tab = app.browser.tab(opened["runtime_id"])
        assert tab is not None
        await tab.page.wait_for_function("() => document.getElementById('answer').textContent === 'kept everything'")


async def test_answering_the_dialog_of_a_tab_that_asked_as_it_loaded_is_judged_by_its_page(tmp_path, site):  # noqa: F811
    async with _server(tmp_path, site, deny=False) as (app, client, policy):
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        opened = _ok(await client.call_tool("browser_open_tab", {"url": f"http://localhost:{site}/call-path/confirm-at-load.html", "active": False, "timeout_ms": 10_000}))
        _write_policy(policy, site, deny=True)  # localhost is denied from now on
        assert await app.reload_policy()
        error = _error(await client.call_tool("browser_dismiss_dialog", {"tab_id": opened["tab_id"], "accept": True}))
        assert error["code"] == "permission_denied" and error["evidence"]["origin"] == f"http://localhost:{site}"
        tabs = {t["tab_id"]: t for t in _ok(await client.call_tool("browser_list_tabs", {}))["tabs"]}
        assert tabs[opened["tab_id"]].get("dialog"), tabs  # still asking: nobody said yes
