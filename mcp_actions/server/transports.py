"""Serving the MCP server: stdio, SSE (``/sse``) and streamable HTTP (``/mcp``).

``serve`` starts the app before the transport takes any client, so a port
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

Over stdio, stdout carries MCP JSON-RPC only: everything this module says goes
to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import shutil
import signal
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from .. import __version__
from ..actions_app import ActionsApp, AppOptions
from ..defaults import DEFAULT_MCP_PORT
from ..ports import listen_sockets
from .early_answers import HANDSHAKE_VERSIONS, EarlyStdio, initialize_result
from .instructions import INSTRUCTIONS
from .tool_list import tool_fields

if TYPE_CHECKING:
    # The MCP SDK, starlette and the HTTP parts are imported where they serve: over stdio the
    # first answers go out before the SDK is loaded (early_answers.py), and nothing of HTTP is.
    from mcp.server.lowlevel import Server
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette

    from .http_guard import HttpPolicy
    from .sessions import AgentSessions

__all__ = ["DEFAULT_MCP_PORT", "TRANSPORTS", "http_app", "serve", "sse_app"]

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
        # issuer's keys; --http-token stays the operator's, checked there too (operators/oauth.py).
        import dataclasses

        from ..operators.oauth import protect

        return HttpGuard(protect(gated, app.operators.verifier(), operator_token=policy.token), dataclasses.replace(policy, token=None))
    return HttpGuard(gated, policy)


def _say(line: str) -> None:
    # stderr, always: over stdio, stdout is the MCP wire.
    print(f"mcp-actions: {line}", file=sys.stderr, flush=True)


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):  # closed or replaced stdin
        return False


def _command() -> str:
    """How the person at this terminal runs this mcp-actions again (for the hints)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) in ("mcp-actions", "mcp-actions.exe"):
        on_path = shutil.which("mcp-actions")
        if on_path and os.path.realpath(on_path) == os.path.realpath(argv0):
            return "mcp-actions"
        return shlex.quote(argv0)
    return f"{shlex.quote(sys.executable)} -m mcp_actions"


def _stdio_hint() -> str:
    """What a person who started the stdio server on a terminal is told (nothing will happen until a client speaks)."""
    command = _command()
    # The Inspector starts this same server, options and all; after "--" it reads no flags of its own.
    server = " ".join([command, *(shlex.quote(arg) for arg in sys.argv[1:])])
    inspector = f"npx @modelcontextprotocol/inspector {'-- ' if ' -' in server else ''}{server}"
    return (
        "waiting for an MCP client on stdio (an MCP host such as Claude Desktop or an IDE agent starts this command itself).\n"
        f"mcp-actions: to try it: `{command} demo` runs the whole loop on a demo page; "
        f"`{inspector}` opens the MCP Inspector on it. Ctrl-C stops this server."
    )


def _http_url(host: str, port: int, path: str) -> str:
    reach = _WILDCARD_HOSTS.get(host, host)
    return f"http://{f'[{reach}]' if ':' in reach else reach}:{port}{path}"


#: Longest wait for the app to stop after Ctrl-C or SIGTERM before the process leaves anyway.
_INTERRUPT_STOP_S = 10.0
#: The exit status after each stopping signal (128 + its number, as a shell reports it).
_STOP_SIGNALS = {signal.SIGINT: 130, signal.SIGTERM: 143}


