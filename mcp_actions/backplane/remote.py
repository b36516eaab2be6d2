"""Calls across replicas: forwarded to the replica holding the runtime's socket, answered back to the caller's.

Caller side (``RemoteCalls``): each mirrored runtime has a ``RemoteChannel``,
the ``CallChannel`` the bridge's call tracker sends on. Its ``action_call`` is
a NATS request to the holder's ``call`` subject; the reply only says the call
was taken (or why not: the runtime left there), so a holder that is gone is
known at once (NATS has no responder for it). Cancellation and input answers
go to the holder's ``ctl`` subject. The call's progress, input requests and
outcome come back on this replica's ``ev`` subject and are handed to the
tracker as a local runtime's would be, so every guarantee of ``bridge/calls.py``
holds: one outcome per call, answers accepted only for a call sent on that
channel, ``transport_failed`` at once when the holder dies (``fail_replica``).

Holder side (``CallServer``): a call taken runs through this replica's own
``Bridge.call`` on the local runtime, with the caller's call id, time limit and
origin; its progress and input requests are published to the caller, and a
cancel from the caller cancels it (which sends the runtime ``action_cancel``).
Policy and confirmation were decided on the caller's replica, where the MCP
request landed; the holder only runs what was allowed.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..bridge.bridge import Bridge
from ..bridge.items import ActionCall, ActionCancel, InputResponse, OutgoingItem
from ..errors import ActionError, ErrorCode
from .wire import Subjects, encode

__all__ = ["CallServer", "RemoteCalls", "RemoteChannel", "ReplicaLink"]

log = logging.getLogger(__name__)

#: How long the holder has to say it took a call.
TAKE_TIMEOUT_S = 2.0

#: Sends one request and returns the reply (raises when nobody answers); the backplane seals and opens both.
Request = Callable[[str, dict[str, Any], float], Awaitable[dict[str, Any]]]
#: Publishes one message (sealed by the backplane).
Publish = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class ReplicaLink:
    """What each side of a forwarded call or turn holds: this replica's bridge and id, the cluster's subjects, NATS."""

    bridge: Bridge
    subjects: Subjects
    replica_id: str
    request: Request
    publish: Publish


class RemoteChannel:
    """Where calls for one runtime another replica holds are sent (compared by identity, like a connection)."""

    def __init__(self, calls: RemoteCalls, replica: str, runtime_id: str) -> None:
        self.calls = calls
        self.replica = replica
        self.runtime_id = runtime_id
        self.gone = False

    @property
    def closed(self) -> bool:
        """True once the runtime's replica is gone (nothing more is sent)."""
        return self.gone

    async def send(self, item: OutgoingItem) -> None:
        """Forward one item to the replica holding the runtime."""
        await self.calls.send(self, item)


