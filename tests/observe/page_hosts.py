"""The page tools run by the real ActionService on either host, for tests that compare the hosts.

``hosted(kind, chromium)`` starts a real Bridge, the host of ``kind``
(``tests/runtimes/both_hosts.py``: the page runtime over a real WebSocket, or
the Playwright tab host) and an ``ActionService`` with the shipped built-in
tools (journaled, as the server runs them); its ``open`` opens a fixture page
as the one runtime the tools act on, and ``call`` runs a tool by its MCP name
and answers its text (``page_answers.TextAnswer``) or raises ``ActionError``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.dispatch.builtins.registry import BUILTIN_TOOLS, builtin_bindings
from mcp_actions.dispatch.call.service import ActionService
from tests.runtimes.both_hosts import open_runtime, serving

__all__ = ["Hosted", "hosted"]


class Hosted:
    """One host with the service in front of it, and the page it opened."""

    def __init__(self, kind: str, bridge: Bridge, extra: dict[str, Any], service: ActionService) -> None:
        self.kind, self.bridge, self.extra, self.service = kind, bridge, extra, service
        self.page: Page | None = None
        self.runtime_id = ""

    async def open(self, url: str, viewport: dict[str, int] | None = None) -> Page:
        """Open ``url`` as this host's only page (the tools route to it)."""
        self.runtime_id, self.page = await open_runtime(self.kind, self.bridge, self.extra, url, viewport)
        return self.page

    async def run(self, primitive: str, arguments: dict[str, Any]) -> Any:
        """A primitive on the page's runtime, through the bridge."""
        return await self.bridge.call(primitive, arguments, runtime_id=self.runtime_id, timeout_ms=20_000)

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        """A page tool's answer text (or its ``ActionError``)."""
        return str(await self.service.call(tool, arguments or {}))


@contextlib.asynccontextmanager
async def hosted(kind: str, chromium: Browser) -> AsyncIterator[Hosted]:
    """The host ``kind`` ("page" or "browser") with a started bridge and the service; all closed after."""
    bridge = Bridge(default_timeout_ms=20_000)
    await bridge.start()
    service = ActionService(bridge=bridge, catalog=Catalog(builtin_bindings()), browser=None, browser_mode="none", builtins=BUILTIN_TOOLS)
    try:
        async with serving(kind, bridge, chromium) as extra:
            one = Hosted(kind, bridge, extra, service)
            try:
                yield one
            finally:
                if one.page is not None and kind == "page":
                    await one.page.close()
    finally:
        await bridge.stop()