@contextlib.contextmanager
def _interrupt_stops(app: ActionsApp) -> Iterator[None]:
    """While serving stdio, SIGINT (Ctrl-C) or SIGTERM stops the app and ends the process (130, 143).

    The SDK reads stdin in a worker thread that cancellation cannot interrupt, so the
    default handling (cancel the main task) would wait for another line or end of input
    on stdin, forever on an idle terminal; and SIGTERM's default ends the process at
    once, leaving a call that was running unrecorded. Instead the app is stopped here
    (it records the calls still running as ``cancelled`` first, then stops browser,
    bridge and watcher), then the process leaves without waiting for that thread.
    """
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    async def stop_and_leave(status: int) -> None:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(app.stop(), _INTERRUPT_STOP_S)
        _leave(status)

    def interrupted(status: int) -> None:
        if stopping:  # a second signal: leave now (the calls were recorded first thing)
            _leave(status)
        stopping.append(loop.create_task(stop_and_leave(status)))

    installed: list[signal.Signals] = []
    try:
        for signum, status in _STOP_SIGNALS.items():
            loop.add_signal_handler(signum, interrupted, status)
            installed.append(signum)
    except (NotImplementedError, RuntimeError, ValueError):  # no signal handlers here (Windows, a thread)
        pass
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def _leave(status: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


async def _open_bap(app: ActionsApp, allowed_origins: Sequence[str]) -> Any:
    """The BAP door (``--bap-port``; mcp_actions/bap/), listening, with the lines that say how to connect; None when off."""
    options = app.options
    if options.bap_port is None:
        return None
    import secrets

    from ..bap import BapDoor

    door = BapDoor(app, host=options.bap_host, port=options.bap_port, token=options.bap_token or secrets.token_urlsafe(18), allowed_origins=allowed_origins, sessions=app.sessions)
    try:
        await door.start()
    except OSError as exc:
        from ..ports import PortInUse

        raise PortInUse("BAP", options.bap_host, options.bap_port) from exc
    app.bap = door
    _say(f"BAP at {door.url}" + ("" if options.bap_token else f" (token for this run: {door.token}; give it as ?token= or X-BAP-Token)"))
    return door


async def _start(app: ActionsApp) -> None:
    """Start ``app``; when that fails, stop what did start (the bridge's sweeper, a bound port) and re-raise."""
    try:
        await app.start()
    except BaseException:
        with contextlib.suppress(Exception):
            await app.stop()
        raise


def _early_answer(app: ActionsApp, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """What the stdio server answers before the SDK is loaded (early_answers.py): the handshake, the tool list, a ping."""
    if method == "initialize":
        version = params.get("protocolVersion")
        return initialize_result(version, __version__, INSTRUCTIONS) if version in HANDSHAKE_VERSIONS else None
    if method == "tools/list" and not params.get("cursor"):
        return {"tools": [tool_fields(binding) for binding in app.catalog.tools.values() if app.visibility.listed(binding)]}
    if method == "ping":
        return {}
    return None


def _load_sdk() -> None:
    import mcp.server.stdio  # noqa: F401  (what _serve_stdio uses next, loaded in a thread)

    from . import mcp_server  # noqa: F401


async def _serve_stdio(app: ActionsApp) -> None:
    """Serve one client over stdio: the first answers early, the rest by the SDK's server (early_answers.py)."""
    early = EarlyStdio(lambda method, params: _early_answer(app, method, params))
    try:
        # The SDK loads in a thread while the loop answers the handshake and tools/list.
        loaded = asyncio.ensure_future(asyncio.to_thread(_load_sdk))
        await early.answer_until(loaded)
        await loaded
        from mcp.server.stdio import stdio_server

        from .mcp_server import NOTIFICATIONS, build_server

        server = build_server(app, manage_app=False)
        wire: Any = early  # the SDK reads lines and writes messages through it, as through its own files
        async with stdio_server(stdin=cast(Any, early.lines()), stdout=wire) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options(NOTIFICATIONS))
    finally:
        early.release()


async def serve(
    options: AppOptions,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int | None = None,
    http_token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
) -> None:
    """Run the MCP server until its transport closes (stdio) or the process is stopped (HTTP).

    ``port`` (HTTP transports): None serves on ``DEFAULT_MCP_PORT``, or on a free port when
    that one is taken; a port given is that port or ``ports.PortInUse``. The bridge follows
    ``options.bridge_port`` and ``options.bridge_port_fallback`` the same way.
    """
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r}")
    app = ActionsApp(options)
    if transport == "stdio":
        on_terminal = _stdin_is_terminal()  # asked now: while serving, fd 0 points elsewhere
        await _start(app)
        bap = None
        try:
            bap = await _open_bap(app, allowed_origins)
            with _interrupt_stops(app):
                if on_terminal:
                    _say(_stdio_hint())
                await _serve_stdio(app)
        finally:
            if bap is not None:
                await bap.stop()
            await app.stop()
        return
    import uvicorn

    path, name = _HTTP_PATHS[transport]
    # Bound before the app starts: a port given and taken stops here, with nothing started.
    listening = listen_sockets(host, DEFAULT_MCP_PORT if port is None else port, service="HTTP", fallback=port is None, default=DEFAULT_MCP_PORT)
    try:
        if listening.note:
            _say(f"{listening.note}; choose the port with --port")
        app.mcp_http = {"transport": transport, "url": _http_url(host, listening.port, path), "port_note": listening.note}
        await _start(app)
        life = _AppLife(start=False)
        bap = None
        try:
            from .http_guard import HttpPolicy

            policy = HttpPolicy.for_bind(host, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins, token=http_token)
            config = uvicorn.Config(_guarded_app(app, transport, policy, life), host=host, port=listening.port, log_level="warning", lifespan="on")
            _say(f"MCP over {name} at {_http_url(host, listening.port, path)}")
            # After the guarded app: its sessions are the BAP door's too (--max-sessions counts both doors).
            bap = await _open_bap(app, allowed_origins)
            await uvicorn.Server(config).serve(sockets=listening.sockets)
        finally:
            if bap is not None:
                await bap.stop()
            if not life.stopped:  # uvicorn never ran the lifespan, which stops the app
                await app.stop()
    finally:
        listening.close()
