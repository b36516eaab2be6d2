"""The bridge: runtimes connect, every call reaches exactly one, every call ends once.

A runtime connects through any transport by handing the bridge a
``RuntimeLink`` and feeding what it receives into the returned
``RuntimeSession``. The bridge routes each call to one runtime, correlates the
answer by ``call_id``, and guarantees exactly one terminal outcome per call:
the runtime's output or error, ``handler_timeout`` when time runs out, or
``transport_failed`` the moment the connection drops. Nothing is left pending.

Observers (the MCP layer) subscribe with ``add_listener`` to hear about
runtimes arriving, changing and leaving, and about accepted page events.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ActionError, ErrorCode
from .items import (
    DEFAULT_MAX_ITEM_BYTES,
    ActionCall,
    ActionCallOutput,
    ActionErrorItem,
    DomEvent,
    RuntimeReady,
    RuntimeStatus,
    parse_item,
)
from .page_tools import parse_page_tools
from .registry import RuntimeInfo, RuntimeRegistry
from .routing import Route, select_runtime
from .signals import DEFAULT_MAX_EVENT_BYTES, SignalSource, SignalSpec, accept_event

__all__ = [
    "DEFAULT_STALE_AFTER_S",
    "DEFAULT_TIMEOUT_MS",
    "Bridge",
    "BridgeListener",
    "RuntimeLink",
    "RuntimeSession",
]

log = logging.getLogger(__name__)

#: Timeout of a call that does not set ``timeout_ms``.
DEFAULT_TIMEOUT_MS = 30_000
#: A heartbeating runtime silent for this long is retired. The page runtime beats every 15 s,
#: but browsers throttle timers in hidden tabs to about once a minute, so allow two such minutes.
DEFAULT_STALE_AFTER_S = 120.0
#: Transports whose runtimes are expected to heartbeat (in-process runtimes are not).
HEARTBEAT_TRANSPORTS = frozenset({"websocket"})
#: How many timed-out call ids are remembered, to log (not answer) late outputs.
_EXPIRED_MEMORY = 4096


class RuntimeLink(Protocol):
    """The bridge's handle on one runtime's transport."""

    async def send(self, item: dict[str, Any]) -> None:
        """Deliver one bridge → runtime item; raise when the transport cannot."""

    async def close(self, reason: str) -> None:
        """Drop the connection (replaced, stale, shutting down)."""


#: ``listener(kind, runtime, detail)`` with kind in ready, updated, gone, event.
BridgeListener = Callable[[str, RuntimeInfo, Mapping[str, Any]], None]


@dataclass
class _PendingCall:
    call_id: str
    runtime_id: str
    name: str
    session: RuntimeSession
    started: float
    future: asyncio.Future[Any] = field(repr=False)


class RuntimeSession:
    """One runtime connection: feed it what the runtime sends, close it when it drops."""

    def __init__(self, bridge: Bridge, link: RuntimeLink, transport: str) -> None:
        self.bridge = bridge
        self.link = link
        self.transport = transport
        self.runtime_id: str | None = None
        self.closed = False
        # Ids the runtime may use for itself beside its registered id (a reconnect that kept the key).
        self._aliases: set[str] = set()
        self._pending: set[str] = set()
        self._send_lock = asyncio.Lock()

    async def send(self, item: dict[str, Any]) -> None:
        """Send one item; the lock keeps items in order on this connection."""
        async with self._send_lock:
            await self.link.send(item)

    async def receive(self, frame: str | bytes | dict[str, Any]) -> None:
        """Handle one item from the runtime. Never raises for bad input: it answers it."""
        if self.closed:
            return
        try:
            item = parse_item(frame, max_bytes=self.bridge.max_item_bytes)
            await self._dispatch(item)
        except ActionError as exc:
            await self._refuse(exc)

    async def _refuse(self, exc: ActionError) -> None:
        log.warning("refused item from %s: %s (%s)", self.runtime_id or "unannounced runtime", exc.message, exc.code)
        reply: dict[str, Any] = {"type": "action_error", "error": exc.to_error()}
        call_id = exc.evidence.get("call_id")
        if isinstance(call_id, str):
            reply["call_id"] = call_id
        if self.runtime_id:
            reply["runtime_id"] = self.runtime_id
        with contextlib.suppress(Exception):
            await self.send(reply)

    def _check_runtime_id(self, runtime_id: str | None) -> None:
        if runtime_id is not None and runtime_id != self.runtime_id and runtime_id not in self._aliases:
            raise ActionError(
                f"item names runtime {runtime_id!r} but this connection is {self.runtime_id!r}",
                code=ErrorCode.INVALID_ITEM,
                evidence={"runtime_id": runtime_id},
            )

    async def _dispatch(self, item: Any) -> None:
        if isinstance(item, RuntimeReady):
            await self.bridge._on_ready(self, item)
            return
        if self.runtime_id is None:
            raise ActionError(
                "send runtime_ready before any other item",
                code=ErrorCode.RUNTIME_NOT_READY,
                evidence={"type": item.type, "call_id": getattr(item, "call_id", None)},
            )
        info = self.bridge.registry.get(self.runtime_id)
        if info is None:  # retired while the frame was in flight
            return
        info.last_seen = time.monotonic()
        self._check_runtime_id(getattr(item, "runtime_id", None))
        if isinstance(item, RuntimeStatus):
            self.bridge._on_status(info, item)
        elif isinstance(item, ActionCallOutput):
            self.bridge._settle(self, item.call_id, output=item.output)
        elif isinstance(item, ActionErrorItem):
            if item.call_id:
                self.bridge._settle(self, item.call_id, error=ActionError.from_error(item.error.model_dump()))
            else:
                log.warning("runtime %s reported: %s %s", self.runtime_id, item.error.code, item.error.message)
        elif isinstance(item, DomEvent):
            self.bridge._on_event(info, item)
        elif isinstance(item, ActionCall):
            raise ActionError(
                "action_call travels from the bridge to runtimes only",
                code=ErrorCode.INVALID_ITEM,
                evidence={"type": "action_call", "call_id": item.call_id},
            )

    async def close(self, reason: str = "disconnected") -> None:
        """The transport is gone: fail this connection's pending calls at once and deregister it."""
        if self.closed:
            return
        self.closed = True
        self.bridge._on_closed(self, reason)


