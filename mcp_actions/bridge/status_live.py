"""The status page's live updates: server-sent events on the bridge port (``GET /status/events``).

The bridge port is a WebSocket server whose HTTP side answers each request with one whole
response (``bridge/http_routes.py``), so no stream stays open there. Server-sent events do
not need one: ``EventSource`` connects again after a stream ends (after the ``retry`` the
stream gave, here ``RETRY_MS``), sending the ``Last-Event-ID`` it saw. So each request is
held until something changed since that id (``LiveFeed.wait_after``; at most ``HOLD_S``,
below the WebSocket server's 10-second handshake timeout), then answered with one event,
the page's new content, and ended; a change between two requests is answered at once. A
call appears on the page as soon as its audit line is written.

What changes the page: a call that ended (an audit line), a runtime, a session, a map; and
every ``HOLD_S`` the page is sent again anyway (idle times move). ``close`` answers every
held request at once, so the bridge stops without waiting for them.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["HOLD_S", "RETRY_MS", "LiveFeed", "event_stream"]

#: Longest a request for events is held before it is answered with the page as it is.
HOLD_S = 8.0
#: How long the browser waits before asking again after an answer (``retry``).
RETRY_MS = 200


class LiveFeed:
    """A version number that grows with each change, and the requests waiting for the next one."""

    def __init__(self) -> None:
        self.version = 1
        self.closed = False
        self._waiters: list[asyncio.Future[None]] = []

    def changed(self, *_: object) -> None:
        """Something the page shows changed (usable as any listener: its arguments are ignored)."""
        self.version += 1
        self._wake()

    def close(self) -> None:
        """Answer every held request now, and hold none until ``open`` (the server is stopping)."""
        self.closed = True
        self._wake()

    def open(self) -> None:
        """Hold requests again (the server started)."""
        self.closed = False

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            loop = waiter.get_loop()
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                if not waiter.done():
                    waiter.set_result(None)
            else:  # an audit line written on another thread
                loop.call_soon_threadsafe(_settle, waiter)

    async def wait_after(self, seen: str | None, hold: float = HOLD_S) -> int:
        """The version to answer with: at once when ``seen`` (the client's ``Last-Event-ID``) is not the current one, else after the next change or ``hold``."""
        if self.closed or seen is None or seen.strip() != str(self.version):
            return self.version
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter, hold)
        with contextlib.suppress(ValueError):
            self._waiters.remove(waiter)
        return self.version


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def event_stream(version: int, content: str, *, event: str = "page", retry_ms: int = RETRY_MS) -> str:
    """One server-sent event carrying ``content`` (each of its lines a ``data:`` line), with its id and the retry delay."""
    data = "\n".join(f"data: {line}" for line in content.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return f"retry: {retry_ms}\nid: {version}\nevent: {event}\n{data}\n\n"

