"""A page drawn over a WebSocket is there when its navigation answers (issue 53).

A data app (Streamlit, and apps like it) loads an empty shell, opens a WebSocket, and draws
itself from what its server sends: its ``load`` event comes before any of it. A navigation
that answered at ``load`` left the model looking at a header and an empty ``main``, calling
``page_observe`` again and again until the app appeared (10 of 46 calls in the Streamlit bench).

So a navigation notes the sockets its document opens. After ``load``, when one was opened and
has received nothing yet, or is still receiving, the answer waits until the sockets have been
quiet for ``QUIET_S`` after a first message (and a moment for the page to draw it), at most
``DRAW_WAIT_S`` in all.

Chromium tells of a socket asynchronously, a few milliseconds after the script that opened it
(at ``load``, a socket an inline script opened had been told of in 11-16 navigations of 40, load
average 13-19). A page that opened none so far used to wait ``APPEAR_S`` more, whatever it was:
20 ms on every navigation (issue 55). Now it is asked once, after its ``load``: the navigation's
``confirm``, a round trip to the document (the tab's title read, which the answer makes anyway),
and by its answer the news of a socket the page opened has come, as a rule (an inline script's
38 of 40, a load handler's 36 of 40, against 40 of 40 after 20 ms, at load average 19). As a rule is
not always: the round trip and ``APPEAR_S`` run side by side, and the answer waits for the longer,
no longer for their sum (under load the round trip is the longer). Without a ``confirm`` the fixed
``APPEAR_S`` stands in. A socket opened later than either (Streamlit opens its own after two
requests, 1-111 ms after ``load`` in 10 navigations) was never waited for.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, WebSocket

__all__ = ["APPEAR_S", "DRAW_WAIT_S", "QUIET_S", "SocketDraw"]

#: The longest a navigation waits, after ``load``, for its sockets' first messages to be drawn.
DRAW_WAIT_S = 3.0
#: Without a round trip to confirm by: how long after ``load`` a socket the document opened may still be told of.
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

    @staticmethod
    async def _confirmed(confirm: Callable[[], Awaitable[object]]) -> None:
        # The page gone or navigating again: the navigation's own checks say so, not this one.
        with contextlib.suppress(PlaywrightError):
            await confirm()

    async def drawn(self, confirm: Callable[[], Awaitable[object]] | None = None) -> None:
        """Once the sockets opened so far received a first message and then stayed quiet (``DRAW_WAIT_S`` at most).

        ``confirm``: a round trip to the loaded document; when none was told of before, whether one was
        opened is known once it answers (see the module's docstring). None: ``APPEAR_S`` is waited instead.
        """
        if not self._opened:
            if confirm is None:
                await asyncio.sleep(APPEAR_S)
            else:
                # The round trip and APPEAR_S run together: the round trip alone missed an inline script's socket
                # in 2 navigations of 40 under load (a full test run failed on it), APPEAR_S alone in none; so
                # the answer waits for the longer of the two, not their sum.
                await asyncio.gather(self._confirmed(confirm), asyncio.sleep(APPEAR_S))
        if not self._opened:
            return
        deadline = time.monotonic() + DRAW_WAIT_S
        while (now := time.monotonic()) < deadline:
            if self._last_message is not None and now - self._last_message >= QUIET_S:
                return
            await asyncio.sleep(min(0.05, deadline - now))
