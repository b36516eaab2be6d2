"""Waiting on the page between workflow actions: ``settle_after`` and the settle between attempts.

A loop that acts on a page must give the page time to answer. After a
retrying step's ``after_each`` (and between attempts without one) the
interpreter waits until the DOM has settled: ``dom.settle`` resolves once no
mutation happened for ``quiet_ms`` (bounded by ``timeout_ms``; an unsettled
page is not an error). A runtime without ``dom.settle`` gets a short fixed
delay instead, so the declared scroll-until-visible pattern works everywhere.

``settle_after`` waits for a locator (``locator.wait_for``) or sleeps
``delay_ms``. Its own timeout is pacing, not failure. The *call's* deadline
is different: when it passes during a settle wait, ``DeadlineReached`` is
raised so the interpreter can name the step whose settle was under way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ActionError, ErrorCode
from .compiled import SettleAfter

__all__ = [
    "DOM_SETTLE",
    "SETTLE_PRIMITIVE",
    "DeadlineReached",
    "Pacer",
    "PacingOptions",
]

logger = logging.getLogger(__name__)

PrimitiveCaller = Callable[[str, dict[str, Any], "int | None"], Awaitable[Any]]

#: The primitive ``settle_after.locator`` waits with.
SETTLE_PRIMITIVE = "locator.wait_for"
#: Our engine primitive: resolve after ``quiet_ms`` without DOM mutations (``dom.settle`` in docs/primitives.md).
DOM_SETTLE = "dom.settle"
#: Codes meaning "this runtime has no such primitive" (then the fixed delay stands in).
_MISSING = frozenset({ErrorCode.CAPABILITY_UNAVAILABLE, ErrorCode.UNKNOWN_ACTION})
# Our own backstop beyond the timeout handed to the runtime, so a runtime that never
# answers cannot stall the workflow.
_GRACE_S = 0.25
# A wait that ends this close to the deadline ended because of it.
_DEADLINE_SLACK_S = 0.05


@dataclass(frozen=True)
class PacingOptions:
    """How long the settle between attempts waits.

    ``quiet_ms`` of no DOM mutations counts as settled; ``timeout_ms`` bounds
    the wait; ``fallback_delay_ms`` is slept when the runtime lacks ``dom.settle``.
    The quiet period is longer than the 100 ms that lazy lists commonly wait
    before appending, so a page that answers a scroll is given time to answer.
    """

    quiet_ms: int = 150
    # Bounded well below a typical call's time: a page that never stops mutating (a
    # script-driven animation, a ticking clock) costs at most this per attempt.
    timeout_ms: int = 1000
    fallback_delay_ms: int = 200


class DeadlineReached(Exception):
    """Internal: the call's deadline passed during a settle wait."""


class Pacer:
    """The settle waits of one workflow run."""

    def __init__(self, call: PrimitiveCaller, time_left: Callable[[], float | None], options: PacingOptions) -> None:
        self.call = call
        self.time_left = time_left
        self.options = options
        self.has_dom_settle = True  # until the runtime says otherwise
        self.waited_s = 0.0

    async def between_attempts(self) -> dict[str, Any]:
        """Wait for the DOM to settle before the next attempt; returns what happened."""
        options = self.options
        if self.has_dom_settle:
            left = self.time_left()
            timeout_ms = options.timeout_ms if left is None else min(options.timeout_ms, int(left * 1000))
            if timeout_ms <= 0:
                raise DeadlineReached()
            arguments = {"quiet_ms": options.quiet_ms, "timeout_ms": timeout_ms}
            try:
                result = await self._bounded(DOM_SETTLE, arguments, timeout_ms)
            except ActionError as exc:
                if exc.code not in _MISSING:
                    self._check_deadline()
                    logger.info("dom.settle failed (%s); going on", exc.code)
                    return {"settled": False, "error": exc.code}
                logger.debug("runtime has no dom.settle; pacing with a %d ms delay", options.fallback_delay_ms)
                self.has_dom_settle = False
            else:
                if isinstance(result, dict) and result.get("settled") is False:
                    self._check_deadline()
                return result if isinstance(result, dict) else {"settled": True}
        await self._sleep(options.fallback_delay_ms / 1000)
        return {"settled": True, "delay_ms": options.fallback_delay_ms}

    async def settle_after(self, settle: SettleAfter, locator: dict[str, Any] | None) -> tuple[bool, dict[str, Any] | None]:
        """Pace after a step: (settled, error). Only the deadline raises."""
        if settle.delay_ms is not None:
            await self._sleep(settle.delay_ms / 1000)
            return True, None
        left = self.time_left()
        deadline_governs = left is not None and left * 1000 < settle.timeout_ms
        timeout_ms = int(left * 1000) if left is not None and deadline_governs else settle.timeout_ms
        if deadline_governs and timeout_ms <= 0:
            raise DeadlineReached()
        arguments = {"locator": locator, "state": settle.state, "timeout_ms": timeout_ms}
        try:
            result = await self._bounded(SETTLE_PRIMITIVE, arguments, timeout_ms)
        except ActionError as exc:
            if deadline_governs:
                self._check_deadline()
            logger.info("settle wait did not succeed: %s", exc.code)
            return False, {"code": exc.code, "message": exc.message}
        if isinstance(result, dict) and result.get("matched") is False:
            if deadline_governs:
                self._check_deadline()
            return False, {"code": ErrorCode.STATE_MISMATCH, "message": "settle locator did not match"}
        return True, None

    async def _bounded(self, name: str, arguments: dict[str, Any], timeout_ms: int) -> Any:
        """One wait primitive, bounded by its timeout plus grace and by the deadline."""
        bound = timeout_ms / 1000 + _GRACE_S
        left = self.time_left()
        if left is not None:
            bound = min(bound, max(left, 0))
        if int(bound * 1000) <= 0:
            raise DeadlineReached()  # nothing left to wait in: never a 1 ms call to the runtime
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with asyncio.timeout(bound) as scope:
                # The call's own bound includes the grace: the runtime's wait should end first, in its own words.
                return await self.call(name, arguments, int(bound * 1000))
        except TimeoutError as exc:
            if not scope.expired():
                raise
            self._check_deadline()
            raise ActionError(f"{name} exceeded {timeout_ms} ms", code=ErrorCode.HANDLER_TIMEOUT) from exc
        finally:
            self.waited_s += loop.time() - started

    async def _sleep(self, seconds: float) -> None:
        """Sleep, but never past the deadline (and say so when it cut the sleep short)."""
        left = self.time_left()
        if left is not None and left < seconds:
            await asyncio.sleep(max(left, 0))
            self.waited_s += max(left, 0)
            raise DeadlineReached()
        await asyncio.sleep(seconds)
        self.waited_s += seconds

    def _check_deadline(self) -> None:
        left = self.time_left()
        if left is not None and left <= _DEADLINE_SLACK_S:
            raise DeadlineReached()
