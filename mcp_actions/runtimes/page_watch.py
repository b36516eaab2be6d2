"""Dialogs and crashes of one Playwright page, so no call on it ever wedges.

A JavaScript dialog blocks everything in its page: ``evaluate``, mouse input
and even screenshots wait until it is answered, and a call that is waiting
cannot answer it. ``PageWatch`` listens for dialogs and crashes and guards
every call on the page (its tab's and its frames'):

- ``alert`` offers no choice, so it is accepted at once (its message is kept
  in ``recent_dialogs``) and the call that raised it finishes normally.
- ``confirm``, ``prompt`` and ``beforeunload`` are a decision for the agent:
  the dialog is held open, calls in flight fail at once with ``dialog_open``
  (evidence: its type and message), later calls fail the same way, and
  ``browser.dismiss_dialog`` answers it.
- A crash fails calls in flight and every later call with
  ``transport_failed`` at once (Playwright cannot use a crashed page again;
  ``browser.close_tab`` still closes it).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

from playwright.async_api import Dialog, Page
from playwright.async_api import Error as PlaywrightError

from ..errors import ActionError, ErrorCode
from ..page_chars import shown

__all__ = ["CRASH_SAFE", "DIALOG_SAFE", "PageWatch"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Primitives that still work while a dialog is open (they do not touch the blocked document).
DIALOG_SAFE = frozenset({"browser.dismiss_dialog", "browser.claimed_tabs.list", "browser.claimed_tabs.activate", "browser.open_tab", "browser.close_tab"})
#: Primitives that still work on a crashed tab.
CRASH_SAFE = frozenset({"browser.dismiss_dialog", "browser.claimed_tabs.list", "browser.open_tab", "browser.close_tab"})
#: How long browser_dismiss_dialog waits for the navigation its accepted leave-site question lets go on.
LEAVE_WAIT_S = 30.0
#: How many auto-accepted alerts a page remembers.
RECENT_DIALOGS = 10


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class PageWatch:
    """Dialog and crash state of one page, and the guard every call on it runs under."""

    def __init__(self, page: Page, label: str, spawn: Callable[[Coroutine[Any, Any, Any], str], Any]) -> None:
        self.page = page
        self.label = label  # the tab's runtime id, for evidence and logs
        self.crashed = False
        self.dialog: Dialog | None = None
        self.dialog_info: dict[str, Any] | None = None
        self.recent_dialogs: deque[dict[str, Any]] = deque(maxlen=RECENT_DIALOGS)
        self._spawn = spawn
        self._interrupts: set[asyncio.Future[None]] = set()
        #: A navigation the page's leave-site question (beforeunload) holds: it waits for the answer.
        self._leaving: asyncio.Future[Any] | None = None
        page.on("dialog", self._on_dialog)
        page.on("crash", self._on_crash)

    # -- events --------------------------------------------------------------

    def _on_dialog(self, dialog: Dialog) -> None:
        # The page's words, as a person sees them in the dialog (page_chars.shown): every answer that says it takes this.
        info = {"type": dialog.type, "message": shown(dialog.message), "opened_at": _now()}
        if dialog.type == "prompt":
            info["default_value"] = shown(dialog.default_value)
        if dialog.type == "alert":
            self.recent_dialogs.append({**info, "handled": "accepted automatically"})
            log.info("tab %s: alert %r accepted automatically", self.label, dialog.message)
            self._spawn(self._accept_alert(dialog), f"{self.label}:alert")
            return
        log.info("tab %s: %s dialog %r is waiting for browser.dismiss_dialog", self.label, dialog.type, dialog.message)
        self.dialog, self.dialog_info = dialog, info
        self._interrupt(self.dialog_error(), keep=DIALOG_SAFE)

    async def _accept_alert(self, dialog: Dialog) -> None:
        try:
            await dialog.accept()
        except PlaywrightError as exc:  # answered elsewhere (a person, in a headed browser), or the page is gone
            log.info("tab %s: alert was already handled: %s", self.label, exc)

    def _on_crash(self, _page: Page) -> None:
        log.warning("tab %s crashed; its calls fail with transport_failed", self.label)
        self.crashed = True
        self.dialog = self.dialog_info = None
        self._interrupt(self.crash_error(), keep=CRASH_SAFE)

    def _interrupt(self, error: ActionError, *, keep: frozenset[str]) -> None:
        for future in list(self._interrupts):
            if not future.done() and getattr(future, "call_name", None) not in keep:
                future.set_exception(error)

    # -- errors --------------------------------------------------------------

    def dialog_error(self) -> ActionError:
        """``dialog_open``: what is showing, and how to answer it."""
        return ActionError(
            f"a {self.dialog_info['type'] if self.dialog_info else 'JavaScript'} dialog blocks tab {self.label}; "
            "answer it with the tool browser_dismiss_dialog (accept true or false)",
            code=ErrorCode.DIALOG_OPEN,
            evidence={"runtime_id": self.label, "dialog": dict(self.dialog_info or {})},
        )

    def crash_error(self) -> ActionError:
        """``transport_failed``: the tab's renderer crashed."""
        return ActionError(
            f"tab {self.label} crashed; close it (browser.close_tab) and open a new one",
            code=ErrorCode.TRANSPORT_FAILED,
            evidence={"runtime_id": self.label, "crashed": True},
        )

    # -- the guard -----------------------------------------------------------

    def check(self, name: str) -> None:
        """Refuse at once a call that the page's state would block."""
        if self.crashed and name not in CRASH_SAFE:
            raise self.crash_error()
        if self.dialog is not None and name not in DIALOG_SAFE:
            raise self.dialog_error()

    async def guard(self, work: Awaitable[T], name: str) -> T:
        """Run ``work`` (the call ``name``) unless a dialog or a crash stops it first."""
        try:
            self.check(name)
        except ActionError:
            if asyncio.iscoroutine(work):
                work.close()  # never started: do not leave a "never awaited" coroutine behind
            raise
        task: asyncio.Future[T] | None = asyncio.ensure_future(work)
        interrupt: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        interrupt.call_name = name  # type: ignore[attr-defined]  # a tag interrupt_calls reads back with getattr
        self._interrupts.add(interrupt)
        try:
            assert task is not None
            racing: set[asyncio.Future[Any]] = {task, interrupt}
            await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                return task.result()
            error = interrupt.exception()
            assert error is not None  # an interrupt is only ever ended with set_exception
            if name == "browser.navigate" and self.dialog_info is not None and self.dialog_info["type"] == "beforeunload":
                # The page asks whether to leave: the navigation is not given up (that would stop it, and
                # an accepted answer would leave the tab where it was, asking again at the next try). It
                # waits for browser_dismiss_dialog, which lets it go on or ends it.
                self._leaving, task = task, None
                # Retrieved whatever ends it (answered, the tab closed or crashed): a failure is never an unread task's.
                self._leaving.add_done_callback(lambda done: done.cancelled() or done.exception())
            raise error
        finally:
            self._interrupts.discard(interrupt)
            if task is not None and not task.done():
                task.cancel()  # the blocked page call; Playwright drops it when the page moves on
            if not interrupt.done():
                interrupt.cancel()
            elif not interrupt.cancelled():
                interrupt.exception()  # ended together with the work: retrieved, so asyncio does not call it lost

    # -- answering -------------------------------------------------------------

    async def dismiss(self, *, accept: bool, prompt_text: str | None) -> dict[str, Any] | None:
        """Answer the open dialog; return what it was (None when none was open)."""
        dialog, info = self.dialog, self.dialog_info
        if dialog is None or info is None:
            return None
        self.dialog = self.dialog_info = None
        try:
            if accept:
                await (dialog.accept(prompt_text) if prompt_text is not None and dialog.type == "prompt" else dialog.accept())
            else:
                await dialog.dismiss()
        except PlaywrightError as exc:
            # Someone (a person in a headed browser) answered it already: it is gone either way.
            log.info("tab %s: dialog was already answered: %s", self.label, exc)
            return {**info, "already_closed": True}
        self.recent_dialogs.append({**info, "handled": "accepted" if accept else "dismissed"})
        await self._answered_leaving(accept=accept)
        return info

    async def _answered_leaving(self, *, accept: bool) -> None:
        """A navigation held by a leave-site question goes on once accepted (waited for), and ends once refused."""
        leaving, self._leaving = self._leaving, None
        if leaving is None:
            return
        if not accept:
            leaving.cancel()  # given up: the navigation stops and the tab stays where it is
            return
        if leaving.cancelled():
            return
        try:
            # Bounded by the navigation's own wait; shielded so that this call's own end does not stop it.
            await asyncio.wait_for(asyncio.shield(leaving), LEAVE_WAIT_S)
        except (TimeoutError, ActionError, PlaywrightError) as exc:
            log.info("tab %s: the navigation accepted to leave did not finish: %r", self.label, exc)
