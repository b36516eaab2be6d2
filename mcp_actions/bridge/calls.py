"""Call correlation: call ids, pending calls, time limits, exactly one outcome per call.

``CallTracker`` knows nothing of runtimes' lifecycle. It is given a
``CallChannel`` (one runtime connection) and a ready ``action_call`` item,
sends it, and waits for exactly one of:

- ``settle(channel, call_id, output=…)`` or ``settle(…, error=…)``: the
  runtime's answer, accepted only from the channel the call went to;
- the time limit: the runtime is sent ``action_cancel`` (reason ``"timed
  out"``) so its work stops too; an answer it sent in time but a loaded loop
  reads late is still the outcome (``_last_word``), else ``handler_timeout``
  with the elapsed time, and a later answer is logged and dropped, not an
  error of the runtime;
- ``fail_channel(channel, reason)``: the connection is gone, every call sent
  on it fails at once with ``transport_failed``;
- a delivery failure: ``transport_failed``;
- the caller giving up (its task cancelled): the runtime is sent
  ``action_cancel`` and a late answer is logged and dropped.

While a call runs, the tracker also carries its call messages (docs/bridge-protocol.md, "Call
messages"): ``progress`` hands the runtime's ``call_progress`` to the call's
``on_progress``, and ``ask`` answers an ``input_request`` with the call's
``on_input`` (an ``input_response`` sent on the call's channel; without an
``on_input``, a ``capability_unavailable`` error). Answers still being worked
out when the call ends are cancelled.

Nothing is left pending: whichever way a call ends, it leaves the tracker.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ActionError, ErrorCode
from .items import ActionCall, ActionCancel, InputResponse, OutgoingItem, error_body

__all__ = ["CANCELLED_BY_CALLER", "TIMED_OUT", "CallChannel", "CallTracker", "InputHandler", "ProgressHandler"]

log = logging.getLogger(__name__)

#: How many timed-out or cancelled call ids are remembered, to log (not refuse) late answers.
EXPIRED_MEMORY = 4096
#: How long a timed-out call still waits for its runtime's answer already on the way (``_last_word``):
#: this, plus as long as the loop ran the timer late, up to the most.
LAST_WORD_MIN_MS = 50
LAST_WORD_MAX_MS = 1000
#: ``action_cancel`` reasons: the call's time limit passed, or its caller gave up. Runtimes tell
#: them apart by this text (a page engine answers ``handler_timeout`` for the first, ``cancelled``).
TIMED_OUT = "timed out"
CANCELLED_BY_CALLER = "cancelled by the caller"

#: Hears a running call's ``call_progress``: ``(progress, total, message)``.
ProgressHandler = Callable[[float, float | None, str | None], Awaitable[None]]
#: Answers a running call's ``input_request``: the page's request in, the response object out
#: (raise ``ActionError`` to answer with an error instead).
InputHandler = Callable[[dict[str, Any]], Awaitable[Any]]


class CallChannel(Protocol):
    """Where a call is sent: one runtime's connection (compared by identity)."""

    @property
    def closed(self) -> bool:
        """True once the connection is gone (nothing more is sent on it)."""

    async def send(self, item: OutgoingItem) -> None:
        """Deliver one item; raise when the transport cannot."""


@dataclass
class _PendingCall:
    call_id: str
    runtime_id: str
    name: str
    channel: CallChannel
    future: asyncio.Future[Any] = field(repr=False)
    on_progress: ProgressHandler | None = None
    on_input: InputHandler | None = None
    #: Input requests being answered; cancelled when the call ends.
    asking: set[asyncio.Task[Any]] = field(default_factory=set)


