"""A runtime written from the Actions Bridge Protocol text alone, for end-to-end tests.

It knows only what ``specs/actions-bridge-protocol.txt`` and the reference
primitive dictionary say: connect, send ``runtime_ready`` (with the spec's
manifest summary ``{"protocol": "actions.json", "version": 1}``), answer each
``action_call`` with ``action_call_output`` whose ``output`` is the spec's
``{"ok": true, "result": …}`` envelope (or ``{"ok": false, "error": …}``),
and ignore item types it does not know. It never waits for anything the
spec does not promise (such as the bridge's ``runtime_config``).

Its page is a tiny scripted shop: a product list with add buttons and a basket
counter, answering the dictionary's primitives with the dictionary's output
shapes. Every item crosses a real WebSocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

SUMMARY = {"protocol": "actions.json", "version": 1}


class ScriptedShop:
    """The page state behind the primitives: products with add buttons, and a basket count."""

    def __init__(self) -> None:
        self.products = {"Tea": (120, 40), "Coffee": (120, 90)}  # button centres
        self.basket = 0

    def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``{"ok": true, "result": …}`` or ``{"ok": false, "error": …}`` for one primitive."""
        if name == "locator.element_info":
            wanted = arguments["locator"].get("text_contains")
            matches = [p for p in self.products if wanted is None or wanted in p]
            if len(matches) != 1:
                code = "target_not_found" if not matches else "multiple_targets"
                return {"ok": False, "error": {"code": code, "message": f"{len(matches)} elements match", "evidence": {"locator": arguments["locator"]}}}
            x, y = self.products[matches[0]]
            return {"ok": True, "result": {"bounding_box": {"x": x - 30, "y": y - 10, "width": 60, "height": 20}, "clickable_center": {"x": x, "y": y}}}
        if name == "pointer.click":
            hit = any((x, y) == (arguments["x"], arguments["y"]) for x, y in self.products.values())
            if hit:
                self.basket += 1
            return {"ok": True, "result": {"clicked": hit}}
        if name == "locator.text_content":
            return {"ok": True, "result": {"text": str(self.basket)}}
        return {"ok": False, "error": {"code": "unknown_action", "message": f"no primitive {name}"}}


class SpecRuntime:
    """One connection speaking the protocol as its text shows it."""

    def __init__(
        self, bridge_url: str, token: str, *, runtime_id: str, url: str, page: ScriptedShop, capabilities: list[str] | None = None
    ) -> None:
        self.bridge_url = bridge_url
        self.token = token
        self.runtime_id = runtime_id
        self.url = url
        self.page = page
        self.capabilities = capabilities  # the spec's intended top-level field; absent unless given
        self.calls: list[dict[str, Any]] = []
        self.ignored: list[str] = []  # types of items it does not know
        self._ws: ClientConnection | None = None
        self._loop: asyncio.Task[None] | None = None

    async def __aenter__(self) -> SpecRuntime:
        self._ws = await connect(f"{self.bridge_url}?token={self.token}", open_timeout=5, close_timeout=1)
        ready: dict[str, Any] = {
            "type": "runtime_ready",
            "runtime_id": self.runtime_id,
            "runtime_key": "spec-tab:1",
            "url": self.url,
            "authorization_id": "auth-1",
            "extension_version": "0.1.30",
            "manifest": SUMMARY,
        }
        if self.capabilities is not None:
            ready["capabilities"] = self.capabilities
        await self._ws.send(json.dumps(ready))
        self._loop = asyncio.create_task(self._answer_calls())
        return self

    async def _answer_calls(self) -> None:
        assert self._ws is not None
        async for frame in self._ws:
            item = json.loads(frame)
            if item.get("type") != "action_call":
                self.ignored.append(str(item.get("type")))
                continue
            self.calls.append(item)
            output = self.page.run(item["name"], item["arguments"])
            await self._ws.send(json.dumps({"type": "action_call_output", "call_id": item["call_id"], "runtime_id": self.runtime_id, "output": output}))

    async def __aexit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if self._ws is not None:
            await self._ws.close()
