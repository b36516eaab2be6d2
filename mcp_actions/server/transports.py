"""Serving the MCP server: stdio, SSE (``/sse``) and streamable HTTP (``/mcp``).

Over stdio the server's lifespan owns the app (one client, one process).
Over HTTP the app lives as long as the process and each client is a session
of the transport. Both HTTP transports sit behind ``HttpGuard``: Host and
Origin allow-lists (loopback by default), the optional bearer token, and CORS
for allowed browser origins. The SDK's own Host/Origin check is switched off
in favour of the guard, so one policy covers every route (the SSE message
endpoint included) the same way.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from ..actions_app import ActionsApp, AppOptions
from .http_guard import HttpGuard, HttpPolicy
from .mcp_server import NOTIFICATIONS, build_server

__all__ = ["DEFAULT_MCP_PORT", "TRANSPORTS", "http_app", "serve", "sse_app"]

log = logging.getLogger(__name__)

TRANSPORTS = ("stdio", "sse", "streamable-http")
DEFAULT_MCP_PORT = 8931
_GUARDED_BY_US = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def sse_app(server: Server[Any]) -> Starlette:
    """The SSE transport: ``GET /sse`` opens a stream, ``POST /messages/`` carries the client's messages."""
    from mcp.server.sse import SseServerTransport

    sse = SseServerTransport("/messages/", security_settings=_GUARDED_BY_US)

    async def handle_sse(request: Request) -> Response:
        async with sse.connect_sse(request.scope, request.receive, request._send) as (read_stream, write_stream):  # noqa: SLF001 - the SDK's documented SSE recipe
            await server.run(read_stream, write_stream, server.create_initialization_options(NOTIFICATIONS))
        return Response()

    return Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]), Mount("/messages/", app=sse.handle_post_message)])


def http_app(app: ActionsApp, transport: str, policy: HttpPolicy) -> Any:
    """The guarded ASGI app of an HTTP transport; its lifespan starts and stops ``app``."""
    if transport == "streamable-http":
        # One lifespan for every session: clients are told apart by session id, forgotten when idle.
        server = build_server(app, manage_app=False, http_idle_seconds=DEFAULT_SESSION_IDLE_TIMEOUT)
        starlette_app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=_GUARDED_BY_US, session_idle_timeout=DEFAULT_SESSION_IDLE_TIMEOUT)
    elif transport == "sse":
        # Each SSE connection runs the server (and its lifespan) once: the lifespan scope is the client.
        starlette_app = sse_app(build_server(app, manage_app=False))
    else:
        raise ValueError(f"unknown transport {transport!r}")
    inner = starlette_app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[None]:
        await app.start()
        try:
            async with inner(app_):
                yield
        finally:
            await app.stop()

    starlette_app.router.lifespan_context = lifespan
    return HttpGuard(starlette_app, policy)


async def serve(
    options: AppOptions,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_MCP_PORT,
    http_token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
) -> None:
    """Run the MCP server until its transport closes (stdio) or the process is stopped (HTTP)."""
    app = ActionsApp(options)
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        server = build_server(app)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options(NOTIFICATIONS))
        return
    import uvicorn

    policy = HttpPolicy.for_bind(host, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins, token=http_token)
    asgi = http_app(app, transport, policy)
    config = uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()
