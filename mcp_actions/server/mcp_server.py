"""The MCP server: a thin shell over ``ActionsApp`` on the SDK's low-level ``Server``.

``build_server`` wires tools, resources, subscriptions, logging, progress,
confirmation and change notifications, each concern in a module of its own:
``tools/call`` in ``calls.py``, subscriptions and log levels in
``subscriptions.py``, the peers that hear of change in ``peers.py`` (both
protocol generations), what a listing says in ``tools.py`` and ``resources.py``.
``transports.py`` serves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPDeprecationWarning

from .. import __version__
from ..actions_app import ActionsApp
from ..bridge.scope import SessionKey
from . import resources as res
from .calls import tool_caller
from .change_notices import follow_changes, tell_failed_maps
from .instructions import INSTRUCTIONS
from .logs import ClientLogHandler
from .peers import SCOPE_KEY, Peers
from .sessions import SESSION_KEY, AgentSessions
from .subscriptions import Subscriptions
from .tools import mcp_tool
from .watches import ResourceWatches, watching_listen
from .well_formed import answering

__all__ = ["INSTRUCTIONS", "NOTIFICATIONS", "build_server"]

log = logging.getLogger(__name__)

Ctx = ServerRequestContext[dict[str, Any], Any]

#: The capabilities we announce: the tool and resource lists change, resources can be subscribed to.
NOTIFICATIONS = NotificationOptions(tools_changed=True, resources_changed=True)


def build_server(
    app: ActionsApp,
    *,
    manage_app: bool = True,
    http_idle_seconds: float | None = None,
    sessions: AgentSessions | None = None,
    connection_sessions: bool = False,
) -> Server[dict[str, Any]]:
    """The MCP server over ``app``. With ``manage_app`` its lifespan starts and stops the app.

    Over stdio and in-process, the lifespan runs once per connection and may
    own the app; over HTTP the app lives as long as the process
    (``manage_app=False``) and ``http_idle_seconds`` is the transport's idle
    timeout, after which a silent HTTP session is no longer notified.
    ``sessions`` (HTTP): every request runs in its agent session's scope
    (server/sessions.py); with ``connection_sessions`` (SSE) each connection is one session.
    """
    peers = Peers(http_idle_seconds=http_idle_seconds)
    # Resources watched for either generation: resources/subscribe and subscriptions/listen streams.
    watches = ResourceWatches(app.resources)
    # Event handlers are synchronous; notifications are sent from tasks of their own,
    # held here so none is collected before it ran.
    sending: set[asyncio.Task[None]] = set()

    def spawn(coro: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:
            coro.close()
            log.warning("a change notification was dropped: no event loop is running")
            return
        sending.add(task)
        task.add_done_callback(sending.discard)

    follow_changes(app, peers, spawn)  # tools, maps, resources: told to the peers that may hear of them
    # Over HTTP several agent sessions share the product's log: each hears what happened in its own
    # requests, and a notice from outside any (a background task) reaches all without a URL in it.
    forward_logs = ClientLogHandler(peers, notices_without_urls=sessions is not None)

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        scope = object()  # this connection (stdio, SSE, in-process); HTTP sessions are keyed by their id
        product_log = logging.getLogger("mcp_actions")
        product_log.addHandler(forward_logs)
        if manage_app:
            await app.start()
        context: dict[str, Any] = {"app": app, SCOPE_KEY: scope}
        session = SessionKey.of_connection(isolated=sessions.isolated) if sessions is not None and connection_sessions else None
        if session is not None:
            context[SESSION_KEY] = session  # this SSE connection is one agent session, ended with it
        try:
            yield context
        finally:
            if session is not None and sessions is not None:
                await sessions.end(session.id, "its connection closed")
            gone = peers.forget_scope(scope)
            for uri in gone.subscriptions if gone is not None else ():
                watches.release(uri)
            product_log.removeHandler(forward_logs)
            if manage_app:
                await app.stop()

    async def list_tools(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        peers.seen(ctx)
        listing = types.ListToolsResult(tools=[mcp_tool(b) for b in app.catalog.tools.values() if app.visibility.listed(b)])
        app.prepare_in_background()  # the host has its list: compile the calls' checks while it thinks
        return listing

    call_tool = tool_caller(app, peers)

    async def list_resources(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        peers.seen(ctx)
        return types.ListResourcesResult(resources=res.list_resources(app.resources))

    async def list_templates(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourceTemplatesResult:
        peers.seen(ctx)
        return types.ListResourceTemplatesResult(resource_templates=res.list_templates(app.resources))

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        peers.seen(ctx)
        return await res.read_resource(app.resources, str(params.uri))

    subscriptions = Subscriptions(app, peers, watches, spawn)

    with warnings.catch_warnings():
        # logging/setLevel is deprecated at 2026-07-28 but handshake clients still send it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server: Server[dict[str, Any]] = Server(
            "mcp-actions",
            version=__version__,
            instructions=INSTRUCTIONS,
            lifespan=lifespan,
            # Every answer leaves well formed, whatever a page put in it (well_formed.py: no lone surrogate).
            on_list_tools=answering(list_tools),
            on_call_tool=answering(call_tool),
            on_list_resources=answering(list_resources),
            on_list_resource_templates=answering(list_templates),
            on_read_resource=answering(read_resource),
            on_subscribe_resource=subscriptions.subscribe,
            on_unsubscribe_resource=subscriptions.unsubscribe,
            on_subscriptions_listen=watching_listen(ListenHandler(peers.bus), watches),
            on_set_logging_level=subscriptions.set_level,
        )

    async def note_client(ctx: Ctx, call_next: Any) -> Any:
        # Every inbound message makes its client known, so a client that only connected and
        # listens (notifications/initialized, nothing else yet) still hears about changes.
        result = await call_next(ctx)
        if ctx.method != "initialize":
            peer = peers.seen(ctx)
            if peer is not None and not peer.greeted:
                # Maps that failed before this client arrived (at start, most often): its user
                # sees nothing else of them inside a desktop host.
                peer.greeted = True
                spawn(tell_failed_maps(peer, app.failed_maps()))
        return result

    if sessions is not None:
        # Each request in its agent session's scope (docs/sessions.md); outside note_client, so that a
        # client is noted with its session and greeted only with what that session may see.
        server.middleware.append(sessions.middleware)
    server.middleware.append(note_client)
    if sessions is not None:

        def forget_deleted(session_id: str) -> None:
            # Its client deleted it: no more notifications to it, and its subscriptions end now,
            # not when the transport's idle timeout would have pruned it.
            gone = peers.forget_scope(("http", session_id))
            for uri in gone.subscriptions if gone is not None else ():
                watches.release(uri)

        sessions.on_deleted.append(forget_deleted)
    return server
