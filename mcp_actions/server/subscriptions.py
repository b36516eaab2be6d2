"""Resource subscriptions and log levels of the MCP door: who hears of what, on this replica and the others.

``resources/subscribe`` holds a resource's watch (``watches.py``: a projection is re-read after
each call) for the peer that asked, once per peer; ``resources/unsubscribe`` lets it go. With
replicas (docs/deploying.md) the session's GET stream may be open on another replica: what it
subscribed to, and the log level it set, are shared on the backplane, and what another replica
shares is held here. A resource of another agent session's runtime is not found (docs/sessions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..bridge.scope import SessionKey
from ..errors import ActionError
from . import resources as res
from .peers import Peers
from .watches import ResourceWatches

if TYPE_CHECKING:
    from ..actions_app import ActionsApp

__all__ = ["Subscriptions", "http_session"]

Ctx = ServerRequestContext[dict[str, Any], Any]


def http_session(ctx: Ctx) -> str | None:
    """The streamable-HTTP session id of a request (None for other transports and 2026-07-28 requests)."""
    headers = getattr(ctx.request, "headers", None)
    session_id = headers.get("mcp-session-id") if headers is not None else None
    return session_id if isinstance(session_id, str) and session_id else None


class Subscriptions:
    """The ``resources/subscribe``, ``resources/unsubscribe`` and ``logging/setLevel`` handlers of one server."""

    def __init__(self, app: ActionsApp, peers: Peers, watches: ResourceWatches, spawn: Callable[[Coroutine[Any, Any, None]], None]) -> None:
        self.app = app
        self.peers = peers
        self.watches = watches
        self.spawn = spawn
        if app.backplane is not None:
            app.backplane.on_subscription = self._shared_elsewhere
            app.backplane.on_log_level = peers.share_level

    def _share(self, ctx: Ctx, uri: str, subscribed: bool) -> None:
        # Replicas (docs/deploying.md): the session's GET stream may be open on another replica, which
        # then notifies what the session subscribed to here.
        session_id = http_session(ctx)
        if self.app.backplane is not None and session_id:
            self.spawn(self.app.backplane.share_subscription(SessionKey.of_http(session_id).id, uri, subscribed))

    def _shared_elsewhere(self, session: str, uri: str, subscribed: bool) -> None:
        if self.peers.share(session, uri, subscribed):
            if subscribed:
                self.watches.hold(uri)
            else:
                self.watches.release(uri)

    async def subscribe(self, ctx: Ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        app, peers, watches = self.app, self.peers, self.watches
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
        self._share(ctx, uri, True)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        peer = self.peers.seen(ctx)
        if peer is None:
            self.watches.release(uri)  # a client we cannot tell apart: its subscribe held once
        elif uri in peer.subscriptions:
            peer.subscriptions.discard(uri)
            self.watches.release(uri)
        self._share(ctx, uri, False)
        return types.EmptyResult()

    async def set_level(self, ctx: Ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
        peer = self.peers.seen(ctx)
        if peer is not None:
            peer.log_level = params.level
        session_id = http_session(ctx)
        if self.app.backplane is not None and session_id:
            self.spawn(self.app.backplane.share_log_level(SessionKey.of_http(session_id).id, params.level))
        return types.EmptyResult()
