"""What an action started that only the browser sees: a navigation still on the network, a tab it opened (issue 52).

The page engine's settle (``page/observe_settle.js``) ends when the page is quiet and nothing the action
started in the page is pending. A form's POST is not in the page: the browser sends it and the old
document stays, quiet, until the response commits, often after the settle reported "no visible
change" (Django's "Yes, I'm sure"). A ``window.open`` popup is another tab, which the opener's engine
never sees. Playwright sees both, so the tab watches its page's own events from the action's mark
(``refs.change_mark``, or ``refs.resolve {mark}``) to its report (``refs.change_report``):

- ``request`` with ``is_navigation_request()`` in the top frame: a document the action asked for; the
  report waits (at most ``NAVIGATION_WAIT_S`` from the request) until it commits (``framenavigated``),
  fails (``requestfailed``) or answers with no document (204, 205);
- ``popup``: a tab or window the action opened; the report names it once its document is parsed.

Nothing is guessed: no request, no wait. A page_act mark (``slot: "act"``) spans its steps.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request, Response

__all__ = ["LEAVING_WAIT_S", "NAVIGATION_WAIT_S", "Consequences", "Since"]

#: The longest a document request the action started is waited for (contract §6: a form's POST, 5 s).
NAVIGATION_WAIT_S = 5.0
#: How long a request is waited for once the page said it is leaving (its beforeunload) and none was seen yet.
LEAVING_WAIT_S = 1.0
#: The most events kept while marks are open (a mark whose report never came must not grow forever).
_MAX_EVENTS = 200


@dataclass
class Since:
    """What the browser saw since a mark."""

    #: Top-frame document requests the action started (a link, a form's POST, a script's location change).
    requests: list[Request] = field(default_factory=list)
    #: When the first of them was seen (the event loop's clock).
    started: float = 0.0
    #: Of them, those that will commit nothing: failed, or answered with no document (204, 205).
    ended: list[Request] = field(default_factory=list)
    #: The top frame committed a document after the first of them.
    committed: bool = False
    #: Pages the action's page opened (popups, target=_blank), oldest first.
    opened: list[Page] = field(default_factory=list)

    @property
    def navigating(self) -> bool:
        """A document request started and has neither committed nor ended without a document."""
        return bool(self.requests) and not self.committed and any(request not in self.ended for request in self.requests)


def _first_hop(request: Request) -> Request:
    """The request a redirect chain started with (the one the action's navigation is known by)."""
    while request.redirected_from is not None:
        request = request.redirected_from
    return request


class Consequences:
    """One tab's page events between an action's mark and its report."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._events: list[tuple[str, Any]] = []
        self._offset = 0  # index of _events[0] in the whole sequence
        self._marks: dict[str, int] = {}
        self._changed = asyncio.Event()
        page.on("request", self._on_request)
        page.on("requestfailed", lambda request: self._note("ended", request))
        page.on("response", self._on_response)
        page.on("framenavigated", self._on_frame_navigated)
        page.on("popup", lambda popup: self._note("popup", popup))

    def mark(self, slot: str = "") -> None:
        """An action starts (``slot`` "act": a page_act's steps): what the page starts from here is its."""
        self._marks[slot] = self._offset + len(self._events)

    def since(self, slot: str = "") -> Since:
        """What happened since ``slot``'s mark (nothing when there was none)."""
        start = self._marks.get(slot)
        out = Since()
        if start is None:
            return out
        for kind, value in self._events[max(0, start - self._offset) :]:
            if kind == "request":
                if not out.requests:
                    out.started = value[1]
                out.requests.append(value[0])
            elif kind == "ended":
                out.ended.append(_first_hop(value))
            elif kind == "committed" and out.requests:
                out.committed = True
            elif kind == "popup":
                out.opened.append(value)
        return out

    def forget(self, slot: str = "") -> None:
        """The report of ``slot`` was given: its events are no longer kept for it."""
        self._marks.pop(slot, None)
        if not self._marks:
            self._offset += len(self._events)
            self._events.clear()

    async def navigation(self, slot: str = "", *, leaving: bool = False) -> Since:
        """``since``, once a document request the action started committed or ended (``NAVIGATION_WAIT_S`` at most).

        ``leaving``: the page said it began leaving (its ``beforeunload``, observe_settle.js) before the
        browser's request event reached us (they come on two connections): that request is waited for
        first, ``LEAVING_WAIT_S`` at most (a leave the page cancelled sends none).
        """
        seen = self.since(slot)
        if leaving and not seen.requests:
            loop = asyncio.get_running_loop()
            until = loop.time() + LEAVING_WAIT_S
            while not seen.requests and not self._page.is_closed() and loop.time() < until:
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), max(0.0, min(until - loop.time(), 0.05)))
                seen = self.since(slot)
        if not seen.navigating:
            return seen
        loop = asyncio.get_running_loop()
        # From the request's start: the settle already spent part of the time.
        limit = seen.started + NAVIGATION_WAIT_S
        while seen.navigating and not self._page.is_closed():
            left = limit - loop.time()
            if left <= 0:
                break
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.1))
            seen = self.since(slot)
        return seen

    # -- page events ----------------------------------------------------------

    def _note(self, kind: str, value: Any) -> None:
        if not self._marks:
            return
        if len(self._events) >= _MAX_EVENTS:
            drop = len(self._events) // 2
            del self._events[:drop]
            self._offset += drop
        self._events.append((kind, value))
        self._changed.set()

    def _on_request(self, request: Request) -> None:
        try:
            top = request.is_navigation_request() and request.frame == self._page.main_frame
        except PlaywrightError:  # a service worker's request has no frame
            return
        if top and request.redirected_from is None:  # a redirect's next hop is the same navigation
            self._note("request", (request, asyncio.get_running_loop().time()))

    def _on_response(self, response: Response) -> None:
        with contextlib.suppress(PlaywrightError):
            if response.request.is_navigation_request() and response.status in (204, 205):
                self._note("ended", response.request)

    def _on_frame_navigated(self, frame: Frame) -> None:
        if frame is self._page.main_frame:
            self._note("committed", frame.url)
