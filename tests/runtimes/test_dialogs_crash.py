"""JavaScript dialogs and crashed tabs never wedge a call (real headless Chromium).

An alert is accepted at once and the click that raised it finishes; a
confirm or prompt ends the call in flight with ``dialog_open`` and waits for
``browser.dismiss_dialog``; a crashed tab fails its calls with
``transport_failed`` at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError
from mcp_actions.runtimes.browser import BrowserHost

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bridge() -> AsyncIterator[Bridge]:
    bridge = Bridge(default_timeout_ms=20_000)
    yield bridge
    await bridge.stop()


async def call(bridge: Bridge, runtime_id: str, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Any:
    return await bridge.call(name, arguments or {}, runtime_id=runtime_id, **kw)


async def click(bridge: Bridge, runtime_id: str, selector: str) -> Any:
    info = await call(bridge, runtime_id, "locator.element_info", {"locator": {"selector": selector}})
    return await call(bridge, runtime_id, "pointer.click", info["clickable_center"])


async def test_an_alert_is_accepted_and_the_click_finishes(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/dialogs.html")
    started = time.monotonic()
    assert (await click(bridge, tab_id, "#alert"))["clicked"] is True
    assert time.monotonic() - started < 3
    assert (await call(bridge, tab_id, "locator.text_content", {"locator": {"selector": "#out"}}))["text"] == "after alert"
    assert [(d["type"], d["message"], d["handled"]) for d in host.tab(tab_id).watch.recent_dialogs] == [("alert", "Saved!", "accepted automatically")]


async def test_a_confirm_ends_the_call_and_waits_for_an_answer(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/dialogs.html")
    number = host.tab(tab_id).number
    started = time.monotonic()
    with pytest.raises(ActionError) as caught:
        await click(bridge, tab_id, "#confirm")  # the click is blocked by the dialog it opened
    assert time.monotonic() - started < 3  # ended at once, not at the 20 s timeout
    assert caught.value.code == "dialog_open"
    assert caught.value.evidence["dialog"]["type"] == "confirm" and caught.value.evidence["dialog"]["message"] == "Delete row 2?"
    # While it is open, page calls fail the same way at once; the tab list shows it.
    with pytest.raises(ActionError) as later:
        await call(bridge, tab_id, "page.info")
    assert later.value.code == "dialog_open"
    listing = await call(bridge, tab_id, "browser.claimed_tabs.list")
    assert next(t for t in listing["tabs"] if t["runtime_id"] == tab_id)["dialog"]["message"] == "Delete row 2?"
    # Cancel it: the page goes on with confirm() == false, and the tab works again.
    answered = await call(bridge, tab_id, "browser.dismiss_dialog", {"accept": False})
    assert answered["ok"] and answered["dismissed"] and answered["accept"] is False and answered["tab_id"] == number
    assert (await call(bridge, tab_id, "locator.text_content", {"locator": {"selector": "#out"}}))["text"] == "confirmed=false"
    # Nothing open now: dismissing again says so.
    assert await call(bridge, tab_id, "browser.dismiss_dialog") == {"ok": True, "dismissed": False, "tab_id": number, "accept": True}


async def test_a_prompt_gets_the_given_text(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/dialogs.html")
    with pytest.raises(ActionError) as caught:
        await click(bridge, tab_id, "#prompt")
    assert caught.value.evidence["dialog"] == {**caught.value.evidence["dialog"], "type": "prompt", "default_value": "Anon"}
    answered = await call(bridge, tab_id, "browser.dismiss_dialog", {"accept": True, "prompt_text": "Ada"})
    assert answered["dialog"]["type"] == "prompt"
    assert (await call(bridge, tab_id, "locator.text_content", {"locator": {"selector": "#out"}}))["text"] == "answer=Ada"


async def test_a_handler_that_asks_is_answered_from_another_tab(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/dialogs.html")
    other = await host.new_tab(f"{pages_url}/engine/handlers.html")
    started = time.monotonic()
    with pytest.raises(ActionError) as caught:
        await call(bridge, tab_id, "dialogs.ask_delete", handler="dialogs.askDelete")
    assert caught.value.code == "dialog_open" and time.monotonic() - started < 3
    answered = await call(bridge, other, "browser.dismiss_dialog", {"tab_id": host.tab(tab_id).number, "accept": True})
    assert answered["dismissed"] is True
    assert await host.tab(tab_id).page.evaluate("() => 1 + 1") == 2  # the page runs again


async def test_a_crashed_tab_fails_its_calls_at_once(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/engine/inputs.html")
    tab = host.tab(tab_id)
    waiting = asyncio.create_task(call(bridge, tab_id, "locator.wait_for", {"locator": {"selector": "#never"}, "timeout_ms": 15_000}))
    await asyncio.sleep(0.2)
    cdp = await tab.page.context.new_cdp_session(tab.page)
    crash = asyncio.create_task(cdp.send("Page.crash"))  # never answers: the renderer is gone
    started = time.monotonic()
    with pytest.raises(ActionError) as caught:
        await waiting
    assert caught.value.code == "transport_failed" and time.monotonic() - started < 3
    with pytest.raises(ActionError) as later:
        await call(bridge, tab_id, "page.info")
    assert later.value.code == "transport_failed" and later.value.evidence["crashed"] is True
    with pytest.raises(ActionError) as shot:
        await call(bridge, tab_id, "browser.screenshot")
    assert shot.value.code == "transport_failed"
    listing = await call(bridge, tab_id, "browser.claimed_tabs.list")
    assert next(t for t in listing["tabs"] if t["runtime_id"] == tab_id)["crashed"] is True
    # A crashed tab can still be closed.
    assert (await call(bridge, tab_id, "browser.close_tab"))["closed_runtime_id"] == tab_id
    for _ in range(100):
        if bridge.registry.get(tab_id) is None:
            break
        await asyncio.sleep(0.02)
    assert bridge.registry.get(tab_id) is None
    crash.cancel()
    await asyncio.gather(crash, return_exceptions=True)


async def test_leaving_a_page_with_unsaved_changes_goes_on_once_accepted(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # Wagtail's editor: a navigation away asks "Leave site?" (beforeunload). Accepting it leaves; refusing it stays.
    tab_id = await host.new_tab(f"{pages_url}/browserhost/unsaved.html")
    await click(bridge, tab_id, "#title")  # a person's gesture: Chromium asks only then
    await call(bridge, tab_id, "keyboard.press", {"key": "D"})
    away = f"{pages_url}/browserhost/dialogs.html"
    with pytest.raises(ActionError) as caught:
        await call(bridge, tab_id, "browser.navigate", {"url": away})
    assert caught.value.code == "dialog_open" and caught.value.evidence["dialog"]["type"] == "beforeunload"
    assert "browser_dismiss_dialog" in caught.value.message  # the tool a host lists
    # Refused: the tab stays on the editor, and works.
    stayed = await call(bridge, tab_id, "browser.dismiss_dialog", {"accept": False})
    assert stayed["dismissed"] and stayed.get("navigated") is None
    assert (await call(bridge, tab_id, "page.info"))["url"].endswith("/unsaved.html")
    # Accepted: the navigation that asked goes on, and the answer says where the tab is.
    with pytest.raises(ActionError):
        await call(bridge, tab_id, "browser.navigate", {"url": away})
    left = await call(bridge, tab_id, "browser.dismiss_dialog", {"accept": True})
    assert left["dismissed"] and left["accept"] is True and left["navigated"] == {"url": away}
    info = await call(bridge, tab_id, "page.info")
    assert info["url"] == away and info["title"] == "Dialogs fixture"
