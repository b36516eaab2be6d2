"""BAP's events: the tabs' ``PageSignal``s sent to one connection as ``event/<kind>`` notifications (docs/bap.md).

After ``events/subscribe {events: [...]}`` a connection hears the kinds it named (``page``,
``console``, ``dialog``) of its own session's tabs only (``bridge/scope.py`` ``visible_to``):
another session's tab is never named to it. The method is ``event/<kind>`` (singular), which
is what the released Python client hands to ``on("<kind>")``; BAP's documents say
``events/<kind>``, which that client delivers only to ``on("events/page")``. Notifications are
queued and sent in order by one task, so a burst of console lines never reorders.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..bridge.scope import SessionKey, visible_to
from ..events import EventHub, PageSignal

__all__ = ["EVENT_KINDS", "EventRelay"]

log = logging.getLogger(__name__)

#: The kinds a client may subscribe to and will hear (network and download are not observed).
EVENT_KINDS = ("page", "console", "dialog")
#: Notifications waiting to be sent before the oldest are dropped (a client that does not read).
_BACKLOG = 1000


def params_of(signal: PageSignal) -> dict[str, Any]:
    """The notification's params, in the shapes the client's ``PageEvent``, ``ConsoleEvent`` and ``DialogEvent`` validate."""
    d = signal.detail
    base: dict[str, Any] = {"type": signal.kind, "pageId": signal.runtime_id, "timestamp": signal.timestamp}
    if signal.kind == "page":
        return {**base, "event": d.get("event"), "url": d.get("url") or ""}
    if signal.kind == "console":
        out = {**base, "level": d.get("level", "log"), "text": d.get("text", "")}
        out.update({key: d[key] for key in ("url", "line", "column") if d.get(key) is not None})
        return out
    out = {**base, "dialogType": d.get("dialog_type"), "message": d.get("message", "")}
    if d.get("default_value") is not None:
        out["defaultValue"] = d["default_value"]
    return out


class EventRelay:
    """The events one BAP connection subscribed to, sent through ``send`` in the order the tabs showed them."""

    def __init__(self, hub: EventHub, key: SessionKey, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        self.key = key
        self.kinds: frozenset[str] = frozenset()
        self._send = send
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(_BACKLOG)
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe = hub.subscribe(PageSignal, self._heard)

    def subscribe(self, kinds: Any) -> list[str]:
        """Hear these kinds from now on (those this server sends); returns them."""
        wanted = [k for k in kinds if isinstance(k, str)] if isinstance(kinds, list) else list(EVENT_KINDS)
        self.kinds = frozenset(self.kinds | {k for k in wanted if k in EVENT_KINDS})
        if self._task is None and self.kinds:
            self._task = asyncio.get_running_loop().create_task(self._pump(), name=f"bap-events:{self.key.id}")
        return sorted(self.kinds)

    def _heard(self, signal: PageSignal) -> None:
        if signal.kind not in self.kinds or not visible_to(signal.session, self.key):
            return
        message = {"jsonrpc": "2.0", "method": f"event/{signal.kind}", "params": params_of(signal)}
        if self._queue.full():  # a client that stopped reading loses the oldest, never blocks the tab
            self._queue.get_nowait()
        self._queue.put_nowait(message)

    async def _pump(self) -> None:
        while True:
            message = await self._queue.get()
            try:
                await self._send(message)
            except Exception:  # a closed connection: the door ends the relay
                log.debug("could not send a BAP event to %s", self.key.id, exc_info=True)

    async def close(self) -> None:
        """Stop hearing and sending."""
        self._unsubscribe()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
