"""The MCP door: the MCP server over stdio (``stdio.py``), SSE (``/sse``) or streamable HTTP (``/mcp``).

``McpDoor`` (which the launcher, ``mcp_actions/launcher.py``, opens beside the BAP door) starts the
app before the transport takes any client, so a port
that cannot be had (the bridge's, the HTTP transports') ends the command with
one line and exit 2 (``ports.PortInUse``) before anything is half started.
A taken default port gives way to a free one, said once on stderr. Over stdio
the app then serves one client for the life of the process; over HTTP it
lives as long as the process and each client is a session of the transport.

Both HTTP transports sit behind ``HttpGuard``: Host and Origin allow-lists
(loopback by default), the optional bearer token, and CORS for allowed browser
origins. The SDK's own Host/Origin check is switched off in favour of the
guard, so one policy covers every route (the SSE message endpoint included)
the same way. Their sockets are bound here and handed to uvicorn, whose own
binding would exit the process on a taken port with a logged traceback.

Over stdio, stdout carries MCP JSON-RPC only: everything said here goes to stderr.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from ..actions_app import ActionsApp
from ..defaults import DEFAULT_MCP_PORT
from ..ports import listen_sockets

if TYPE_CHECKING:
    # The MCP SDK, starlette and the HTTP parts are imported where they serve: over stdio the
    # first answers go out before the SDK is loaded (early_answers.py), and nothing of HTTP is.
    from mcp.server.lowlevel import Server
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette

    from .http_guard import HttpPolicy
    from .sessions import AgentSessions

__all__ = ["DEFAULT_MCP_PORT", "TRANSPORTS", "McpDoor", "http_app", "sse_app"]

log = logging.getLogger(__name__)

TRANSPORTS = ("stdio", "sse", "streamable-http")
#: Where each HTTP transport answers, and how the stderr line names it.
_HTTP_PATHS = {"streamable-http": ("/mcp", "streamable HTTP"), "sse": ("/sse", "SSE")}
#: Hosts that mean "every interface": a client on this machine reaches them through loopback.
_WILDCARD_HOSTS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def _guarded_by_us() -> TransportSecuritySettings:
    """The SDK's own Host/Origin check, off: ``HttpGuard`` checks every route."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def _sessions(app: ActionsApp) -> AgentSessions:
    """The agent sessions of an HTTP server over ``app`` (server/sessions.py), known to the app for its views."""
    from .sessions import AgentSessions

    options = app.options
    sessions = AgentSessions(
        app.end_session,
        isolated=not options.shared_browser_context,
        max_sessions=options.max_sessions,
        idle_timeout=options.session_idle_timeout,
    )
    app.sessions = sessions
    return sessions


def sse_app(server: Server[Any]) -> Starlette:
    """The SSE transport: ``GET /sse`` opens a stream, ``POST /messages/`` carries the client's messages."""
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    from .mcp_server import NOTIFICATIONS

    sse = SseServerTransport("/messages/", security_settings=_guarded_by_us())

    async def handle_sse(request: Request) -> Response:
        async with sse.connect_sse(request.scope, request.receive, request._send) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options(NOTIFICATIONS))
        return Response()

    return Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]), Mount("/messages/", app=sse.handle_post_message)])


class _AppLife:
    """Who starts an HTTP server's app, and whether it was stopped (so that it is stopped exactly once)."""

    def __init__(self, *, start: bool) -> None:
        self.start = start
        self.stopped = False


def http_app(app: ActionsApp, transport: str, policy: HttpPolicy) -> Any:
    """The guarded ASGI app of an HTTP transport; its lifespan starts and stops ``app``."""
    return _guarded_app(app, transport, policy, _AppLife(start=True))


def _guarded_app(app: ActionsApp, transport: str, policy: HttpPolicy, life: _AppLife) -> Any:
    from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT

    from .http_guard import HttpGuard
    from .mcp_server import build_server
    from .sessions import SessionGate

    sessions = _sessions(app)
    # The SDK forgets an idle session when we end it (--session-idle-timeout), not at another time.
    idle = app.options.session_idle_timeout or DEFAULT_SESSION_IDLE_TIMEOUT
    if transport == "streamable-http":
        # One lifespan for every session: clients are told apart by session id, forgotten when idle.
        server = build_server(app, manage_app=False, http_idle_seconds=idle, sessions=sessions)
        if app.backplane is not None:
            # Replicas: a session may be served by any of them, adopted from the backplane (docs/deploying.md).
            from .adopted_sessions import streamable_http_app

            starlette_app, _ = streamable_http_app(
                server,
                app.backplane.sessions,
                replica_id=app.backplane.replica_id,
                path="/mcp",
                security=_guarded_by_us(),
                idle_timeout=idle,
                on_ended=app.backplane.client_ended_session,
            )
        else:
            starlette_app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=_guarded_by_us(), session_idle_timeout=idle)
    elif transport == "sse":
        # Each SSE connection runs the server (and its lifespan) once: the lifespan scope is the client, one agent session.
        starlette_app = sse_app(build_server(app, manage_app=False, sessions=sessions, connection_sessions=True))
    else:
        raise ValueError(f"unknown transport {transport!r}")
    inner = starlette_app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[None]:
        if life.start:
            await app.start()
        await sessions.start()
        try:
            async with inner(app_):
                yield
        finally:
            await sessions.stop()  # every session's context closed before the browser stops
            # Here, not after uvicorn returns: on SIGTERM uvicorn re-raises the signal once shut down,
            # which ends the process before any code after it runs.
            life.stopped = True
            await app.stop()

    starlette_app.router.lifespan_context = lifespan
    # Sessions are opened (or refused beyond --max-sessions) where the SDK makes them, and ended by DELETE.
    gated: Any = SessionGate(starlette_app, sessions) if transport == "streamable-http" else starlette_app
    if app.options.oauth is not None:
        # MCP authorization (docs/deploying.md): OAuth bearer tokens, checked by the SDK's middleware with the
        # issuer's keys; --http-token stays the operator's, checked there too (oauth.py).
        import dataclasses

        from .oauth import protect

        return HttpGuard(protect(gated, app.operators.verifier(), operator_token=policy.token), dataclasses.replace(policy, token=None))
    return HttpGuard(gated, policy)


