"""The browser host's privileged primitives: tabs, navigation, dialogs, screenshots, clipboard, session.

These are the ``browser.*`` primitives of the reference dictionary, with its
names and input and output shapes. A page runtime cannot have them; a
Playwright tab asks its host, and the host runs them here over the tabs it
owns (``TabDirectory``). Every tab the host drives counts as claimed, so
``browser.claimed_tabs.list`` is the host's own inventory (labelled
``"inventory": "host-local"``), not the bridge's, with the agent session's
name once ``runtime.session.name`` gave one (``agent_session.py``).
``clipboard.*`` run in the tab's page with a permission granted for the call
(``clipboard.py``).
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Coroutine
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError

from ..defaults import SCREENSHOT_MAX_KILOBYTES
from ..errors import ActionError, ErrorCode
from .agent_session import AgentSession
from .clipboard import BrowserClipboard
from .navigation import history_has, navigate
from .tab import TabRuntime

__all__ = ["BrowserAuthority", "TabDirectory"]

log = logging.getLogger(__name__)

#: Screenshot defaults: small enough for a model's context, large enough to read.
SCREENSHOT_MAX_SIDE = 1600
#: A tab closing itself waits this long so its own call can answer first.
SELF_CLOSE_DELAY_S = 0.05


class TabDirectory(Protocol):
    """What the privileged primitives need of the host: its tabs and frames, opening, activating."""

    @property
    def tabs(self) -> list[TabRuntime]: ...

    def tab_by_number(self, number: int) -> TabRuntime | None: ...

    def frames_of(self, tab: TabRuntime) -> list[Any]: ...

    async def new_tab(self, url: str | None = None, *, active: bool = True) -> str: ...

    def set_active(self, runtime_id: str) -> None: ...

    def active_tab(self) -> TabRuntime | None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]: ...


def _tab_entry(tab: TabRuntime, active: TabRuntime | None, frames: list[Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "tab_id": tab.number,
        "url": tab.page.url,
        "active": tab is active,
        "claimed_at": tab.claimed_at,
        "runtime_id": tab.runtime_id,
        "runtime_key": tab.runtime_key,
        "connected": tab.connected,
        "crashed": tab.watch.crashed,
        "frames": [{"runtime_id": f.runtime_id, "runtime_key": f.runtime_key, "url": f.frame.url} for f in frames],
    }
    if tab.title is not None:
        entry["title"] = tab.title
    if tab.watch.dialog_info is not None:
        entry["dialog"] = dict(tab.watch.dialog_info)
    return entry


#: How long a listing waits for a tab's current title (a page busy in a long script keeps the last one read).
TITLE_REFRESH_S = 0.5


async def _refresh_title(tab: TabRuntime) -> None:
    """Read the tab's title now: a page may set it after its load, when it was last reported."""
    try:
        async with asyncio.timeout(TITLE_REFRESH_S):
            url, title = await tab.page_state()
    except TimeoutError:
        return
    if title is not None and (title != tab.title or url != tab.url):
        await tab.report(url=url, title=title)


