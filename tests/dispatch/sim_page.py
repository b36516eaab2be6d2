"""A simulated page behind the shipped ``MemoryRuntime``: elements, a scrolling viewport, late answers.

This is a model of a *page* (what a browser would hold), not of our code: its
primitives follow the engine's contracts (``locator.element_info`` scrolls a
visible target into view, ``locator.wait_for`` waits for the page to change,
``dom.settle`` resolves after a quiet period) so the interpreter and dispatch
run against it exactly as against Chromium. Pages change on their own:
an infinite feed appends items some time after the user reaches the bottom.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from mcp_actions.errors import ActionError

VIEWPORT = 600


@dataclass
class El:
    selectors: set[str]
    text: str = ""
    y: float = 0
    height: float = 20
    visible: bool = True
    enabled: bool = True
    editable: bool = False
    value: str = ""
    role: str | None = None
    name: str | None = None
    on_click: Any = None
    attached: bool = True


@dataclass
class SimPage:
    """Elements by selector, a viewport, and a clock of DOM mutations."""

    url: str = "https://page.sim.test/"
    elements: list[El] = field(default_factory=list)
    scroll_y: float = 0
    mutated_at: float = field(default_factory=time.monotonic)
    calls: list[str] = field(default_factory=list)
    has_dom_settle: bool = True

    # -- page building -----------------------------------------------------

    def add(self, *selectors: str, **fields: Any) -> El:
        element = El(set(selectors), **fields)
        self.elements.append(element)
        self.mutate()
        return element

    def mutate(self) -> None:
        self.mutated_at = time.monotonic()

    def later(self, seconds: float, change: Any) -> None:
        """Change the page after ``seconds`` (a late answer)."""
        asyncio.get_running_loop().call_later(seconds, lambda: (change(), self.mutate()))

    @property
    def height(self) -> float:
        return max([e.y + e.height for e in self.elements if e.attached] + [VIEWPORT])

    # -- locators ------------------------------------------------------------

    def find(self, locator: Any) -> tuple[list[El], str]:
        if not isinstance(locator, dict):
            raise ActionError("a locator must be an object", code="invalid_locator")
        candidates: list[tuple[str, str]] = []
        if isinstance(locator.get("selector"), str):
            candidates.append(("selector", locator["selector"]))
        for key in ("selectors", "fallback_selectors"):
            for n, sel in enumerate(locator.get(key) or []):
                candidates.append((f"{key}[{n}]", sel))
        if not candidates:
            raise ActionError("the locator names no selector", code="invalid_locator", evidence={"locator": locator})
        for label, selector in candidates:
            found = [e for e in self.elements if e.attached and selector in e.selectors]
            if "text_contains" in locator:
                found = [e for e in found if locator["text_contains"] in e.text]
            if "text_equals" in locator:
                found = [e for e in found if e.text.strip() == locator["text_equals"]]
            if found:
                return found, label
        return [], ""

    def one(self, locator: Any) -> tuple[El, str]:
        found, label = self.find(locator)
        if not found:
            raise ActionError("no element matches the locator", code="target_not_found", evidence={"locator": locator})
        visible = [e for e in found if e.visible]
        if len(visible) > 1:
            raise ActionError(f"{len(visible)} visible elements match", code="multiple_targets", recoverable=False)
        return (visible or found)[0], label

    def in_viewport(self, element: El) -> bool:
        return element.visible and self.scroll_y <= element.y + element.height / 2 <= self.scroll_y + VIEWPORT

    # -- primitives ------------------------------------------------------------

    def primitives(self) -> dict[str, Any]:
        names = {
            "page.info": self.page_info,
            "locator.element_info": self.element_info,
            "locator.text_content": self.text_content,
            "locator.wait_for": self.wait_for,
            "pointer.click": self.click,
            "text.insert": self.insert,
            "viewport.scroll": self.scroll,
        }
        if self.has_dom_settle:
            names["dom.settle"] = self.settle
        return names

    def page_info(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"url": self.url, "title": "sim"}

    def element_info(self, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("locator.element_info")
        element, label = self.one(args.get("locator"))
        if element.visible and not self.in_viewport(element):  # as the engine does: bring it into view
            self.scroll_y = max(0, min(element.y - VIEWPORT / 2, self.height - VIEWPORT))
            self.on_scrolled()
        center = {"x": 50, "y": element.y - self.scroll_y + element.height / 2}
        return {"visible": element.visible, "enabled": element.enabled, "editable": element.editable,
                "in_viewport": self.in_viewport(element), "clickable_center": center, "text": element.text,
                "matched_by": label}

    def text_content(self, args: dict[str, Any]) -> dict[str, Any]:
        element, label = self.one(args.get("locator"))
        out = {"text": element.text.strip(), "matched_by": label}
        if element.editable:
            out["value"] = element.value
        return out

    async def wait_for(self, args: dict[str, Any]) -> dict[str, Any]:
        state = args.get("state", "visible")
        timeout = args.get("timeout_ms", 5000) / 1000
        give_up = time.monotonic() + timeout
        while True:
            found, label = self.find(args.get("locator"))
            if state == "visible":
                found = [e for e in found if e.visible]
            if found:
                return {"matched": True, "state": state, "matched_by": label, "match_count": len(found)}
            if time.monotonic() >= give_up:
                raise ActionError("the locator did not match in time", code="timeout", evidence={"timeout_ms": args.get("timeout_ms")})
            await asyncio.sleep(0.01)

    def click(self, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("pointer.click")
        y = args["y"] + self.scroll_y
        hit = [e for e in self.elements if e.attached and e.visible and e.y <= y <= e.y + e.height]
        if not hit:
            raise ActionError("no visible element at point", code="target_not_found")
        element = hit[-1]
        if element.on_click is not None and element.enabled:
            element.on_click()
            self.mutate()
        return {"clicked": True}

    def insert(self, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("text.insert")
        if not isinstance(args.get("text"), str):
            raise ActionError("text must be a string", code="invalid_input", evidence={"field": "text"})
        element, _ = self.one(args.get("target"))
        if not element.editable:
            raise ActionError("the element cannot take text", code="target_not_editable")
        element.value = args["text"] if args.get("mode") == "replace" else element.value + args["text"]
        self.mutate()
        return {"inserted": True, "value": element.value}

    def scroll(self, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("viewport.scroll")
        self.scroll_y = max(0, min(self.scroll_y + args.get("delta_y", 0), self.height - VIEWPORT))
        self.on_scrolled()
        return {"scroll_y": self.scroll_y}

    async def settle(self, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("dom.settle")
        quiet = args.get("quiet_ms", 100) / 1000
        started = time.monotonic()
        give_up = started + args.get("timeout_ms", 2000) / 1000
        while True:
            now = time.monotonic()
            if now - max(self.mutated_at, started) >= quiet:
                return {"settled": True, "waited_ms": int((now - started) * 1000)}
            if now >= give_up:
                return {"settled": False, "waited_ms": int((now - started) * 1000)}
            await asyncio.sleep(0.01)

    def on_scrolled(self) -> None:
        """Pages override: react to the viewport moving (lazy loading)."""


class FeedPage(SimPage):
    """An infinite feed: 20 items; reaching the bottom appends 20 more 100 ms later."""

    def __init__(self, *, batch: int = 20, delay_s: float = 0.1, item_height: float = 50, **kwargs: Any) -> None:
        super().__init__(url="https://feed.sim.test/", **kwargs)
        self.batch, self.delay_s, self.item_height = batch, delay_s, item_height
        self.loading = False
        self.loads = 0
        self._append()

    def _append(self) -> None:
        start = sum(1 for e in self.elements if "[data-item]" in e.selectors)
        for n in range(start + 1, start + self.batch + 1):
            self.add("[data-item]", f"#item-{n}", text=f"Item {n}", y=(n - 1) * self.item_height, height=self.item_height)
        self.loading = False

    def on_scrolled(self) -> None:
        if not self.loading and self.scroll_y + VIEWPORT >= self.height - 1:
            self.loading = True
            self.loads += 1
            self.later(self.delay_s, self._append)
