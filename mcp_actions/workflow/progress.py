"""Progress reports of a running workflow (what the MCP adapter forwards as progress notifications).

A ``ProgressCallback`` is ``progress(progress, total, message)``: ``progress``
grows monotonically, ``total`` is the number of steps (None when unknown) and
``message`` names the step. It may be a plain function or a coroutine
function; ``ProgressReporter`` calls either, keeps the figures monotonic (MCP
requires it) and never lets a broken listener break the call it reports on.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

__all__ = ["ProgressCallback", "ProgressReporter"]

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[float, "float | None", str], Any]
"""``(progress, total, message) -> None | Awaitable[None]``."""


class ProgressReporter:
    """Calls one optional ``ProgressCallback``; monotonic and failure-proof."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self.callback = callback
        self.last = -1.0

    async def report(self, progress: float, total: float | None, message: str) -> None:
        """Send one report; figures lower than the last one are raised to it."""
        if self.callback is None:
            return
        progress = max(float(progress), self.last)
        self.last = progress
        try:
            result = self.callback(progress, total, message)
            if inspect.isawaitable(result):
                await result
        except Exception:
            logger.exception("progress callback failed at %r", message)
