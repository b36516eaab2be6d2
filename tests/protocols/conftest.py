"""Shared helpers for protocol tests: the product (browser host, MCP server) behind the SDK's Client."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server
from tests import worker_chromium


async def eventually(check: Callable[[], Awaitable[Any]], timeout: float = 10) -> Any:
    """Await ``check()`` until it gives something truthy (returned); fail after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError("condition never held")
        await asyncio.sleep(0.05)


class Session:
    """A client connected to a server whose browser host runs headless Chromium."""

    def __init__(self, app: ActionsApp, client: Client, changes: list[float]) -> None:
        self.app = app
        self.client = client
        self.changes = changes  # monotonic times of tools/list_changed notifications

    async def tools(self) -> dict[str, types.Tool]:
        return {t.name: t for t in (await self.client.list_tools()).tools}

    async def wait_for_tools(self, predicate: Callable[[dict[str, types.Tool]], bool], timeout: float = 10) -> dict[str, types.Tool]:
        """Poll tools/list until ``predicate`` holds (after list_changed notifications)."""
        end = time.monotonic() + timeout
        while True:
            tools = await self.tools()
            if predicate(tools):
                return tools
            if time.monotonic() > end:
                raise AssertionError(f"tools never matched; have {sorted(tools)}")
            await asyncio.sleep(0.1)

    async def page_tool(self, protocol: str, page_name: str, timeout: float = 10) -> types.Tool:
        def find(tools: dict[str, types.Tool]) -> types.Tool | None:
            return next((t for t in tools.values() if t.meta.get("mcp-actions/protocol") == protocol and t.meta["mcp-actions/tool"].endswith("." + page_name)), None)

        tools = await self.wait_for_tools(lambda ts: find(ts) is not None, timeout)
        tool = find(tools)
        assert tool is not None
        return tool

    async def navigate(self, url: str) -> Any:
        result = await self.client.call_tool("browser_navigate", {"url": url})
        assert not result.is_error, result.structured_content
        return result.structured_content

    def tab(self):
        host = self.app.browser
        assert host is not None and host.tabs
        return host.tabs[-1]


@contextlib.asynccontextmanager
async def product(*, own_browser: bool = False, **client_options: Any) -> AsyncIterator[Session]:
    """The whole product with a headless browser, behind an in-process SDK Client.

    The browser is a Chromium of the test process (tests/worker_chromium.py), in a fresh context of
    the product's own (``cdp_own_context``: a blank first tab, no other test's tabs, cookies or
    storage), closed when the product stops. ``own_browser=True`` launches one of its own instead,
    for a test whose point is the launch or the browser itself (closing, crashing, its profile).
    """
    with contextlib.nullcontext(None) if own_browser else worker_chromium.lease() as endpoint:
        app = ActionsApp(AppOptions(browser="launch", headless=True, isolated=True, serve_bridge=False, cdp_endpoint=endpoint, cdp_own_context=endpoint is not None))
        changes: list[float] = []

        async def on_message(message: Any) -> None:
            method = getattr(getattr(message, "root", message), "method", None) or getattr(message, "method", None)
            if method == "notifications/tools/list_changed":
                changes.append(time.monotonic())

        async with Client(build_server(app), message_handler=on_message, mode="legacy", **client_options) as client:
            await client.list_tools()
            yield Session(app, client, changes)
