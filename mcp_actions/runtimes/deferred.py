"""A browser host that costs nothing until it is needed, one per agent session over HTTP.

Importing Playwright takes a few hundred milliseconds, more than anything
else a server needs before it can answer ``tools/list``. ``DeferredBrowser``
stands where the browser host stands (it offers what dispatch's
``BrowserControl`` asks for, plus ``stop``) and imports and builds the real
``BrowserHost`` the first time something starts the browser, so a server
that never drives a browser never pays for it. ``start_in_background``
begins a launch without making the caller wait: calls that need the browser
meanwhile wait for that same launch (``BrowserHost.ensure_started`` holds a
lock), and a launch that fails is logged and tried again by the next call.

Every method answers for the *current agent session* (``bridge/scope.py``):
stdio, the operator and sessions of a shared context use one host, as
``BrowserOptions`` say; an HTTP session with a context of its own gets a host
of its own on first use, whose context comes from one ``BrowserPool``
(``browser_pool.py``), and ``close_session`` stops it when the session ends
(docs/sessions.md).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import TYPE_CHECKING, Any

from ..bridge.bridge import Bridge
from ..bridge.scope import scope_key

if TYPE_CHECKING:
    from .browser import BrowserHost
    from .browser_pool import BrowserPool
    from .tab import TabRuntime

__all__ = ["DeferredBrowser"]

log = logging.getLogger(__name__)


class DeferredBrowser:
    """The browser hosts (the shared one, and one per isolated agent session), each built on first use.

    ``options`` are the fields of ``BrowserOptions`` (executable_path, headless, …).
    """

    def __init__(self, bridge: Bridge, **options: Any) -> None:
        self._bridge = bridge
        self._options = options
        #: Hosts by ``scope_key``: None is the shared host (stdio, operator, shared context).
        self._hosts: dict[str | None, BrowserHost] = {}
        self._pool: BrowserPool | None = None
        # One counter for every host: tab-<n> names one tab in the whole server.
        self._numbers = itertools.count(1)
        self._launch: asyncio.Task[None] | None = None

    def _host_for(self, key: str | None) -> BrowserHost:
        host = self._hosts.get(key)
        if host is None:
            # Deferred on purpose (start-up time), not to break an import cycle.
            from .browser import BrowserHost, BrowserOptions

            options = BrowserOptions(**self._options)
            if key is None:
                host = BrowserHost(self._bridge, options, numbers=self._numbers)
            else:
                host = BrowserHost(self._bridge, options, owner=key, pool=self._the_pool(options), numbers=self._numbers)
            self._hosts[key] = host
        return host

    def _the_pool(self, options: Any) -> BrowserPool:
        if self._pool is None:
            from .browser_pool import BrowserPool

            self._pool = BrowserPool(options)
        return self._pool

    @property
    def host(self) -> BrowserHost:
        """The current session's browser host, built now if it was not yet."""
        return self._host_for(scope_key())

    @property
    def pool(self) -> BrowserPool | None:
        """The pool the sessions' contexts come from (None until a session with a context of its own used the browser)."""
        return self._pool

    def _current(self) -> BrowserHost | None:
        return self._hosts.get(scope_key())

    @property
    def started(self) -> bool:
        """True while the current session's browser is running (or attached) and its tabs are registered."""
        host = self._current()
        return host is not None and host.started

    @property
    def tabs(self) -> list[TabRuntime]:
        """The current session's registered tabs, oldest first (none before its browser starts)."""
        host = self._current()
        return host.tabs if host is not None else []

    def tab(self, runtime_id: str) -> TabRuntime | None:
        """The current session's tab with this runtime id."""
        host = self._current()
        return host.tab(runtime_id) if host is not None else None

    def session(self) -> dict[str, Any] | None:
        """The agent session's ``{name, named_at}`` on the current host (None before it is named or built)."""
        host = self._current()
        return host.session() if host is not None else None

    def sessions(self) -> dict[str, dict[str, Any]]:
        """Each isolated session's browser: ``{started, tabs, name}`` by session id (the status page)."""
        return {
            key: {"started": host.started, "tabs": len(host.tabs), "name": (host.session() or {}).get("name")}
            for key, host in self._hosts.items()
            if key is not None
        }

    async def ensure_started(self) -> None:
        """Start the current session's browser once; concurrent callers (and a background launch) share one start."""
        await self.host.ensure_started()

    async def new_tab(self, url: str | None = None) -> str:
        """Open a tab in the current session's browser (at ``url`` when given); its runtime id."""
        return await self.host.new_tab(url)

    def start_in_background(self, *, sessions: bool = False) -> None:
        """Begin launching now, without waiting; a failure is logged and retried by the next call.

        ``sessions``: start the browser the agent sessions' contexts will open on (HTTP, a context
        per session), not the shared host's, which would hold the default profile for nobody.
        """
        if self._launch is None or self._launch.done():
            self._launch = asyncio.get_running_loop().create_task(self._background_launch(sessions), name="browser-launch")

    async def _background_launch(self, sessions: bool = False) -> None:
        try:
            if sessions:
                from .browser import BrowserOptions

                await self._the_pool(BrowserOptions(**self._options)).warm()
            else:
                await self.ensure_started()
        except Exception as exc:
            log.warning("launching the browser at start failed: %s", getattr(exc, "message", exc))

    async def wait_launched(self) -> None:
        """Wait for a background launch to finish (successfully or not)."""
        if self._launch is not None:
            await asyncio.shield(self._launch)

    async def close_session(self, key: str) -> bool:
        """An agent session ended: close its context (or its remote browser connection); its runtimes end. True when it had one."""
        host = self._hosts.pop(key, None)
        if host is None:
            return False
        try:
            await host.stop()
        except Exception:
            log.exception("closing the browser context of session %s failed", key)
        return True

    async def stop(self) -> None:
        """Stop every browser that was built; cancel a launch still under way."""
        if self._launch is not None and not self._launch.done():
            self._launch.cancel()
            try:
                await self._launch
            except asyncio.CancelledError:
                pass
        for key in list(self._hosts):
            host = self._hosts.pop(key)
            try:
                await host.stop()
            except Exception:
                log.exception("stopping the browser host of %s failed", key or "the server")
        if self._pool is not None:
            await self._pool.stop()
