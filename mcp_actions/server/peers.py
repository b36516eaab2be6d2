"""The connected MCP clients, and change notifications fanned out to both protocol generations.

Handshake-era clients (up to 2025-11-25) hear ``notifications/tools/list_changed``,
``.../resources/list_changed`` and ``.../resources/updated`` on their
connection's standalone channel; 2026-07-28 clients hear them only through a
``subscriptions/listen`` stream they opened, fed from the subscription bus.
``Peers.publish_*`` does both.

A handshake client is reached through the public per-request
``ServerSession`` of one of its requests: its ``send_*`` methods without a
related request id write to the connection's standalone channel, which
outlives the request. A session is kept per client, keyed by

- the streamable-HTTP session id (``mcp-session-id`` header of the request),
  forgotten when the session has been idle longer than the transport's own
  idle timeout; or else
- the connection's lifespan scope: stdio, SSE and in-process connections
  each run the server's lifespan once, and the scope is forgotten when that
  lifespan ends.

Each client also has its own ``logging/setLevel`` threshold and its own
``resources/subscribe`` set.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated, ToolsListChanged
from mcp_types import LoggingLevel
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..bridge.scope import SessionKey

__all__ = ["LOG_LEVELS", "Peer", "Peers", "SCOPE_KEY"]

log = logging.getLogger(__name__)

#: Where the per-connection scope object sits in the lifespan context.
SCOPE_KEY = "mcp-actions/connection"
#: MCP's levels, least severe first.
LOG_LEVELS: tuple[LoggingLevel, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_SESSION_HEADER = "mcp-session-id"


@dataclass
class Peer:
    """One handshake-era client: a session to write through, its log level, its subscriptions."""

    session: ServerSession
    log_level: LoggingLevel = "warning"  # until the client says otherwise, only what needs attention
    subscriptions: set[str] = field(default_factory=set)
    last_seen: float = field(default_factory=time.monotonic)
    http: bool = False
    #: Whether the maps that had failed when this client arrived were told to it (once, on arrival).
    greeted: bool = False


class Peers:
    """Every handshake-era client, and the bus that feeds 2026-07-28 listen streams."""

    def __init__(self, *, http_idle_seconds: float | None = None) -> None:
        """``http_idle_seconds``: serving streamable HTTP, whose idle timeout this is; None otherwise."""
        self.bus = InMemorySubscriptionBus()
        self._peers: dict[object, Peer] = {}
        #: Resource subscriptions HTTP sessions made on other replicas (docs/deploying.md), by the session's
        #: ``SessionKey`` id: a replica holding a session's GET stream notifies what it subscribed to elsewhere.
        self._shared: dict[str, set[str]] = {}
        #: The ``logging/setLevel`` HTTP sessions gave on other replicas, by ``SessionKey`` id.
        self._shared_levels: dict[str, LoggingLevel] = {}
        self._http_idle_seconds = http_idle_seconds

    # -- who is connected -----------------------------------------------------

    @staticmethod
    def is_modern(ctx: ServerRequestContext[Any, Any]) -> bool:
        """Whether the request comes from a 2026-07-28 client (per-request envelope, listen streams)."""
        return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS

    def _key(self, ctx: ServerRequestContext[Any, Any]) -> tuple[object, bool] | None:
        if self._http_idle_seconds is not None:
            # Streamable HTTP: one lifespan for every session, so only the session id tells clients apart
            # (the initialize request has none yet; the client's next message does).
            headers = getattr(ctx.request, "headers", None)
            session_id = headers.get(_SESSION_HEADER) if headers is not None else None
            return (("http", session_id), True) if session_id else None
        lifespan = ctx.lifespan_context
        scope = lifespan.get(SCOPE_KEY) if isinstance(lifespan, dict) else None
        return (scope, False) if scope is not None else None

    def seen(self, ctx: ServerRequestContext[Any, Any]) -> Peer | None:
        """Note the client behind a request; its peer (None for 2026-07-28 clients, which use listen)."""
        if self.is_modern(ctx):
            return None
        found = self._key(ctx)
        if found is None:
            return None
        key, http = found
        peer = self._peers.get(key)
        if peer is None:
            peer = self._peers[key] = Peer(ctx.session, http=http)
            if http and isinstance(key, tuple):
                session = SessionKey.of_http(str(key[1])).id
                peer.subscriptions |= self._shared.get(session, set())
                peer.log_level = self._shared_levels.get(session, peer.log_level)
        else:
            peer.session = ctx.session  # the newest request's session: same connection, fresher proxy
            peer.last_seen = time.monotonic()
        return peer

    def share(self, session: str, uri: str, subscribed: bool) -> bool:
        """An HTTP session (``SessionKey`` id) subscribed to ``uri`` on another replica, or unsubscribed; True when that changed anything here."""
        shared = self._shared.setdefault(session, set())
        if (uri in shared) == subscribed:
            return False
        if subscribed:
            shared.add(uri)
        else:
            shared.discard(uri)
            if not shared:
                del self._shared[session]
        for key, peer in self._peers.items():
            if peer.http and isinstance(key, tuple) and SessionKey.of_http(str(key[1])).id == session:
                if subscribed:
                    peer.subscriptions.add(uri)
                else:
                    peer.subscriptions.discard(uri)
        return True

    def share_level(self, session: str, level: LoggingLevel) -> None:
        """An HTTP session (``SessionKey`` id) set its log level on another replica: it holds here too."""
        if level not in LOG_LEVELS:
            return
        self._shared_levels[session] = level
        for key, peer in self._peers.items():
            if peer.http and isinstance(key, tuple) and SessionKey.of_http(str(key[1])).id == session:
                peer.log_level = level

    def forget_scope(self, scope: object) -> Peer | None:
        """The connection of a lifespan scope ended; its peer (whose subscriptions end too), if any."""
        return self._peers.pop(scope, None)

    def _prune(self) -> None:
        if self._http_idle_seconds is None:
            return
        oldest = time.monotonic() - self._http_idle_seconds
        for key in [k for k, p in self._peers.items() if p.http and p.last_seen < oldest]:
            del self._peers[key]

    def peers(self) -> list[Peer]:
        """The handshake-era clients still connected (as far as we can tell)."""
        self._prune()
        return list(self._peers.values())

    # -- change notifications --------------------------------------------------

    async def publish_tools_changed(self) -> None:
        """``tools/list_changed`` to every client."""
        await self.bus.publish(ToolsListChanged())
        for peer in self.peers():
            await _send(peer, "tools/list_changed", peer.session.send_tool_list_changed())

    async def publish_resources_changed(self) -> None:
        """``resources/list_changed`` to every client."""
        await self.bus.publish(ResourcesListChanged())
        for peer in self.peers():
            await _send(peer, "resources/list_changed", peer.session.send_resource_list_changed())

    async def publish_resource_updated(self, uri: str) -> None:
        """``resources/updated`` to the clients subscribed to ``uri``."""
        await self.bus.publish(ResourceUpdated(uri=uri))
        for peer in self.peers():
            if uri in peer.subscriptions:
                await _send(peer, f"resources/updated {uri}", peer.session.send_resource_updated(uri))


async def _send(peer: Peer, what: str, sending: Any) -> None:
    # The SDK drops notifications to a closed connection itself; anything else is a real fault.
    try:
        await sending
    except Exception:
        log.warning("could not send %s to a client; it keeps a stale view until it asks again", what, exc_info=True)
