"""Evaluate in a tab's top document over the tab's own CDP session, without Playwright's utility script.

Playwright's ``page.evaluate`` injects its utility script into every new
document on the first evaluation there (~30 ms, measured: the script is
compiled in the page), and adds about a millisecond to each call. A tab's hot
path — engine calls, hit-test probes, the title read after a navigation — runs
dozens of evaluations per task and one first evaluation per navigation, so it
goes through ``Runtime.evaluate`` of a CDP session instead: the function's
source is applied to its argument written as a JSON literal, and the result
comes back by value.

Failures are raised as Playwright's ``Error`` with the protocol's message
(``Execution context was destroyed``, ``Target closed``, a page exception's
description), so callers translate them exactly as they translate
Playwright's own.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

__all__ = ["MainWorld"]

_NO_ARGUMENT = object()
#: How long detaching may take. A tab whose navigation hangs (a server that accepts and never
#: answers) does not answer the detach either, and stopping the host must not wait on it.
DETACH_TIMEOUT_S = 1.0


class MainWorld:
    """The main world of one tab's top document, reached through a CDP session made at first use."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._session: CDPSession | None = None
        self._opening: asyncio.Lock = asyncio.Lock()

    async def _cdp(self) -> CDPSession:
        async with self._opening:  # two first calls at once open one session
            if self._session is None:
                self._session = await self.page.context.new_cdp_session(self.page)
        return self._session

    async def call(self, function_source: str, argument: Any = _NO_ARGUMENT) -> Any:
        """``(function_source)(argument)`` in the page, awaited; its JSON value (None for undefined).

        ``argument`` must be JSON data (it travels as a literal). Raises Playwright's
        ``Error`` when the page throws or the document or tab goes away meanwhile.
        """
        applied = "" if argument is _NO_ARGUMENT else json.dumps(argument, ensure_ascii=False, allow_nan=False)
        expression = f"({function_source})({applied})"
        session = await self._cdp()
        reply = await session.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        details = reply.get("exceptionDetails")
        if details is not None:
            exception = details.get("exception") or {}
            raise PlaywrightError(str(exception.get("description") or details.get("text") or "the page threw"))
        return reply.get("result", {}).get("value")

    async def close(self) -> None:
        """Detach the session (the tab is closing or the host stopping); never raises."""
        session, self._session = self._session, None
        if session is not None:
            try:
                await asyncio.wait_for(session.detach(), DETACH_TIMEOUT_S)
            except PlaywrightError:
                pass  # the tab is already gone, and its session with it
            except TimeoutError:
                pass  # the session goes with its tab or the browser, which are closing
