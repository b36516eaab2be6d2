"""Transition rules a runtime must observe: ``rate_limit_ms`` and ``convergence.max_attempts``.

A transition whose ``tool`` performs human-visible movement may declare
``rate_limit_ms``: the minimum delay between the end of one call of that tool
and the start of the next on the same runtime. ``TransitionTracker.admit``
waits out the remainder when the call has time for it, and otherwise refuses
at once with ``rate_limited`` and ``retry_after_ms`` (the agent can come
back; nothing was done).

``convergence.max_attempts`` bounds repeated traversal: consecutive calls of
the transition's tool on the same runtime and page URL. A call of another
tool of the same manifest on that runtime, or a new URL, starts a new
traversal. The call past the bound is refused with ``limit_exceeded``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ...deadline import Deadline
from ...errors import ActionError, ErrorCode
from ...manifest.model import Transition

__all__ = ["TransitionTracker", "TransitionRules"]


@dataclass(frozen=True)
class TransitionRules:
    """The rules the transitions naming one tool impose on it (the strictest wins)."""

    tool: str
    rate_limit_ms: int = 0
    max_attempts: int | None = None
    transition: str | None = None

    @classmethod
    def for_tool(cls, tool: str, transitions: Sequence[Transition]) -> TransitionRules | None:
        """The combined rules of ``transitions`` whose ``tool`` is ``tool``; None when there are none."""
        mine = [t for t in transitions if t.tool == tool]
        if not mine:
            return None
        rate = max((t.rate_limit_ms or 0 for t in mine), default=0)
        bounds = []
        for t in mine:
            convergence = (t.model_extra or {}).get("convergence")
            value = convergence.get("max_attempts") if isinstance(convergence, dict) else None
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                bounds.append(value)
        return cls(tool, rate, min(bounds) if bounds else None, mine[0].name)


@dataclass
class _Traversal:
    url: str
    count: int = 0


class TransitionTracker:
    """Per-runtime memory of calls of transition tools."""

    def __init__(self) -> None:
        self._last_end: dict[tuple[str, str], float] = {}
        self._traversal: dict[tuple[str, str], _Traversal] = {}
        self._last_tool: dict[str, str] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    def lock(self, runtime_id: str, tool: str) -> asyncio.Lock:
        """Serialises calls of one rate-limited tool on one runtime (so the gap holds between them)."""
        return self._locks.setdefault((runtime_id, tool), asyncio.Lock())

    async def admit(self, rules: TransitionRules, *, runtime_id: str, url: str, deadline: Deadline) -> int:
        """Wait for the rate limit (or refuse); count the traversal (or refuse). Returns ms waited."""
        key = (runtime_id, rules.tool)
        if self._last_tool.get(runtime_id) != rules.tool:
            self._traversal.pop(key, None)
        traversal = self._traversal.get(key)
        if traversal is None or traversal.url != url:
            traversal = self._traversal[key] = _Traversal(url)
        if rules.max_attempts is not None and traversal.count >= rules.max_attempts:
            raise ActionError(
                f"{rules.tool} already ran {traversal.count} times in a row here; transition "
                f"{rules.transition!r} allows {rules.max_attempts} (call another tool or navigate to start anew)",
                code=ErrorCode.LIMIT_EXCEEDED,
                evidence={"transition": rules.transition, "tool": rules.tool, "max_attempts": rules.max_attempts, "attempts": traversal.count},
            )
        waited = 0
        last = self._last_end.get(key)
        if rules.rate_limit_ms and last is not None:
            now = time.monotonic()
            wait = last + rules.rate_limit_ms / 1000 - now
            if wait > 0:
                if now + wait >= deadline.at:
                    raise ActionError(
                        f"{rules.tool} is rate limited to one call per {rules.rate_limit_ms} ms here; retry after {int(wait * 1000) + 1} ms",
                        code=ErrorCode.RATE_LIMITED,
                        evidence={"transition": rules.transition, "tool": rules.tool, "rate_limit_ms": rules.rate_limit_ms,
                                  "retry_after_ms": int(wait * 1000) + 1},
                    )
                await asyncio.sleep(wait)
                waited = int(wait * 1000)
        traversal.count += 1
        return waited

    def finished(self, runtime_id: str, tool: str, *, rate_limited: bool) -> None:
        """Note the end of a call of ``tool`` (any manifest tool) on ``runtime_id``."""
        self._last_tool[runtime_id] = tool
        if rate_limited:
            self._last_end[(runtime_id, tool)] = time.monotonic()
