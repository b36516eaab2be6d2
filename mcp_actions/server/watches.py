"""Who keeps a resource watched: handshake subscriptions and 2026-07-28 listen streams.

A watched resource is one whose provider produces updates: a state projection
is re-read after every call on its runtime (``ResourceRegistry.watch``).
Handshake clients ask with ``resources/subscribe``; 2026-07-28 clients name
the URIs in the ``resource_subscriptions`` of a ``subscriptions/listen``
request, for as long as that stream stays open. ``ResourceWatches`` counts
holders per URI, so the registry is told to watch on the first holder and to
stop on the last, whichever generation they speak. ``watching_listen`` wraps
the SDK's ``ListenHandler`` to hold a stream's URIs while it is open.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from mcp.server.context import ServerRequestContext
from mcp_types import SubscriptionsListenRequestParams, SubscriptionsListenResult

from ..errors import ActionError

__all__ = ["ResourceWatches", "Watchable", "watching_listen"]

log = logging.getLogger(__name__)


class Watchable(Protocol):
    """What the counts drive (``mcp_actions.resources.registry.ResourceRegistry``)."""

    def resolve(self, uri: str) -> Any: ...

    def watch(self, uri: str) -> None: ...

    def unwatch(self, uri: str) -> None: ...


class ResourceWatches:
    """Holders per resource URI; the registry watches a URI while it has any."""

    def __init__(self, registry: Watchable) -> None:
        self._registry = registry
        self._holders: Counter[str] = Counter()

    def hold(self, uri: str) -> bool:
        """One more holder of ``uri``; False (and nothing held) when no resource has that URI."""
        if not self._holders[uri]:
            try:
                self._registry.watch(uri)
            except ActionError as exc:
                log.info("not watching %s: %s", uri, exc.message)
                return False
        self._holders[uri] += 1
        return True

    def release(self, uri: str) -> None:
        """One holder fewer; the last one stops the watch."""
        if self._holders[uri] <= 0:
            return
        self._holders[uri] -= 1
        if not self._holders[uri]:
            del self._holders[uri]
            self._registry.unwatch(uri)

    def held(self, uri: str) -> int:
        """How many holders ``uri`` has."""
        return self._holders[uri]


ListenCall = Callable[[ServerRequestContext[Any, Any], SubscriptionsListenRequestParams], Awaitable[SubscriptionsListenResult]]


def watching_listen(listen: ListenCall, watches: ResourceWatches) -> ListenCall:
    """``listen`` (the SDK's handler) that also watches the stream's resources while it is open.

    The stream's ``resource_subscriptions`` are held before the stream is
    acknowledged (an update right after the ack is not missed) and released
    when it ends, however it ends (closed by the client, dropped, or the
    server shutting down).
    """

    async def handler(ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams) -> SubscriptionsListenResult:
        uris = list(dict.fromkeys(params.notifications.resource_subscriptions or ()))
        held = [uri for uri in uris if watches.hold(uri)]
        try:
            return await listen(ctx, params)
        finally:
            for uri in held:
                watches.release(uri)

    return handler
