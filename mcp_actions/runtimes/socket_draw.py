"""A page drawn over a WebSocket is there when its navigation answers (issue 53).

A data app (Streamlit, and apps like it) loads an empty shell, opens a WebSocket, and draws
itself from what its server sends: its ``load`` event comes before any of it. A navigation
that answered at ``load`` left the model looking at a header and an empty ``main``, calling
``page_observe`` again and again until the app appeared (10 of 46 calls in the Streamlit bench).

So a navigation notes the sockets its document opens. After ``load``, when one was opened and
has received nothing yet, or is still receiving, the answer waits until the sockets have been
quiet for ``QUIET_S`` after a first message (and a moment for the page to draw it), at most
``DRAW_WAIT_S`` in all. Chromium tells of a socket asynchronously, a few milliseconds after the
script that opened it, so a page that opened none so far is given ``APPEAR_S`` more; then it waits
for nothing more.
"""

from __future__ import annotations

import asyncio
import time

from playwright.async_api import Page, WebSocket

__all__ = ["APPEAR_S", "DRAW_WAIT_S", "QUIET_S", "SocketDraw"]

#: The longest a navigation waits, after ``load``, for its sockets' first messages to be drawn.
DRAW_WAIT_S = 3.0
#: How long after ``load`` a socket the document opened may still be told of (2 ms were seen; under load more).
APPEAR_S = 0.02
#: How long the sockets stay quiet before what they sent is taken as drawn.
QUIET_S = 0.15


class SocketDraw:
    """The WebSockets one navigation's document opens, and when each last received a message."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._opened = 0
        self._last_message: float | None = None
        page.on("websocket", self._on_socket)

    def _on_socket(self, socket: WebSocket) -> None:
        self._opened += 1
        socket.on("framereceived", self._on_message)

    def _on_message(self, _payload: object) -> None:
        self._last_message = time.monotonic()

    def close(self) -> None:
        """Stop noting sockets (the navigation answered)."""
        self._page.remove_listener("websocket", self._on_socket)

    async def drawn(self) -> None:
        """Once the sockets opened so far received a first message and then stayed quiet (``DRAW_WAIT_S`` at most)."""
        if not self._opened:
            # Chromium tells of a socket a moment after the script that opened it ran, sometimes after load.
            await asyncio.sleep(APPEAR_S)
        if not self._opened:
            return
        deadline = time.monotonic() + DRAW_WAIT_S
        while (now := time.monotonic()) < deadline:
            if self._last_message is not None and now - self._last_message >= QUIET_S:
                return
            await asyncio.sleep(min(0.05, deadline - now))
