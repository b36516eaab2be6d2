"""A browser host that costs nothing until it is needed.

Importing Playwright takes a few hundred milliseconds, more than anything
else a server needs before it can answer ``tools/list``. ``DeferredBrowser``
stands where the browser host stands (it offers what dispatch's
``BrowserControl`` asks for, plus ``stop``) and imports and builds the real
``BrowserHost`` the first time something starts the browser, so a server
that never drives a browser never pays for it. ``start_in_background``
begins a launch without making the caller wait: calls that need the browser
meanwhile wait for that same launch (``BrowserHost.ensure_started`` holds a
lock), and a launch that fails is logged and tried again by the next call.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..bridge.bridge import Bridge

if TYPE_CHECKING:
    from .browser import BrowserHost
    from .tab import TabRuntime

__all__ = ["DeferredBrowser"]

log = logging.getLogger(__name__)


class DeferredBrowser:
    """The browser host, built (and Playwright imported) on first use.

    ``options`` are the fields of ``BrowserOptions`` (executable_path, headless, …).
    """

    def __init__(self, bridge: Bridge, **options: Any) -> None:
        self._bridge = bridge
        self._options = options
        self._host: BrowserHost | None = None
        self._launch: asyncio.Task[None] | None = None

    @property
    def host(self) -> BrowserHost:
        """The real browser host, built now if it was not yet."""
        if self._host is None:
            # Deferred on purpose (start-up time), not to break an import cycle.
            from .browser import BrowserHost, BrowserOptions

            self._host = BrowserHost(self._bridge, BrowserOptions(**self._options))
        return self._host

    @property
    def started(self) -> bool:
        """True while a browser is running (or attached) and its tabs are registered."""
        return self._host is not None and self._host.started

    @property
    def tabs(self) -> list[TabRuntime]:
        """The registered tabs, oldest first (none before the browser starts)."""
        return self._host.tabs if self._host is not None else []

    def tab(self, runtime_id: str) -> TabRuntime | None:
        """The tab with this runtime id."""
        return self._host.tab(runtime_id) if self._host is not None else None

    def session(self) -> dict[str, Any] | None:
        """The agent session's ``{name, named_at}`` on the browser host (None before it is named or built)."""
        return self._host.session() if self._host is not None else None

    async def ensure_started(self) -> None:
        """Start the browser once; concurrent callers (and a background launch) share one start."""
        await self.host.ensure_started()

    async def new_tab(self, url: str | None = None) -> str:
        """Open a tab (at ``url`` when given); its runtime id."""
        return await self.host.new_tab(url)

    def start_in_background(self) -> None:
        """Begin launching now, without waiting; a failure is logged and retried by the next call."""
        if self._launch is None or self._launch.done():
            self._launch = asyncio.get_running_loop().create_task(self._background_launch(), name="browser-launch")

    async def _background_launch(self) -> None:
        try:
            await self.ensure_started()
        except Exception as exc:
            log.warning("launching the browser at start failed: %s", getattr(exc, "message", exc))

    async def wait_launched(self) -> None:
        """Wait for a background launch to finish (successfully or not)."""
        if self._launch is not None:
            await asyncio.shield(self._launch)

    async def stop(self) -> None:
        """Stop the browser when one was built; cancel a launch still under way."""
        if self._launch is not None and not self._launch.done():
            self._launch.cancel()
            try:
                await self._launch
            except asyncio.CancelledError:
                pass
        if self._host is not None:
            await self._host.stop()