class CallTracker:
    """Pending calls by id and by channel; every call ends exactly once."""

    def __init__(self) -> None:
        self._pending: dict[str, _PendingCall] = {}
        self._by_channel: dict[CallChannel, set[str]] = {}
        # timed-out or cancelled call id -> (its runtime id, how it ended)
        self._expired: OrderedDict[str, tuple[str, str]] = OrderedDict()
        # Input answers and cancel notices in flight, owned here so ``stop`` can reap them.
        self._background: set[asyncio.Task[Any]] = set()
        self._ids = itertools.count(1)
        self._id_prefix = os.urandom(3).hex()
        self._last_end = time.monotonic()

    @property
    def pending_count(self) -> int:
        """Calls sent and not yet ended."""
        return len(self._pending)

    @property
    def quiet_for(self) -> float:
        """Seconds since the last call ended, when none is in flight (0 while one is)."""
        return 0.0 if self._pending else time.monotonic() - self._last_end

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

    def stop(self) -> None:
        """Cancel the input answers and cancel notices still in flight (the bridge is stopping)."""
        for task in list(self._background):
            task.cancel()

    async def run(
        self,
        channel: CallChannel,
        item: ActionCall,
        *,
        timeout_ms: int,
        on_progress: ProgressHandler | None = None,
        on_input: InputHandler | None = None,
    ) -> Any:
        """Send ``item`` (an ``action_call``) on ``channel`` and return its output.

        Raises ``ActionError``: ``duplicate_call_id``, the runtime's own error,
        ``handler_timeout`` (evidence: ``elapsed_ms``) or ``transport_failed``.
        While the call runs, ``progress`` reaches ``on_progress`` and ``ask`` is
        answered by ``on_input``. Cancelling the awaiting task sends the runtime
        ``action_cancel`` (and re-raises the cancellation).
        """
        call_id, runtime_id, name = item.call_id, item.runtime_id or "", item.name
        if call_id in self._pending:
            raise ActionError(f"call id {call_id!r} is already pending", code=ErrorCode.DUPLICATE_CALL_ID, evidence={"call_id": call_id})
        started = time.monotonic()
        pending = _PendingCall(
            call_id, runtime_id, name, channel, asyncio.get_running_loop().create_future(), on_progress=on_progress, on_input=on_input
        )
        self._pending[call_id] = pending
        self._by_channel.setdefault(channel, set()).add(call_id)
        try:
            try:
                # The timeout covers delivery too: a runtime that stops reading fills the
                # socket buffer and would otherwise hold the send (and the call) forever.
                async with asyncio.timeout(timeout_ms / 1000):
                    try:
                        await channel.send(item)
                    except Exception as exc:
                        raise ActionError(
                            f"could not deliver the call to runtime {runtime_id!r}: {exc}",
                            code=ErrorCode.TRANSPORT_FAILED,
                            evidence={"call_id": call_id, "runtime_id": runtime_id},
                        ) from exc
                    # Shielded: the time running out must not cancel the answer's future, which
                    # still takes the runtime's last word (_last_word).
                    return await asyncio.shield(pending.future)
            except TimeoutError:
                if pending.future.done() and not pending.future.cancelled():
                    # The answer came in the very turn of the loop the time ran out in (a busy loop runs
                    # the timer before the waiting task): the runtime answered in time, so that is the outcome.
                    return pending.future.result()
                # A timed-out call must not go on acting in the page (a click landing during the
                # next call): tell the runtime, as for a cancelled caller (docs/bridge-protocol.md).
                if not channel.closed:
                    self._spawn(self._send_cancel(channel, call_id, runtime_id, TIMED_OUT), f"cancel-{call_id}")
                last_word = await self._last_word(pending, late_ms=(time.monotonic() - started) * 1000 - timeout_ms)
                if last_word is not None:
                    return last_word.result()
                elapsed = int((time.monotonic() - started) * 1000)
                self._remember_expired(call_id, runtime_id, "timed out")
                raise ActionError(
                    f"{name} did not finish within {timeout_ms} ms",
                    code=ErrorCode.HANDLER_TIMEOUT,
                    evidence={"call_id": call_id, "runtime_id": runtime_id, "elapsed_ms": elapsed, "timeout_ms": timeout_ms},
                ) from None
        except asyncio.CancelledError:
            # The caller gave up (an MCP cancellation, say): tell the runtime, and only log its late answer.
            self._remember_expired(call_id, runtime_id, "cancelled")
            if not channel.closed:
                self._spawn(self._send_cancel(channel, call_id, runtime_id, CANCELLED_BY_CALLER), f"cancel-{call_id}")
            raise
        finally:
            self._forget(pending)

    async def _last_word(self, pending: _PendingCall, *, late_ms: float) -> asyncio.Future[Any] | None:
        """The runtime's answer to a call whose time ran out, if it is already on its way; else None.

        An answer the runtime sent before the deadline can still sit unread when the timer fires:
        a loaded event loop reads sockets late, by about as long as it ran the timer late
        (``late_ms``). Reporting such a call as timed out would tell the agent an action that
        happened did not, and it would do it again. So the call waits that long again, plus
        ``LAST_WORD_MIN_MS`` and at most ``LAST_WORD_MAX_MS`` in all, for the answer, already sent
        ``action_cancel``: a runtime that finished says so, one that stopped answers the cancel
        (``handler_timeout`` or ``cancelled``, which end the wait and count as the time-out).
        """
        wait_ms = min(LAST_WORD_MIN_MS + max(late_ms, 0), LAST_WORD_MAX_MS)
        try:
            async with asyncio.timeout(wait_ms / 1000):
                await asyncio.shield(pending.future)
        except TimeoutError:
            return None
        except ActionError as answer:
            if answer.code in (ErrorCode.HANDLER_TIMEOUT, ErrorCode.CANCELLED):
                return None  # the runtime stopped at our cancel: the call timed out
            # Any other error (the runtime's own, the transport failing meanwhile) is the outcome.
        return pending.future

    async def _send_cancel(self, channel: CallChannel, call_id: str, runtime_id: str, reason: str) -> None:
        item = ActionCancel(type="action_cancel", call_id=call_id, runtime_id=runtime_id, reason=reason)
        try:
            await channel.send(item)
        except Exception as exc:
            log.info("could not tell runtime %s that call %s ended (%s): %s", runtime_id, call_id, reason, exc)

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _forget(self, pending: _PendingCall) -> None:
        self._pending.pop(pending.call_id, None)
        self._last_end = time.monotonic()
        for asking in list(pending.asking):
            asking.cancel()  # nobody waits for the answer any more
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

    def _remember_expired(self, call_id: str, runtime_id: str, how: str) -> None:
        self._expired[call_id] = (runtime_id, how)
        while len(self._expired) > EXPIRED_MEMORY:
            self._expired.popitem(last=False)

    def settle(self, channel: CallChannel, call_id: str, *, output: Any = None, error: ActionError | None = None) -> None:
        """End call ``call_id`` with the runtime's output or error.

        Raises ``ActionError`` ``invalid_item`` when no call of that id is pending
        or it went to another channel; a late answer to a timed-out call is
        logged and dropped, as is a late answer to a cancelled call.
        """
        pending = self._pending.get(call_id)
        if pending is not None and pending.future.done() and pending.channel is channel:
            # The call already has its outcome (an answer; the future is shielded, so its time
            # running out or its caller giving up does not set one) and has not left yet: a second
            # answer is late, like any after it.
            log.warning("dropped late answer to call %s from %s (it was ending)", call_id, pending.runtime_id)
            return
        if pending is None or pending.future.done():
            if call_id in self._expired:
                runtime_id, how = self._expired[call_id]
                log.warning("dropped late answer to call %s from %s (it had %s)", call_id, runtime_id, how)
                return
            raise ActionError(f"no pending call has id {call_id!r}", code=ErrorCode.INVALID_ITEM, evidence={"call_id": call_id})
        if pending.channel is not channel:
            raise ActionError(
                f"call {call_id!r} was not sent to this runtime",
                code=ErrorCode.INVALID_ITEM,
                evidence={"call_id": call_id},
            )
        if error is not None:
            if error.code == ErrorCode.HANDLER_TIMEOUT:
                # A runtime that stops a call at its own deadline (the page engine knows it) answers before the
                # bridge's timer fires: that time-out names its call as the bridge's own does, whichever comes first.
                error.evidence.update(call_id=call_id, runtime_id=pending.runtime_id)
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

    # -- call messages -----------------------------------------------------

    def _running(self, channel: CallChannel, call_id: str) -> _PendingCall | None:
        pending = self._pending.get(call_id)
        if pending is None or pending.future.done() or pending.channel is not channel:
            return None
        return pending

    async def progress(self, channel: CallChannel, call_id: str, progress: float, total: float | None, message: str | None) -> None:
        """Hand a running call's ``call_progress`` to its ``on_progress`` (dropped, and logged, when nobody listens)."""
        pending = self._running(channel, call_id)
        if pending is None or pending.on_progress is None:
            log.debug("dropped progress of call %s (not running on this connection, or nobody listens)", call_id)
            return
        try:
            await pending.on_progress(progress, total, message)
        except Exception:
            log.exception("progress listener of call %s failed", call_id)

    def ask(self, channel: CallChannel, call_id: str, request_id: str, request: dict[str, Any]) -> None:
        """Answer a running call's ``input_request`` in the background with an ``input_response`` on ``channel``.

        Raises ``ActionError`` ``invalid_item`` when no call of that id is running on ``channel``.
        """
        pending = self._running(channel, call_id)
        if pending is None:
            raise ActionError(f"no running call {call_id!r} can ask for input", code=ErrorCode.INVALID_ITEM, evidence={"call_id": call_id})
        task = self._spawn(self._answer_input(pending, request_id, request), f"input-{request_id}")
        pending.asking.add(task)
        task.add_done_callback(pending.asking.discard)

    async def _answer_input(self, pending: _PendingCall, request_id: str, request: dict[str, Any]) -> None:
        try:
            if pending.on_input is None:
                raise ActionError(
                    "the caller of this call cannot answer input requests",
                    code=ErrorCode.CAPABILITY_UNAVAILABLE,
                    evidence={"call_id": pending.call_id, "capability": "input"},
                )
            answer: dict[str, Any] = {"response": await pending.on_input(request)}
        except ActionError as exc:
            answer = {"error": error_body(exc)}
        except Exception as exc:
            log.exception("answering input request %s failed", request_id)
            answer = {"error": error_body(ActionError(f"{type(exc).__name__}: {exc}", code=ErrorCode.HANDLER_FAILED))}
        reply = InputResponse(type="input_response", call_id=pending.call_id, request_id=request_id, runtime_id=pending.runtime_id, **answer)
        if pending.channel.closed:
            log.info("input request %s was answered after its runtime %s left", request_id, pending.runtime_id)
            return
        try:
            await pending.channel.send(reply)
        except Exception as exc:
            log.info("could not answer input request %s: %s", request_id, exc)
