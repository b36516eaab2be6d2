"""The two hosts our primitives are tested on, set up once for every test module that needs both.

- ``page``: the page runtime (runtime.js) injected with the bookmarklet's own
  code into a page of a plain headless Chromium, connected over a real
  WebSocket to a real ``BridgeServer``;
- ``browser``: the Playwright browser host (``BrowserHost`` / ``TabRuntime``), in a fresh
  context of its own on a Chromium of the test process (tests/worker_chromium.py), as
  ``cdp_own_context`` opens one: a launch per test would cost more than the test.

``serving(kind, bridge, chromium)`` starts what a kind needs around a real
bridge; ``open_runtime`` opens a page on it and waits for its runtime, and
``DICTIONARY`` is the shipped dictionary by name (outputs are checked against
its ``output_schema``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any
from urllib.parse import unquote

from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions
from mcp_actions.runtimes.page_script import runtime_js
from tests import worker_chromium
from tests.bridge.wsclient import TOKEN, eventually

__all__ = ["DICTIONARY", "KINDS", "open_runtime", "serving"]

#: The shipped primitive dictionary, by primitive name.
DICTIONARY: dict[str, dict[str, Any]] = {p["name"]: p for p in json.loads(resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text())["primitives"]}
#: The hosts, as pytest params.
KINDS = ["page", "browser"]


@contextlib.asynccontextmanager
async def serving(kind: str, bridge: Bridge, chromium: Browser) -> AsyncIterator[dict[str, Any]]:
    """What host ``kind`` needs around ``bridge``, started; yields it (``server`` and ``browser``, or ``host``)."""
    if kind == "page":
        server = BridgeServer(bridge, port=0, token=TOKEN, runtime_script=runtime_js)
        await server.start()
        try:
            yield {"server": server, "browser": chromium}
        finally:
            await server.stop()
    else:
        with worker_chromium.lease() as endpoint:
            browser_host = BrowserHost(bridge, BrowserOptions(headless=True, cdp_endpoint=endpoint, cdp_own_context=True))
            await browser_host.start()
            try:
                yield {"host": browser_host}
            finally:
                await browser_host.stop()


async def open_runtime(kind: str, bridge: Bridge, extra: dict[str, Any], url: str, viewport: dict[str, int] | None = None) -> tuple[str, Page]:
    """A new page on ``url`` as a runtime of host ``kind``: its runtime id and its Playwright page."""
    if kind == "browser":
        browser_host: BrowserHost = extra["host"]
        runtime_id = await browser_host.new_tab(url)
        tab = browser_host.tab(runtime_id)
        assert tab is not None
        if viewport is not None:
            await tab.page.set_viewport_size(viewport)  # type: ignore[arg-type]  # {"width", "height"}
        return runtime_id, tab.page
    server: BridgeServer = extra["server"]
    browser: Browser = extra["browser"]
    before = {info.runtime_id for info in bridge.registry.list()}
    page = await browser.new_page(viewport=viewport)  # type: ignore[arg-type]  # {"width", "height"}
    await page.goto(url)
    # Exactly what clicking the bookmarklet runs.
    await page.evaluate(unquote(server.bookmarklet().removeprefix("javascript:")))
    await eventually(lambda: any(i.runtime_id not in before and i.url == url for i in bridge.registry.list()), timeout=10)
    runtime_id = next(i.runtime_id for i in bridge.registry.list() if i.runtime_id not in before and i.url == url)
    return runtime_id, page
