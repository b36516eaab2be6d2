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

Over HTTP several agent sessions share the server, and what one did never
reaches another (docs/sessions.md): every notification has an *audience*, a
``Hears`` predicate over the agent session a client is in (its ``SessionKey``,
None for the operator's own connections, stdio among them). A handshake client's
session is noted with its requests; a listen stream's is the session its
``subscriptions/listen`` request ran in (``SessionBus``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.lowlevel
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated, ServerEvent, ToolsListChanged
from mcp_types import LoggingLevel
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..bridge.scope import SessionKey, current_session, visible_to

__all__ = ["EVERYONE", "LOG_LEVELS", "Hears", "Peer", "Peers", "SCOPE_KEY", "SessionBus", "sessions_hear"]

log = logging.getLogger(__name__)

#: Where the per-connection scope object sits in the lifespan context.
SCOPE_KEY = "mcp-actions/connection"
#: MCP's levels, least severe first.
LOG_LEVELS: tuple[LoggingLevel, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_SESSION_HEADER = "mcp-session-id"

#: Who a notification is for: given the agent session a client is in (None: the operator's connection), whether it hears.
Hears = Callable[[SessionKey | None], bool]


def EVERYONE(_: SessionKey | None) -> bool:  # a constant, spelt as one
    """The audience of a notification about nothing any session owns (the map files, the set of resources)."""
    return True


def sessions_hear(sessions: frozenset[str] | None) -> Hears:
    """The audience of a change to these agent sessions' own things (None: everyone's); the operator hears all."""
    if sessions is None:
        return EVERYONE
    return lambda key: key is None or key.id in sessions


class SessionBus:
    """The listen streams' bus (the SDK's ``SubscriptionBus``), each stream told only what its agent session may hear.

    The SDK's ``ListenHandler`` subscribes a stream from inside its ``subscriptions/listen``
    request, which runs in the request's agent session (server/sessions.py): the session is
    noted then, and ``publish_to`` delivers an event only to the streams whose session hears it.
    """

    def __init__(self) -> None:
        self._listeners: dict[object, tuple[SessionKey | None, Callable[[ServerEvent], None]]] = {}

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Register a stream's ``listener`` for the current agent session; returns its idempotent unsubscribe."""
        token = object()
        self._listeners[token] = (current_session(), listener)
        return lambda: self._listeners.pop(token, None) and None

    async def publish(self, event: ServerEvent) -> None:
        """Deliver ``event`` to every stream."""
        await self.publish_to(event, EVERYONE)

    async def publish_to(self, event: ServerEvent, hears: Hears) -> None:
        """Deliver ``event`` to the streams whose agent session ``hears`` it.

        As the SDK's in-memory bus does: a listener that raises is logged and skipped, and the
        checkpoint at the end lets streams drain between a burst of events.
        """
        for key, listener in list(self._listeners.values()):
            if not hears(key):
                continue
            try:
                listener(event)
            except Exception:  # fan-out boundary: one stream must not starve the others
                log.exception("a listen stream's listener raised; continuing")
        await anyio.lowlevel.checkpoint()


@dataclass
class Peer:
    """One handshake-era client: a session to write through, its log level, its subscriptions."""

    session: ServerSession
    log_level: LoggingLevel = "warning"  # until the client says otherwise, only what needs attention
    subscriptions: set[str] = field(default_factory=set)
    last_seen: float = field(default_factory=time.monotonic)
    http: bool = False
    #: The agent session the client is in (server/sessions.py; None: the operator's connection, or not known yet).
    agent: SessionKey | None = None
    def sees(self, owner: str | None) -> bool:
        """Whether this client may see what agent session ``owner`` owns (None: the operator's, everyone's).

        An HTTP client whose session is not known yet sees only what is everyone's.
        """
        if self.agent is None:
            return owner is None or not self.http
        return visible_to(owner, self.agent)

    #: Whether the maps that had failed when this client arrived were told to it (once, on arrival).
    greeted: bool = False


class Peers:
    """Every handshake-era client, and the bus that feeds 2026-07-28 listen streams."""

    def __init__(self, *, http_idle_seconds: float | None = None) -> None:
        """``http_idle_seconds``: serving streamable HTTP, whose idle timeout this is; None otherwise."""
        self.bus = SessionBus()
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
        peer.agent = current_session() or peer.agent  # handlers run in the request's agent session
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

    def peers(self, hears: Hears = EVERYONE) -> list[Peer]:
        """The handshake-era clients still connected (as far as we can tell) whose agent session ``hears``.

        A client over HTTP whose session is not known yet (it has sent nothing but ``initialize``
        and ``notifications/initialized``) hears only what everyone does.
        """
        self._prune()
        return [peer for peer in self._peers.values() if (hears(peer.agent) if peer.agent is not None or not peer.http else hears is EVERYONE)]

    # -- change notifications --------------------------------------------------

    async def publish_tools_changed(self, hears: Hears = EVERYONE) -> None:
        """``tools/list_changed`` to every client whose agent session ``hears`` it."""
        await self.bus.publish_to(ToolsListChanged(), hears)
        for peer in self.peers(hears):
            await _send(peer, "tools/list_changed", peer.session.send_tool_list_changed())

    async def publish_resources_changed(self) -> None:
        """``resources/list_changed`` to every client."""
        await self.bus.publish(ResourcesListChanged())
        for peer in self.peers():
            await _send(peer, "resources/list_changed", peer.session.send_resource_list_changed())

    async def publish_resource_updated(self, uri: str, hears: Hears = EVERYONE) -> None:
        """``resources/updated`` to the clients subscribed to ``uri`` whose agent session ``hears`` it."""
        await self.bus.publish_to(ResourceUpdated(uri=uri), hears)
        for peer in self.peers(hears):
            if uri in peer.subscriptions:
                await _send(peer, f"resources/updated {uri}", peer.session.send_resource_updated(uri))


async def _send(peer: Peer, what: str, sending: Any) -> None:
    # The SDK drops notifications to a closed connection itself; anything else is a real fault.
    try:
        await sending
    except Exception:
        log.warning("could not send %s to a client; it keeps a stale view until it asks again", what, exc_info=True)