class RemoteCalls:
    """The caller side: channels to other replicas' runtimes, and what comes back for the calls sent on them."""

    def __init__(self, link: ReplicaLink) -> None:
        self.link = link
        self._channels: dict[tuple[str, str], RemoteChannel] = {}
        self._by_call: dict[str, RemoteChannel] = {}

    def channel_for(self, replica: str, runtime_id: str) -> RemoteChannel:
        """The channel to ``runtime_id`` on ``replica`` (the same object while that replica holds it)."""
        key = (replica, runtime_id)
        channel = self._channels.get(key)
        if channel is None or channel.gone:
            channel = self._channels[key] = RemoteChannel(self, replica, runtime_id)
        return channel

    #: Calls another replica took from here since the start (``/metrics``' routed calls, ``sent``).
    sent_total = 0

    @property
    def in_flight(self) -> int:
        """Calls sent to other replicas and not yet answered."""
        return len(self._by_call)

    def replicas_in_use(self) -> set[str]:
        """Replicas running calls sent from here (watched closely: their death fails those calls)."""
        return {channel.replica for channel in self._by_call.values()}

    async def send(self, channel: RemoteChannel, item: OutgoingItem) -> None:
        """Forward a call, a cancel or an input answer; a refused call is settled with the holder's reason."""
        if channel.gone:
            raise ActionError(f"replica {channel.replica} is gone", code=ErrorCode.TRANSPORT_FAILED)
        if isinstance(item, ActionCall):
            self._by_call[item.call_id] = channel
            try:
                reply = await self.link.request(self.link.subjects.replica(channel.replica, "call"), {"caller": self.link.replica_id, "call": item.dump()}, TAKE_TIMEOUT_S)
            except BaseException:
                self._by_call.pop(item.call_id, None)
                raise
            if not reply.get("taken"):
                self._by_call.pop(item.call_id, None)
                error = _error_of(reply, {"code": ErrorCode.TRANSPORT_FAILED, "message": "the replica did not take the call"})
                self.link.bridge.calls.settle(channel, item.call_id, error=ActionError.from_error(error))
            else:
                self.sent_total += 1
            return
        if isinstance(item, ActionCancel):
            self._by_call.pop(item.call_id, None)
            await self.link.publish(self.link.subjects.replica(channel.replica, "ctl"), {"kind": "cancel", "call_id": item.call_id, "reason": item.reason})
        elif isinstance(item, InputResponse):
            await self.link.publish(self.link.subjects.replica(channel.replica, "ctl"), {"kind": "input", **item.dump()})

    async def on_event(self, message: dict[str, Any]) -> None:
        """A running call's progress, input request or outcome, from the replica running it."""
        call_id = message.get("call_id")
        channel = self._by_call.get(call_id) if isinstance(call_id, str) else None
        if channel is None or not isinstance(call_id, str):
            log.debug("dropped a backplane event for call %r, which is not waiting here", call_id)
            return
        kind = message.get("kind")
        calls = self.link.bridge.calls
        try:
            if kind == "output":
                self._by_call.pop(call_id, None)
                calls.settle(channel, call_id, output=message.get("output"))
            elif kind == "error":
                self._by_call.pop(call_id, None)
                error = _error_of(message, {"code": ErrorCode.HANDLER_FAILED, "message": "the replica running the call sent no error"})
                calls.settle(channel, call_id, error=ActionError.from_error(error))
            elif kind == "progress":
                await calls.progress(channel, call_id, float(message.get("progress") or 0), message.get("total"), message.get("message"))
            elif kind == "input":
                calls.ask(channel, call_id, str(message.get("request_id")), dict(message.get("request") or {}))
        except ActionError as exc:  # an answer to a call that ended meanwhile
            log.info("backplane event for call %s not taken: %s", call_id, exc.message)

    def fail_replica(self, replica: str, reason: str) -> None:
        """A replica is gone: every call sent to it fails now with ``transport_failed``, and its channels close."""
        for key, channel in list(self._channels.items()):
            if key[0] != replica:
                continue
            channel.gone = True
            del self._channels[key]
            self.link.bridge.calls.fail_channel(channel, reason)
        for call_id, channel in list(self._by_call.items()):
            if channel.replica == replica:
                del self._by_call[call_id]

    def sweep(self) -> None:
        """Forget calls the tracker no longer waits for (ended by their time limit or their caller)."""
        for call_id in [c for c in self._by_call if not self.link.bridge.calls.is_pending(c)]:
            del self._by_call[call_id]


def _error_of(message: dict[str, Any], default: dict[str, Any]) -> dict[str, Any]:
    error = message.get("error")
    return error if isinstance(error, dict) else default


