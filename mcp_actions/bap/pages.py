"""BAP's browser and page methods: ``browser/*`` and ``page/*``, each a call of a tab built-in (docs/bap.md).

``page/create`` is ``browser_open_tab`` (a new context's blank tab is used for the first page,
``browser_navigate`` taking it to the page's URL; its answer says the page);
``page/navigate``, ``page/reload``, ``page/goBack`` and ``page/goForward`` are ``browser_navigate``
(``url``, ``reload``, ``history: back|forward``); ``page/list``, ``page/close`` and ``page/activate``
are ``browser_list_tabs``, ``browser_close_tab`` and ``browser_activate_tab``; ``dialog/handle`` is
``browser_dismiss_dialog`` on the page's tab. The answers are in
the shapes the released Python client validates: a ``Page`` needs ``id, url, title, viewport,
status``; ``browser/launch`` needs ``browserId, browser, version``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import __version__
from ..errors import ErrorCode
from .core import VIEWPORT, BapCore
from .errors import BapError

__all__ = ["PageMethods"]


class PageMethods(BapCore):
    """``browser/launch``, ``browser/close`` and the ``page/*`` methods of one connection."""

    async def launch(self, params: dict[str, Any]) -> dict[str, Any]:
        """The session's browser context is opened by its first page; ``launch`` names it (the client needs ``browser``)."""
        browser = params.get("browser")
        if browser not in (None, "chromium"):
            raise BapError.unsupported(f"browser {browser!r} (this server drives Chromium)")
        return {"browserId": self.key.id, "browser": "chromium", "version": f"mcp-actions {__version__}"}

    async def browser_close(self, params: dict[str, Any]) -> dict[str, Any]:
        """Close the session's browser context (its tabs and runtimes); the next page opens a fresh one."""
        await self.app.end_session(self.key.id, "the BAP client closed its browser")
        self.active, self.created = None, False
        return {}

    async def _tabs(self) -> list[dict[str, Any]]:
        listed = await self.call("browser_list_tabs", {})
        return [t for t in (listed.get("tabs") if isinstance(listed, dict) else None) or [] if isinstance(t, dict)]

    @staticmethod
    def _page(tab: dict[str, Any]) -> dict[str, Any]:
        return {"id": tab.get("runtime_id"), "url": tab.get("url") or "", "title": tab.get("title") or "", "viewport": dict(VIEWPORT), "status": "ready"}

    async def _tab(self, page: str) -> dict[str, Any]:
        for tab in await self._tabs():
            if tab.get("runtime_id") == page:
                return tab
        raise BapError("PageNotFound", f"no page {page!r} in this session", details={"code": ErrorCode.RUNTIME_NOT_FOUND, "pageId": page})

    async def page_create(self, params: dict[str, Any]) -> dict[str, Any]:
        url = params.get("url") or "about:blank"
        tabs = await self._tabs() if not self.created else []
        blank = [t for t in tabs if t.get("url") in ("about:blank", "")]
        landed: dict[str, Any] | None = None  # the page's tab as the call that opened it says it, when it does
        if not self.created and len(tabs) == 1 and blank:
            # The blank tab a new context opens with is this page: a client that creates one page sees one.
            page = str(blank[0]["runtime_id"])
            landed = blank[0]
            if url != "about:blank":
                out = await self.call("browser_navigate", {"url": url}, page)
                tab = out.get("tab") if isinstance(out, dict) else None
                # browser_navigate says where the tab landed and its title: no browser_list_tabs after it (issue 55).
                landed = {**tab, "runtime_id": page} if isinstance(tab, dict) and isinstance(tab.get("url"), str) and isinstance(tab.get("title"), str) else None
        else:
            opened = await self.call("browser_open_tab", {"url": url})
            page = str(opened["runtime_id"])
        self.created = True
        self.active = page
        return self._page(landed if landed is not None else await self._tab(page))

    @staticmethod
    def _landed(out: Any, url: str) -> dict[str, Any]:
        """``{url, status?}`` of a ``browser_navigate`` answer (its tab's URL, else ``url``)."""
        tab = out.get("tab") if isinstance(out, dict) else None
        landed = (tab.get("url") if isinstance(tab, dict) else None) or (out.get("url") if isinstance(out, dict) else None)
        result: dict[str, Any] = {"url": str(landed or url)}
        status = out.get("status") if isinstance(out, dict) else None
        if isinstance(status, int):
            result["status"] = status
        return result

    async def page_navigate(self, params: dict[str, Any]) -> dict[str, Any]:
        url = params.get("url")
        if not isinstance(url, str) or not url:
            raise BapError("InvalidParams", "page/navigate needs a url", details={"code": ErrorCode.INVALID_INPUT})
        return self._landed(await self.call("browser_navigate", {"url": url}, self.page_of(params)), url)

    async def page_reload(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.call("browser_navigate", {"reload": True}, self.page_of(params))
        return {}

    def _history(self, direction: str) -> Any:
        async def run(params: dict[str, Any]) -> dict[str, Any]:
            """``page/goBack``/``page/goForward``: ``browser_navigate {history}``; no page that way is ``NavigationFailed``."""
            try:
                out = await self.call("browser_navigate", {"history": direction}, self.page_of(params))
            except BapError as exc:
                details = exc.data.get("details") or {}
                if details.get("code") != ErrorCode.TARGET_NOT_FOUND:
                    raise
                evidence = details.get("evidence") or {}
                raise BapError("NavigationFailed", exc.message, details={**details, "url": evidence.get("url")}) from exc
            return self._landed(out, "")

        return run

    async def page_list(self, params: dict[str, Any]) -> dict[str, Any]:
        tabs = await self._tabs()
        active = self.active or next((t.get("runtime_id") for t in tabs if t.get("active")), None)
        return {"pages": [self._page(t) for t in tabs], "activePage": active}

    async def page_close(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        if page is None:
            raise BapError("PageNotFound", "page/close needs a pageId", details={"code": ErrorCode.RUNTIME_NOT_FOUND})
        tab = await self._tab(page)
        await self.call("browser_close_tab", {"tab_id": tab["tab_id"]})
        for _ in range(40):  # the tab leaves the list when its runtime is gone, a moment after the close
            if all(t.get("runtime_id") != page for t in await self._tabs()):
                break
            await asyncio.sleep(0.05)
        if self.active == page:
            self.active = None
        self.memory.forget(page)
        return {}

    async def page_activate(self, params: dict[str, Any]) -> dict[str, Any]:
        page = self.page_of(params)
        if page is None:
            raise BapError("PageNotFound", "page/activate needs a pageId", details={"code": ErrorCode.RUNTIME_NOT_FOUND})
        tab = await self._tab(page)
        await self.call("browser_activate_tab", {"tab_id": tab["tab_id"]})
        self.active = page
        return {}

    async def dialog_handle(self, params: dict[str, Any]) -> dict[str, Any]:
        """``dialog/handle {action: accept|dismiss, promptText?}``: ``browser_dismiss_dialog`` on the page's tab.

        No dialog open there is ``ActionFailed`` (retryable: one may open): the released client's
        ``handle_dialog`` returns nothing, so an answer that handled nothing would pass unseen.
        """
        action = params.get("action")
        if action not in ("accept", "dismiss"):
            raise BapError("InvalidParams", "dialog/handle needs action accept or dismiss", details={"code": ErrorCode.INVALID_INPUT})
        arguments: dict[str, Any] = {"accept": action == "accept"}
        if isinstance(params.get("promptText"), str):
            arguments["prompt_text"] = params["promptText"]
        out = await self.call("browser_dismiss_dialog", arguments, self.page_of(params))
        if not (isinstance(out, dict) and out.get("dismissed")):
            raise BapError("ActionFailed", "no dialog is open on the page", retryable=True, details={"code": ErrorCode.TARGET_NOT_FOUND})
        return {"handled": True, "dialog": out.get("dialog") or {}}
