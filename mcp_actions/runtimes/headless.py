"""One headless tab of our own browser host, for commands that read a page once (``check``, ``init``).

Such a command needs what the server has, on a smaller scale: a bridge, a
Chromium the browser host launched headless with a throwaway profile, and one
tab registered as a runtime of that bridge. ``headless_tab`` starts the three
and stops them again, whatever happened in between.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from ..bridge.bridge import Bridge
from ..errors import ActionError, ActionsError, ErrorCode
from .browser import BrowserHost, BrowserOptions
from .tab import TabRuntime

__all__ = ["headless_tab"]

log = logging.getLogger(__name__)

#: A browser that closes while the command's tab opens is launched again, this many times in all.
_LAUNCH_ATTEMPTS = 2
#: How Playwright says the browser (or its context) closed under a call.
_BROWSER_CLOSED = "has been closed"


@contextlib.asynccontextmanager
async def headless_tab(*, browser_path: str | None, timeout_ms: int, url: str | None = None) -> AsyncIterator[tuple[Bridge, TabRuntime]]:
    """A bridge (calls bounded by ``timeout_ms``) and a new headless tab on it, at ``url`` once loaded (blank without)."""
    # The operator's own command on the page they named (a local file too, as before): no agent chooses where it goes.
    bridge = Bridge(default_timeout_ms=timeout_ms, allow_file_urls=True)
    await bridge.start()
    host = BrowserHost(bridge, BrowserOptions(executable_path=browser_path, headless=True, isolated=True))
    try:
        for attempt in range(_LAUNCH_ATTEMPTS):
            await host.ensure_started()
            try:
                runtime_id = await host.new_tab(url)
                break
            except ActionError as exc:
                # A browser that went away while starting (it happens on a loaded machine) gets one more
                # launch; a page that will not open in a live browser is the answer.
                if _BROWSER_CLOSED not in exc.message and url and "reason" in exc.evidence:
                    # The page would not load: the operator's command says so as init always has, one line.
                    raise ActionsError(f"could not load {url}: {exc.evidence['reason']}", code=ErrorCode.IO_ERROR, evidence={"url": url}) from exc
                if _BROWSER_CLOSED not in exc.message or attempt + 1 == _LAUNCH_ATTEMPTS:
                    raise
                log.warning("the headless browser went away while opening %s (%s); launching it again", url or "a tab", exc.message)
                await host.stop()
        tab = host.tab(runtime_id)
        if tab is None:
            raise ActionsError(f"the tab opened for {url or 'the page'} is gone", code=ErrorCode.RUNTIME_NOT_FOUND, evidence={"runtime_id": runtime_id})
        yield bridge, tab
    finally:
        await host.stop()
        await bridge.stop()
