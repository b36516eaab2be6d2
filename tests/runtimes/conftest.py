"""Fixtures of the browser host tests: one started ``BrowserHost`` per module.

Each module that uses ``host`` declares its own module-scoped ``bridge``
fixture (timeouts and signals differ); the host drives a headless, isolated
Chromium on that bridge.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def host(bridge: Bridge) -> AsyncIterator[BrowserHost]:
    """A started browser host on the module's bridge."""
    host = BrowserHost(bridge, BrowserOptions(headless=True))
    await host.start()
    yield host
    await host.stop()