def _say(line: str) -> None:
    # stderr, always: over stdio, stdout is the MCP wire.
    print(f"mcp-actions: {line}", file=sys.stderr, flush=True)


def _http_url(host: str, port: int, path: str) -> str:
    reach = _WILDCARD_HOSTS.get(host, host)
    return f"http://{f'[{reach}]' if ':' in reach else reach}:{port}{path}"


async def _start(app: ActionsApp) -> None:
    """Start ``app``; when that fails, stop what did start (the bridge's sweeper, a bound port) and re-raise."""
    try:
        await app.start()
    except BaseException:
        with contextlib.suppress(Exception):
            await app.stop()
        raise


class McpDoor:
    """The MCP door of one server: stdio, or an HTTP transport on its port. The launcher opens it, serves it, closes it.

    ``open`` starts the app before the transport takes any client (over HTTP the port is bound
    first: a port given and taken stops there, with nothing started); ``serve`` runs until the
    transport closes (stdio) or the process is stopped (HTTP); ``close`` stops what ``open`` started.
    Over HTTP the agent sessions exist once it is open (``app.sessions``): the BAP door shares them.
    """

    def __init__(
        self,
        app: ActionsApp,
        transport: str,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        http_token: str | None = None,
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
    ) -> None:
        """``port`` (HTTP transports): None serves on ``DEFAULT_MCP_PORT``, or on a free port when that one is taken;
        a port given is that port or ``ports.PortInUse``."""
        if transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {transport!r}")
        self.app = app
        self.transport = transport
        self.host = host
        self.port = port
        self.http_token = http_token
        self.allowed_hosts = allowed_hosts
        self.allowed_origins = allowed_origins
        self._started = False
        self._on_terminal = False
        self._life = _AppLife(start=False)
        self._listening: Any = None
        self._config: Any = None

    async def open(self) -> None:
        """Start the app (and, over HTTP, bind the port and build the guarded app first)."""
        app = self.app
        if self.transport == "stdio":
            from .stdio import stdin_is_terminal

            self._on_terminal = stdin_is_terminal()  # asked now: while serving, fd 0 points elsewhere
            await _start(app)
            self._started = True
            return
        import uvicorn

        path, name = _HTTP_PATHS[self.transport]
        port = self.port
        self._listening = listen_sockets(self.host, DEFAULT_MCP_PORT if port is None else port, service="HTTP", fallback=port is None, default=DEFAULT_MCP_PORT)
        if self._listening.note:
            _say(f"{self._listening.note}; choose the port with --port")
        url = _http_url(self.host, self._listening.port, path)
        app.mcp_http = {"transport": self.transport, "url": url, "port_note": self._listening.note}
        await _start(app)
        self._started = True
        from .http_guard import HttpPolicy

        policy = HttpPolicy.for_bind(self.host, allowed_hosts=self.allowed_hosts, allowed_origins=self.allowed_origins, token=self.http_token)
        guarded = _guarded_app(app, self.transport, policy, self._life)
        self._config = uvicorn.Config(guarded, host=self.host, port=self._listening.port, log_level="warning", lifespan="on")
        _say(f"MCP over {name} at {url}")
        if app.options.oauth is not None:
            verifier = app.operators.verifier()
            _say(f"MCP authorization: bearer tokens of {verifier.settings.issuer} for {verifier.audience} (metadata at /.well-known/oauth-protected-resource)")

    async def serve(self) -> None:
        """Serve until the transport closes (stdio) or the process is stopped (HTTP)."""
        if self.transport == "stdio":
            from .stdio import interrupt_stops, serve_stdio, stdio_hint

            with interrupt_stops(self.app):
                if self._on_terminal:
                    _say(stdio_hint())
                await serve_stdio(self.app)
            return
        import uvicorn

        await uvicorn.Server(self._config).serve(sockets=self._listening.sockets)

    async def close(self) -> None:
        """Stop the app (unless the HTTP lifespan did) and let the port go."""
        try:
            if self._started and not self._life.stopped:  # over HTTP uvicorn's lifespan stops it, when it ran
                await self.app.stop()
        finally:
            if self._listening is not None:
                self._listening.close()