class Bridge:
    """Routes calls to connected runtimes and correlates their answers."""

    def __init__(
        self,
        *,
        default_timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_item_bytes: int = DEFAULT_MAX_ITEM_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        stale_after_s: float = DEFAULT_STALE_AFTER_S,
        signal_source: SignalSource | None = None,
    ) -> None:
        self.default_timeout_ms = default_timeout_ms
        self.max_item_bytes = max_item_bytes
        self.max_event_bytes = max_event_bytes
        self.stale_after_s = stale_after_s
        self.signal_source = signal_source
        self.registry = RuntimeRegistry()
        self._sessions: dict[str, RuntimeSession] = {}
        self._pending: dict[str, _PendingCall] = {}
        self._expired: OrderedDict[str, float] = OrderedDict()
        self._listeners: list[BridgeListener] = []
        self._ids = itertools.count(1)
        self._id_prefix = os.urandom(3).hex()
        self._sweeper: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Start retiring stale runtimes in the background."""
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_forever(), name="bridge-stale-sweeper")

    async def stop(self) -> None:
        """Close every connection; their pending calls fail with ``transport_failed``."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):
                await session.link.close("bridge stopping")
            await session.close("bridge stopping")

    def connect(self, link: RuntimeLink, *, transport: str) -> RuntimeSession:
        """Accept a new connection; it becomes a runtime once it sends ``runtime_ready``."""
        return RuntimeSession(self, link, transport)

    def add_listener(self, listener: BridgeListener) -> None:
        """Hear about runtimes arriving (ready), changing (updated), leaving (gone), and events."""
        self._listeners.append(listener)

    def remove_listener(self, listener: BridgeListener) -> None:
        """Stop hearing about runtime changes."""
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    @property
    def pending_count(self) -> int:
        """Calls sent and not yet ended (for tests, benchmarks and the status page)."""
        return len(self._pending)

    @property
    def session_count(self) -> int:
        """Connections that have announced a runtime."""
        return len(self._sessions)

    # -- calls -------------------------------------------------------------

    def resolve(self, route: Route) -> RuntimeInfo:
        """The one runtime ``route`` designates; raises ``runtime_not_found`` / ``ambiguous_runtime``."""
        if route.runtime_id and not (route.runtime_key or route.url_contains or route.title_contains):
            # An exact id (which beats a surface) is a dict lookup, not a scan of every runtime.
            info = self.registry.get(route.runtime_id)
            if info is not None:
                return info
        return select_runtime(self.registry.list(), route, active_id=self.registry.active_id)

    def new_call_id(self) -> str:
        """A fresh call id, unique within this bridge's life."""
        return f"call-{self._id_prefix}-{next(self._ids)}"

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        route: Route | None = None,
        runtime_id: str | None = None,
        handler: str | None = None,
        timeout_ms: int | None = None,
        call_id: str | None = None,
    ) -> Any:
        """Run ``name`` on exactly one runtime and return its output.

        Raises ``ActionError``: routing errors, the runtime's own error,
        ``handler_timeout`` (evidence: elapsed_ms) or ``transport_failed``.
        """
        info = self.resolve(route or Route(runtime_id=runtime_id))
        session = self._sessions.get(info.runtime_id)
        if session is None or session.closed:
            raise ActionError(
                f"runtime {info.runtime_id!r} is not connected",
                code=ErrorCode.RUNTIME_NOT_READY,
                evidence={"runtime_id": info.runtime_id},
            )
        call_id = call_id or self.new_call_id()
        if call_id in self._pending:
            raise ActionError(f"call id {call_id!r} is already pending", code=ErrorCode.DUPLICATE_CALL_ID, evidence={"call_id": call_id})
        timeout_ms = self.default_timeout_ms if timeout_ms is None else timeout_ms
        item: dict[str, Any] = {
            "type": "action_call",
            "call_id": call_id,
            "runtime_id": info.runtime_id,
            "name": name,
            "arguments": arguments,
            "timeout_ms": timeout_ms,
        }
        if handler:
            item["handler"] = handler
        started = time.monotonic()
        pending = _PendingCall(call_id, info.runtime_id, name, session, started, asyncio.get_running_loop().create_future())
        self._pending[call_id] = pending
        session._pending.add(call_id)
        try:
            try:
                # The timeout covers delivery too: a runtime that stops reading fills the
                # socket buffer and would otherwise hold the send (and the call) forever.
                async with asyncio.timeout(timeout_ms / 1000):
                    try:
                        await session.send(item)
                    except Exception as exc:  # noqa: BLE001 - any transport failure means the item was not delivered
                        raise ActionError(
                            f"could not deliver the call to runtime {info.runtime_id!r}: {exc}",
                            code=ErrorCode.TRANSPORT_FAILED,
                            evidence={"call_id": call_id, "runtime_id": info.runtime_id},
                        ) from exc
                    return await pending.future
            except TimeoutError:
                elapsed = int((time.monotonic() - started) * 1000)
                self._remember_expired(call_id)
                raise ActionError(
                    f"{name} did not finish within {timeout_ms} ms",
                    code=ErrorCode.HANDLER_TIMEOUT,
                    evidence={"call_id": call_id, "runtime_id": info.runtime_id, "elapsed_ms": elapsed, "timeout_ms": timeout_ms},
                ) from None
        finally:
            self._pending.pop(call_id, None)
            session._pending.discard(call_id)
            # A call that ended another way (delivery failed, cancelled) may leave an outcome
            # set on the future by a concurrent disconnect: consume it so asyncio does not
            # log "exception was never retrieved".
            if pending.future.done() and not pending.future.cancelled():
                pending.future.exception()
            else:
                pending.future.cancel()

    def _remember_expired(self, call_id: str) -> None:
        self._expired[call_id] = time.monotonic()
        while len(self._expired) > _EXPIRED_MEMORY:
            self._expired.popitem(last=False)

    def _settle(self, session: RuntimeSession, call_id: str, *, output: Any = None, error: ActionError | None = None) -> None:
        pending = self._pending.get(call_id)
        if pending is None or pending.future.done():
            if call_id in self._expired:
                log.warning("dropped late answer to call %s from %s (it had timed out)", call_id, session.runtime_id)
                return
            raise ActionError(f"no pending call has id {call_id!r}", code=ErrorCode.INVALID_ITEM, evidence={"call_id": call_id})
        if pending.session is not session:
            raise ActionError(
                f"call {call_id!r} was not sent to this runtime",
                code=ErrorCode.INVALID_ITEM,
                evidence={"call_id": call_id},
            )
        if error is not None:
            pending.future.set_exception(error)
        else:
            pending.future.set_result(output)

    # -- runtime lifecycle -------------------------------------------------

    async def _on_ready(self, session: RuntimeSession, item: RuntimeReady) -> None:
        registry = self.registry
        if session.runtime_id is not None:
            # A second runtime_ready on the same connection refreshes what the runtime said of itself.
            info = registry.get(session.runtime_id)
            if info is not None:
                self._apply_ready(info, item)
                self._notify("updated", info)
                return
        # A runtime that reconnects (same runtime_key, or same runtime_id) replaces its old
        # connection and keeps its identity, so routing by id or key keeps working.
        previous = (registry.find_by_key(item.runtime_key) if item.runtime_key else None) or registry.get(item.runtime_id)
        runtime_id = previous.runtime_id if previous is not None else item.runtime_id
        replaced = self._sessions.get(runtime_id)
        if replaced is not None and replaced is not session:
            log.info("runtime %s reconnected; replacing its old connection", runtime_id)
            replaced.closed = True
            self._fail_pending(replaced, "the runtime reconnected on a new connection")
            self._sessions.pop(runtime_id, None)
            with contextlib.suppress(Exception):
                await replaced.link.close("replaced by a new connection")
        info = RuntimeInfo(runtime_id=runtime_id, url=item.url, transport=session.transport)
        if previous is not None:
            info.events = previous.events
            info.connected_at = previous.connected_at
        self._apply_ready(info, item)
        session.runtime_id = runtime_id
        if item.runtime_id != runtime_id:
            session._aliases.add(item.runtime_id)
        self._sessions[runtime_id] = session
        registry.add(info)
        if registry.active_id is None:
            registry.set_active(runtime_id)
        log.info("runtime %s ready at %s (%s)", runtime_id, info.url, session.transport)
        self._notify("updated" if replaced is not None else "ready", info)
        await self._send_config(session, info)

    @staticmethod
    def _apply_ready(info: RuntimeInfo, item: RuntimeReady) -> None:
        extra = item.model_extra or {}
        if "page_tools" in extra:
            info.page_tools = parse_page_tools(extra["page_tools"])
        info.url = item.url
        info.runtime_key = item.runtime_key
        info.title = item.title
        info.capabilities = tuple(item.capabilities or ())
        info.manifest = item.manifest
        info.authorization_id = item.authorization_id
        info.extension_version = item.extension_version
        info.last_seen = time.monotonic()

    async def _send_config(self, session: RuntimeSession, info: RuntimeInfo) -> None:
        """Tell the runtime which declared DOM events to forward (an addition to the six items)."""
        listen = [{"name": spec.name, "event": spec.event} for spec in self.signals_for(info).values() if spec.enabled and spec.event]
        with contextlib.suppress(Exception):
            await session.send({"type": "runtime_config", "runtime_id": info.runtime_id, "listen": listen})

    async def refresh_config(self) -> None:
        """Re-send every runtime its event list (after manifests changed)."""
        for runtime_id, session in list(self._sessions.items()):
            info = self.registry.get(runtime_id)
            if info is not None:
                await self._send_config(session, info)

    def signals_for(self, info: RuntimeInfo) -> Mapping[str, SignalSpec]:
        """The signals declared for a runtime's surface."""
        return self.signal_source(info) if self.signal_source else {}

    def _on_status(self, info: RuntimeInfo, item: RuntimeStatus) -> None:
        extra = item.model_extra or {}
        # Checked before anything changes: a bad report is refused whole.
        page_tools = parse_page_tools(extra["page_tools"]) if "page_tools" in extra else None
        changed = False
        if item.url is not None and item.url != info.url:
            info.url, changed = item.url, True
        if item.title is not None and item.title != info.title:
            info.title, changed = item.title, True
        if item.states is not None and tuple(item.states) != info.states:
            info.states, changed = tuple(item.states), True
        if page_tools is not None and page_tools != info.page_tools:
            info.page_tools, changed = page_tools, True
        if changed:
            self._notify("updated", info)

    def note_states(self, runtime_id: str, states: tuple[str, ...]) -> None:
        """Record the states dispatch diagnosed on a runtime (as a ``runtime_status`` with states would)."""
        info = self.registry.get(runtime_id)
        if info is not None and tuple(states) != info.states:
            info.states = tuple(states)
            self._notify("updated", info)

    def _on_event(self, info: RuntimeInfo, item: DomEvent) -> None:
        record = accept_event(item, self.signals_for(info), max_bytes=self.max_event_bytes)
        info.events.append(record)
        self._notify("event", info, record)

    def _on_closed(self, session: RuntimeSession, reason: str) -> None:
        self._fail_pending(session, reason)
        runtime_id = session.runtime_id
        if runtime_id is not None and self._sessions.get(runtime_id) is session:
            del self._sessions[runtime_id]
            info = self.registry.remove(runtime_id)
            if info is not None:
                log.info("runtime %s gone: %s", runtime_id, reason)
                self._notify("gone", info, {"reason": reason})

    def _fail_pending(self, session: RuntimeSession, reason: str) -> None:
        for call_id in list(session._pending):
            pending = self._pending.get(call_id)
            if pending is not None and not pending.future.done():
                pending.future.set_exception(
                    ActionError(
                        f"runtime {session.runtime_id!r} disconnected: {reason}",
                        code=ErrorCode.TRANSPORT_FAILED,
                        evidence={"call_id": call_id, "runtime_id": session.runtime_id, "reason": reason},
                    )
                )
        session._pending.clear()

    def _notify(self, kind: str, info: RuntimeInfo, detail: Mapping[str, Any] | None = None) -> None:
        for listener in list(self._listeners):
            try:
                listener(kind, info, detail or {})
            except Exception:  # a broken observer must not break the bridge
                log.exception("bridge listener failed on %s", kind)

    async def _sweep_forever(self) -> None:
        interval = max(0.05, min(5.0, self.stale_after_s / 4))
        while True:
            await asyncio.sleep(interval)
            await self.retire_stale()

    async def retire_stale(self) -> list[str]:
        """Disconnect heartbeating runtimes that have been silent too long; return their ids."""
        now = time.monotonic()
        retired = []
        for runtime_id, session in list(self._sessions.items()):
            info = self.registry.get(runtime_id)
            if info and session.transport in HEARTBEAT_TRANSPORTS and now - info.last_seen > self.stale_after_s:
                retired.append(runtime_id)
                with contextlib.suppress(Exception):
                    await session.link.close("stale: no heartbeat")
                await session.close("stale: no heartbeat")
        return retired
