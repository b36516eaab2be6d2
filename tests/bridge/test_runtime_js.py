"""The real page runtime (runtime.js) in real headless Chromium, connected over WebSocket.

A fixture page is served from a local HTTP server; the runtime is injected the
way the bookmarklet does it (the bookmarklet's own code, run in the page),
which loads ``http://127.0.0.1:PORT/runtime.js?token=…`` from the bridge port.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.events import RuntimeEvent
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.bridge.routing import Route
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.runtimes.page_script import runtime_js

from .wsclient import TOKEN, eventually, outcome

# One Chromium for the module (tests/conftest.py ``chromium``), on the module's loop, as every fixture here.
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


ITEM_ADDED = SignalSpec(
    name="cart.item_added",
    event="shop:item-added",
    enabled=True,
    payload_schema={"type": "object", "required": ["sku", "qty"], "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}},
)


def _signals(info: RuntimeInfo) -> dict[str, SignalSpec]:
    return {ITEM_ADDED.name: ITEM_ADDED}


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Browser) -> AsyncIterator[Browser]:
    """The module's headless Chromium, with none of a test's pages left open after it (their runtimes would
    keep reconnecting to a bridge port another test's server may be given). The browser's own default
    context (it is attached to over CDP, tests/worker_chromium.py) is not the test's to close."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            await context.close()


@pytest_asyncio.fixture(loop_scope="module")
async def bridge_server() -> AsyncIterator[BridgeServer]:
    """A bridge that declares the shop's item-added signal, behind a started server (as ``make_server`` makes one)."""
    bridge = Bridge(signal_source=_signals)
    server = BridgeServer(bridge, port=0, token=TOKEN, runtime_script=runtime_js)
    await server.start()
    yield server
    await server.stop()
    await bridge.stop()


async def open_shop(browser: Browser, server: BridgeServer, pages_url: str) -> tuple[Page, RuntimeInfo]:
    """Open the shop page, inject the runtime with the bookmarklet's code, wait for runtime_ready."""
    page = await browser.new_page()
    await page.goto(f"{pages_url}/bridge/shop.html")
    before = {info.runtime_id for info in server.bridge.registry.list()}
    # Exactly what clicking the bookmarklet runs: its javascript: URL, percent-decoded once.
    await page.evaluate(unquote(server.bookmarklet().removeprefix("javascript:")))
    registry = server.bridge.registry
    await eventually(lambda: any(info.runtime_id not in before for info in registry.list()), timeout=10)
    info = next(info for info in registry.list() if info.runtime_id not in before)
    return page, info


async def test_the_bookmarklet_connects_the_page_and_announces_it(browser: Browser, bridge_server: BridgeServer, pages_url: str) -> None:
    page, info = await open_shop(browser, bridge_server, pages_url)
    assert info.transport == "websocket"
    assert info.url == f"{pages_url}/bridge/shop.html"
    assert info.title == "Bridge Shop"
    assert info.runtime_key and info.runtime_key.startswith("page:")
    assert "page.info" in info.capabilities and "pointer.click" in info.capabilities
    assert not any(name.startswith("browser.") for name in info.capabilities)  # a page cannot claim tab powers
    # The script src carried the token; the page's own URL did not need to.
    assert await page.evaluate("() => !!window.__mcpActions && window.__mcpActions.status().client.connected")
    # Injecting twice keeps one runtime.
    await page.evaluate(unquote(bridge_server.bookmarklet().removeprefix("javascript:")))
    await asyncio.sleep(0.3)
    assert len(bridge_server.bridge.registry) == 1


async def test_handlers_and_primitives_run_and_privileged_ones_are_refused(browser: Browser, bridge_server: BridgeServer, pages_url: str) -> None:
    page, info = await open_shop(browser, bridge_server, pages_url)
    bridge = bridge_server.bridge
    # A tool backed by a page handler (a dotted property path on window).
    result = await bridge.call("shop.add_item", {"sku": "A1", "qty": 2}, runtime_id=info.runtime_id, handler="shop.addItem", timeout_ms=5000)
    assert result == {"count": 1, "sku": "A1"}
    assert await page.locator("#cart li").all_inner_texts() == ["A1"]
    # A portable primitive.
    page_info = await bridge.call("page.info", {}, runtime_id=info.runtime_id, timeout_ms=5000)
    assert page_info["title"] == "Bridge Shop" and page_info["url"] == info.url

    cases: list[tuple[str, dict[str, Any], str]] = [
        ("browser.screenshot", {}, "capability_unavailable"),  # privileged: a page runtime cannot take true screenshots
        ("browser.open_tab", {"url": "https://example.com"}, "capability_unavailable"),  # nor open tabs
        ("no.such.primitive", {}, "unknown_action"),  # not in any dictionary
    ]
    for name, arguments, code in cases:
        kind, error = await outcome(bridge.call(name, arguments, runtime_id=info.runtime_id, timeout_ms=5000))
        assert kind == code, (name, error)
    kind, error = await outcome(bridge.call("browser.screenshot", {}, runtime_id=info.runtime_id))
    # Refused at the bridge before anything is sent: the page runtime did not announce it.
    assert error.evidence["capability"] == "browser.screenshot" and error.evidence["runtime_id"] == info.runtime_id
    assert error.evidence["host"] == "page" and error.evidence["missing"] == ["browser.screenshot"]
    # Handler failures keep their codes too.
    handler_cases = [
        ("shop.missing", "missing_handler"),  # no such property
        ("shop.broken", "handler_failed"),  # the handler throws
        ("eval", "permission_denied"),  # evaluation sinks are refused even as property paths
    ]
    for handler, code in handler_cases:
        kind, _ = await outcome(bridge.call("shop.x", {}, runtime_id=info.runtime_id, handler=handler, timeout_ms=5000))
        assert kind == code, handler


async def test_declared_dom_events_are_forwarded_and_validated(
    browser: Browser, bridge_server: BridgeServer, pages_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_actions.bridge")
    page, info = await open_shop(browser, bridge_server, pages_url)
    bridge = bridge_server.bridge
    # The bridge's runtime_config told the runtime which events to listen for.
    await page.wait_for_function("() => window.__mcpActions.status().client.listening === 1", timeout=5000)
    await bridge.call("shop.add_item", {"sku": "B2", "qty": 3}, runtime_id=info.runtime_id, handler="shop.addItem", call_id="c-add-1")
    await eventually(lambda: len(info.events) == 1, timeout=5)
    record = info.events[0]
    assert record["name"] == "cart.item_added" and record["event"] == "shop:item-added"
    assert record["payload"] == {"sku": "B2", "qty": 3}
    assert record["trust"] == "untrusted_page_data"
    assert record["previous_call_id"] == "c-add-1"  # caused by that call
    assert record["url"] == info.url
    # The page announces a malformed payload for the declared event: the bridge refuses it.
    await page.evaluate("() => shop.announce('shop:item-added', {sku: 'C3', qty: 'three'})")
    # ...and an event nobody declared: the runtime does not even listen for it.
    await page.evaluate("() => shop.announce('shop:secret', {card: '4111'})")
    await eventually(lambda: any("(invalid_event)" in r.getMessage() for r in caplog.records), timeout=5)
    await asyncio.sleep(0.2)
    assert len(info.events) == 1
    assert not any("unknown_signal" in r.getMessage() for r in caplog.records)


async def test_push_state_navigation_reannounces_the_url(browser: Browser, bridge_server: BridgeServer, pages_url: str) -> None:
    page, info = await open_shop(browser, bridge_server, pages_url)
    await page.evaluate("() => { history.pushState({}, '', '/bridge/shop.html?step=2'); document.title = 'Checkout'; }")
    await eventually(lambda: info.url.endswith("/bridge/shop.html?step=2"), timeout=5)
    await eventually(lambda: info.title == "Checkout", timeout=5)
    # Routing follows the new URL.
    assert bridge_server.bridge.resolve(Route(url_contains="step=2")).runtime_id == info.runtime_id


async def test_a_handler_past_its_timeout_ends_with_handler_timeout(browser: Browser, bridge_server: BridgeServer, pages_url: str) -> None:
    _, info = await open_shop(browser, bridge_server, pages_url)
    kind, error = await outcome(bridge_server.bridge.call("shop.wait", {}, runtime_id=info.runtime_id, handler="shop.never", timeout_ms=300))
    assert kind == "handler_timeout"
    assert error.evidence["elapsed_ms"] >= 250


async def test_closing_the_page_fails_its_pending_call(browser: Browser, bridge_server: BridgeServer, pages_url: str) -> None:
    page, info = await open_shop(browser, bridge_server, pages_url)
    bridge = bridge_server.bridge
    task = asyncio.create_task(outcome(bridge.call("shop.wait", {}, runtime_id=info.runtime_id, handler="shop.never", timeout_ms=30_000)))
    await eventually(lambda: bridge.pending_count == 1)
    closed_at = time.monotonic()
    await page.close()
    kind, error = await task
    assert kind == "transport_failed", error
    assert time.monotonic() - closed_at < 5.0  # at once, not after the 30 s timeout
    await eventually(lambda: info.runtime_id not in bridge.registry)


async def test_two_runtimes_sharing_a_tab_key_do_not_replace_each_other_forever(
    browser: Browser, bridge_server: BridgeServer, pages_url: str
) -> None:
    # A same-origin iframe shares the tab's sessionStorage, hence its runtime key. Whatever
    # the bridge keeps, the two copies must not keep replacing each other (4001 → reconnect → …).
    bridge = bridge_server.bridge
    changes: list[str] = []
    bridge.events.subscribe(RuntimeEvent, lambda event: changes.append(type(event).__name__))
    page = await browser.new_page()
    await page.goto(f"{pages_url}/bridge/framed.html")
    await page.wait_for_function("() => document.querySelector('iframe').contentWindow.shop !== undefined")
    inject = unquote(bridge_server.bookmarklet().removeprefix("javascript:"))
    for frame in page.frames:
        await frame.evaluate(inject)
    await eventually(lambda: len(bridge.registry) >= 1, timeout=10)
    await asyncio.sleep(1.5)  # long enough for reconnect backoffs to fire
    settled = len(changes)
    await asyncio.sleep(2.0)
    assert len(changes) == settled, f"runtimes kept replacing each other: {changes}"
    assert 1 <= len(bridge.registry) <= 2
    # The frame's copy announces itself as a frame (routing by surface prefers the page).
    for info in bridge.registry.list():
        assert info.frame is (not info.url.endswith("/bridge/framed.html")), info.describe()
