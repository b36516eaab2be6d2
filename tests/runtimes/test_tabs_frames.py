"""Tabs and same-origin frames of the browser host as runtimes, and the browser.* tab primitives.

Real headless Chromium against tests/fixtures/pages/browserhost/. The fixture
server listens on 127.0.0.1, so a frame loaded from ``localhost`` is a
different origin: a third-party frame that must never become a runtime.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError
from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions
from mcp_actions.runtimes.frame import FRAME_CAPABILITIES, same_origin

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bridge() -> AsyncIterator[Bridge]:
    bridge = Bridge(default_timeout_ms=10_000)
    yield bridge
    await bridge.stop()


async def eventually(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """Poll ``check`` until it returns something truthy (page events arrive asynchronously)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition never held")
        await asyncio.sleep(0.02)


async def call(bridge: Bridge, runtime_id: str, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Any:
    return await bridge.call(name, arguments or {}, runtime_id=runtime_id, **kw)


def frames_of(host: BrowserHost, tab_id: str) -> dict[str, Any]:
    """The tab's connected frame runtimes by the ``which`` query of their document."""
    tab = host.tab(tab_id)
    return {f.frame.url.split("which=")[-1]: f for f in host.frames_of(tab) if f.connected} if tab else {}


@pytest.mark.asyncio(loop_scope="module")  # keeps pytest quiet: the module mark is for the browser tests
@pytest.mark.parametrize(
    ("url", "top", "same"),
    [
        ("http://127.0.0.1:8000/a", "http://127.0.0.1:8000/b", True),  # same scheme, host and port
        ("http://localhost:8000/a", "http://127.0.0.1:8000/b", False),  # another host name is another origin
        ("http://127.0.0.1:8001/a", "http://127.0.0.1:8000/b", False),  # another port
        ("about:blank", "http://127.0.0.1:8000/b", False),  # blank frames are not documents of the site
        ("file:///tmp/x.html", "file:///tmp/y.html", True),  # file pages with file frames
    ],
)
async def test_same_origin(url: str, top: str, same: bool) -> None:
    assert same_origin(url, top) is same


async def test_each_same_origin_frame_is_its_own_runtime(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/frames.html")
    frames = await eventually(lambda: (f := frames_of(host, tab_id)) and {"named", "late"} <= set(f) and f)
    assert "cross" not in frames  # the third-party frame stays out
    named, late = frames["named"], frames["late"]
    assert named.runtime_key == f"playwright:{tab_id}/frame:inner"  # by the iframe's name
    assert late.runtime_key.startswith(f"playwright:{tab_id}/frame-")  # unnamed: by number
    for frame in (named, late):
        info = bridge.registry.get(frame.runtime_id)
        assert info is not None and info.transport == "playwright"
        assert info.title == "Inner frame" and "browserhost/inner.html" in info.url
        assert info.capabilities == FRAME_CAPABILITIES
    # The tab and both frames are connected at once, each answering for its own document.
    assert bridge.registry.get(tab_id) is not None
    assert await call(bridge, tab_id, "topApp.whoami", handler="topApp.whoami") == {"document": "top"}
    assert await call(bridge, named.runtime_id, "w", handler="innerWidget.whoami") == {"document": "inner", "which": "named"}
    assert await call(bridge, late.runtime_id, "w", handler="innerWidget.whoami") == {"document": "inner", "which": "late"}
    assert (await call(bridge, late.runtime_id, "locator.text_content", {"locator": {"selector": "#which"}}))["text"] == "late"
    # Routing by key finds the frame; the tab stays the active runtime.
    assert bridge.registry.find_by_key(named.runtime_key).runtime_id == named.runtime_id
    assert bridge.registry.active_id == tab_id


async def test_trusted_click_inside_a_frame(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/frames.html")
    named = (await eventually(lambda: frames_of(host, tab_id).get("named") and frames_of(host, tab_id)))["named"]
    info = await call(bridge, named.runtime_id, "locator.element_info", {"locator": {"selector": "#count"}})
    output = await call(bridge, named.runtime_id, "pointer.click", info["clickable_center"])
    assert output["fidelity"] == "trusted"
    assert await named.frame.evaluate("() => window.clicks") == [{"trusted": True}]
    assert await named.frame.text_content("#count") == "Clicked 1"
    assert await host.tab(tab_id).page.evaluate("() => window.topClicks || 0") == 0  # nothing leaked to the top
    with pytest.raises(ActionError) as caught:
        await call(bridge, named.runtime_id, "pointer.click", {"x": 5000, "y": 10})  # outside the frame
    assert caught.value.code == "point_out_of_viewport" and caught.value.evidence["runtime_id"] == named.runtime_id


async def test_browser_primitives_are_unavailable_in_a_frame(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/frames.html")
    named = (await eventually(lambda: frames_of(host, tab_id).get("named") and frames_of(host, tab_id)))["named"]
    with pytest.raises(ActionError) as caught:
        await call(bridge, named.runtime_id, "browser.screenshot")
    assert caught.value.code == "capability_unavailable"
    # Refused by the bridge before sending (the frame did not announce it); its evidence adds what is missing.
    evidence = caught.value.evidence
    assert {k: evidence[k] for k in ("capability", "host", "runtime_id")} == {"capability": "browser.screenshot", "host": "playwright-frame", "runtime_id": named.runtime_id}


async def test_frame_navigation_reannounces_and_leaving_the_origin_stops_it(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/frames.html")
    named = (await eventually(lambda: frames_of(host, tab_id).get("named") and frames_of(host, tab_id)))["named"]
    await named.frame.goto(f"{pages_url}/engine/handlers.html")
    await eventually(lambda: bridge.registry.get(named.runtime_id).title == "Handler fixture")
    assert bridge.registry.get(named.runtime_id).url == f"{pages_url}/engine/handlers.html"
    # Off to another origin: no longer the site's document, so no longer a runtime.
    await named.frame.goto(pages_url.replace("127.0.0.1", "localhost") + "/engine/handlers.html")
    await eventually(lambda: bridge.registry.get(named.runtime_id) is None)
    # Removing an iframe stops its runtime too.
    late = (await eventually(lambda: frames_of(host, tab_id).get("late") and frames_of(host, tab_id)))["late"]
    await host.tab(tab_id).page.evaluate("() => document.querySelector('#late iframe').remove()")
    await eventually(lambda: bridge.registry.get(late.runtime_id) is None)


async def test_named_frame_key_survives_a_reload(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/frames.html")
    key = f"playwright:{tab_id}/frame:inner"
    before = await eventually(lambda: bridge.registry.find_by_key(key))
    await call(bridge, tab_id, "browser.navigate", {"reload": True})
    after = await eventually(lambda: (info := bridge.registry.find_by_key(key)) and info is not before and info)
    assert (await call(bridge, after.runtime_id, "w", handler="innerWidget.whoami"))["which"] == "named"


async def test_pages_a_page_opens_become_runtimes(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    tab_id = await host.new_tab(f"{pages_url}/browserhost/opener.html")
    before = {t.runtime_id for t in host.tabs}
    # A real click on a target=_blank link, then window.open.
    link = await call(bridge, tab_id, "locator.element_info", {"locator": {"selector": "#blank-link"}})
    await call(bridge, tab_id, "pointer.click", link["clickable_center"])
    button = await call(bridge, tab_id, "locator.element_info", {"locator": {"selector": "#open"}})
    await call(bridge, tab_id, "pointer.click", button["clickable_center"])

    def opened() -> dict[str, str]:
        found = {}
        for tab in host.tabs:
            info = bridge.registry.get(tab.runtime_id)
            if tab.runtime_id not in before and info and info.title == "Inner frame":
                found[info.url.split("which=")[-1]] = tab.runtime_id
        return found if {"blank", "popup"} <= set(found) else {}

    new_tabs = await eventually(opened)
    for which, runtime_id in new_tabs.items():
        assert bridge.registry.get(runtime_id).runtime_key == f"playwright:{runtime_id}"
        assert (await call(bridge, runtime_id, "w", handler="innerWidget.whoami"))["which"] == which


async def test_claimed_tabs_list_activate_and_close(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    first = await host.new_tab(f"{pages_url}/browserhost/frames.html")
    second = await host.new_tab(f"{pages_url}/engine/handlers.html")
    await eventually(lambda: frames_of(host, first).get("named"))
    listing = await call(bridge, second, "browser.claimed_tabs.list")
    assert listing["inventory"] == "host-local" and listing["host"] == "playwright"
    by_runtime = {t["runtime_id"]: t for t in listing["tabs"]}
    assert by_runtime[second]["active"] is True and by_runtime[first]["active"] is False
    assert by_runtime[first]["title"] == "Frames fixture" and by_runtime[first]["url"] == f"{pages_url}/browserhost/frames.html"
    assert f"playwright:{first}/frame:inner" in {f["runtime_key"] for f in by_runtime[first]["frames"]}
    assert all(isinstance(t["tab_id"], int) and t["claimed_at"].endswith("Z") for t in listing["tabs"])

    first_number = host.tab(first).number
    activated = await call(bridge, second, "browser.claimed_tabs.activate", {"tab_id": first_number})
    assert activated == {"ok": True, "tab_id": first_number, "url": f"{pages_url}/browserhost/frames.html", "runtime_id": first}
    assert bridge.registry.active_id == first
    with pytest.raises(ActionError) as caught:
        await call(bridge, second, "browser.claimed_tabs.activate", {"tab_id": 9999})
    assert caught.value.code == "target_not_found"

    # Navigate another tab by tab_id.
    moved = await call(bridge, second, "browser.navigate", {"url": f"{pages_url}/engine/inputs.html", "tab_id": first_number})
    assert moved["tab"]["runtime_id"] == first and moved["tab"]["title"] == "Input fixture"
    await eventually(lambda: not frames_of(host, first))  # its frames went with the old document

    # Close the first tab from the second: the call answers after the tab is gone.
    closed = await call(bridge, second, "browser.close_tab", {"tab_id": first_number})
    assert closed["ok"] and closed["closed_tab_id"] == first_number and closed["active_tab_id"] == host.tab(second).number
    await eventually(lambda: bridge.registry.get(first) is None and host.tab(first) is None)
    assert bridge.registry.active_id == second


async def test_the_last_tab_is_never_closed(pages_url: str) -> None:
    bridge = Bridge(default_timeout_ms=10_000)  # its own: two hosts on one bridge would both have a tab-1
    lonely = BrowserHost(bridge, BrowserOptions(headless=True))
    try:
        runtime_id = await lonely.new_tab(f"{pages_url}/engine/handlers.html")
        blank = next(t for t in lonely.tabs if t.runtime_id != runtime_id)
        assert (await call(bridge, runtime_id, "browser.close_tab", {"tab_id": blank.number}))["closed_tab_id"] == blank.number
        await eventually(lambda: len(lonely.tabs) == 1)
        with pytest.raises(ActionError) as caught:
            await call(bridge, runtime_id, "browser.close_tab")
        assert caught.value.code == "permission_denied" and caught.value.evidence["reason"] == "last_tab"
        opened = await call(bridge, runtime_id, "browser.open_tab", {"url": f"{pages_url}/engine/inputs.html"})
        assert opened["ok"] and bridge.registry.get(opened["runtime_id"]).title == "Input fixture"
        assert opened["tab_id"] == lonely.tab(opened["runtime_id"]).number
    finally:
        await lonely.stop()
        await bridge.stop()
