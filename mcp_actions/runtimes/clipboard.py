"""``clipboard.read`` and ``clipboard.write`` in a tab of the browser host.

The page's own ``navigator.clipboard`` does the I/O, so the text is the
browser's clipboard (in a headless browser, the browser's own one, not the
desktop's). Chromium lets a page use it only with the ``clipboard-read`` /
``clipboard-write`` permissions, in a secure context (https, or a loopback
http origin), in a focused document. The host grants both permissions to the
page's origin through the browser context for the duration of one call and
withdraws them afterwards (so the site cannot read the clipboard on its own
later), brings the tab to the front when its document lacks focus, and holds
a lock so two calls never overlap their grants. A page that is not a secure
context cannot have the clipboard: ``clipboard_permission_denied`` with
``reason: insecure_context``.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from ..errors import ActionError, ErrorCode
from .tab import TabRuntime

__all__ = ["BrowserClipboard"]

_PERMISSIONS = ["clipboard-read", "clipboard-write"]
# Runs in the page; never throws, says what went wrong instead.
_IO = """async (io) => {
  "use strict";
  const op = io[0], text = io[1];
  if (!window.isSecureContext || !navigator.clipboard) return {ok: false, reason: "insecure_context"};
  if (!document.hasFocus()) return {ok: false, reason: "not_focused"};
  try {
    if (op === "write") { await navigator.clipboard.writeText(text); return {ok: true}; }
    return {ok: true, text: await navigator.clipboard.readText()};
  } catch (e) { return {ok: false, reason: (e && e.name) || "Error", message: String((e && e.message) || e)}; }
}"""


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else None


class BrowserClipboard:
    """Clipboard I/O through the tabs of one browser host, one call at a time."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    async def read(self, tab: TabRuntime) -> dict[str, Any]:
        """``clipboard.read``: ``{text}``."""
        result = await self._run(tab, "read", "")
        return {"text": str(result.get("text") or "")}

    async def write(self, tab: TabRuntime, text: Any) -> dict[str, Any]:
        """``clipboard.write``: ``{written, textLength}``."""
        if not isinstance(text, str):
            raise ActionError("text must be a string", code=ErrorCode.INVALID_INPUT, evidence={"path": "/text"})
        await self._run(tab, "write", text)
        return {"written": True, "textLength": len(text)}

    async def _run(self, tab: TabRuntime, op: str, text: str) -> dict[str, Any]:
        page = tab.page
        origin = _origin(page.url)
        evidence: dict[str, Any] = {"operation": f"clipboard.{op}", "url": page.url, "tab_id": tab.number}
        if origin is None:
            raise ActionError(f"the page at {page.url!r} has no web origin to grant clipboard access to",
                              code=ErrorCode.CLIPBOARD_PERMISSION_DENIED, evidence={**evidence, "reason": "no_origin"})
        async with self._lock:
            context = page.context
            await context.grant_permissions(_PERMISSIONS, origin=origin)
            try:
                result = await page.evaluate(_IO, [op, text])
                if isinstance(result, dict) and result.get("reason") == "not_focused":
                    await page.bring_to_front()  # a background tab's document has no focus
                    result = await page.evaluate(_IO, [op, text])
            finally:
                # The grant was for this call only: the site must not keep clipboard access.
                await context.clear_permissions()
        if not isinstance(result, dict) or not result.get("ok"):
            reason = result.get("reason") if isinstance(result, dict) else "no_result"
            message = result.get("message") if isinstance(result, dict) else None
            raise ActionError(
                f"the browser refused clipboard.{op} on {origin} ({reason}{': ' + message if message else ''})",
                code=ErrorCode.CLIPBOARD_PERMISSION_DENIED,
                evidence={**evidence, "origin": origin, "reason": reason},
            )
        return result
