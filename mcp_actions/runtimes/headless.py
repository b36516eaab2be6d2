"""One headless tab of our own browser host, for commands that read a page once (``check``, ``init``).

Such a command needs what the server has, on a smaller scale: a bridge, a
Chromium the browser host launched headless with a throwaway profile, and one
tab registered as a runtime of that bridge. ``headless_tab`` starts the three
and stops them again, whatever happened in between.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from ..bridge.bridge import Bridge
from ..errors import ActionsError, ErrorCode
from .browser import BrowserHost, BrowserOptions
from .tab import TabRuntime

__all__ = ["headless_tab"]


@contextlib.asynccontextmanager
async def headless_tab(*, browser_path: str | None, timeout_ms: int, url: str | None = None) -> AsyncIterator[tuple[Bridge, TabRuntime]]:
    """A bridge (calls bounded by ``timeout_ms``) and a new headless tab on it, at ``url`` once loaded (blank without)."""
    bridge = Bridge(default_timeout_ms=timeout_ms)
    await bridge.start()
    host = BrowserHost(bridge, BrowserOptions(executable_path=browser_path, headless=True, isolated=True))
    try:
        await host.ensure_started()
        runtime_id = await host.new_tab(url)
        tab = host.tab(runtime_id)
        if tab is None:
            raise ActionsError(f"the tab opened for {url or 'the page'} is gone", code=ErrorCode.RUNTIME_NOT_FOUND, evidence={"runtime_id": runtime_id})
        yield bridge, tab
    finally:
        await host.stop()
        await bridge.stop()
