"""The MCP server: a thin shell over ``ActionsApp`` on the SDK's low-level ``Server``.

``build_server`` wires tools, resources, subscriptions, logging, progress,
confirmation and change notifications. An unknown tool is a JSON-RPC error;
arguments that break the schema (refused before anything reaches a page) and
an action that ran and failed are results with ``isError``, which hosts show
to the model. Change reaches both
protocol generations (see ``peers.py``). ``transports.py`` serves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
import warnings
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import Any, cast

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from .. import __version__
from ..actions_app import ActionsApp
from ..bridge.scope import SessionKey, visible_to
from ..dispatch.call.guards import CallContext, InputRequired
from ..errors import ActionError, ErrorCode, UnknownTool
from ..events import MapsFailed, ResourcesListChanged, ResourceUpdated, ToolsChanged
from ..page_chars import well_formed
from . import resources as res
from .confirm import confirmer, page_elicitor
from .instructions import INSTRUCTIONS
from .logs import ClientLogHandler, call_event, failed_map_message, redacted, tell, tell_peer
from .peers import SCOPE_KEY, Hears, Peer, Peers, sessions_hear
from .sessions import SESSION_KEY, AgentSessions
from .tools import error_result, mark_page_content, mcp_tool, protocol_error, success_result
from .watches import ResourceWatches, watching_listen
from .well_formed import answering

__all__ = ["INSTRUCTIONS", "NOTIFICATIONS", "build_server"]

log = logging.getLogger(__name__)

Ctx = ServerRequestContext[dict[str, Any], Any]

#: The capabilities we announce: the tool and resource lists change, resources can be subscribed to.
NOTIFICATIONS = NotificationOptions(tools_changed=True, resources_changed=True)


async def tell_failed_maps(peer: Peer, failed: Sequence[dict[str, Any]]) -> None:
    """One ``error`` log message per map that failed to load, naming its file, pointer and problem."""
    for entry in failed:
        await tell_peer(peer, "error", failed_map_message(entry))


def _progress_of(ctx: Ctx) -> Any:
    if not ctx.meta or ctx.meta.get("progress_token", ctx.meta.get("progressToken")) is None:
        return None

    async def progress(done: float, total: float | None, message: str) -> None:
        await ctx.session.report_progress(done, total, well_formed(message))

    return progress


def _client_name(ctx: Ctx) -> str | None:
    """The client's ``clientInfo.name``: from ``initialize``, or a 2026-07-28 request's envelope (the SDK fills both in)."""
    params = ctx.session.client_params
    return params.client_info.name if params is not None and params.client_info is not None else None


def _http_session(ctx: Ctx) -> str | None:
    """The streamable-HTTP session id of a request (None for other transports and 2026-07-28 requests)."""
    headers = getattr(ctx.request, "headers", None)
    session_id = headers.get("mcp-session-id") if headers is not None else None
    return session_id if isinstance(session_id, str) and session_id else None


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

    def on_maps_failed(event: MapsFailed) -> None:
        for peer in peers.peers():
            # A runtime's own map is its agent session's business alone (docs/sessions.md).
            told = [entry for entry in event.maps if peer.sees(app.maps.owner_of_map(entry["file"]))]
            if told:
                spawn(tell_failed_maps(peer, told))

    def resource_audience(event: ResourceUpdated) -> Hears:
        # A runtime's resource is news to the sessions that may see the runtime (docs/sessions.md): a
        # subscription made before the runtime existed, or to another session's, hears nothing of it.
        told = sessions_hear(event.sessions)
        try:
            _, found = app.resources.resolve(event.uri)
        except ActionError:
            return told
        runtime_id = found.get("runtime_id")
        if not runtime_id:
            return told
        runtime = app.bridge.registry.get(runtime_id)
        return lambda key: told(key) and (key is None or (runtime is not None and visible_to(runtime.session, key)))

    app.events.subscribe(ToolsChanged, lambda event: spawn(peers.publish_tools_changed(sessions_hear(event.sessions))))
    app.events.subscribe(MapsFailed, on_maps_failed)
    app.events.subscribe(ResourceUpdated, lambda event: spawn(peers.publish_resource_updated(event.uri, resource_audience(event))))
    app.events.subscribe(ResourcesListChanged, lambda _: spawn(peers.publish_resources_changed()))
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

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
        peer = peers.seen(ctx)
        loop = asyncio.get_running_loop()
        started: list[float] = []  # set once the call passed its call-stage guards

        async def admitted(binding: Any) -> None:
            started.append(loop.time())
            await tell(ctx, peer, "info", {"event": "call_started", "tool": binding.name})

        context = CallContext(
            progress=_progress_of(ctx),
            elicit=page_elicitor(ctx),
            confirm=confirmer(ctx, params),
            request_id=str(ctx.request_id) if ctx.request_id is not None else None,
            via="tools/call",
            on_admitted=admitted,
            client=_client_name(ctx),
        )
        try:
            outcome = await app.service.handle(params.name, params.arguments, context)
        except UnknownTool as exc:
            await tell(ctx, peer, "warning", call_event("call_refused", params.name, exc))
            raise protocol_error(exc) from exc
        except InputRequired as ask:
            # A 2026-07-28 client asks its user and calls again with the answer (confirm.py raised it with its result).
            return cast(types.InputRequiredResult, ask.payload)
        except ActionError as exc:
            binding = app.catalog.get(params.name)
            if not started:
                # Refused before it ran (bad arguments, the user declined): a result the model reads
                # (MCP 2025-11-25, SEP-1303), not a JSON-RPC error it never sees.
                await tell(ctx, peer, "warning", call_event("call_refused", binding.name if binding else params.name, exc))
                return error_result(exc, binding)
            elapsed = int((loop.time() - started[0]) * 1000)
            await tell(ctx, peer, "warning", call_event("call_failed", binding.name if binding else params.name, exc, elapsed_ms=elapsed))
            return mark_page_content(error_result(exc, binding), binding) if binding is not None else error_result(exc)
        except asyncio.CancelledError:
            log.info("call of %s cancelled (by its client, or the server is stopping)", params.name)
            raise
        except Exception as exc:
            # A bug. Its message may quote the arguments, and the SDK would log it whole and
            # answer -32603: log where it happened with the values masked, answer internal_error.
            where = "".join(traceback.format_tb(exc.__traceback__)).rstrip()
            log.error("call of %s failed unexpectedly: %s: %s\n%s", params.name, type(exc).__name__, redacted(str(exc), params.arguments or {}), where)
            internal = ActionError(
                f"an unexpected failure inside mcp-actions ({type(exc).__name__}); where it happened is on the server's stderr",
                code=ErrorCode.INTERNAL_ERROR,
            )
            await tell(ctx, peer, "error", call_event("call_failed", params.name, internal))
            return error_result(internal)
        binding = outcome.binding
        assert binding is not None
        await tell(ctx, peer, "info", {"event": "call_finished", "tool": binding.name, "elapsed_ms": int((loop.time() - started[0]) * 1000)})
        try:
            result = success_result(outcome.output, binding, state_summary=outcome.state_summary, tab=outcome.tab, unchecked=outcome.unchecked)
        except Exception as exc:
            # The action ran: an answer we fail to render is our failure to show it, never the call's (dispatch/call/after_action.py).
            log.error("call of %s ran, but its answer could not be rendered: %s", params.name, type(exc).__name__, exc_info=True)
            result = types.CallToolResult(
                content=[types.TextContent(type="text", text=f"The action ran, but its output could not be shown ({type(exc).__name__}); it is done, do not repeat it.")],
                is_error=False,
            )
        return mark_page_content(result, binding)

    async def list_resources(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        peers.seen(ctx)
        return types.ListResourcesResult(resources=res.list_resources(app.resources))

    async def list_templates(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourceTemplatesResult:
        peers.seen(ctx)
        return types.ListResourceTemplatesResult(resource_templates=res.list_templates(app.resources))

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        peers.seen(ctx)
        return await res.read_resource(app.resources, str(params.uri))

    def share_subscription(ctx: Ctx, uri: str, subscribed: bool) -> None:
        # Replicas (docs/deploying.md): the session's GET stream may be open on another replica, which
        # then notifies what the session subscribed to here.
        session_id = _http_session(ctx)
        if app.backplane is not None and session_id:
            spawn(app.backplane.share_subscription(SessionKey.of_http(session_id).id, uri, subscribed))

    def shared_elsewhere(session: str, uri: str, subscribed: bool) -> None:
        if peers.share(session, uri, subscribed):
            if subscribed:
                watches.hold(uri)
            else:
                watches.release(uri)

    if app.backplane is not None:
        app.backplane.on_subscription = shared_elsewhere
        app.backplane.on_log_level = peers.share_level

    async def subscribe(ctx: Ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        try:
            _, found = app.resources.resolve(uri)
        except ActionError as exc:
            raise MCPError(res.RESOURCE_NOT_FOUND, f"{exc.code}: {exc.message}", data=exc.to_error()) from exc
        runtime_id = found.get("runtime_id")
        if runtime_id and runtime_id in app.bridge.registry and app.bridge.registry.get_visible(runtime_id) is None:
            # Another agent session's runtime (docs/sessions.md): not found here, and no news of it either.
            raise MCPError(res.RESOURCE_NOT_FOUND, f"resource_not_found: no resource at {uri}")
        peer = peers.seen(ctx)
        if peer is None or uri not in peer.subscriptions:
            watches.hold(uri)  # e.g. a projection starts being re-read after each call
        if peer is not None:
            peer.subscriptions.add(uri)
        share_subscription(ctx, uri, True)
        return types.EmptyResult()

    async def unsubscribe(ctx: Ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        peer = peers.seen(ctx)
        if peer is None:
            watches.release(uri)  # a client we cannot tell apart: its subscribe held once
        elif uri in peer.subscriptions:
            peer.subscriptions.discard(uri)
            watches.release(uri)
        share_subscription(ctx, uri, False)
        return types.EmptyResult()

    async def set_level(ctx: Ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
        peer = peers.seen(ctx)
        if peer is not None:
            peer.log_level = params.level
        session_id = _http_session(ctx)
        if app.backplane is not None and session_id:
            spawn(app.backplane.share_log_level(SessionKey.of_http(session_id).id, params.level))
        return types.EmptyResult()

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
            on_subscribe_resource=subscribe,
            on_unsubscribe_resource=unsubscribe,
            on_subscriptions_listen=watching_listen(ListenHandler(peers.bus), watches),
            on_set_logging_level=set_level,
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
