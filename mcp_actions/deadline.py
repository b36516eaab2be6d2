"""A call's deadline: one value, passed down, that every part of the call reads the same way.

A tool call has one time limit (``timeout_ms``, default 30 s), and everything
the call does (opening a page, a handler, each workflow step, a postcondition,
a built-in's primitive) must end within it. Computing "time left" in each
place gave two behaviours: some raised ``handler_timeout``, others clamped to
1 ms and sent ``timeout_ms=1`` to a runtime, which then failed in its own
words. ``Deadline`` is that computation, once: ``remaining_ms()`` is the time
left, and ``handler_timeout`` when none is, so no call is ever sent with
nothing left to run in.

This module imports only ``errors`` and sits below every package.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .errors import ActionError, ErrorCode

__all__ = ["Deadline"]


@dataclass(frozen=True)
class Deadline:
    """An instant on ``time.monotonic()`` by which a call must end, and the limit it came from."""

    at: float
    #: The time limit this deadline was made from (for evidence: what the caller allowed).
    timeout_ms: int

    @classmethod
    def after_ms(cls, timeout_ms: int) -> Deadline:
        """The deadline ``timeout_ms`` from now."""
        return cls(time.monotonic() + timeout_ms / 1000, timeout_ms)

    @property
    def seconds_left(self) -> float:
        """Seconds until the deadline (negative once it has passed)."""
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.seconds_left <= 0

    def remaining_ms(self, *, phase: str | None = None) -> int:
        """Whole milliseconds left; ``handler_timeout`` (naming ``phase``) when none are.

        What callers send to a runtime as its ``timeout_ms``: never 0, never a
        token 1 ms that only makes the runtime fail in its own words.
        """
        left = int(self.seconds_left * 1000)
        if left <= 0:
            evidence: dict[str, object] = {"timeout_ms": self.timeout_ms}
            if phase is not None:
                evidence["phase"] = phase
            raise ActionError(
                f"the call ran out of its {self.timeout_ms} ms" + (f" ({phase})" if phase else ""),
                code=ErrorCode.HANDLER_TIMEOUT,
                evidence=evidence,
            )
        return left

    def child(self, timeout_ms: int | None) -> Deadline:
        """A deadline for part of the call: ``timeout_ms`` from now, but never later than this one."""
        if timeout_ms is None:
            return self
        own = Deadline.after_ms(timeout_ms)
        return own if own.at < self.at else self