class BrowserAuthority:
    """Runs ``browser.*`` primitives for the tabs of one host."""

    def __init__(self, directory: TabDirectory) -> None:
        self.directory = directory
        #: The agent's session on this host: its name, shown to the user, and the release of its tabs.
        self.session = AgentSession()
        self.clipboard = BrowserClipboard()
        self._handlers = {
            "browser.navigate": self.navigate,
            "browser.screenshot": self.screenshot,
            "browser.open_tab": self.open_tab,
            "browser.close_tab": self.close_tab,
            "browser.claimed_tabs.list": self.list_tabs,
            "browser.claimed_tabs.activate": self.activate,
            "browser.dismiss_dialog": self.dismiss_dialog,
            "clipboard.read": self.clipboard_read,
            "clipboard.write": self.clipboard_write,
            "runtime.session.name": self.session.set_name,
            "runtime.session.finalize_tabs": self.finalize_tabs,
        }

    @property
    def names(self) -> tuple[str, ...]:
        """The primitives this authority runs."""
        return tuple(self._handlers)

    async def run(self, name: str, caller: TabRuntime, arguments: dict[str, Any]) -> Any:
        """Run ``name`` asked of the tab ``caller`` (``tab_id``, where the primitive takes one, names another)."""
        handler = self._handlers.get(name)
        if handler is None:
            raise caller.unavailable(name)
        return await handler(caller, arguments)

    def _target(self, caller: TabRuntime, arguments: dict[str, Any], name: str) -> TabRuntime:
        tab_id = arguments.get("tab_id")
        if tab_id is None or tab_id == caller.number:
            return caller
        other = self.directory.tab_by_number(tab_id) if isinstance(tab_id, int) and not isinstance(tab_id, bool) else None
        if other is None:
            raise ActionError(
                f"no tab has id {tab_id!r}",
                code=ErrorCode.TARGET_NOT_FOUND,
                evidence={"tab_id": tab_id, "name": name, "tab_ids": [t.number for t in self.directory.tabs]},
            )
        other.watch.check(name)  # the other tab's dialog or crash blocks it the same way
        return other

    # -- navigation ------------------------------------------------------------

    async def navigate(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.navigate``: go to ``url`` (relative to the page, as a link would), ``reload``, or ``history`` back or forward."""
        tab = self._target(caller, arguments, "browser.navigate")
        page = tab.page
        history = arguments.get("history")
        # navigate(): a navigation that fails or is given up is over before the call answers (navigation.py).
        if arguments.get("reload"):
            response = await navigate(page, reload=True, confirm=tab.page_state)
        elif history is not None:
            if history not in ("back", "forward"):
                raise ActionError("history must be back or forward", code=ErrorCode.INVALID_INPUT, evidence={"path": "/history", "field": "history"})
            if await history_has(page, history) is False:
                raise ActionError(f"the tab has no page {history} in its history", code=ErrorCode.TARGET_NOT_FOUND, evidence={"path": "/history", "history": history, "url": page.url})
            response = await navigate(page, history=history, confirm=tab.page_state)
        else:
            url = arguments.get("url")
            if not isinstance(url, str) or not url.strip():
                raise ActionError("browser.navigate needs a url (or reload: true)", code=ErrorCode.INVALID_INPUT, evidence={"path": "/url", "field": "url"})
            if not urlsplit(url).scheme:
                if urlsplit(page.url).scheme not in ("http", "https", "file"):
                    raise ActionError(f"{url!r} is not an absolute URL", code=ErrorCode.INVALID_INPUT, evidence={"path": "/url", "url": url})
                url = urljoin(page.url, url)
            response = await navigate(page, url, confirm=tab.page_state)
        url, title = await tab.page_state()
        await tab.report(url=url, title=title)
        self.directory.set_active(tab.runtime_id)
        out: dict[str, Any] = {"ok": True, "navigated": True, "tab": {"tab_id": tab.number, "runtime_id": tab.runtime_id, "url": url, "title": title}}
        if response is not None:
            out["status"] = response.status
        return out

    # -- tabs ------------------------------------------------------------------

    async def open_tab(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.open_tab``: a new tab (at ``url`` once loaded), registered as a runtime before this answers."""
        url = arguments.get("url")
        if url is not None and not isinstance(url, str):
            raise ActionError("url must be a string", code=ErrorCode.INVALID_INPUT, evidence={"path": "/url"})
        runtime_id = await self.directory.new_tab(url or None, active=arguments.get("active", True) is not False)
        tab = next((t for t in self.directory.tabs if t.runtime_id == runtime_id), None)
        out: dict[str, Any] = {"ok": True, "runtime_id": runtime_id, "url": tab.page.url if tab else (url or "about:blank")}
        if tab is not None:
            out["tab_id"] = tab.number
        return out

    async def close_tab(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.close_tab``: close a tab (the caller by default); the last one is never closed."""
        tab = self._target(caller, arguments, "browser.close_tab")
        others = [t for t in self.directory.tabs if t is not tab]
        if not others:
            raise ActionError(
                "refusing to close the last tab; open another first",
                code=ErrorCode.PERMISSION_DENIED,
                evidence={"tab_id": tab.number, "reason": "last_tab"},
            )
        active = self.directory.active_tab()
        next_active = active if active is not None and active is not tab else others[-1]
        if tab is caller:
            # Closing first would end this very call with transport_failed: answer, then close.
            self.directory.spawn(self._close_later(tab), f"{tab.runtime_id}:close")
        else:
            await tab.page.close()
        self.directory.set_active(next_active.runtime_id)
        return {"ok": True, "closed_tab_id": tab.number, "closed_runtime_id": tab.runtime_id, "active_tab_id": next_active.number}

    async def _close_later(self, tab: TabRuntime) -> None:
        await asyncio.sleep(SELF_CLOSE_DELAY_S)
        if not tab.page.is_closed():
            await tab.page.close()

    async def list_tabs(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.claimed_tabs.list``: every tab of this host, the active one marked, with its frames."""
        active = self.directory.active_tab()
        await asyncio.gather(*(_refresh_title(t) for t in self.directory.tabs))
        tabs = [_tab_entry(t, active, self.directory.frames_of(t)) for t in self.directory.tabs]
        out: dict[str, Any] = {"tabs": tabs, "inventory": "host-local", "host": caller.host_kind}
        session = self.session.describe()
        if session is not None:
            out["session"] = session
        return out

    async def activate(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.claimed_tabs.activate``: bring a tab to the front, make it the active runtime (reconnecting it if needed)."""
        if "tab_id" not in arguments:
            raise ActionError("browser.claimed_tabs.activate needs tab_id", code=ErrorCode.INVALID_INPUT, evidence={"path": "/tab_id"})
        tab = self._target(caller, arguments, "browser.claimed_tabs.activate")
        await tab.page.bring_to_front()
        if not tab.connected and not tab.watch.crashed:
            await tab.start()
        self.directory.set_active(tab.runtime_id)
        return {"ok": True, "tab_id": tab.number, "url": tab.page.url, "runtime_id": tab.runtime_id}

    # -- clipboard and session ------------------------------------------------------

    async def clipboard_read(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``clipboard.read`` in the caller's page (see ``clipboard.py``)."""
        return await self.clipboard.read(caller)

    async def clipboard_write(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``clipboard.write`` in the caller's page (see ``clipboard.py``)."""
        return await self.clipboard.write(caller, arguments.get("text"))

    async def finalize_tabs(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``runtime.session.finalize_tabs``: close the tabs the host opened, but the active one and the caller."""
        return await self.session.finalize(self.directory, caller)

    # -- dialogs -----------------------------------------------------------------

    async def dismiss_dialog(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.dismiss_dialog``: answer the dialog blocking a tab (``dismissed: false`` when none is open)."""
        tab = self._target(caller, arguments, "browser.dismiss_dialog")
        accept = arguments.get("accept", True) is not False
        prompt_text = arguments.get("prompt_text")
        if prompt_text is not None and not isinstance(prompt_text, str):
            raise ActionError("prompt_text must be a string", code=ErrorCode.INVALID_INPUT, evidence={"path": "/prompt_text"})
        before = tab.page.url
        info = await tab.watch.dismiss(accept=accept, prompt_text=prompt_text)
        out: dict[str, Any] = {"ok": True, "dismissed": info is not None, "tab_id": tab.number, "accept": accept}
        if info is not None:
            out["dialog"] = info
        if info is not None and tab.page.url != before:
            # An accepted leave-site question let the navigation that asked it go on: say where the tab is now.
            out["navigated"] = {"url": tab.page.url}
        return out

    # -- screenshots ---------------------------------------------------------------

    async def screenshot(self, caller: TabRuntime, arguments: dict[str, Any]) -> dict[str, Any]:
        """``browser.screenshot`` of the tab's viewport, scaled and recompressed until it fits the caps."""
        fmt = arguments.get("format", "png")
        if fmt not in ("png", "jpeg"):
            raise ActionError("format must be png or jpeg", code=ErrorCode.INVALID_INPUT, evidence={"path": "/format"})
        quality = _positive(arguments, "quality", 80)
        max_width = _positive(arguments, "max_width", SCREENSHOT_MAX_SIDE)
        max_height = _positive(arguments, "max_height", SCREENSHOT_MAX_SIDE)
        max_bytes = _positive(arguments, "max_kilobytes", SCREENSHOT_MAX_KILOBYTES) * 1024
        page = caller.page
        cdp = await page.context.new_cdp_session(page)
        data = ""
        try:
            size = await _pictured(page, cdp)
            # CDP's clip.scale resizes while capturing, so no image library is needed.
            scale = min(1.0, max_width / (size["w"] * size["dpr"]), max_height / (size["h"] * size["dpr"]))
            for _attempt in range(8):
                params: dict[str, Any] = {
                    "format": fmt,
                    "clip": {"x": size["x"], "y": size["y"], "width": size["w"], "height": size["h"], "scale": scale},
                    "captureBeyondViewport": False,
                }
                if fmt == "jpeg":
                    params["quality"] = quality
                data = (await cdp.send("Page.captureScreenshot", params))["data"]
                if len(data) * 3 // 4 <= max_bytes:
                    return {
                        "image": data,
                        "mime_type": f"image/{fmt}",
                        "width": max(1, round(size["w"] * size["dpr"] * scale)),
                        "height": max(1, round(size["h"] * size["dpr"] * scale)),
                        "viewport": {"x": size["x"], "y": size["y"], "width": size["w"], "height": size["h"]},
                    }
                # Too large: JPEG first, then lower quality, then smaller.
                if fmt == "png":
                    fmt = "jpeg"
                elif quality > 40:
                    quality -= 20
                else:
                    scale *= 0.7
        finally:
            try:
                await cdp.detach()
            except PlaywrightError as exc:  # the page went away meanwhile; nothing is left to release
                log.debug("screenshot session of %s already gone: %s", caller.runtime_id, exc)
        raise ActionError(
            f"could not fit a screenshot into {max_bytes // 1024} KB",
            code=ErrorCode.CAPTURE_FAILED,
            evidence={"max_kilobytes": max_bytes // 1024, "bytes": len(base64.b64decode(data)) if data else 0},
        )


async def _pictured(page: Any, cdp: Any) -> dict[str, Any]:
    """The part of the document a screenshot shows, in CSS pixels (``x``, ``y``, ``w``, ``h``), and ``dpr``.

    Where it starts and its size come from the browser (CDP's layout metrics; the viewport Playwright
    emulates), not from the page's ``scrollY`` or ``innerWidth``, which a page script can redefine: a
    picture of another part of the page would put every badge of ``browser_screenshot {marks: true}``
    on another element. Only the pixel ratio is asked of the page (a false one changes the picture's
    size, and the badges are drawn by the picture's real size, marks_picture.py).
    """
    metrics = (await cdp.send("Page.getLayoutMetrics"))["cssLayoutViewport"]
    # The emulated viewport is innerWidth × innerHeight; a window's own (headed) is the layout viewport.
    emulated = page.viewport_size
    width = emulated["width"] if emulated else metrics["clientWidth"]
    height = emulated["height"] if emulated else metrics["clientHeight"]
    dpr = await page.evaluate('() => { "use strict"; return devicePixelRatio || 1; }')  # strict, as all the host runs in a page
    ratio = float(dpr) if isinstance(dpr, (int, float)) and 0.25 <= dpr <= 8 else 1.0
    return {"x": metrics["pageX"], "y": metrics["pageY"], "w": width, "h": height, "dpr": ratio}


def _positive(arguments: dict[str, Any], key: str, default: int) -> int:
    value = arguments.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ActionError(f"{key} must be a positive integer", code=ErrorCode.INVALID_INPUT, evidence={"path": f"/{key}"})
    return value
