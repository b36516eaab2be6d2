"""One Playwright tab as one bridge runtime: trusted input, page handlers, browser authority.

DOM primitives and page handlers run in the page through the JavaScript
engine (``window.__mcpActions``, installed by the browser host's init script),
evaluated over the tab's own CDP session (``main_world.py``).
Input is trusted where Playwright can make it so: clicks go through
``page.mouse``, text through ``page.keyboard.insert_text`` after the engine has
focused the target, keys through ``page.keyboard.press``. ``browser.*``
primitives are asked of the host (``TabHost.run_privileged``). Playwright
errors are translated into ``ActionError`` with stable codes at this boundary.
Lifecycle (events, re-announcing, dialogs and crashes) is ``DocumentRuntime``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..errors import ActionError, ErrorCode
from .consequences import Consequences
from .document import DocumentRuntime
from .main_world import MainWorld
from .navigation import settled
from .page_script import ENGINE_EXTENSIONS, ENGINE_PRIMITIVES, engine_js
from .page_watch import PageWatch
from .tab_host import TabHost

__all__ = ["PRIVILEGED_PRIMITIVES", "TAB_CAPABILITIES", "TAB_CAPABILITY_CLASSES", "TAB_EXTENSIONS", "TabRuntime", "normalize_chord"]

#: What a Playwright tab adds to the page engine: browser-level authority.
PRIVILEGED_PRIMITIVES: tuple[str, ...] = (
    "browser.navigate",
    "browser.screenshot",
    "browser.open_tab",
    "browser.close_tab",
    "browser.claimed_tabs.list",
    "browser.claimed_tabs.activate",
    "browser.dismiss_dialog",
    "clipboard.read",
    "clipboard.write",
    "runtime.session.name",
    "runtime.session.finalize_tabs",
)
#: Capability classes of the dictionary a tab provides; ``input.trusted`` says clicks and keys are real input events.
TAB_CAPABILITY_CLASSES: tuple[str, ...] = ("browser.tabs", "browser.claimed_tabs", "runtime.session", "input.trusted")
#: The tab's own additions to reference primitives (the dictionary's ``argument_capabilities``): ``browser.navigate {history}``.
TAB_EXTENSIONS: tuple[str, ...] = ("browser.navigate.history",)
#: Announced in runtime_ready: every primitive a tab runs, then its capability classes and the engine's and its own extensions.
TAB_CAPABILITIES: tuple[str, ...] = ENGINE_PRIMITIVES + PRIVILEGED_PRIMITIVES + TAB_CAPABILITY_CLASSES + ENGINE_EXTENSIONS + TAB_EXTENSIONS

log = logging.getLogger(__name__)

# Strict, as everything the host runs in a page (outbox.py): a page function called from here cannot read
# its arguments through `caller`. An index, not `([x, y]) =>`: destructuring runs the page's array iterator.
_PROBE_POINT = """(point) => {
  "use strict";
  return {width: innerWidth, height: innerHeight, hit: !!document.elementFromPoint(point[0], point[1])};
}"""
#: How often, and how far apart, a code editor is read back until its drawing shows what was typed.
_EDITOR_READS = 20
_EDITOR_READ_PAUSE_S = 0.05
_FOCUSED_VALUE = "() => { \"use strict\"; const el = document.activeElement; return el && typeof el.value === 'string' ? el.value : null; }"
#: How long a document an action loaded (or a popup it opened) is waited for to be parsed before it is
#: reported: a popup is named by its title, and a document that closes its own tab as it loads (Django's
#: popup answering its opener) is said closed, not landed on.
_PARSED_WAIT_MS = 2000
#: How long a popup's new document is given to close its own window (window.close as it loads).
_SELF_CLOSE_WAIT_MS = 300
#: What warm_process exercises: a field and a button, nothing that reaches the network.
_WARM_UP_DOCUMENT = "<!doctype html><title></title><textarea></textarea><button type=button>warm</button>"

_MODIFIERS = {
    "alt": "Alt", "option": "Alt", "control": "Control", "ctrl": "Control",
    "meta": "Meta", "cmd": "Meta", "command": "Meta", "shift": "Shift",
}  # fmt: skip
_KEY_ALIASES = {
    "esc": "Escape", "return": "Enter", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft",
    "right": "ArrowRight", "del": "Delete", "spacebar": "Space", "space": "Space",
}  # fmt: skip
_BUTTONS = ("left", "middle", "right")


def normalize_chord(key: Any, modifiers: Any = None) -> tuple[str, list[str]]:
    """``("Cmd+Shift+a", ["Ctrl"])`` → ``("Meta+Shift+Control+A", ["Meta", "Shift", "Control"])``.

    Modifier aliases become Playwright's names (Ctrl→Control, Cmd/Command→Meta,
    Option→Alt); a trailing ``+`` is the plus key. Raises ``invalid_key``.
    """
    if not isinstance(key, str) or not key:
        raise ActionError("key must be a non-empty string", code=ErrorCode.INVALID_KEY, evidence={"key": key})
    if key == "+":
        parts = ["+"]
    elif key.endswith("++"):
        parts = [*key[:-2].split("+"), "+"]
    else:
        parts = key.split("+")
    name = parts.pop()
    names: list[str] = []
    extra = modifiers if modifiers is not None else []
    if not isinstance(extra, list):
        raise ActionError("modifiers must be a list", code=ErrorCode.INVALID_INPUT, evidence={"field": "modifiers"})
    for raw in [*parts, *extra]:
        canonical = _MODIFIERS.get(str(raw).lower())
        if canonical is None:
            raise ActionError(f"unknown modifier: {raw}", code=ErrorCode.INVALID_KEY, evidence={"key": key, "modifier": raw})
        if canonical not in names:
            names.append(canonical)
    if not name:
        raise ActionError(f"no key in {key!r}", code=ErrorCode.INVALID_KEY, evidence={"key": key})
    name = _KEY_ALIASES.get(name.lower(), name)
    if len(name) == 1 and "Shift" in names and name.isalpha():
        name = name.upper()  # Playwright types "a" for Shift+a; a user gets "A"
    return "+".join([*names, name]), names


def _number(arguments: dict[str, Any], key: str) -> float:
    value = arguments.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"{key} must be a number", code=ErrorCode.INVALID_INPUT, evidence={"field": key})
    return float(value)


def _may_be_browser_loss(exc: PlaywrightError) -> bool:
    """Whether a failure is one a browser going away causes (an aborted navigation, a detached frame)."""
    lowered = str(exc).lower()
    return "err_aborted" in lowered or "detached" in lowered


def _translate(exc: PlaywrightError, name: str) -> ActionError:
    """A Playwright failure as an ActionError with a stable code."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, PlaywrightTimeoutError):
        return ActionError(f"{name} timed out: {message}", code=ErrorCode.HANDLER_TIMEOUT, evidence={"name": name})
    lowered = message.lower()
    if "has been closed" in lowered or "target closed" in lowered or "browser has disconnected" in lowered or "crashed" in lowered:
        return ActionError(f"the tab closed during {name}", code=ErrorCode.TRANSPORT_FAILED, evidence={"name": name})
    navigated = ("execution context was destroyed", "inspected target navigated", "cannot find default execution context")
    if any(phrase in lowered for phrase in navigated) or ("navigat" in lowered and "context" in lowered):
        return ActionError(
            f"the page navigated while {name} ran", code=ErrorCode.HANDLER_FAILED, evidence={"name": name, "navigated": True}
        )
    return ActionError(f"{name} failed: {message}", code=ErrorCode.HANDLER_FAILED, evidence={"name": name})


