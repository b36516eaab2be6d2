"""One Playwright tab as one bridge runtime: trusted input, navigation, screenshots.

DOM primitives and page handlers run in the page through the JavaScript
engine (``window.__mcpActions``, installed by the browser host's init script).
Input is trusted where Playwright can make it so: clicks go through
``page.mouse``, text through ``page.keyboard.insert_text`` after the engine has
focused the target, keys through ``page.keyboard.press``. Playwright errors
are translated into ``ActionError`` with stable codes at this boundary.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
import uuid
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..errors import ActionError, ErrorCode
from .inprocess import InProcessRuntime
from .page_script import ENGINE_PRIMITIVES, engine_only_js

if TYPE_CHECKING:
    from .browser import BrowserHost

__all__ = ["PRIVILEGED_PRIMITIVES", "TAB_CAPABILITIES", "TabRuntime", "normalize_chord"]

log = logging.getLogger(__name__)

#: What a Playwright tab adds to the page engine: browser-level authority.
PRIVILEGED_PRIMITIVES: tuple[str, ...] = ("browser.navigate", "browser.screenshot", "browser.open_tab", "browser.close_tab")
#: Announced in runtime_ready; ``input.trusted`` says clicks and keys are real input events.
TAB_CAPABILITIES: tuple[str, ...] = ENGINE_PRIMITIVES + PRIVILEGED_PRIMITIVES + ("input.trusted",)

#: A dom_event may name the call that caused it when it follows within this window.
PREVIOUS_CALL_WINDOW_S = 5.0

_ENGINE_CALL = """async ([method, a, b]) => {
  const engine = window.__mcpActions;
  if (!engine) return null;
  if (method === "run") return engine.run(a, b);
  if (method === "callHandler") return engine.callHandler(a, b);
  return engine.focusEditable(a, b);
}"""
_WATCH_EVENTS = """(listen) => {
  const engine = window.__mcpActions, emit = window.__mcpActionsEmit;
  return engine && typeof emit === "function" ? engine.watchEvents(listen, (s) => { emit(s); }) : -1;
}"""
_PROBE_POINT = "([x, y]) => ({width: innerWidth, height: innerHeight, hit: !!document.elementFromPoint(x, y)})"
#: What warm_process exercises: a field and a button, nothing that reaches the network.
_WARM_UP_DOCUMENT = "<!doctype html><title></title><textarea></textarea><button type=button>warm</button>"
_FOCUSED_VALUE = "() => { const el = document.activeElement; return el && typeof el.value === 'string' ? el.value : null; }"

_MODIFIERS = {
    "alt": "Alt", "option": "Alt", "control": "Control", "ctrl": "Control",
    "meta": "Meta", "cmd": "Meta", "command": "Meta", "shift": "Shift",
}  # fmt: skip
_KEY_ALIASES = {
    "esc": "Escape", "return": "Enter", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft",
    "right": "ArrowRight", "del": "Delete", "spacebar": "Space", "space": "Space",
}  # fmt: skip
_BUTTONS = ("left", "middle", "right")


@cache
def _dictionary_names() -> frozenset[str]:
    text = resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text(encoding="utf-8")
    return frozenset(p["name"] for p in json.loads(text)["primitives"])


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


def _translate(exc: PlaywrightError, name: str) -> ActionError:
    """A Playwright failure as an ActionError with a stable code."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, PlaywrightTimeoutError):
        return ActionError(f"{name} timed out: {message}", code=ErrorCode.HANDLER_TIMEOUT, evidence={"name": name})
    lowered = message.lower()
    if "has been closed" in lowered or "target closed" in lowered or "browser has disconnected" in lowered:
        return ActionError(f"the tab closed during {name}", code=ErrorCode.TRANSPORT_FAILED, evidence={"name": name})
    if "execution context was destroyed" in lowered or ("navigat" in lowered and "context" in lowered):
        return ActionError(
            f"the page navigated while {name} ran", code=ErrorCode.HANDLER_FAILED, evidence={"name": name, "navigated": True}
        )
    return ActionError(f"{name} failed: {message}", code=ErrorCode.HANDLER_FAILED, evidence={"name": name})


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class TabRuntime(InProcessRuntime):
    """A browser tab driven by Playwright; its runtime id survives navigations."""

    transport = "playwright"

    def __init__(self, host: BrowserHost, page: Page, number: int) -> None:
        super().__init__(
            host.bridge,
            runtime_id=f"tab-{number}",
            url=page.url or "about:blank",
            runtime_key=f"playwright:tab-{number}",
            capabilities=TAB_CAPABILITIES,
        )
        self.host = host
        self.page = page
        self.number = number
        #: Declared DOM events to forward, as last sent by the bridge (runtime_config).
        self.listen: list[dict[str, str]] = []
        self._last_call: tuple[str, float] | None = None
        self._cdp: CDPSession | None = None
        self._navigating = 0  # browser.navigate calls in progress (they warm the new document up themselves)
        #: True once warm_process ran the first-call path on this (blank, own) tab.
        self.process_warmed = False
        self._primitives = {
            "pointer.click": self._click,
            "pointer.double_click": self._double_click,
            "pointer.move": self._move,
            "text.insert": self._insert_text,
            "keyboard.press": self._press,
            "browser.navigate": self._navigate,
            "browser.screenshot": self._screenshot,
            "browser.open_tab": self._open_tab,
            "browser.close_tab": self._close_tab,
        }

    # -- bridge side ---------------------------------------------------------

    def _deliver(self, item: dict[str, Any]) -> None:
        # Remember the latest call (events it causes name it) and apply event
        # configuration; everything else is the base class's business.
        kind = item.get("type")
        if kind == "action_call" and isinstance(item.get("call_id"), str):
            self._last_call = (item["call_id"], time.monotonic())
        elif kind == "runtime_config":
            listen = item.get("listen")
            self.listen = [e for e in listen if isinstance(e, dict)] if isinstance(listen, list) else []
            self.host._spawn(self.apply_listen(), f"{self.runtime_id}:listen")
        super()._deliver(item)

    async def execute(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Run a page handler, a trusted or privileged primitive, or an engine primitive."""
        try:
            if handler is not None:
                return await self._engine("callHandler", handler, arguments)
            method = self._primitives.get(name)
            if method is not None:
                return await method(arguments)
            if name in ENGINE_PRIMITIVES:
                return await self._engine("run", name, arguments)
        except PlaywrightError as exc:
            raise _translate(exc, handler or name) from exc
        if name in _dictionary_names() or name.startswith("browser."):
            raise ActionError(
                f"{name} is not available in a Playwright tab",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": name, "host": "playwright"},
            )
        raise ActionError(f"no primitive is named {name}", code=ErrorCode.UNKNOWN_ACTION, evidence={"name": name})

    # -- page side -----------------------------------------------------------

    async def install_engine(self) -> None:
        """Put the engine into the current document (the init script covers later ones)."""
        await self.page.evaluate("() => {\n" + engine_only_js() + "\n}")

    async def _engine(self, method: str, a: Any, b: Any) -> Any:
        envelope = await self.page.evaluate(_ENGINE_CALL, [method, a, b])
        if envelope is None:  # a document the init script did not reach (attached pages)
            await self.install_engine()
            envelope = await self.page.evaluate(_ENGINE_CALL, [method, a, b])
        if not isinstance(envelope, dict) or "ok" not in envelope:
            raise ActionError("the page engine is not available", code=ErrorCode.RUNTIME_NOT_READY, evidence={"url": self.page.url})
        if envelope["ok"]:
            return envelope.get("output")
        raise ActionError.from_error(envelope.get("error") or {})

    async def page_state(self) -> tuple[str, str | None]:
        """The tab's url and title (title None while a navigation makes it unreadable)."""
        try:
            title = await self.page.title()
        except PlaywrightError:
            title = None
        return self.page.url, title

    async def on_navigated(self) -> None:
        """Main-frame navigation: report where the tab is now and make it the active tab."""
        url, title = await self.page_state()
        await self.report(url=url, title=title)
        self.host.bridge.registry.set_active(self.runtime_id)

    async def on_load(self) -> None:
        """A document finished loading: its title is final now; warm it up for the first call.

        While our own ``browser.navigate`` is answering, it warms the document itself
        once its answer is on the way, so the warm-up never delays that answer.
        """
        url, title = await self.page_state()
        await self.report(url=url, title=title)
        if not self._navigating:
            await self.warm_up()

    async def warm_up(self) -> None:
        """Pay a new document's first-evaluation costs now rather than in the user's first call.

        The first ``page.evaluate`` in a document makes Playwright install its
        utility script there (~30 ms), and each function source we evaluate is
        compiled on first use; the engine's locator path is compiled by V8 on
        its first run. These reads change nothing on the page (no input events,
        no scrolling); they run when the document loads, while the agent reads
        the navigation's answer.
        """
        try:
            await self.page.evaluate(_ENGINE_CALL, ["run", "page.info", {}])
            await self.page.evaluate(_ENGINE_CALL, ["run", "locator.text_content", {"locator": {"selector": "title"}}])
            await self.page.evaluate(_PROBE_POINT, [0, 0])
            await self.page.evaluate(_FOCUSED_VALUE)
        except PlaywrightError as exc:  # the document went away meanwhile: the next one warms itself
            log.debug("warm-up of %s skipped: %s", self.runtime_id, exc)

    async def warm_process(self) -> None:
        """On our own blank tab, before any site loads: run the first-call path once.

        A renderer process pays once for its first click, its first text insertion,
        its first key press and the first run of the engine's locator, focus and
        wait code (tens of milliseconds each). The first site this tab opens usually
        loads into the same process, so paying here, on a throwaway document of our
        own, keeps that cost out of the user's first call. Only for a blank tab the
        browser host itself opened; a failure is logged and changes nothing else.
        """
        if self.page.url != "about:blank":
            return
        field = {"selector": "textarea"}
        try:
            await self.page.set_content(_WARM_UP_DOCUMENT)
            found = await self.execute("locator.element_info", {"locator": {"selector": "button"}}, None)
            center = found["clickable_center"]
            await self.execute("pointer.click", {"x": center["x"], "y": center["y"]}, None)
            await self.execute("locator.wait_for", {"locator": field, "state": "visible", "timeout_ms": 1000}, None)
            await self.execute("text.insert", {"text": "warm", "target": field, "mode": "replace"}, None)
            await self.execute("keyboard.press", {"key": "Enter"}, None)
            await self.execute("locator.text_content", {"locator": field}, None)
            await self.page.set_content("")
            self.process_warmed = True
        except (ActionError, PlaywrightError, KeyError, TypeError) as exc:
            log.info("process warm-up of %s skipped: %s", self.runtime_id, exc)

    async def apply_listen(self) -> None:
        """Make the current document forward the declared events."""
        try:
            await self.page.evaluate(_WATCH_EVENTS, self.listen)
        except PlaywrightError as exc:  # navigating: the init script asks for the list again
            log.debug("could not apply event listeners to %s: %s", self.runtime_id, exc)

    async def forward_event(self, signal: Any) -> None:
        """A declared DOM event fired in the page: send it to the bridge as a dom_event."""
        if not isinstance(signal, dict) or not isinstance(signal.get("name"), str):
            return
        item: dict[str, Any] = {
            "type": "dom_event",
            "event_id": f"evt-{uuid.uuid4().hex[:16]}",
            "runtime_id": self.runtime_id,
            "name": signal["name"],
            "event": signal.get("event"),
            "url": self.page.url,
            "payload": signal.get("payload") if signal.get("payload") is not None else {},
            "observed_at": _now(),
        }
        if self._last_call and time.monotonic() - self._last_call[1] <= PREVIOUS_CALL_WINDOW_S:
            item["previous_call_id"] = self._last_call[0]
        await self.emit(item)

    # -- trusted input -------------------------------------------------------

    async def _checked_point(self, arguments: dict[str, Any]) -> tuple[float, float]:
        x, y = _number(arguments, "x"), _number(arguments, "y")
        probe = await self.page.evaluate(_PROBE_POINT, [x, y])
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

    async def _click(self, arguments: dict[str, Any]) -> dict[str, Any]:
        button = arguments.get("button", "left")
        if button not in _BUTTONS:
            raise ActionError("button must be left, middle or right", code=ErrorCode.INVALID_INPUT, evidence={"field": "button"})
        x, y = await self._checked_point(arguments)
        await self.page.mouse.click(x, y, button=button)
        return {"clicked": True, "button": button, "fidelity": "trusted"}

    async def _double_click(self, arguments: dict[str, Any]) -> dict[str, Any]:
        x, y = await self._checked_point(arguments)
        await self.page.mouse.dblclick(x, y)
        return {"double_clicked": True, "fidelity": "trusted"}

    async def _move(self, arguments: dict[str, Any]) -> dict[str, Any]:
        x, y = await self._checked_point(arguments)
        await self.page.mouse.move(x, y)
        return {"x": x, "y": y}

    async def _insert_text(self, arguments: dict[str, Any]) -> dict[str, Any]:
        text, mode, target = arguments.get("text"), arguments.get("mode", "append"), arguments.get("target")
        if not isinstance(text, str):
            raise ActionError("text must be a string", code=ErrorCode.INVALID_INPUT, evidence={"field": "text"})
        prepared = await self._engine("focusEditable", target, mode)
        to_type = text
        if not prepared["caret_placed"]:
            # Fields without a selection API (email, number) cannot put the
            # caret at the end: select everything and retype value + text.
            prepared = await self._engine("focusEditable", target, "replace")
            to_type = prepared.get("value", "") + text
        if to_type:
            await self.page.keyboard.insert_text(to_type)
        elif mode == "replace":
            await self.page.keyboard.press("Delete")  # replace with "": clear the selection
        before = prepared.get("value")
        if before is not None and text:
            after = await self.page.evaluate(_FOCUSED_VALUE)
            if after == (before if prepared["caret_placed"] and mode == "append" else ""):
                raise ActionError(
                    "the field did not accept the text (its type or a page script refused it)",
                    code=ErrorCode.INSERT_FAILED,
                    evidence={"tag": prepared.get("tag"), "expected_length": len(to_type)},
                )
        return {"inserted": True, "inserted_length": len(text), "matched_by": prepared.get("matched_by"), "fidelity": "trusted"}

    async def _press(self, arguments: dict[str, Any]) -> dict[str, Any]:
        chord, modifiers = normalize_chord(arguments.get("key"), arguments.get("modifiers"))
        try:
            await self.page.keyboard.press(chord)
        except PlaywrightError as exc:
            if "unknown key" in str(exc).lower():
                raise ActionError(f"unknown key: {arguments.get('key')}", code=ErrorCode.INVALID_KEY, evidence={"key": arguments.get("key")}) from exc
            raise
        return {"pressed": True, "key": chord.rsplit("+", 1)[-1] if chord != "+" else "+", "modifiers": modifiers, "fidelity": "trusted"}

    # -- browser authority ---------------------------------------------------

    async def _delegate(self, arguments: dict[str, Any], name: str) -> TabRuntime | None:
        """The tab a ``tab_id`` argument names, when it is not this one."""
        tab_id = arguments.get("tab_id")
        if tab_id is None or tab_id == self.number:
            return None
        other = self.host.tab_by_number(tab_id) if isinstance(tab_id, int) else None
        if other is None:
            raise ActionError(f"no tab has id {tab_id!r}", code=ErrorCode.TARGET_NOT_FOUND, evidence={"tab_id": tab_id, "name": name})
        return other

    async def _navigate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        other = await self._delegate(arguments, "browser.navigate")
        if other is not None:
            return await other._navigate({k: v for k, v in arguments.items() if k != "tab_id"})
        self._navigating += 1
        try:
            return await self._navigate_here(arguments)
        finally:
            self._navigating -= 1
            # After the answer: the agent reads it while the new document warms up.
            self.host._spawn(self.warm_up(), f"{self.runtime_id}:warm-up")

    async def _navigate_here(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if arguments.get("reload"):
            response = await self.page.reload(wait_until="load")
        else:
            url = arguments.get("url")
            if not isinstance(url, str) or not url.strip():
                raise ActionError("browser.navigate needs a url (or reload: true)", code=ErrorCode.INVALID_INPUT, evidence={"field": "url"})
            if not urlsplit(url).scheme:
                # Relative to the current page, as a link on it would be.
                if urlsplit(self.page.url).scheme not in ("http", "https", "file"):
                    raise ActionError(f"{url!r} is not an absolute URL", code=ErrorCode.INVALID_INPUT, evidence={"url": url})
                url = urljoin(self.page.url, url)
            response = await self.page.goto(url, wait_until="load")
        url, title = await self.page_state()
        await self.report(url=url, title=title)
        self.host.bridge.registry.set_active(self.runtime_id)
        out: dict[str, Any] = {"ok": True, "navigated": True, "tab": {"tab_id": self.number, "runtime_id": self.runtime_id, "url": url, "title": title}}
        if response is not None:
            out["status"] = response.status
        return out

    async def _open_tab(self, arguments: dict[str, Any]) -> dict[str, Any]:
        url = arguments.get("url")
        if url is not None and not isinstance(url, str):
            raise ActionError("url must be a string", code=ErrorCode.INVALID_INPUT, evidence={"field": "url"})
        runtime_id = await self.host.new_tab(url, active=arguments.get("active", True) is not False)
        tab = self.host.tab(runtime_id)
        return {"ok": True, "tab_id": tab.number if tab else None, "runtime_id": runtime_id, "url": tab.page.url if tab else url}

    async def _close_tab(self, arguments: dict[str, Any]) -> dict[str, Any]:
        other = await self._delegate(arguments, "browser.close_tab")
        tab = other or self
        # Close after this call has answered: closing first would fail it with transport_failed.
        self.host._spawn(tab._close_soon(), f"{tab.runtime_id}:close")
        return {"ok": True, "closed_tab_id": tab.number, "closed_runtime_id": tab.runtime_id}

    async def _close_soon(self) -> None:
        await asyncio.sleep(0.05)
        if not self.page.is_closed():
            await self.page.close()

    async def _screenshot(self, arguments: dict[str, Any]) -> dict[str, Any]:
        fmt = arguments.get("format", "png")
        if fmt not in ("png", "jpeg"):
            raise ActionError("format must be png or jpeg", code=ErrorCode.INVALID_INPUT, evidence={"field": "format"})
        quality = int(arguments.get("quality", 80))
        max_width, max_height = int(arguments.get("max_width", 1600)), int(arguments.get("max_height", 1600))
        max_bytes = int(arguments.get("max_kilobytes", 512)) * 1024
        size = await self.page.evaluate("() => ({w: innerWidth, h: innerHeight, dpr: devicePixelRatio || 1})")
        # CDP's clip.scale resizes while capturing, so no image library is needed.
        scale = min(1.0, max_width / (size["w"] * size["dpr"]), max_height / (size["h"] * size["dpr"]))
        if self._cdp is None:
            self._cdp = await self.page.context.new_cdp_session(self.page)
        for _attempt in range(8):
            params: dict[str, Any] = {
                "format": fmt,
                "clip": {"x": 0, "y": 0, "width": size["w"], "height": size["h"], "scale": scale},
                "captureBeyondViewport": False,
            }
            if fmt == "jpeg":
                params["quality"] = quality
            data = (await self._cdp.send("Page.captureScreenshot", params))["data"]
            if len(data) * 3 // 4 <= max_bytes:
                return {
                    "image": data,
                    "mime_type": f"image/{fmt}",
                    "width": round(size["w"] * size["dpr"] * scale),
                    "height": round(size["h"] * size["dpr"] * scale),
                }
            # Too large: JPEG first, then lower quality, then smaller.
            if fmt == "png":
                fmt = "jpeg"
            elif quality > 40:
                quality -= 20
            else:
                scale *= 0.7
        raise ActionError(
            f"could not fit a screenshot into {max_bytes // 1024} KB",
            code=ErrorCode.CAPTURE_FAILED,
            evidence={"max_kilobytes": max_bytes // 1024, "bytes": len(base64.b64decode(data))},
        )
