"""The browser host: Chromium driven by Playwright, one bridge runtime per tab and per same-origin frame.

``BrowserHost`` launches Chromium (or attaches over CDP; see ``launch.py``),
installs the page engine in every document with an init script (engine only,
so driven pages do not also open a WebSocket runtime), and registers each tab
as a ``TabRuntime`` (``tab-<n>`` / ``playwright:tab-<n>``) and each
same-origin frame as a ``FrameRuntime``. Pages the browser opens (popups,
``window.open``, ``target=_blank``) become runtimes, closed pages and detached
frames stop theirs, navigation re-announces url and title, and the tab most
recently opened or navigated becomes the active runtime. Dialogs and crashes
are watched per page (``PageWatch``); ``browser.*`` primitives run in
``BrowserAuthority``. The host implements ``TabHost`` (what a tab may ask of
it) and ``TabDirectory`` (what the privileged primitives may ask) publicly.

An agent session's host (``owner``, docs/sessions.md) takes its browser
context from a ``BrowserPool`` instead of launching, and its tabs and frames
belong to that session on the bridge. Tab numbers come from a counter the
hosts share, so ``tab-<n>`` names one tab in the whole server.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Playwright, async_playwright

from ..bridge.bridge import Bridge
from ..bridge.scope import session_scope
from ..errors import ActionError, ErrorCode
from .authority import BrowserAuthority
from .browser_pool import BrowserPool
from .document import ATTACHMENT_HOOK
from .frame import FrameRuntime, same_origin
from .launch import BrowserOptions, BrowserSession, default_profile_dir, open_browser
from .navigation import navigate
from .outbox import outbox_hook
from .page_script import engine_js
from .page_signals import watch_signals
from .page_watch import PageWatch
from .tab import TabRuntime

__all__ = ["BrowserHost", "BrowserOptions", "default_profile_dir"]

log = logging.getLogger(__name__)


class BrowserHost:
    """Chromium under Playwright, each tab and same-origin frame a bridge runtime."""

    def __init__(
        self,
        bridge: Bridge,
        options: BrowserOptions | None = None,
        *,
        owner: str | None = None,
        pool: BrowserPool | None = None,
        numbers: itertools.count[int] | None = None,
    ) -> None:
        """``owner``: the agent session whose tabs these are (None: the operator's); ``pool``: where its context comes from.

        ``numbers``: the tab-number counter shared by every host of one server (so ids never collide).
        """
        self._bridge = bridge
        self.owner = owner
        self._pool = pool
        self.options = options or BrowserOptions()
        self._lock = asyncio.Lock()
        self._frame_lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._session: BrowserSession | None = None
        self._tabs: dict[str, TabRuntime] = {}
        self._frames: dict[Frame, FrameRuntime] = {}
        self._frame_numbers: dict[str, itertools.count[int]] = {}
        self._adoptions: dict[Page, asyncio.Task[TabRuntime]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._numbers = numbers if numbers is not None else itertools.count(1)
        self._started = False
        self._authority = BrowserAuthority(self)
        #: What this host's documents' outboxes answer to before their first configure (outbox.py): in its init
        #: script and its configuring evaluations only. A frame's differs from a top document's: frames are
        #: configured through Playwright's evaluation, which the page's scripts can watch.
        self._outbox_secret = secrets.token_urlsafe(24)
        self._frame_outbox_secret = secrets.token_urlsafe(24)

    # -- TabHost / TabDirectory ------------------------------------------------

    @property
    def bridge(self) -> Bridge:
        """The bridge every tab and frame runtime connects to."""
        return self._bridge

    @property
    def outbox_secret(self) -> str:
        """What this host's top documents' outboxes answer to before their first configure (see outbox.py)."""
        return self._outbox_secret

    @property
    def frame_outbox_secret(self) -> str:
        """What this host's frames' outboxes answer to before their first configure (see outbox.py)."""
        return self._frame_outbox_secret

    @property
    def started(self) -> bool:
        """True while a browser is running (or attached) and its tabs are registered."""
        return self._started

    @property
    def tabs(self) -> list[TabRuntime]:
        """The registered tabs, oldest first."""
        return list(self._tabs.values())

    @property
    def frames(self) -> list[FrameRuntime]:
        """The registered same-origin frames of every tab."""
        return list(self._frames.values())

    @property
    def profile_dir(self) -> Path | None:
        """The profile directory of a launched browser (None when attached or stopped)."""
        return self._session.profile_dir if self._session else None

    def tab(self, runtime_id: str) -> TabRuntime | None:
        """The tab with this runtime id."""
        return self._tabs.get(runtime_id)

    def tab_by_number(self, number: int) -> TabRuntime | None:
        """The tab ``tab-<number>`` (its ``tab_id`` in the browser primitives)."""
        return self._tabs.get(f"tab-{number}")

    def frames_of(self, tab: TabRuntime) -> list[FrameRuntime]:
        """The frame runtimes inside ``tab``."""
        return [f for f in self._frames.values() if f.tab is tab]

    def active_tab(self) -> TabRuntime | None:
        """The active runtime when it is one of this host's tabs."""
        active = self._bridge.registry.active_id
        return self._tabs.get(active) if active else None

    def set_active(self, runtime_id: str) -> None:
        """Make this runtime the one implicit calls go to."""
        self._bridge.registry.set_active(runtime_id)

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run page-event work in the background, logging (not losing) failures."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.warning("browser host task %s failed: %r", name, t.exception())

        task.add_done_callback(done)
        return task

    async def tab_of(self, page: Page) -> TabRuntime:
        """The tab runtime of ``page`` (a popup one of this host's tabs opened), once it is registered."""
        return await self._adopt(page)

    async def run_privileged(self, name: str, caller: Any, arguments: dict[str, Any]) -> Any:
        """Run a privileged primitive (``browser.*``, ``clipboard.*``, ``runtime.session.*``) asked of the tab ``caller``."""
        return await self._authority.run(name, caller, arguments)

    def session(self) -> dict[str, Any] | None:
        """The agent session's ``{name, named_at}`` once ``runtime.session.name`` named it (None before)."""
        return self._authority.session.describe()

    # -- lifecycle -----------------------------------------------------------

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
        """Close (or detach from) everything; every runtime disconnects (pending calls fail transport_failed)."""
        async with self._lock:
            await self._teardown("browser stopped")

    async def new_tab(self, url: str | None = None, *, active: bool = True) -> str:
        """Open a tab (at ``url`` when given, after it loads); return its runtime id."""
        await self.ensure_started()
        assert self._session is not None
        try:
            page = await self._session.context.new_page()
            runtime = await self._adopt(page)
            if url:
                await self._load(runtime, url)
            if active:
                await page.bring_to_front()
        except PlaywrightError as exc:
            # The cause in one line (Playwright's call log, which repeats the URL and its wait, is for the log).
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0].removeprefix("Page.goto: ")
            log.info("could not open a tab at %r: %s", url, exc)
            raise ActionError(f"could not open a tab at {url!r}: {reason}", code=ErrorCode.HANDLER_FAILED, evidence={"url": url, "reason": reason}) from exc
        if active:
            self.set_active(runtime.runtime_id)
        return runtime.runtime_id

    async def _load(self, runtime: TabRuntime, url: str) -> None:
        """Load ``url`` in a new tab; a dialog its page opens meanwhile ends the wait, not the tab.

        A ``confirm()`` as the page loads blocks its load event and every read of the page until
        someone answers it: ``browser.open_tab`` would wait out its whole time. The tab is open
        then, its dialog waits for ``browser.dismiss_dialog`` (``browser.claimed_tabs.list`` shows
        it), and its URL is reported before the answer, so the next call on it is judged by its page.
        """

        async def load() -> None:
            await navigate(runtime.page, url, confirm=runtime.page_state)  # over when it fails or is given up (navigation.py)
            await runtime.on_load()

        try:
            await runtime.watch.guard(load(), "page.load")
        except ActionError as exc:
            if exc.code != ErrorCode.DIALOG_OPEN:
                raise
            log.info("tab %s opened at %s with a %s dialog waiting", runtime.runtime_id, url, (runtime.watch.dialog_info or {}).get("type", "JavaScript"))
            await runtime.on_navigated()

    async def _launch(self) -> None:
        if self._pool is not None:
            self._session = session = await self._pool.open_context()  # the pool owns the driver and the browser
        else:
            with session_scope(None):  # the driver's tasks serve every session: see browser_pool.py
                self._playwright = await async_playwright().start()
            self._session = session = await open_browser(self._playwright, self.options)
        context = session.context
        # No Playwright binding: a document speaks through its outbox, which its runtime drains (outbox.py).
        await context.add_init_script(script=engine_js() + outbox_hook(self._outbox_secret, self._frame_outbox_secret) + ATTACHMENT_HOOK)
        # The first tab exists before page events are watched, so it is adopted (and warmed) below, once.
        pages = list(context.pages) or [await context.new_page()]
        context.on("page", self._on_page)
        context.on("close", lambda _context: self.spawn(self._on_browser_gone("browser context closed"), "context-closed"))
        if session.browser is not None:
            session.browser.on("disconnected", lambda _browser: self.spawn(self._on_browser_gone("browser disconnected"), "disconnected"))
        # An attached browser's tabs are the user's, unless the context is one we opened there (cdp_own_context).
        users_tabs = bool(self.options.cdp_endpoint) and not session.own_context
        for page in pages:
            # A browser we launched (or our own context): its blank tab is ours to warm up (never the user's pages).
            runtime = await self._adopt(page, warm=not users_tabs and self._pool is None)
            # The user's tabs: runtime.session.finalize_tabs leaves them open.
            runtime.preexisting = users_tabs

    async def _teardown(self, reason: str) -> None:
        self._started = False
        for frame_runtime in list(self._frames.values()):
            await frame_runtime.stop(reason)
        self._frames.clear()
        for runtime in list(self._tabs.values()):
            await runtime.stop(reason)
        self._tabs.clear()
        self._adoptions.clear()
        session, playwright = self._session, self._playwright
        self._session = self._playwright = None
        if session is not None:
            await session.close()  # logs each failure itself
        if playwright is not None:
            try:
                await playwright.stop()
            except (PlaywrightError, OSError, RuntimeError) as exc:
                log.warning("could not stop Playwright cleanly: %r", exc)
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

    def _on_page(self, page: Page) -> None:
        self.spawn(self._adopt(page), "adopt-page")

    async def _adopt(self, page: Page, *, warm: bool = False) -> TabRuntime:
        # The context's "page" event and new_tab both adopt a new page; one registration wins.
        task = self._adoptions.get(page)
        if task is None:
            task = self._adoptions[page] = asyncio.get_running_loop().create_task(self._register(page, warm=warm))
        return await asyncio.shield(task)

    async def _register(self, page: Page, *, warm: bool = False) -> TabRuntime:
        number = next(self._numbers)
        runtime = TabRuntime(self, page, number, PageWatch(page, f"tab-{number}", self.spawn))
        runtime.agent_session = self.owner
        if warm:
            # Before the tab is a runtime anyone can route a call to, and before its page
            # events are watched: the warm-up's throwaway document is nobody's business.
            await runtime.warm_process()
        self._tabs[runtime.runtime_id] = runtime
        self._frame_numbers[runtime.runtime_id] = itertools.count(1)
        page.on("close", lambda _page: self.spawn(self._on_close(runtime), f"{runtime.runtime_id}:closed"))
        page.on("framenavigated", lambda frame: self.spawn(self._on_frame_navigated(runtime, frame), f"{runtime.runtime_id}:navigated"))
        page.on("framedetached", lambda frame: self.spawn(self._drop_frame(frame, "frame detached"), f"{runtime.runtime_id}:frame-detached"))
        page.on("load", lambda _page: self.spawn(runtime.on_load(), f"{runtime.runtime_id}:load"))
        watch_signals(page, runtime.runtime_id, self.owner, self.bridge.events.publish)  # for BAP's events (bap/events.py)
        await self._ensure_engine(runtime, page.main_frame)
        runtime.url, runtime.title = await runtime.configure_document()
        await runtime.start()
        if page.is_closed():
            await self._on_close(runtime)
            return runtime
        self.set_active(runtime.runtime_id)
        log.info("tab %s registered at %s", runtime.runtime_id, runtime.url)
        for frame in page.frames[1:]:  # frames already there (attached browsers, a page opened with content)
            await self._sync_frame(runtime, frame)
        return runtime

    async def _ensure_engine(self, tab: TabRuntime, frame: Frame) -> None:
        # Documents loaded before the init script existed (attached browsers) need the engine now.
        try:
            if not await frame.evaluate('() => { "use strict"; return !!window.__mcpActions; }'):
                await tab.install_engine(None if frame is tab.page.main_frame else frame)
        except PlaywrightError as exc:  # navigating or closing: the init script reaches the next document
            log.debug("could not check the engine in %s: %s", frame.url, exc)

    async def _on_close(self, runtime: TabRuntime) -> None:
        for frame_runtime in self.frames_of(runtime):
            self._frames.pop(frame_runtime.frame, None)
            await frame_runtime.stop("tab closed")
        self._tabs.pop(runtime.runtime_id, None)
        self._adoptions.pop(runtime.page, None)
        await runtime.stop("tab closed")
        if self.active_tab() is None and self._tabs:
            self.set_active(next(reversed(self._tabs)))  # the newest remaining tab, never one of its frames

    # -- frames ------------------------------------------------------------------

    async def _on_frame_navigated(self, tab: TabRuntime, frame: Frame) -> None:
        if frame is tab.page.main_frame:
            await tab.on_navigated()
            # A new origin on top can turn surviving frames into cross-origin ones.
            for child in list(self._frames.values()):
                if child.tab is tab:
                    await self._sync_frame(tab, child.frame)
            return
        await self._sync_frame(tab, frame)

    async def _sync_frame(self, tab: TabRuntime, frame: Frame) -> None:
        """Register, re-announce or drop the runtime of ``frame`` as its document now is."""
        async with self._frame_lock:  # navigation events of one frame can overlap
            eligible = not frame.is_detached() and not tab.page.is_closed() and tab.runtime_id in self._tabs and same_origin(frame.url, tab.page.main_frame.url)
            runtime = self._frames.get(frame)
            if runtime is not None and not eligible:
                self._frames.pop(frame, None)
                await runtime.stop("frame left the tab's origin")
            elif runtime is not None:
                await runtime.on_navigated()
            elif eligible:
                runtime = FrameRuntime(tab, frame, next(self._frame_numbers[tab.runtime_id]))
                runtime.agent_session = self.owner
                self._frames[frame] = runtime
                await self._ensure_engine(tab, frame)
                runtime.url, runtime.title = await runtime.configure_document()
                await runtime.start()
                log.info("frame %s registered at %s", runtime.runtime_id, runtime.url)

    async def _drop_frame(self, frame: Frame, reason: str) -> None:
        runtime = self._frames.pop(frame, None)
        if runtime is not None:
            await runtime.stop(reason)
