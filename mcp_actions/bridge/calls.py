"""Call correlation: call ids, pending calls, time limits, exactly one outcome per call.

``CallTracker`` knows nothing of runtimes' lifecycle. It is given a
``CallChannel`` (one runtime connection) and a ready ``action_call`` item,
sends it, and waits for exactly one of:

- ``settle(channel, call_id, output=…)`` or ``settle(…, error=…)``: the
  runtime's answer, accepted only from the channel the call went to;
- the time limit: ``handler_timeout`` with the elapsed time (a late answer is
  then logged and dropped, not an error of the runtime);
- ``fail_channel(channel, reason)``: the connection is gone, every call sent
  on it fails at once with ``transport_failed``;
- a delivery failure: ``transport_failed``.

Nothing is left pending: whichever way a call ends, it leaves the tracker.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ActionError, ErrorCode

__all__ = ["CallChannel", "CallTracker"]

log = logging.getLogger(__name__)

#: How many timed-out call ids are remembered, to log (not refuse) late answers.
EXPIRED_MEMORY = 4096


class CallChannel(Protocol):
    """Where a call is sent: one runtime's connection (compared by identity)."""

    async def send(self, item: dict[str, Any]) -> None:
        """Deliver one item; raise when the transport cannot."""


@dataclass
class _PendingCall:
    call_id: str
    runtime_id: str
    name: str
    channel: CallChannel
    future: asyncio.Future[Any] = field(repr=False)


class CallTracker:
    """Pending calls by id and by channel; every call ends exactly once."""

    def __init__(self) -> None:
        self._pending: dict[str, _PendingCall] = {}
        self._by_channel: dict[CallChannel, set[str]] = {}
        self._expired: OrderedDict[str, str] = OrderedDict()  # timed-out call id -> its runtime id
        self._ids = itertools.count(1)
        self._id_prefix = os.urandom(3).hex()

    @property
    def pending_count(self) -> int:
        """Calls sent and not yet ended."""
        return len(self._pending)

    @property
    def channel_count(self) -> int:
        """Channels with calls in flight (zero when nothing is pending: nothing leaks)."""
        return len(self._by_channel)

    def new_call_id(self) -> str:
        """A fresh call id, unique within this tracker's life."""
        return f"call-{self._id_prefix}-{next(self._ids)}"

    def is_pending(self, call_id: str) -> bool:
        """True while a call with this id is in flight."""
        return call_id in self._pending

    async def run(self, channel: CallChannel, item: dict[str, Any], *, timeout_ms: int) -> Any:
        """Send ``item`` (an ``action_call``) on ``channel`` and return its output.

        Raises ``ActionError``: ``duplicate_call_id``, the runtime's own error,
        ``handler_timeout`` (evidence: ``elapsed_ms``) or ``transport_failed``.
        """
        call_id, runtime_id, name = item["call_id"], item["runtime_id"], item["name"]
        if call_id in self._pending:
            raise ActionError(f"call id {call_id!r} is already pending", code=ErrorCode.DUPLICATE_CALL_ID, evidence={"call_id": call_id})
        started = time.monotonic()
        pending = _PendingCall(call_id, runtime_id, name, channel, asyncio.get_running_loop().create_future())
        self._pending[call_id] = pending
        self._by_channel.setdefault(channel, set()).add(call_id)
        try:
            try:
                # The timeout covers delivery too: a runtime that stops reading fills the
                # socket buffer and would otherwise hold the send (and the call) forever.
                async with asyncio.timeout(timeout_ms / 1000):
                    try:
                        await channel.send(item)
                    except Exception as exc:  # noqa: BLE001 - any transport failure means the item was not delivered
                        raise ActionError(
                            f"could not deliver the call to runtime {runtime_id!r}: {exc}",
                            code=ErrorCode.TRANSPORT_FAILED,
                            evidence={"call_id": call_id, "runtime_id": runtime_id},
                        ) from exc
                    return await pending.future
            except TimeoutError:
                elapsed = int((time.monotonic() - started) * 1000)
                self._remember_expired(call_id, runtime_id)
                raise ActionError(
                    f"{name} did not finish within {timeout_ms} ms",
                    code=ErrorCode.HANDLER_TIMEOUT,
                    evidence={"call_id": call_id, "runtime_id": runtime_id, "elapsed_ms": elapsed, "timeout_ms": timeout_ms},
                ) from None
        finally:
            self._forget(pending)

    def _forget(self, pending: _PendingCall) -> None:
        self._pending.pop(pending.call_id, None)
        ids = self._by_channel.get(pending.channel)
        if ids is not None:
            ids.discard(pending.call_id)
            if not ids:
                del self._by_channel[pending.channel]
        # A call that ended another way (delivery failed, cancelled) may leave an outcome
        # set on the future by a concurrent disconnect: consume it so asyncio does not
        # log "exception was never retrieved".
        if pending.future.done() and not pending.future.cancelled():
            pending.future.exception()
        else:
            pending.future.cancel()

    def _remember_expired(self, call_id: str, runtime_id: str) -> None:
        self._expired[call_id] = runtime_id
        while len(self._expired) > EXPIRED_MEMORY:
            self._expired.popitem(last=False)

    def settle(self, channel: CallChannel, call_id: str, *, output: Any = None, error: ActionError | None = None) -> None:
        """End call ``call_id`` with the runtime's output or error.

        Raises ``ActionError`` ``invalid_item`` when no call of that id is pending
        or it went to another channel; a late answer to a timed-out call is
        logged and dropped.
        """
        pending = self._pending.get(call_id)
        if pending is None or pending.future.done():
            if call_id in self._expired:
                log.warning("dropped late answer to call %s from %s (it had timed out)", call_id, self._expired[call_id])
                return
            raise ActionError(f"no pending call has id {call_id!r}", code=ErrorCode.INVALID_ITEM, evidence={"call_id": call_id})
        if pending.channel is not channel:
            raise ActionError(
                f"call {call_id!r} was not sent to this runtime",
                code=ErrorCode.INVALID_ITEM,
                evidence={"call_id": call_id},
            )
        if error is not None:
            pending.future.set_exception(error)
        else:
            pending.future.set_result(output)

    def fail_channel(self, channel: CallChannel, reason: str) -> None:
        """Fail every call in flight on ``channel`` at once with ``transport_failed``."""
        for call_id in list(self._by_channel.pop(channel, ())):
            pending = self._pending.get(call_id)
            if pending is not None and not pending.future.done():
                pending.future.set_exception(
                    ActionError(
                        f"runtime {pending.runtime_id!r} disconnected: {reason}",
                        code=ErrorCode.TRANSPORT_FAILED,
                        evidence={"call_id": call_id, "runtime_id": pending.runtime_id, "reason": reason},
                    )
                )