class TabRuntime(DocumentRuntime):
    """A browser tab driven by Playwright; its runtime id survives navigations."""

    def __init__(self, host: TabHost, page: Page, number: int, watch: PageWatch) -> None:
        super().__init__(
            host,
            page,
            page.main_frame,
            watch,
            runtime_id=f"tab-{number}",
            runtime_key=f"playwright:tab-{number}",
            capabilities=TAB_CAPABILITIES,
        )
        self.number = number
        #: True for a tab that was open before the host attached to a running browser (never closed by finalize_tabs).
        self.preexisting = False
        self._primitives = {
            "pointer.click": self._click,
            "pointer.double_click": self._double_click,
            "pointer.move": self._move,
            "pointer.drag": self._drag,
            "text.insert": self._insert_text,
            "keyboard.press": self._press,
        }
        #: Where the tab's hot-path evaluations run (engine calls, probes, the title).
        self.main_world = MainWorld(page)
        #: True once warm_process ran the first-call path on this (blank, own) tab.
        self.process_warmed = False
        #: What an action started that only the browser sees (a navigation on the network, a popup).
        self.consequences = Consequences(page)

    async def _browser_lost(self, wait_s: float = 1.0) -> bool:
        """Whether the tab's page or browser connection is gone (within ``wait_s``, for the news to arrive)."""
        browser = self.page.context.browser
        deadline = asyncio.get_running_loop().time() + wait_s
        while True:
            if self.page.is_closed() or (browser is not None and not browser.is_connected()):
                return True
            if asyncio.get_running_loop().time() >= deadline:
                return False
            await asyncio.sleep(0.05)

    async def evaluate(self, function_source: str, *argument: Any) -> Any:
        """In the tab's top document, over its CDP session: no Playwright utility script (see main_world.py)."""
        return await self.main_world.call(function_source, *argument)

    async def stop(self, reason: str = "closed") -> None:
        """Leave the bridge, then detach the tab's CDP session."""
        await super().stop(reason)
        await self.main_world.close()

    async def perform(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Run a page handler, a trusted or privileged primitive, or an engine primitive.

        A navigation an earlier call gave up on is stopped first (``navigation.settled``): this call starts clean.
        """
        await settled(self.page)
        if handler is None and (name == "refs.change_mark" or (name == "refs.resolve" and "mark" in arguments)):
            self.consequences.mark(str(arguments.get("slot") or ""))
        try:
            if handler is not None:
                return await self.run_engine("callHandler", handler, arguments)
            if name == "refs.change_report":
                return await self._change_report(arguments)
            method = self._primitives.get(name)
            if method is not None:
                return await method(arguments)
            if name in PRIVILEGED_PRIMITIVES:
                return await self.host.run_privileged(name, self, arguments)
            if name in ENGINE_PRIMITIVES:
                return await self.run_engine("run", name, arguments)
        except PlaywrightError as exc:
            error = _translate(exc, handler or name)
            if error.code != ErrorCode.TRANSPORT_FAILED and _may_be_browser_loss(exc) and await self._browser_lost():
                # A remote browser (or its server) that went away aborts the navigation first and
                # closes the connection a moment later: the call failed because the browser went away.
                error = ActionError(f"the browser went away during {handler or name}", code=ErrorCode.TRANSPORT_FAILED, evidence={"name": handler or name})
            raise error from exc
        raise self.unavailable(name)

    async def _change_report(self, arguments: dict[str, Any]) -> Any:
        """The engine's report of what an action changed, with what only the browser saw (consequences.py).

        A document request the action started is waited for (``NAVIGATION_WAIT_S``): once it commits the
        report is the navigation (the caller says where it landed); a tab that closed as it loaded is said
        closed. A popup the action opened is added as ``tabs_opened``; a request still on the network after
        the wait as ``navigating``.
        """
        slot = str(arguments.get("slot") or "")
        try:
            try:
                out = await self.run_engine("run", "refs.change_report", arguments)
            except (PlaywrightError, ActionError):
                if self.consequences.since(slot).requests:
                    await self._parsed_or_closed(self.page)
                raise
            waited = out.get("settle") if isinstance(out, dict) else None
            seen = await self.consequences.navigation(slot, leaving=isinstance(waited, dict) and waited.get("navigating") is True)
            if seen.committed:
                await self._parsed_or_closed(self.page)
                raise ActionError("the page navigated while refs.change_report ran", code=ErrorCode.HANDLER_FAILED, evidence={"name": "refs.change_report", "navigated": True})
            if isinstance(out, dict):
                if isinstance(waited, dict):
                    waited.pop("navigating", None)  # answered here, from the browser's events
                if seen.navigating:
                    out["navigating"] = seen.requests[0].url
                opened = [await self._opened(popup) for popup in seen.opened]
                if opened:
                    out["tabs_opened"] = opened
            return out
        finally:
            self.consequences.forget(slot)

    async def _parsed_or_closed(self, page: Page) -> None:
        """For a popup, until its new document is parsed (its first scripts ran) or it closed, at most ``_PARSED_WAIT_MS``.

        A tab that closed meanwhile fails the call as closed: ``the tab closed``, never a landing.
        """
        with contextlib.suppress(PlaywrightError):
            # Only a window a script opened may close itself (window.close): such a one is watched until its
            # document ran its first scripts, and a moment after. Any other tab's landing is not delayed.
            if not page.is_closed() and await page.opener() is not None:
                await page.wait_for_load_state("domcontentloaded", timeout=_PARSED_WAIT_MS)
                await page.wait_for_event("close", timeout=_SELF_CLOSE_WAIT_MS)
        if page.is_closed():
            raise ActionError("the tab closed during refs.change_report", code=ErrorCode.TRANSPORT_FAILED, evidence={"name": "refs.change_report", "closed": True})

    async def _opened(self, popup: Page) -> dict[str, Any]:
        """A tab this one's action opened, as its report names it: its number, URL and title once parsed."""
        tab = await self.host.tab_of(popup)
        with contextlib.suppress(PlaywrightError):
            await popup.wait_for_load_state("domcontentloaded", timeout=_PARSED_WAIT_MS)
        url, title = (popup.url, None) if popup.is_closed() else await tab.page_state()
        return {"tab_id": tab.number, "runtime_id": tab.runtime_id, "url": url, "title": title or "", "closed": popup.is_closed()}

    # -- page side -----------------------------------------------------------

    async def install_engine(self, frame: Frame | None = None) -> None:
        """Put the engine into the current document of the tab (or of one of its frames)."""
        await (frame or self.page.main_frame).evaluate("() => {\n\"use strict\";\n" + engine_js() + "\n}")

    async def on_navigated(self) -> None:
        """Main-frame navigation: report where the tab is now and make it the active tab."""
        await super().on_navigated()
        self.host.set_active(self.runtime_id)

    async def warm_process(self) -> None:
        """On our own blank tab, before any site loads: run the first-call path once.

        (A loaded document is not warmed up: that paid Playwright's per-document
        utility script, which a tab no longer uses (``main_world.py``), and its reads
        competed with the agent's first call on the page.)

        A renderer process pays once for its first click, its first text insertion,
        its first key press and the first run of the engine's locator, focus and
        wait code (tens of milliseconds each). The first site this tab opens usually
        loads into the same process, so paying here, on a throwaway document of our
        own, keeps that cost out of the user's first call. Only for a blank tab the
        browser host itself opened, before it is registered; a failure is logged
        and changes nothing else.
        """
        if self.page.url != "about:blank":
            return
        field = {"selector": "textarea"}
        try:
            await self.page.set_content(_WARM_UP_DOCUMENT)
            found = await self.perform("locator.element_info", {"locator": {"selector": "button"}}, None)
            center = found["clickable_center"]
            await self.perform("pointer.click", {"x": center["x"], "y": center["y"]}, None)
            await self.perform("locator.wait_for", {"locator": field, "state": "visible", "timeout_ms": 1000}, None)
            await self.perform("text.insert", {"text": "warm", "target": field, "mode": "replace"}, None)
            await self.perform("keyboard.press", {"key": "Enter"}, None)
            await self.perform("locator.text_content", {"locator": field}, None)
            await self.page.set_content("")
            self.process_warmed = True
        except (ActionError, PlaywrightError, KeyError, TypeError) as exc:
            log.info("process warm-up of %s skipped: %s", self.runtime_id, exc)
    # -- trusted input -------------------------------------------------------

    async def _checked_point(self, arguments: dict[str, Any]) -> tuple[float, float]:
        x, y = _number(arguments, "x"), _number(arguments, "y")
        probe = await self.evaluate(_PROBE_POINT, [x, y])
        viewport = {"width": probe["width"], "height": probe["height"]}
        if not (0 <= x < probe["width"] and 0 <= y < probe["height"]):
            raise ActionError(
                f"({x:g}, {y:g}) is outside the {probe['width']}x{probe['height']} viewport",
                code=ErrorCode.POINT_OUT_OF_VIEWPORT,
                evidence={"x": x, "y": y, "viewport": viewport},
            )
        if not probe["hit"]:
            raise ActionError(f"no element at ({x:g}, {y:g})", code=ErrorCode.TARGET_NOT_FOUND, evidence={"x": x, "y": y})
        return x, y

    @contextlib.asynccontextmanager
    async def _past_overlay(self) -> AsyncIterator[None]:
        """Real input at a point the agent's overlay covers reaches the page below, as the engine's own hit
        tests do: the overlay floats above the page but our primitives act on the page (overlay.js)."""
        if not self.overlay_open:  # the common case costs nothing
            yield
            return
        await self.pass_through_overlay(True)
        try:
            yield
        finally:
            if self.overlay_open:
                await self.pass_through_overlay(False)

    async def _click(self, arguments: dict[str, Any]) -> dict[str, Any]:
        button = arguments.get("button", "left")
        if button not in _BUTTONS:
            raise ActionError("button must be left, middle or right", code=ErrorCode.INVALID_INPUT, evidence={"field": "button"})
        if "target" in arguments:
            # One evaluation resolves the element, scrolls it into view and gives its clickable
            # centre (what locator.element_info and the point check would take two for).
            if "x" in arguments or "y" in arguments:
                raise ActionError("give x and y, or target, not both", code=ErrorCode.INVALID_INPUT, evidence={"field": "target"})
            center = await self._center_of(arguments["target"])
            async with self._past_overlay():
                await self.page.mouse.click(center["x"], center["y"], button=button)
            return {"clicked": True, "button": button, "matched_by": center["matched_by"], "fidelity": "trusted"}
        x, y = await self._checked_point(arguments)
        async with self._past_overlay():
            await self.page.mouse.click(x, y, button=button)
        return {"clicked": True, "button": button, "fidelity": "trusted"}

    async def _double_click(self, arguments: dict[str, Any]) -> dict[str, Any]:
        x, y = await self._checked_point(arguments)
        async with self._past_overlay():
            await self.page.mouse.dblclick(x, y)
        return {"double_clicked": True, "fidelity": "trusted"}

    async def _move(self, arguments: dict[str, Any]) -> dict[str, Any]:
        x, y = await self._checked_point(arguments)
        async with self._past_overlay():
            await self.page.mouse.move(x, y)
        return {"x": x, "y": y}

    async def _endpoint(self, spec: Any, label: str) -> dict[str, Any]:
        """A drag endpoint as a viewport point; a locator is resolved (and scrolled to) by the engine."""
        if not isinstance(spec, dict):
            raise ActionError(f"{label} must be an object", code=ErrorCode.INVALID_INPUT, evidence={"field": label})
        given = spec.get("locator")
        locator: dict[str, Any] = dict(given) if isinstance(given, dict) else {k: v for k, v in spec.items() if k not in ("x", "y", "text", "locator")}
        if isinstance(spec.get("text"), str) and "locator" not in spec:
            locator["text_contains"] = spec["text"]
        if not locator:
            x, y = await self._checked_point(spec)
            return {"x": x, "y": y}
        return await self._center_of(locator)

    async def _center_of(self, locator: Any) -> dict[str, Any]:
        """The clickable centre (``x``, ``y``) of the one visible element ``locator`` resolves to, scrolled into view, and ``matched_by``."""
        info = await self.run_engine("run", "locator.element_info", {"locator": locator})
        return {**info["clickable_center"], "matched_by": info["matched_by"]}

    async def _drag(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Trusted drag: the engine resolves both points, page.mouse presses, moves in steps and releases."""
        steps = arguments.get("steps", 10)
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 40:
            raise ActionError("steps must be an integer from 1 to 40", code=ErrorCode.INVALID_INPUT, evidence={"field": "steps"})
        for field in ("from", "to"):
            if field not in arguments:
                raise ActionError(f"pointer.drag needs {field}", code=ErrorCode.INVALID_INPUT, evidence={"field": field})
        # The target first, then the source: the press must happen where the source is now.
        to = await self._endpoint(arguments["to"], "to")
        start = await self._endpoint(arguments["from"], "from")
        probe = await self.evaluate(_PROBE_POINT, [to["x"], to["y"]])
        if not (0 <= to["x"] < probe["width"] and 0 <= to["y"] < probe["height"]):
            raise ActionError(
                "the drag's target scrolled out of the viewport while its source was brought into view",
                code=ErrorCode.POINT_OUT_OF_VIEWPORT,
                evidence={"endpoint": "to", **to, "viewport": {"width": probe["width"], "height": probe["height"]}},
            )
        async with self._past_overlay():
            await self.page.mouse.move(start["x"], start["y"])
            await self.page.mouse.down()
            try:
                await self.page.mouse.move(to["x"], to["y"], steps=steps)
            finally:
                await self.page.mouse.up()  # never leave the button held, even when a move fails
        return {"dragged": True, "steps": steps, "diagnostics": {"from": start, "to": to, "fidelity": "trusted"}}

    async def _insert_text(self, arguments: dict[str, Any]) -> dict[str, Any]:
        text, mode, target = arguments.get("text"), arguments.get("mode", "append"), arguments.get("target")
        if not isinstance(text, str):
            raise ActionError("text must be a string", code=ErrorCode.INVALID_INPUT, evidence={"field": "text"})
        prepared = await self.run_engine("focusEditable", target, mode)
        if prepared.get("editor"):
            return await self._insert_into_editor(text, mode, target, prepared)
        to_type = text
        if not prepared["caret_placed"]:
            # Fields without a selection API (email, number) cannot put the
            # caret at the end: select everything and retype value + text.
            prepared = await self.run_engine("focusEditable", target, "replace")
            to_type = prepared.get("value", "") + text
        if to_type:
            await self.page.keyboard.insert_text(to_type)
        elif mode == "replace":
            await self.page.keyboard.press("Delete")  # replace with "": clear the selection
        before = prepared.get("value")
        if before is not None and text:
            after = await self.evaluate(_FOCUSED_VALUE)
            if after == (before if prepared["caret_placed"] and mode == "append" else ""):
                raise ActionError(
                    "the field did not accept the text (its type or a page script refused it)",
                    code=ErrorCode.INSERT_FAILED,
                    evidence={"tag": prepared.get("tag"), "expected_length": len(to_type)},
                )
        return {"inserted": True, "inserted_length": len(text), "matched_by": prepared.get("matched_by"), "fidelity": "trusted"}

    async def _insert_into_editor(self, text: str, mode: str, target: Any, prepared: dict[str, Any]) -> dict[str, Any]:
        """Type into a code editor (CodeMirror, Monaco, Ace: page/editors.js) as a person does, then read it back.

        The engine has focused the editor's own input; no selection it makes reaches the editor's model,
        so the keys a person uses choose where the text goes: select all to replace, the document's end
        to append. The value is the editor's drawn text after typing, for the answer to say.
        """
        await self.page.keyboard.press("ControlOrMeta+A" if mode == "replace" else "ControlOrMeta+End")
        if text:
            await self.page.keyboard.insert_text(text)
        elif mode == "replace":
            await self.page.keyboard.press("Delete")
        # Monaco and Ace draw the typed lines at their next frame: read until the drawing changed (or a while passed).
        value = prepared.get("value")
        for _ in range(_EDITOR_READS):
            after = await self.run_engine("focusEditable", target, "read")
            value = after.get("value") if isinstance(after, dict) else None
            if value != prepared.get("value") or not text:
                break
            await asyncio.sleep(_EDITOR_READ_PAUSE_S)
        if text and value == prepared.get("value") and value != (text if mode == "replace" else None):
            raise ActionError(
                "the editor did not take the text (a page script or its read-only state refused it)",
                code=ErrorCode.INSERT_FAILED,
                evidence={"editor": prepared.get("editor"), "expected_length": len(text)},
            )
        return {"inserted": True, "inserted_length": len(text), "matched_by": prepared.get("matched_by"), "editor": prepared.get("editor"), "value": value, "fidelity": "trusted"}

    async def _press(self, arguments: dict[str, Any]) -> dict[str, Any]:
        chord, modifiers = normalize_chord(arguments.get("key"), arguments.get("modifiers"))
        try:
            await self.page.keyboard.press(chord)
        except PlaywrightError as exc:
            if "unknown key" in str(exc).lower():
                raise ActionError(f"unknown key: {arguments.get('key')}", code=ErrorCode.INVALID_KEY, evidence={"key": arguments.get("key")}) from exc
            raise
        return {"pressed": True, "key": chord.rsplit("+", 1)[-1] if chord != "+" else "+", "modifiers": modifiers, "fidelity": "trusted"}
