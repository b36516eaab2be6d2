"""Runtimes that live in this process and speak bridge items without a socket.

The browser host (one runtime per tab) and the memory runtime subclass
``InProcessRuntime`` and implement ``execute``; the base turns each
``action_call`` into a task whose result or ``ActionError`` becomes exactly
one ``action_call_output`` or ``action_error`` fed back into the bridge.

A call's work ends with the call (docs/bridge-protocol.md, "Deadlines and
cancellation"): the task runs under the call's ``timeout_ms`` (and answers
``handler_timeout`` when it passes), an ``action_cancel`` cancels the task,
and either way ``call_aborted`` lets a host that runs work elsewhere (the
page engine of a tab) stop it there too. The running call's id and deadline
are readable below ``execute`` through ``call_scope.current_call``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from collections.abc import Sequence
from typing import Any

from ..bridge.bridge import Bridge, RuntimeSession, origin_changed
from ..bridge.calls import CANCELLED_BY_CALLER, TIMED_OUT
from ..bridge.envelope import is_envelope
from ..bridge.routing import page_origin
from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from .call_scope import RunningCall, running_call

__all__ = ["InProcessRuntime"]

log = logging.getLogger(__name__)


class _Link:
    """The bridge's side of an in-process runtime: items go straight to ``_deliver``."""

    def __init__(self, runtime: InProcessRuntime) -> None:
        self._runtime = runtime

    async def send(self, item: dict[str, Any]) -> None:
        self._runtime._deliver(item)

    async def close(self, reason: str) -> None:
        self._runtime._closed_by_bridge(reason)


