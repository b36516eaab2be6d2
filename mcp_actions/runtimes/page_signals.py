"""What a Playwright tab shows besides its document, published as ``PageSignal`` events on the bridge's hub.

A tab's navigations and loads, its console messages (and a script's uncaught errors, as console
errors) and the JavaScript dialogs it opens are facts of the browser, seen by Playwright's page
events, not by the page engine. They are published here, one ``PageSignal`` each, for whoever
listens: BAP's ``events/subscribe`` (``bap/events.py``) relays them to the tab's own session's
client. Nothing here acts on the page: ``PageWatch`` answers dialogs, this only says one opened.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from playwright.async_api import ConsoleMessage, Dialog, Error, Frame, Page

from ..events import PageSignal

__all__ = ["CONSOLE_LEVELS", "watch_signals"]

log = logging.getLogger(__name__)

#: Playwright's console message types as the levels a client is told (anything else is ``log``).
CONSOLE_LEVELS: dict[str, str] = {"log": "log", "debug": "debug", "info": "info", "error": "error", "warning": "warn", "trace": "debug"}
#: The longest console text passed on (a page may log megabytes).
TEXT_CAP = 4000


def _ms() -> int:
    return int(time.time() * 1000)


def watch_signals(page: Page, runtime_id: str, session: str | None, publish: Callable[[PageSignal], None]) -> None:
    """Publish the tab's navigations, loads, console messages and dialogs as ``PageSignal`` events."""

    def signal(kind: str, detail: dict[str, Any]) -> None:
        publish(PageSignal(runtime_id, session, kind, detail, _ms()))

    def page_event(event: str) -> None:
        try:
            url = page.url
        except Error:  # a page being torn down
            url = ""
        signal("page", {"event": event, "url": url})

    def navigated(frame: Frame) -> None:
        if frame.parent_frame is None:  # the tab's document, not one of its frames
            signal("page", {"event": "navigated", "url": frame.url})

    def console(message: ConsoleMessage) -> None:
        location = message.location or {}
        detail: dict[str, Any] = {"level": CONSOLE_LEVELS.get(message.type, "log"), "text": message.text[:TEXT_CAP]}
        if location.get("url"):
            detail["url"] = location["url"]
            detail["line"] = int(location.get("lineNumber") or 0)
            detail["column"] = int(location.get("columnNumber") or 0)
        signal("console", detail)

    def page_error(error: Any) -> None:
        # An uncaught exception is what a person sees as a console error.
        signal("console", {"level": "error", "text": str(error)[:TEXT_CAP], "url": page.url})

    def dialog(opened: Dialog) -> None:
        detail: dict[str, Any] = {"dialog_type": opened.type, "message": opened.message[:TEXT_CAP]}
        if opened.type == "prompt":
            detail["default_value"] = opened.default_value
        signal("dialog", detail)

    page.on("framenavigated", navigated)
    page.on("domcontentloaded", lambda _page: page_event("domcontentloaded"))
    page.on("load", lambda _page: page_event("load"))
    page.on("close", lambda _page: page_event("close"))
    page.on("console", console)
    page.on("pageerror", page_error)
    page.on("dialog", dialog)  # after PageWatch's listener, which answers it: this one only tells
