"""A tab's navigation that is over when its call is: nothing of it lands in the next call (issue 42).

``page.goto`` answering is not the navigation ending. Two ways it went on, found under load:

- The site refused the connection (``net::ERR_CONNECTION_REFUSED``): ``goto`` raised at once, and
  a moment later Chromium committed its error page (``chrome-error://chromewebdata/``), a navigation
  of its own. A call that came next on the tab (``browser_navigate`` after ``could not open …, the
  site its map names``) was broken by it: ``Navigation to … is interrupted by another navigation to
  "chrome-error://chromewebdata/"``.
- The call gave up (its deadline, its caller cancelling, ``goto``'s own timeout): the browser went on
  loading, to commit whenever the site answered, inside whatever call came next.

So ``navigate`` waits for the error page of a navigation that failed on the network (it is listened
for from before ``goto``, so one that came first is not missed and an earlier one is not taken for
it), and stops a navigation that was given up (CDP ``Page.stopLoading``: the tab keeps the page it
showed, or what the navigation had already committed). A stop that outlives a cancelled call (it was
cancelled again meanwhile) is kept per page, and ``settled(page)`` lets the next call on the tab wait
for it before it starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Response
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from .socket_draw import SocketDraw

__all__ = ["ERROR_PAGE_WAIT_S", "LOAD_WAIT_S", "STOP_WAIT_S", "history_has", "navigate", "settled"]

log = logging.getLogger(__name__)

#: How long a navigation that failed on the network waits for Chromium's error page to commit (it comes in
#: tens of milliseconds; a failure that shows none, rare, costs this once).
ERROR_PAGE_WAIT_S = 2.0
#: How long a parsed page's ``load`` is waited for (its images, frames, fonts): a resource that never
#: arrives must not fail the navigation.
LOAD_WAIT_S = 5.0
#: The longest a given-up navigation's stop is waited for, by its call or the next one on the tab.
STOP_WAIT_S = 5.0

#: Stops still running, by page: the next call on the tab waits for them (``settled``).
_stopping: weakref.WeakKeyDictionary[Page, asyncio.Task[None]] = weakref.WeakKeyDictionary()


def _shows_error_page(exc: PlaywrightError) -> bool:
    """A network failure Chromium answers with its error page (an aborted navigation shows none)."""
    message = str(exc)
    return "net::ERR_" in message and "net::ERR_ABORTED" not in message


async def navigate(
    page: Page, url: str | None = None, *, reload: bool = False, history: str | None = None, confirm: Callable[[], Awaitable[object]] | None = None
) -> Response | None:
    """``page.goto(url)`` (or ``page.reload()``, ``go_back()``/``go_forward()`` for ``history``) until the
    document is parsed and then its ``load`` (``LOAD_WAIT_S`` at most), leaving no navigation running when it fails.

    ``confirm``: a round trip to the loaded document (the tab's title read), by whose answer a socket the
    page opened is known (``SocketDraw.drawn``): a page that opened none is answered without a fixed wait.

    Raises what Playwright raised (a network failure once the error page committed, a timeout once the
    navigation was stopped), and re-raises a cancellation once the navigation was stopped.
    """
    await settled(page)
    error_page = asyncio.Event()

    def on_navigated(frame: Frame) -> None:
        if frame == page.main_frame and frame.url.startswith("chrome-error://"):
            error_page.set()

    page.on("framenavigated", on_navigated)
    sockets = SocketDraw(page)  # a page drawn over a WebSocket is answered once drawn (socket_draw.py)
    try:
        # Until the document is parsed, then its load for LOAD_WAIT_S at most: a page whose image,
        # font or tracker never arrives is there to read and act on, and waiting for its load
        # would time the call out although the page came.
        if reload:
            response = await page.reload(wait_until="domcontentloaded")
        elif history == "back":
            response = await page.go_back(wait_until="domcontentloaded")
        elif history == "forward":
            response = await page.go_forward(wait_until="domcontentloaded")
        else:
            assert url is not None
            response = await page.goto(url, wait_until="domcontentloaded")
        with contextlib.suppress(PlaywrightTimeoutError):
            await page.wait_for_load_state("load", timeout=LOAD_WAIT_S * 1000)
        await sockets.drawn(confirm)
        return response
    except PlaywrightTimeoutError:
        await _stop_now(page)
        raise
    except PlaywrightError as exc:
        if _shows_error_page(exc):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ERROR_PAGE_WAIT_S):
                    await error_page.wait()
        raise
    except asyncio.CancelledError:
        await _stop_now(page)
        raise
    finally:
        page.remove_listener("framenavigated", on_navigated)
        sockets.close()


async def _stop_now(page: Page) -> None:
    """Stop what the page is loading, waited for here; a second cancellation leaves it to ``settled``."""
    task = _stopping.get(page)
    if task is None or task.done():
        task = _stopping[page] = asyncio.get_running_loop().create_task(_stop(page), name="navigation-stop")
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(STOP_WAIT_S):
            await asyncio.shield(task)


async def _stop(page: Page) -> None:
    if page.is_closed():
        return
    session: Any = None
    try:
        session = await page.context.new_cdp_session(page)
        await session.send("Page.stopLoading")
    except PlaywrightError as exc:
        # The page went (closed, or a cross-process commit detached the session): nothing of ours loads there.
        log.debug("could not stop loading in a tab: %s", str(exc).splitlines()[0] if str(exc) else exc)
    finally:
        if session is not None:
            with contextlib.suppress(PlaywrightError):
                await session.detach()


async def history_has(page: Page, direction: str) -> bool | None:
    """Whether the tab's history has a page ``back`` or ``forward`` of the current one (CDP); None when it cannot tell."""
    session: Any = None
    try:
        session = await page.context.new_cdp_session(page)
        entries = await session.send("Page.getNavigationHistory")
    except PlaywrightError:
        return None
    finally:
        if session is not None:
            with contextlib.suppress(PlaywrightError):
                await session.detach()
    index, count = int(entries.get("currentIndex", 0)), len(entries.get("entries") or [])
    return index > 0 if direction == "back" else index < count - 1


async def settled(page: Page) -> None:
    """Wait (at most ``STOP_WAIT_S``) for a given-up navigation of ``page`` still being stopped."""
    task = _stopping.get(page)
    if task is None or task.done():
        return
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(STOP_WAIT_S):
            await asyncio.shield(task)