class CallServer:
    """The holder side: calls other replicas forward to the runtimes this replica holds."""

    def __init__(self, link: ReplicaLink) -> None:
        self.link = link
        self._running: dict[str, tuple[str, asyncio.Task[None]]] = {}
        self._asks: dict[tuple[str, str], asyncio.Future[Any]] = {}
        self._ask_ids = itertools.count(1)
        #: Calls taken from other replicas since the start (``/metrics``' routed calls, ``taken``).
        self.taken_total = 0

    @property
    def running(self) -> int:
        """Calls from other replicas running here now."""
        return len(self._running)

    def callers(self) -> set[str]:
        """Replicas whose calls run here (if one dies, its calls are cancelled)."""
        return {caller for caller, _ in self._running.values()}

    def take(self, message: dict[str, Any]) -> dict[str, Any]:
        """Take a forwarded call and start it; the reply says it was taken, or why not."""
        caller = message.get("caller")
        try:
            item = ActionCall.model_validate(message.get("call"))
        except ValidationError as exc:
            return {"taken": False, "error": {"code": ErrorCode.INVALID_ITEM, "message": f"not an action_call: {exc.errors()[0]['msg']}"}}
        runtime_id = item.runtime_id or ""
        if not isinstance(caller, str) or not self.link.bridge.holds(runtime_id):
            # It left this replica after the caller's directory was written: the caller's call fails as a dropped connection does.
            error = ActionError(f"runtime {runtime_id!r} is no longer connected to this replica", code=ErrorCode.TRANSPORT_FAILED, evidence={"runtime_id": runtime_id, "call_id": item.call_id})
            return {"taken": False, "error": error.to_error()}
        if item.call_id in self._running:
            error = ActionError(f"call id {item.call_id!r} is already running", code=ErrorCode.DUPLICATE_CALL_ID, evidence={"call_id": item.call_id})
            return {"taken": False, "error": error.to_error()}
        task = asyncio.get_running_loop().create_task(self._run(caller, item), name=f"backplane-call-{item.call_id}")
        self._running[item.call_id] = (caller, task)
        self.taken_total += 1
        task.add_done_callback(lambda _: self._running.pop(item.call_id, None))
        return {"taken": True}

    async def _run(self, caller: str, item: ActionCall) -> None:
        events = self.link.subjects.replica(caller, "ev")
        call_id = item.call_id

        async def progress(done: float, total: float | None, message: str | None) -> None:
            await self.link.publish(events, {"kind": "progress", "call_id": call_id, "progress": done, "total": total, "message": message})

        async def ask(request: dict[str, Any]) -> Any:
            request_id = f"{call_id}-ask-{next(self._ask_ids)}"
            answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._asks[(call_id, request_id)] = answer
            try:
                await self.link.publish(events, {"kind": "input", "call_id": call_id, "request_id": request_id, "request": request})
                return await answer
            finally:
                self._asks.pop((call_id, request_id), None)

        try:
            output = await self.link.bridge.call(
                item.name,
                item.arguments,
                runtime_id=item.runtime_id,
                handler=item.handler,
                timeout_ms=item.timeout_ms,
                call_id=call_id,
                on_progress=progress,
                on_input=ask,
                origin=item.origin,
            )
            outcome: dict[str, Any] = {"kind": "output", "call_id": call_id, "output": output}
        except ActionError as exc:
            outcome = {"kind": "error", "call_id": call_id, "error": exc.to_error()}
        except Exception as exc:  # a bug here must still end the caller's call, once
            log.exception("running forwarded call %s failed", call_id)
            outcome = {"kind": "error", "call_id": call_id, "error": ActionError(f"{type(exc).__name__} on the replica running the call", code=ErrorCode.INTERNAL_ERROR).to_error()}
        try:
            await self.link.publish(events, outcome)
        except Exception as exc:
            size = len(encode(outcome))
            # Too big for a NATS message (its max_payload), say: the caller still gets one outcome, now.
            log.warning("could not send the outcome of call %s back to replica %s: %s", call_id, caller, exc)
            failure = ActionError(
                f"the answer of call {call_id} ({size} bytes) could not cross the backplane: {type(exc).__name__}",
                code=ErrorCode.TRANSPORT_FAILED,
                evidence={"call_id": call_id, "bytes": size, "reason": "backplane_message"},
            )
            try:
                await self.link.publish(events, {"kind": "error", "call_id": call_id, "error": failure.to_error()})
            except Exception as again:
                log.warning("could not tell replica %s that call %s failed: %s", caller, call_id, again)

    def control(self, message: dict[str, Any]) -> None:
        """A caller's cancel or input answer for a call running here."""
        call_id = message.get("call_id")
        if not isinstance(call_id, str):
            return
        if message.get("kind") == "cancel":
            running = self._running.get(call_id)
            if running is not None:
                running[1].cancel()  # Bridge.call sends the runtime action_cancel
        elif message.get("kind") == "input":
            answer = self._asks.get((call_id, str(message.get("request_id"))))
            if answer is None or answer.done():
                return
            if isinstance(message.get("error"), dict):
                answer.set_exception(ActionError.from_error(message["error"]))
            else:
                answer.set_result(message.get("response"))

    def cancel_from(self, caller: str) -> None:
        """A caller replica is gone: nobody waits for its calls, so they stop."""
        for owner, task in list(self._running.values()):
            if owner == caller:
                task.cancel()

    def cancel_all(self) -> None:
        """The backplane is gone: no caller can hear any answer."""
        for _, task in list(self._running.values()):
            task.cancel()
