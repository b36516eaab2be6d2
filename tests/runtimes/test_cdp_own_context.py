"""Attaching over CDP with a context of our own (``cdp_own_context``), and the test process's Chromium.

The suite attaches its products and browser hosts to Chromiums each test
process starts once (tests/worker_chromium.py) with ``cdp_own_context``. That is only sound
if such a host starts as a launched one does, on a browser that others use: a
fresh context with one blank tab of its own (warmed up, not the user's), none
of the browser's tabs or cookies, and on stop its context closed while the
browser and the others' tabs live on. And a worker's Chromium that died must
not stay dead for the next test, nor be lent to two users at once.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import async_playwright

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions
from tests.worker_chromium import ChromiumProcess, lease

pytestmark = pytest.mark.browser


@pytest.fixture
def browser_of_its_own() -> Iterator[ChromiumProcess]:
    """A Chromium started as the worker's is, for this test alone (the test is about the browser)."""
    process = ChromiumProcess()
    try:
        yield process
    finally:
        process.stop()


def page_targets(endpoint: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{endpoint}/json/list", timeout=5) as response:
        return [t for t in json.load(response) if t.get("type") == "page"]


async def test_an_own_context_starts_clean_and_leaves_the_browser_and_its_tabs(browser_of_its_own: ChromiumProcess, pages_url: str) -> None:
    endpoint = browser_of_its_own.endpoint()
    users_page = f"{pages_url}/engine/handlers.html"
    async with async_playwright() as pw:
        user = await pw.chromium.connect_over_cdp(endpoint)
        page = await user.contexts[0].new_page()
        await page.goto(users_page)
        await user.contexts[0].add_cookies([{"name": "users", "value": "1", "url": pages_url}])

        bridge = Bridge()
        await bridge.start()
        host = BrowserHost(bridge, BrowserOptions(headless=True, cdp_endpoint=endpoint, cdp_own_context=True))
        try:
            await host.start()
            # One blank tab of its own, warmed up as a launched browser's, and none of the user's.
            assert [tab.page.url for tab in host.tabs] == ["about:blank"]
            (first,) = host.tabs
            assert first.preexisting is False and first.process_warmed is True
            runtime_id = await host.new_tab(f"{pages_url}/engine/handlers.html")
            tab = host.tab(runtime_id)
            assert tab is not None
            assert await tab.page.context.cookies() == []  # the browser's default context's cookie is not ours
        finally:
            await host.stop()
            await bridge.stop()

        # Our context and its tabs are gone; the browser and the user's tab are not.
        assert [t["url"] for t in page_targets(endpoint)].count(users_page) == 1
        assert not page.is_closed() and await page.title() is not None
        await user.close()


async def test_the_tabs_the_browser_had_are_still_the_users_without_an_own_context(browser_of_its_own: ChromiumProcess, pages_url: str) -> None:
    """The default (``--cdp-endpoint`` as the CLI attaches) is unchanged: the browser's tabs, left open."""
    endpoint = browser_of_its_own.endpoint()
    bridge = Bridge()
    await bridge.start()
    host = BrowserHost(bridge, BrowserOptions(headless=True, cdp_endpoint=endpoint))
    try:
        await host.start()
        assert host.tabs and all(tab.preexisting for tab in host.tabs)
    finally:
        await host.stop()
        await bridge.stop()
    assert page_targets(endpoint)  # its tabs live on


def test_a_chromium_that_died_is_started_again_on_next_use(browser_of_its_own: ChromiumProcess) -> None:
    first = browser_of_its_own.endpoint()
    assert browser_of_its_own.endpoint() == first and browser_of_its_own.starts == 1  # alive: the same one
    assert browser_of_its_own.process is not None
    browser_of_its_own.process.kill()
    browser_of_its_own.process.wait()
    again = browser_of_its_own.endpoint()
    assert browser_of_its_own.starts == 2
    assert page_targets(again) is not None  # it answers


def test_a_browser_is_lent_to_one_user_at_a_time() -> None:
    """A Playwright connection answers the dialogs of every page it sees: two never share a browser."""
    with lease() as first:
        with lease() as second:
            assert second != first
        with lease() as again:
            assert again == second  # given back, lent again: no new start
