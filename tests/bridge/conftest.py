"""Fixtures for bridge tests: a real Bridge behind a real BridgeServer on a free port,
and real WebSocket runtimes connected to it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest_asyncio

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.runtimes.page_script import runtime_js

from .wsclient import TOKEN, WsRuntime

MakeServer = Callable[..., Awaitable[BridgeServer]]
MakeRuntime = Callable[..., Awaitable[WsRuntime]]

_SERVER_OPTIONS = {"allowed_origins", "max_item_bytes", "max_frame_bytes", "ping_interval", "close_timeout", "token", "runtime_script"}


@pytest_asyncio.fixture
async def make_server() -> AsyncIterator[MakeServer]:
    """``await make_server(**options)``: a started server; Bridge options and server options mixed."""
    started: list[tuple[Bridge, BridgeServer]] = []

    async def make(**options: Any) -> BridgeServer:
        server_options = {k: options.pop(k) for k in list(options) if k in _SERVER_OPTIONS}
        server_options.setdefault("token", TOKEN)
        server_options.setdefault("runtime_script", runtime_js)  # as the composition root passes it
        bridge = Bridge(**options)
        server = BridgeServer(bridge, port=0, **server_options)
        await server.start()
        started.append((bridge, server))
        return server

    yield make
    for bridge, server in reversed(started):
        await server.stop()
        await bridge.stop()


@pytest_asyncio.fixture
async def server(make_server: MakeServer) -> BridgeServer:
    """A server with a default Bridge."""
    return await make_server()


@pytest_asyncio.fixture
async def bridge(server: BridgeServer) -> Bridge:
    """The bridge behind ``server``."""
    return server.bridge


@pytest_asyncio.fixture
async def make_runtime(server: BridgeServer) -> AsyncIterator[MakeRuntime]:
    """``await make_runtime(runtime_id, url=…, ready=True, **ready_fields)``: a connected runtime."""
    opened: list[WsRuntime] = []

    async def make(runtime_id: str = "rt-1", *, ready: bool = True, target: BridgeServer | None = None, **fields: Any) -> WsRuntime:
        runtime = WsRuntime((target or server).url, runtime_id, **fields)
        opened.append(runtime)
        return await runtime.open(ready=ready)

    yield make
    for runtime in opened:
        with contextlib.suppress(Exception):
            await runtime.close()
