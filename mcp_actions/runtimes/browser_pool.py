"""Browser contexts for agent sessions: one Playwright, one browser, a context per session (docs/sessions.md).

Over HTTP each agent session gets a browser context of its own (its tabs,
cookies and storage). Launching a browser per session would cost a Chromium
process (and a Playwright driver) each; a context costs a few megabytes. So
``BrowserPool`` keeps one Playwright driver and, as ``BrowserOptions`` say:

- launches one Chromium (no persistent profile: a context cannot share one) and
  opens a context on it per session; the browser (and the Playwright driver)
  stop when the last context closes, so nothing is left running once every
  session ended;
- or attaches once over CDP (``--cdp-endpoint``, ``--cdp-header``) and opens a
  context per session there (the attached browser is only disconnected from);
- or, with a Playwright browser server (``--browser-endpoint``), connects once
  *per session*: each session's context lives on a connection of its own, so
  a session that ends closes its connection and the server drops its context.

A browser that disappears (crash, a remote server gone) closes its contexts;
each session's host sees that (``BrowserHost``) and its next call opens again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from ..bridge.scope import session_scope
from ..errors import ActionError, ErrorCode
from .chromium import CHROMIUM_ARGS, find_browser
from .launch import BrowserOptions, BrowserSession, attach_cdp, connect_endpoint
from .launch_failure import launch_failure

__all__ = ["BrowserPool"]

log = logging.getLogger(__name__)


class BrowserPool:
    """One Playwright driver and one shared browser, handing a context to each session."""

    def __init__(self, options: BrowserOptions) -> None:
        self.options = options
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._contexts = 0

    @property
    def contexts(self) -> int:
        """Contexts handed out and not yet closed (for the status page, tests and the bench)."""
        return self._contexts

    @property
    def browser_running(self) -> bool:
        """True while the shared browser (launched or attached) is up."""
        return self._browser is not None and self._browser.is_connected()

    async def _driver(self) -> Playwright:
        if self._playwright is None:
            # Started outside the agent session whose call needed it first: the driver's own tasks (its
            # connection's reader, which runs every page event's handler) would otherwise carry that
            # session in their context, and what any other session's pages did would be logged and
            # told as that session's (docs/sessions.md).
            with session_scope(None):
                self._playwright = await async_playwright().start()
        return self._playwright

    async def _shared_browser(self) -> Browser:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        pw = await self._driver()
        if self.options.cdp_endpoint:
            self._browser = await attach_cdp(pw, self.options)
        else:
            executable = find_browser(self.options.executable_path)
            try:
                self._browser = await pw.chromium.launch(executable_path=executable, headless=self.options.headless, args=list(CHROMIUM_ARGS))
            except PlaywrightError as exc:
                log.info("the browser did not start: %s", exc)  # Playwright's whole account, for --verbose
                raise ActionError(
                    launch_failure(exc, executable=executable, headless=self.options.headless),
                    code=ErrorCode.CAPABILITY_UNAVAILABLE,
                    evidence={"capability": "browser", "host": "playwright", "executable": executable},
                ) from exc
        return self._browser

    async def warm(self) -> None:
        """Start the driver and the shared browser now (``--browser launch``), before any session asks."""
        async with self._lock:
            if not self.options.browser_endpoint:
                await self._shared_browser()
            else:
                await self._driver()

    async def open_context(self) -> BrowserSession:
        """A new browser context for one session; closing its ``BrowserSession`` gives it back.

        Only getting the driver and the shared browser holds the pool's lock: the contexts (and,
        with a browser server, the connections) of sessions that start together are opened side
        by side. The context is counted before the lock is let go, so the last session ending
        meanwhile does not close the browser under it.
        """
        viewport: dict[str, Any] = {"no_viewport": True} if not self.options.headless else {}
        async with self._lock:
            pw = await self._driver()
            shared = None if self.options.browser_endpoint else await self._shared_browser()
            self._contexts += 1
        try:
            if shared is None:
                assert self.options.browser_endpoint is not None
                # One connection per session: its end closes the context on the server too.
                browser = await connect_endpoint(pw, self.options.browser_endpoint)
                try:
                    context = await browser.new_context(**viewport)
                except PlaywrightError as exc:
                    await browser.close()
                    raise _context_failed(exc) from exc
                return BrowserSession(context=context, browser=browser, attached=False, on_close=self._released)
            try:
                context = await shared.new_context(**viewport)
            except PlaywrightError as exc:
                raise _context_failed(exc) from exc
            # browser=None: closing the session closes this context only, never the shared browser.
            return BrowserSession(context=context, browser=None, attached=False, on_close=self._released)
        except BaseException:
            await self._released()  # the count taken above, given back
            raise

    async def _released(self) -> None:
        async with self._lock:
            self._contexts = max(0, self._contexts - 1)
            if self._contexts == 0:
                await self._close_browser()
                await self._stop_driver()

    async def _close_browser(self) -> None:
        # The last context closed: a launched browser goes too (no process left behind an ended
        # session); an attached one is disconnected from.
        browser, self._browser = self._browser, None
        if browser is not None:
            try:
                await browser.close()
            except PlaywrightError as exc:
                log.warning("could not close the shared browser: %s", exc)

    async def _stop_driver(self) -> None:
        pw, self._playwright = self._playwright, None
        if pw is not None:
            try:
                await pw.stop()
            except (PlaywrightError, OSError, RuntimeError) as exc:
                log.warning("could not stop Playwright cleanly: %r", exc)

    async def stop(self) -> None:
        """Close the shared browser and the Playwright driver (every session's host was stopped first)."""
        async with self._lock:
            await self._close_browser()
            await self._stop_driver()


def _context_failed(exc: PlaywrightError) -> ActionError:
    return ActionError(
        f"could not open a browser context: {str(exc).splitlines()[0]}",
        code=ErrorCode.CAPABILITY_UNAVAILABLE,
        evidence={"capability": "browser", "host": "playwright"},
    )