class InProcessRuntime:
    """Base class of runtimes executing calls in this process."""

    transport = "inprocess"
    #: Announced as ``frame: true`` in ``runtime_ready``: a frame inside a page, not a top-level document.
    is_frame = False
    #: The agent session that owns this runtime (a tab of its browser context; bridge/scope.py), None: the operator's.
    agent_session: str | None = None

    def __init__(
        self,
        bridge: Bridge,
        *,
        runtime_id: str,
        url: str,
        runtime_key: str | None = None,
        title: str | None = None,
        capabilities: Sequence[str] = (),
        manifest: dict[str, Any] | None = None,
    ) -> None:
        self.bridge = bridge
        self.runtime_id = runtime_id
        self.url = url
        self.runtime_key = runtime_key
        self.title = title
        self.capabilities = tuple(capabilities)
        self.manifest = manifest
        self.session: RuntimeSession | None = None
        self.received: list[dict[str, Any]] = []  # bridge → runtime items other than calls (config, errors)
        self._tasks: set[asyncio.Task[None]] = set()
        # Running calls by call id (an action_cancel names one), and why a cancelled one was cancelled.
        self._calls: dict[str, asyncio.Task[None]] = {}
        self._cancelled: dict[str, str] = {}

    @property
    def connected(self) -> bool:
        """True between ``start`` and ``stop`` (or the bridge dropping us)."""
        return self._live() is not None

    def _live(self) -> RuntimeSession | None:
        """The session, while it is open."""
        session = self.session
        return session if session is not None and not session.closed else None

    async def start(self) -> None:
        """Connect to the bridge and announce this runtime."""
        # A runtime of this process: its identity is the server's own, and no connection can take it (docs/bridge-protocol.md).
        self.session = self.bridge.connect(_Link(self), transport=self.transport, trust="host", agent_session=self.agent_session)
        ready: dict[str, Any] = {
            "type": "runtime_ready",
            "runtime_id": self.runtime_id,
            "url": self.url,
            "capabilities": list(self.capabilities),
        }
        host = getattr(self, "host_kind", None)  # named in capability refusals, by us and by the bridge
        if isinstance(host, str):
            ready["host"] = host
        for key in ("runtime_key", "title", "manifest"):
            if getattr(self, key) is not None:
                ready[key] = getattr(self, key)
        if self.is_frame:
            ready["frame"] = True
        await self.session.receive(ready)

    async def report(self, *, url: str | None = None, title: str | None = None, states: Sequence[str] | None = None) -> None:
        """Send a ``runtime_status`` (url and title after a navigation, states after diagnosis)."""
        if url is not None:
            self.url = url
        if title is not None:
            self.title = title
        session = self._live()
        if session is not None:
            status: dict[str, Any] = {"type": "runtime_status", "runtime_id": self.runtime_id, "url": self.url}
            if self.title is not None:
                status["title"] = self.title
            if states is not None:
                status["states"] = list(states)
            await session.receive(status)

    async def emit(self, item: dict[str, Any]) -> None:
        """Send any runtime → bridge item (a ``dom_event``, say)."""
        session = self._live()
        if session is not None:
            await session.receive(item)

    def live_url(self) -> str:
        """The URL this runtime shows right now (a host that knows better than its last report says so)."""
        return self.url

    async def execute(self, name: str, arguments: dict[str, Any], handler: str | None) -> Any:
        """Run one primitive (or the page handler ``handler``); return its output or raise ``ActionError``."""
        raise ActionError(f"{type(self).__name__} cannot run {name}", code=ErrorCode.UNKNOWN_ACTION)

    async def stop(self, reason: str = "closed") -> None:
        """Disconnect: pending calls fail at once with ``transport_failed``; running work is cancelled."""
        session, self.session = self.session, None
        if session is not None:
            await session.close(reason)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def is_running(self, call_id: Any) -> bool:
        """True while the call ``call_id`` has a task running here."""
        task = self._calls.get(call_id) if isinstance(call_id, str) else None
        return task is not None and not task.done()

    def call_aborted(self, call_id: str, reason: str) -> None:
        """The call ``call_id`` was cancelled or ran out of time here (its task is ending).

        Its Python work stops with its task; a host whose work also runs elsewhere (a page
        engine's waits) overrides this to stop it there too. ``reason`` is the bridge's
        (``"timed out"`` for the deadline).
        """

    def _deliver(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "action_cancel":
            self.received.append(item)
            self._cancel_call(item)
            return
        if kind != "action_call":
            self.received.append(item)
            return
        call_id = item.get("call_id")
        task = asyncio.create_task(self._run_call(item), name=f"{self.runtime_id}:{call_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if isinstance(call_id, str):
            self._calls[call_id] = task
            task.add_done_callback(lambda done: self._calls.pop(call_id, None) if self._calls.get(call_id) is done else None)

    def _cancel_call(self, item: dict[str, Any]) -> None:
        """An ``action_cancel``: the call's task is cancelled, so nothing more of it happens here."""
        call_id, reason = item.get("call_id"), item.get("reason")
        if not isinstance(call_id, str) or not self.is_running(call_id):
            log.debug("action_cancel for call %s found nothing running in %s", call_id, self.runtime_id)
            return
        task = self._calls[call_id]
        why = reason if isinstance(reason, str) and reason else CANCELLED_BY_CALLER
        self._cancelled[call_id] = why
        task.cancel()
        self.call_aborted(call_id, why)

    @staticmethod
    def _deadline_of(item: dict[str, Any]) -> Deadline | None:
        timeout_ms = item.get("timeout_ms")
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, (int, float)) or timeout_ms < 0:
            return None
        return Deadline.after_ms(int(timeout_ms))

    async def _run_call(self, item: dict[str, Any]) -> None:
        call_id = item["call_id"]
        name = item.get("handler") or item.get("name")
        deadline = self._deadline_of(item)
        # This task's own copy of the context: the engine calls below read the call from it.
        running_call.set(RunningCall(call_id, deadline))
        reply: dict[str, Any]
        try:
            judged = item.get("origin")
            shown = page_origin(self.live_url()) if isinstance(judged, str) else None
            if isinstance(judged, str) and shown != judged:
                # Judged for another page than the one this runtime shows now (it navigated since its
                # last report): refused before anything acts (docs/bridge-protocol.md, action_call).
                raise origin_changed(self.runtime_id, judged, shown)
            try:
                async with asyncio.timeout(None if deadline is None else max(deadline.seconds_left, 0)) as scope:
                    output = await self.execute(item["name"], item.get("arguments") or {}, item.get("handler"))
            except TimeoutError:
                if deadline is None or not scope.expired():
                    raise  # the work's own TimeoutError: a failure like any other
                # The bridge has answered handler_timeout already; stop what still runs elsewhere.
                self.call_aborted(call_id, TIMED_OUT)
                raise ActionError(
                    f"{name} did not finish within {deadline.timeout_ms} ms",
                    code=ErrorCode.HANDLER_TIMEOUT,
                    evidence={"call_id": call_id, "runtime_id": self.runtime_id, "timeout_ms": deadline.timeout_ms},
                ) from None
            if is_envelope(output):
                # A value shaped like the protocol's {ok, result} envelope travels inside a real one,
                # or the bridge would unwrap it (docs/bridge-protocol.md, action_call_output).
                output = {"ok": True, "result": output}
            reply = {"type": "action_call_output", "call_id": call_id, "runtime_id": self.runtime_id, "output": output}
        except ActionError as exc:
            reply = {"type": "action_error", "call_id": call_id, "runtime_id": self.runtime_id, "error": exc.to_error()}
        except asyncio.CancelledError:
            why = self._cancelled.pop(call_id, None)
            if why is None:
                raise  # the runtime is stopping: nothing to answer
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()  # handled: the answer below still needs to be sent
            # The bridge cancels a call whose time ran out as well as one whose caller gave up.
            code = ErrorCode.HANDLER_TIMEOUT if why == TIMED_OUT else ErrorCode.CANCELLED
            error = ActionError(f"{name} ended early: {why}", code=code, evidence={"call_id": call_id, "reason": why})
            reply = {"type": "action_error", "call_id": call_id, "runtime_id": self.runtime_id, "error": error.to_error()}
        except Exception as exc:
            # A bug. Its message may quote the call's arguments (a password typed): the caller reads
            # it in the answer below; the log, which also reaches the host as notifications, gets
            # where it happened and the exception's type only (docs/threat-model.md).
            where = "".join(traceback.format_tb(exc.__traceback__)).rstrip()
            log.error("runtime %s failed running %s: %s (its message is in the call's answer)\n%s", self.runtime_id, item.get("name"), type(exc).__name__, where)
            error = ActionError(f"{type(exc).__name__}: {exc}", code=ErrorCode.HANDLER_FAILED)
            reply = {"type": "action_error", "call_id": call_id, "runtime_id": self.runtime_id, "error": error.to_error()}
        session = self._live()
        if session is not None:
            await session.receive(reply)

    def _closed_by_bridge(self, reason: str) -> None:
        log.info("bridge closed runtime %s: %s", self.runtime_id, reason)
        self.session = None
        for task in list(self._tasks):
            task.cancel()
