"""The browser host: Chromium driven by Playwright, one bridge runtime per tab.

``BrowserHost`` launches Chromium (or attaches over CDP), installs the page
engine in every document with an init script (engine only, so driven pages do
not also open a WebSocket runtime), and registers each tab as a ``TabRuntime``
with the bridge: ``tab-<n>`` / ``playwright:tab-<n>``. New pages (popups,
``window.open``) become runtimes, closed pages stop theirs, and the tab most
recently opened or navigated becomes the active runtime.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from ..bridge.bridge import Bridge
from ..errors import ActionError, ErrorCode
from .chromium import CHROMIUM_ARGS, find_browser
from .page_script import engine_only_js
from .tab import TabRuntime

__all__ = ["BrowserHost", "BrowserOptions", "default_profile_dir"]

log = logging.getLogger(__name__)

# Runs after the engine in every new document: ask the host which DOM events
# to forward, so events fired while the page loads are not missed.
_LISTEN_HOOK = """
;(function () {
  var engine = window.__mcpActions, ask = window.__mcpActionsListen, emit = window.__mcpActionsEmit;
  if (!engine || typeof ask !== "function" || typeof emit !== "function") return;
  ask().then(function (listen) {
    if (Array.isArray(listen) && listen.length) engine.watchEvents(listen, function (s) { emit(s); });
  }, function () {});
})();
"""


def default_profile_dir() -> Path:
    """Where a non-isolated browser keeps its profile when no --user-data-dir is given."""
    return Path.home() / ".cache" / "mcp-actions" / "chromium-profile"


@dataclass(frozen=True)
class BrowserOptions:
    """How to get a browser.

    ``cdp_endpoint`` attaches to a running browser. Otherwise Chromium is
    launched: with ``user_data_dir`` its profile lives there (persistent);
    without it, ``isolated`` keeps the profile in memory, and ``isolated=False``
    uses ``default_profile_dir()``.
    """

    executable_path: str | None = None
    headless: bool = True
    cdp_endpoint: str | None = None
    user_data_dir: str | None = None
    isolated: bool = True


class BrowserHost:
    """Chromium under Playwright, each tab a bridge runtime."""

    def __init__(self, bridge: Bridge, options: BrowserOptions | None = None) -> None:
        self.bridge = bridge
        self.options = options or BrowserOptions()
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._tabs: dict[str, TabRuntime] = {}
        self._adoptions: dict[Page, asyncio.Task[TabRuntime]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._numbers = itertools.count(1)
        self._started = False

    # -- lifecycle -----------------------------------------------------------

    @property
    def started(self) -> bool:
        """True while a browser is running (or attached) and its tabs are registered."""
        return self._started

    @property
    def tabs(self) -> list[TabRuntime]:
        """The registered tabs, oldest first."""
        return list(self._tabs.values())

    def tab(self, runtime_id: str) -> TabRuntime | None:
        """The tab with this runtime id."""
        return self._tabs.get(runtime_id)

    def tab_by_number(self, number: int) -> TabRuntime | None:
        """The tab ``tab-<number>``."""
        return self._tabs.get(f"tab-{number}")

    async def start(self) -> None:
        """Launch (or attach to) the browser, open a blank tab if none, register every tab."""
        await self.ensure_started()

    async def ensure_started(self) -> None:
        """Start once; concurrent callers wait for the same start."""
        if self._started:
            return
        async with self._lock:
            if self._started:
                return
            try:
                await self._launch()
            except BaseException:
                await self._teardown("browser start failed")
                raise
            self._started = True

    async def stop(self) -> None:
        """Close everything; every tab runtime disconnects (its pending calls fail transport_failed)."""
        async with self._lock:
            await self._teardown("browser stopped")

    async def new_tab(self, url: str | None = None, *, active: bool = True) -> str:
        """Open a tab (at ``url`` when given, after it loads); return its runtime id."""
        await self.ensure_started()
        assert self._context is not None
        try:
            page = await self._context.new_page()
            runtime = await self._adopt(page)
            if url:
                await page.goto(url, wait_until="load")
                await runtime.on_load()
            if active:
                await page.bring_to_front()
        except PlaywrightError as exc:
            raise ActionError(f"could not open a tab at {url!r}: {exc}", code=ErrorCode.HANDLER_FAILED, evidence={"url": url}) from exc
        if active:
            self.bridge.registry.set_active(runtime.runtime_id)
        return runtime.runtime_id

    # -- launching -------------------------------------------------------------

    async def _launch(self) -> None:
        options = self.options
        self._playwright = pw = await async_playwright().start()
        try:
            if options.cdp_endpoint:
                self._browser = await pw.chromium.connect_over_cdp(options.cdp_endpoint)
                self._context = self._browser.contexts[0] if self._browser.contexts else await self._browser.new_context()
            else:
                executable = find_browser(options.executable_path)
                viewport: dict[str, Any] = {"no_viewport": True} if not options.headless else {}
                profile = options.user_data_dir or (None if options.isolated else str(default_profile_dir()))
                if profile:
                    Path(profile).mkdir(parents=True, exist_ok=True)
                    self._context = await pw.chromium.launch_persistent_context(
                        profile, executable_path=executable, headless=options.headless, args=list(CHROMIUM_ARGS), **viewport
                    )
                    self._browser = self._context.browser
                else:
                    self._browser = await pw.chromium.launch(executable_path=executable, headless=options.headless, args=list(CHROMIUM_ARGS))
                    self._context = await self._browser.new_context(**viewport)
        except PlaywrightError as exc:
            where = options.cdp_endpoint or options.executable_path or "the detected browser"
            raise ActionError(
                f"could not start the browser ({where}): {str(exc).splitlines()[0]}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": "browser", "cdp_endpoint": options.cdp_endpoint},
            ) from exc
        context = self._context
        await context.expose_binding("__mcpActionsListen", self._listen_for)
        await context.expose_binding("__mcpActionsEmit", self._emit_from)
        await context.add_init_script(script=engine_only_js() + _LISTEN_HOOK)
        # The first tab exists before page events are watched, so it is adopted (and warmed) below, once.
        pages = list(context.pages) or [await context.new_page()]
        context.on("page", self._on_page)
        context.on("close", lambda _context: self._spawn(self._on_browser_gone("browser context closed"), "context-closed"))
        if self._browser is not None:
            self._browser.on("disconnected", lambda _browser: self._spawn(self._on_browser_gone("browser disconnected"), "disconnected"))
        for page in pages:
            # A browser we launched: its blank tab is ours to warm up (never an attached browser's pages).
            await self._adopt(page, warm=not options.cdp_endpoint)

    async def _teardown(self, reason: str) -> None:
        self._started = False
        for runtime in list(self._tabs.values()):
            await runtime.stop(reason)
        self._tabs.clear()
        self._adoptions.clear()
        context, browser, playwright = self._context, self._browser, self._playwright
        self._context = self._browser = self._playwright = None
        for closer in (context.close if context and not browser else None, browser.close if browser else None, playwright.stop if playwright else None):
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                task.cancel()

    async def _on_browser_gone(self, reason: str) -> None:
        if not self._started:
            return
        log.warning("%s; its tabs are gone", reason)
        async with self._lock:
            await self._teardown(reason)

    # -- tabs --------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run page-event work in the background, logging (not losing) failures."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.warning("browser host task %s failed: %r", name, t.exception())

        task.add_done_callback(done)
        return task

    def _on_page(self, page: Page) -> None:
        self._spawn(self._adopt(page), "adopt-page")

    async def _adopt(self, page: Page, *, warm: bool = False) -> TabRuntime:
        # The context's "page" event and new_tab both adopt a new page; one registration wins.
        task = self._adoptions.get(page)
        if task is None:
            task = self._adoptions[page] = asyncio.get_running_loop().create_task(self._register(page, warm=warm))
        return await asyncio.shield(task)

    async def _register(self, page: Page, *, warm: bool = False) -> TabRuntime:
        runtime = TabRuntime(self, page, next(self._numbers))
        if warm:
            # Before the tab is a runtime anyone can route a call to, and before its page
            # events are watched: the warm-up's throwaway document is nobody's business.
            await runtime.warm_process()
        self._tabs[runtime.runtime_id] = runtime
        page.on("close", lambda _page: self._spawn(self._on_close(runtime), f"{runtime.runtime_id}:closed"))
        page.on(
            "framenavigated",
            lambda frame: self._spawn(runtime.on_navigated(), f"{runtime.runtime_id}:navigated") if frame == page.main_frame else None,
        )
        page.on("load", lambda _page: self._spawn(runtime.on_load(), f"{runtime.runtime_id}:load"))
        with contextlib.suppress(PlaywrightError):
            # Documents loaded before the init script existed (attached browsers) need the engine now.
            if not await page.evaluate("() => !!window.__mcpActions"):
                await runtime.install_engine()
        runtime.url, runtime.title = await runtime.page_state()
        await runtime.start()
        if page.is_closed():
            await self._on_close(runtime)
        else:
            self.bridge.registry.set_active(runtime.runtime_id)
            log.info("tab %s registered at %s", runtime.runtime_id, runtime.url)
        return runtime

    async def _on_close(self, runtime: TabRuntime) -> None:
        self._tabs.pop(runtime.runtime_id, None)
        self._adoptions.pop(runtime.page, None)
        await runtime.stop("tab closed")

    def _runtime_of(self, source: dict[str, Any]) -> TabRuntime | None:
        # Only a tab's own document speaks for it: an embedded (third-party)
        # frame must not be able to emit the page's declared signals.
        page = source.get("page")
        runtime = next((t for t in self._tabs.values() if t.page is page), None)
        if runtime is None or source.get("frame") is not runtime.page.main_frame:
            return None
        return runtime

    async def _listen_for(self, source: dict[str, Any]) -> list[dict[str, str]]:
        runtime = self._runtime_of(source)
        return runtime.listen if runtime else []

    async def _emit_from(self, source: dict[str, Any], signal: Any) -> None:
        runtime = self._runtime_of(source)
        if runtime is not None:
            await runtime.forward_event(signal)
