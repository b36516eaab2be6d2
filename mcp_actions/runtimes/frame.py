"""A same-origin frame inside a tab, as its own bridge runtime.

A page that embeds its own documents in iframes (a checkout step, an editor, a
widget) has tools that live in those documents. Each such frame (same origin
as its tab's top document; third-party frames never become runtimes) is one
runtime: ``tab-<n>.frame-<m>`` with ``runtime_key``
``playwright:tab-<n>/frame:<name>`` when the iframe has a name or id (stable
across reloads of the page) and ``playwright:tab-<n>/frame-<m>`` otherwise.

Handlers and DOM primitives run in the frame's document through the page
engine. Pointer primitives stay trusted: the frame's coordinates are moved to
the top viewport and clicked there by the tab. ``keyboard.press`` goes to the
focused element, wherever it is, through the tab. ``browser.*`` primitives
act on tabs, so a frame answers ``capability_unavailable`` for them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from ..errors import ActionError, ErrorCode
from .document import DocumentRuntime
from .page_script import ENGINE_EXTENSIONS, ENGINE_PRIMITIVES
from .tab import TabRuntime

__all__ = ["FRAME_CAPABILITIES", "FrameRuntime", "frame_key", "same_origin"]

#: A frame runs the engine's primitives; pointer input is trusted (clicked by its tab).
FRAME_CAPABILITIES: tuple[str, ...] = ENGINE_PRIMITIVES + ("input.trusted",) + ENGINE_EXTENSIONS
#: Coordinate primitives the tab performs as real input once moved into the top viewport.
_POINTER = frozenset({"pointer.click", "pointer.double_click", "pointer.move"})

# Where the frame's content box starts inside its iframe element (border + padding).
_CONTENT_OFFSET = "(el) => { \"use strict\"; const s = getComputedStyle(el); return [el.clientLeft + parseFloat(s.paddingLeft || '0'), el.clientTop + parseFloat(s.paddingTop || '0')]; }"
_VIEWPORT = "() => { \"use strict\"; return [innerWidth, innerHeight]; }"


def same_origin(url: str, top: str) -> bool:
    """Is a frame at ``url`` same-origin with a top document at ``top``? (``file:`` frames count when the top is ``file:``.)"""
    a, b = urlsplit(url or ""), urlsplit(top or "")
    if a.scheme not in ("http", "https", "file") or a.scheme != b.scheme:
        return False
    return a.scheme == "file" or a.netloc.lower() == b.netloc.lower()


def frame_key(tab: TabRuntime, frame: Frame, number: int) -> str:
    """The frame's ``runtime_key``: by the iframe's name/id when it has one, else by its number in the tab."""
    name = frame.name
    return f"{tab.runtime_key}/frame:{name}" if name else f"{tab.runtime_key}/frame-{number}"


class FrameRuntime(DocumentRuntime):
    """A same-origin frame of a tab."""

    host_kind = "playwright-frame"
    #: Routing by a map's surface prefers the tab over its frames (bridge/routing.py).
    is_frame = True

    def __init__(self, tab: TabRuntime, frame: Frame, number: int) -> None:
        super().__init__(
            tab.host,
            tab.page,
            frame,
            tab.watch,
            runtime_id=f"{tab.runtime_id}.frame-{number}",
            runtime_key=frame_key(tab, frame, number),
            capabilities=FRAME_CAPABILITIES,
        )
        self.tab = tab
        self.number = number
        #: The frame's current document as a remote object of the tab's CDP session (evaluate_unwatched).
        self._document: str | None = None

    async def evaluate_unwatched(self, function_source: str, argument: Any) -> Any:
        """In the frame's document over the tab's CDP session (``Runtime.callFunctionOn``), never through
        Playwright's utility script, which the frame's page can watch (it is made after the page's scripts):
        the outbox's keys travel here (outbox.py)."""
        if self._document is None:
            self._document = await self.tab.main_world.frame_document(self.frame)
            if self._document is None:
                raise PlaywrightError(f"the document of frame {self.runtime_id} was not found in the tab's frame tree")
        return await self.tab.main_world.call_on(self._document, function_source, argument)

    async def on_navigated(self) -> None:
        """The frame's document changed: it is found anew before it is configured."""
        self._document = None
        await super().on_navigated()

    async def perform(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Handlers and DOM primitives in the frame; pointer and keys as trusted input through the tab."""
        try:
            if handler is not None:
                return await self.run_engine("callHandler", handler, arguments)
            if name in _POINTER and "x" in arguments and "y" in arguments:
                return await self.tab.execute(name, await self._to_top(arguments), None)
            if name == "keyboard.press":
                return await self.tab.execute(name, arguments, None)
            if name in ENGINE_PRIMITIVES:
                return await self.run_engine("run", name, arguments)
        except PlaywrightError as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            code = ErrorCode.TRANSPORT_FAILED if "detached" in message.lower() or "closed" in message.lower() else ErrorCode.HANDLER_FAILED
            raise ActionError(f"{handler or name} failed in frame {self.runtime_id}: {message}", code=code, evidence={"name": handler or name, "runtime_id": self.runtime_id}) from exc
        raise self.unavailable(name)

    async def install_engine(self) -> None:
        """Put the engine into the frame's current document."""
        await self.tab.install_engine(self.frame)

    async def _to_top(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Frame viewport coordinates → top viewport coordinates (refusing points outside the frame)."""
        x, y = arguments["x"], arguments["y"]
        if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            raise ActionError("x and y must be numbers", code=ErrorCode.INVALID_INPUT, evidence={"path": "/x"})
        width, height = await self.frame.evaluate(_VIEWPORT)
        if not (0 <= x < width and 0 <= y < height):
            raise ActionError(
                f"({x:g}, {y:g}) is outside the frame's {width}x{height} viewport",
                code=ErrorCode.POINT_OUT_OF_VIEWPORT,
                evidence={"x": x, "y": y, "viewport": {"width": width, "height": height}, "runtime_id": self.runtime_id},
            )
        element = await self.frame.frame_element()
        try:
            box = await element.bounding_box()  # in the top viewport, nested frames included
            dx, dy = await element.evaluate(_CONTENT_OFFSET)
        finally:
            await element.dispose()
        if box is None:
            raise ActionError(f"frame {self.runtime_id} is not rendered", code=ErrorCode.TARGET_NOT_VISIBLE, evidence={"runtime_id": self.runtime_id})
        return {**arguments, "x": box["x"] + dx + x, "y": box["y"] + dy + y}
