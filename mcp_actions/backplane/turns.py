"""A tab's turn across replicas: the replica holding the runtime's socket keeps the one queue of its turn.

One acting call per tab at a time (``dispatch/call/tab_turns.py``) must hold for
calls arriving at different replicas too, or two of them would interleave
their keystrokes in one page. The turn of a mirrored runtime is therefore
taken on the replica that holds it (``RemoteTurns``, set as
``TabTurns.elsewhere``): a request to its ``turn`` subject queues the caller
there like any local call (``TurnServer``), the grant comes back on the
caller's ``ev`` subject, and the caller's release (``ctl``) hands the turn on.
The caller holds it for its whole tool call, as a local caller would.

Nothing is left held: a lease ends when its caller releases it, when its
caller's deadline (and a grace) is over, when the caller's replica dies or
NATS goes away; a caller whose holder dies gets ``transport_failed`` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator
from typing import Any

from ..deadline import Deadline
from ..dispatch.call.tab_turns import TabTurns
from ..errors import ActionError, ErrorCode
from .remote import TAKE_TIMEOUT_S, ReplicaLink

__all__ = ["LEASE_GRACE_S", "RemoteTurns", "TurnServer"]

log = logging.getLogger(__name__)

#: A lease outlives its caller's deadline by this much at most (a release lost with NATS, say).
LEASE_GRACE_S = 5.0


class RemoteTurns:
    """The caller side: turns of runtimes other replicas hold (``TabTurns.elsewhere``)."""

    def __init__(self, link: ReplicaLink) -> None:
        self.link = link
        self._ids = itertools.count(1)
        self._leases: dict[str, tuple[str, asyncio.Future[None]]] = {}

    def turn_for(self, runtime_id: str, *, acts: bool, tool: str, deadline: Deadline) -> contextlib.AbstractAsyncContextManager[None] | None:
        """The turn of a mirrored runtime, taken on its replica; None for a runtime of this process."""
        if not self.link.bridge.is_mirror(runtime_id):
            return None
        info = self.link.bridge.registry.get(runtime_id)
        if info is None or info.replica is None:
            return None
        return self._lease(info.replica, runtime_id, acts, tool, deadline)

    def replicas_in_use(self) -> set[str]:
        """Replicas holding or queueing a turn for this one (watched: their death ends the lease)."""
        return {replica for replica, _ in self._leases.values()}

    @contextlib.asynccontextmanager
    async def _lease(self, replica: str, runtime_id: str, acts: bool, tool: str, deadline: Deadline) -> AsyncIterator[None]:
        lease = f"{self.link.replica_id}-turn-{next(self._ids)}"
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._leases[lease] = (replica, granted)
        try:
            ask = {"caller": self.link.replica_id, "lease": lease, "runtime_id": runtime_id, "acts": acts, "tool": tool, "timeout_ms": max(deadline.remaining_ms(), 1)}
            try:
                reply = await self.link.request(self.link.subjects.replica(replica, "turn"), ask, TAKE_TIMEOUT_S)
            except Exception as exc:
                raise ActionError(
                    f"the turn of tab {runtime_id!r} could not be asked of replica {replica}: {exc}",
                    code=ErrorCode.TRANSPORT_FAILED,
                    evidence={"runtime_id": runtime_id, "replica": replica},
                ) from exc
            if not reply.get("taken"):
                error = reply.get("error")
                raise ActionError.from_error(error if isinstance(error, dict) else {"code": ErrorCode.TRANSPORT_FAILED, "message": "the replica did not queue the turn"})
            try:
                # The holder answers handler_timeout itself when the deadline passes in its queue.
                async with asyncio.timeout(max(deadline.seconds_left, 0) + TAKE_TIMEOUT_S):
                    await granted
            except TimeoutError:
                raise ActionError(
                    f"{tool}: replica {replica} did not grant the turn of tab {runtime_id!r} in time",
                    code=ErrorCode.HANDLER_TIMEOUT,
                    evidence={"phase": "waiting_for_tab", "runtime_id": runtime_id, "timeout_ms": deadline.timeout_ms},
                ) from None
            yield
        finally:
            self._leases.pop(lease, None)
            with contextlib.suppress(Exception):
                await self.link.publish(self.link.subjects.replica(replica, "ctl"), {"kind": "release", "lease": lease})

    def heard(self, message: dict[str, Any]) -> None:
        """A holder granted a turn, or refused it (``error``)."""
        entry = self._leases.get(str(message.get("lease")))
        if entry is None or entry[1].done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            entry[1].set_exception(ActionError.from_error(error))
        else:
            entry[1].set_result(None)

    def fail_replica(self, replica: str, reason: str) -> None:
        """A holder is gone: turns waited for there end now with ``transport_failed``."""
        for lease, (holder, granted) in list(self._leases.items()):
            if holder == replica and not granted.done():
                granted.set_exception(ActionError(f"replica {replica} is gone: {reason}", code=ErrorCode.TRANSPORT_FAILED, evidence={"lease": lease, "replica": replica}))


class TurnServer:
    """The holder side: other replicas' callers queue for the turns of the tabs this replica holds."""

    def __init__(self, link: ReplicaLink, turns: TabTurns) -> None:
        self.link = link
        self.turns = turns
        self._leases: dict[str, tuple[str, asyncio.Task[None], asyncio.Event]] = {}

    def callers(self) -> set[str]:
        """Replicas holding or queueing turns here."""
        return {caller for caller, _, _ in self._leases.values()}

    def take(self, message: dict[str, Any]) -> dict[str, Any]:
        """Queue a caller of another replica for a tab's turn; the grant follows on its ``ev`` subject."""
        caller, lease, runtime_id = message.get("caller"), message.get("lease"), message.get("runtime_id")
        timeout_ms = message.get("timeout_ms")
        if not (isinstance(caller, str) and isinstance(lease, str) and isinstance(runtime_id, str) and isinstance(timeout_ms, int)):
            return {"taken": False, "error": {"code": ErrorCode.INVALID_ITEM, "message": "not a turn request"}}
        if not self.link.bridge.holds(runtime_id):
            error = ActionError(f"runtime {runtime_id!r} is no longer connected to this replica", code=ErrorCode.TRANSPORT_FAILED, evidence={"runtime_id": runtime_id})
            return {"taken": False, "error": error.to_error()}
        release = asyncio.Event()
        acts, tool = bool(message.get("acts")), str(message.get("tool") or "a call")
        task = asyncio.get_running_loop().create_task(self._hold(caller, lease, runtime_id, acts, tool, timeout_ms, release), name=f"backplane-turn-{lease}")
        self._leases[lease] = (caller, task, release)
        task.add_done_callback(lambda _: self._leases.pop(lease, None))
        return {"taken": True}

    async def _hold(self, caller: str, lease: str, runtime_id: str, acts: bool, tool: str, timeout_ms: int, release: asyncio.Event) -> None:
        events = self.link.subjects.replica(caller, "ev")
        deadline = Deadline.after_ms(timeout_ms)
        try:
            async with self.turns.turn(runtime_id, acts=acts, tool=f"{tool} (via replica {caller})", deadline=deadline):
                await self.link.publish(events, {"kind": "turn", "lease": lease})
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout_ms / 1000 + LEASE_GRACE_S):
                        await release.wait()
        except ActionError as exc:
            with contextlib.suppress(Exception):
                await self.link.publish(events, {"kind": "turn", "lease": lease, "error": exc.to_error()})
        except Exception:
            log.exception("holding turn %s for replica %s failed", lease, caller)

    def release(self, message: dict[str, Any]) -> None:
        """A caller is done with a turn (or gave up waiting for it)."""
        held = self._leases.get(str(message.get("lease")))
        if held is not None:
            held[2].set()
            held[1].cancel()  # still queued: leave the queue; holding: hand the turn on

    def cancel_from(self, caller: str) -> None:
        """A caller replica is gone: its turns are handed on."""
        for owner, task, _ in list(self._leases.values()):
            if owner == caller:
                task.cancel()

    def cancel_all(self) -> None:
        """The backplane is gone: no caller can release what it holds."""
        for _, task, _ in list(self._leases.values()):
            task.cancel()
