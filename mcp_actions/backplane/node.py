"""``Backplane``: this replica's membership of the cluster, over one NATS connection that comes and goes.

Started by the composition root when ``--backplane`` is given. Everything it
says and hears on NATS is sealed with the deployment's secret and refused
when it is not (``sealed.py``): only replicas of this deployment speak on
its subjects. It connects, with NATS's own credentials and TLS
(``connection.py``), in the background (a replica whose NATS is not there
yet serves alone and says so), subscribes to the cluster's subjects (``wire.py``), and then, every
quarter second: announces its runtimes once a second (``directory.py``),
pings the replicas it knows and drops those that do not answer (their
runtimes' calls fail at once with ``transport_failed``; the runtimes reconnect
through the balancer), and forgets replicas gone silent. When NATS goes away
every mirror is dropped and every forwarded call ends, and the status
(``status()``: the status page and ``actions://bridge/launch``) says that this
replica serves only its own runtimes; the client reconnects by itself and the
replica rejoins with no restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import socket
import time
from collections.abc import Callable
from typing import Any

from ..bridge.bridge import Bridge
from ..bridge.events import PageEvent, RuntimeArrived, RuntimeEvent, RuntimeGone, RuntimeUpdated
from ..bridge.scope import SessionKey
from ..dispatch.call.tab_turns import TabTurns
from ..events import EventHub
from .connection import BackplaneConnection
from .directory import RuntimeDirectory
from .remote import CallServer, RemoteCalls, ReplicaLink
from .seal import Seal
from .sealed import SealedNats
from .sessions import SessionStore
from .turns import RemoteTurns, TurnServer
from .wire import Subjects

__all__ = ["ANNOUNCE_EVERY_S", "PING_TIMEOUT_S", "Backplane", "new_replica_id"]

log = logging.getLogger(__name__)

#: How often a replica repeats its directory (a replica that joins knows everything within this).
ANNOUNCE_EVERY_S = 1.0
#: The watchdog's beat: pings, expiry, reconnection state.
TICK_S = 0.25
#: A replica that has a responder but does not answer a ping within this is taken for hung.
PING_TIMEOUT_S = 1.5
#: Wait at start for the first connection before serving alone in the meantime.
FIRST_CONNECT_S = 3.0
#: A streamable-HTTP session's record no replica refreshed for this long is forgotten (twice the SDK's idle timeout).
SESSION_RECORD_MAX_AGE_S = 3600.0


def new_replica_id() -> str:
    """A replica id unique in the cluster: host, process and a random part (safe in a NATS subject)."""
    host = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname())[:32] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


class Backplane:
    """One replica's link to the others: directory, forwarded calls, page events, liveness."""

    def __init__(
        self,
        connection: BackplaneConnection,
        bridge: Bridge,
        events: EventHub,
        *,
        replica_id: str | None = None,
        turns: TabTurns | None = None,
    ) -> None:
        """``connection``: the NATS URL, credentials and the deployment's secret; ``turns``: this process's tab
        turns (dispatch), which then also hold other replicas' tabs' turns there."""
        self.connection = connection
        #: The URL as it may be shown (no credentials): the status page, the launch report, log lines.
        self.url = connection.shown_url
        self.bridge = bridge
        self.events = events
        self.replica_id = replica_id or new_replica_id()
        self.nats = SealedNats(Seal(connection.secret))
        self.subjects = Subjects(self.nats.seal)
        link = ReplicaLink(bridge, self.subjects, self.replica_id, self._request, self._publish)
        self.remote = RemoteCalls(link)
        self.server = CallServer(link)
        self.directory = RuntimeDirectory(bridge, self.replica_id, self.remote.channel_for)
        #: A tab's turn across replicas (turns.py): asked of the holder, and granted here for the tabs held here.
        self.remote_turns = RemoteTurns(link)
        self.turn_server = TurnServer(link, turns if turns is not None else TabTurns())
        if turns is not None:
            turns.elsewhere = self.remote_turns.turn_for
        bridge.replica_id = self.replica_id
        self._nc: Any = None
        #: The streamable-HTTP sessions any replica may serve (server/adopted_sessions.py).
        self.sessions = SessionStore(
            lambda: self._nc if self.connected else None, self.subjects.bucket("sessions"), self.nats.seal, max_age_s=SESSION_RECORD_MAX_AGE_S
        )
        self._connected = asyncio.Event()
        self._since = time.time()
        self._last_error: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._announce_soon = asyncio.Event()
        self._background: set[asyncio.Task[Any]] = set()
        self._unsubscribe = events.subscribe(RuntimeEvent, self._on_runtime_event)
        #: Called with an agent session id when a client ended that session on another replica (``DELETE /mcp``).
        self.on_session_ended: Callable[[str], None] | None = None
        #: The agent sessions this replica served a request of since a moment (``SessionKey.describe()`` each),
        #: announced with the directory; and what to do with the sessions another replica announced
        #: (a session busy on one replica is not idle on any: docs/deploying.md).
        self.session_activity: Callable[[float], list[dict[str, Any]]] | None = None
        self.on_session_activity: Callable[[list[dict[str, Any]]], None] | None = None
        #: Called with (session id, uri, subscribed) when an HTTP session subscribed to a resource on another
        #: replica, or unsubscribed: the replica holding its GET stream notifies it (server/mcp_server.py).
        self.on_subscription: Callable[[str, str, bool], None] | None = None
        #: Called with (session id, level) when an HTTP session set its log level on another replica.
        self.on_log_level: Callable[[str, Any], None] | None = None

    # -- what it says about itself -----------------------------------------

    @property
    def connected(self) -> bool:
        """True while NATS is reachable (the replica is one of the cluster)."""
        return self._connected.is_set()

    def status(self) -> dict[str, Any]:
        """What the status page and ``actions://bridge/launch`` show of the backplane."""
        return {
            "url": self.url,
            # This deployment's names on NATS (keyed digests of its secret), for the operator's NATS permissions.
            "subjects": f"{self.subjects.prefix}.>",
            "bucket": self.sessions.bucket,
            "replica": self.replica_id,
            "connected": self.connected,
            "since": self._since,
            "serving": "every replica's runtimes" if self.connected else "only this replica's own runtimes (the backplane is unreachable)",
            "last_error": self._last_error,
            "replicas": self.directory.describe(),
            "forwarded_calls_in_flight": self.remote.in_flight,
            "calls_run_for_other_replicas": self.server.running,
            # Messages on this deployment's subjects that were not sealed with its secret, by what they came as.
            "refused_messages": dict(self.nats.refusals.counts),
        }

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Connect (waiting a little for the first connection) and start the watchdog."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="backplane")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FIRST_CONNECT_S):
                await self._connected.wait()
        if not self.connected:
            log.warning("backplane %s is not reachable yet; this replica serves its own runtimes and keeps trying (%s)", self.url, self._last_error)

    async def stop(self) -> None:
        """Say goodbye (the others drop this replica's runtimes at once) and close the connection."""
        self._unsubscribe()
        if self.connected:
            with contextlib.suppress(Exception):
                await self._publish(self.subjects.directory, self.directory.snapshot(bye=True))
                await self._nc.flush(timeout=1)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.server.cancel_all()
        self.turn_server.cancel_all()
        self.directory.drop_all("this replica is stopping")
        if self._nc is not None:
            with contextlib.suppress(Exception):
                await self._nc.close()

    async def _run(self) -> None:
        import nats  # only here: the default path never imports the NATS client

        while self._nc is None:
            try:
                self._nc = await nats.connect(
                    self.connection.url,
                    **self.connection.connect_options(),
                    # Not the replica id (its host): NATS tells every client of its JetStream API which client asked.
                    name=f"mcp-actions {self.nats.seal.tag(self.replica_id)}",
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                    connect_timeout=2,
                    ping_interval=5,
                    max_outstanding_pings=2,
                    disconnected_cb=self._disconnected,
                    reconnected_cb=self._reconnected,
                    error_cb=self._error,
                )
            except Exception as exc:  # not there yet: serve alone, try again
                self._last_error = self.connection.hide(f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.5)
        await self.nats.attach(self._nc)
        await self._subscribe()
        self._joined()
        last_announce = 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(TICK_S):
                    await self._announce_soon.wait()
            if not self.connected:
                # Nothing to announce to; what changes meanwhile is announced on rejoining (_joined).
                self._announce_soon.clear()
                await asyncio.sleep(TICK_S)
                continue
            now = time.monotonic()
            if self._announce_soon.is_set() or now - last_announce >= ANNOUNCE_EVERY_S:
                self._announce_soon.clear()
                last_announce = now
                with contextlib.suppress(Exception):
                    await self._publish(self.subjects.directory, self._announcement())
            await self._check_replicas()
            self.remote.sweep()

    def _announcement(self) -> dict[str, Any]:
        """The directory, and the sessions this replica served lately (twice the announce interval, so none falls between)."""
        message = self.directory.snapshot()
        if self.session_activity is not None:
            message["sessions"] = self.session_activity(time.monotonic() - 2 * ANNOUNCE_EVERY_S)
        return message

    async def _subscribe(self) -> None:
        nats, s, me = self.nats, self.subjects, self.replica_id

        async def on_directory(message: dict[str, Any]) -> None:
            self.directory.heard(message)
            sessions = message.get("sessions")
            if message.get("replica") != me and isinstance(sessions, list) and sessions and self.on_session_activity is not None:
                self.on_session_activity([s for s in sessions if isinstance(s, dict)])
            return None

        async def on_call(message: dict[str, Any]) -> dict[str, Any]:
            return self.server.take(message)

        async def on_control(message: dict[str, Any]) -> None:
            if message.get("kind") == "release":
                self.turn_server.release(message)
            else:
                self.server.control(message)

        async def on_event(message: dict[str, Any]) -> None:
            if message.get("kind") == "turn":
                self.remote_turns.heard(message)
            else:
                await self.remote.on_event(message)

        async def on_turn(message: dict[str, Any]) -> dict[str, Any]:
            return self.turn_server.take(message)

        async def on_ping(message: dict[str, Any]) -> dict[str, Any]:
            return {}

        async def on_note(message: dict[str, Any]) -> None:
            self._heard_note(message)

        # What each subject's messages are, as a refusal names them.
        await nats.listen(s.directory, "a runtime announcement", on_directory)
        await nats.listen(s.notes, "a notification", on_note)
        await nats.listen(s.replica(me, "call"), "a call", on_call)
        await nats.listen(s.replica(me, "ctl"), "a cancel, input answer or turn release", on_control)
        await nats.listen(s.replica(me, "ev"), "a call's answer, progress or turn", on_event)
        await nats.listen(s.replica(me, "ping"), "a ping", on_ping)
        await nats.listen(s.replica(me, "turn"), "a turn request", on_turn)
        await self._nc.flush(timeout=2)

    # -- connection state --------------------------------------------------

    def _joined(self) -> None:
        self._connected.set()
        self._since = time.time()
        self._last_error = None
        self._announce_soon.set()
        log.info("replica %s joined the backplane at %s", self.replica_id, self.url)

    async def _disconnected(self) -> None:
        if not self.connected:
            return
        self._connected.clear()
        self._since = time.time()
        log.warning("backplane %s lost: this replica serves only its own runtimes until it returns", self.url)
        # Nobody can hear answers now: calls forwarded from here fail, calls run for others stop.
        for replica in self.directory.replicas() + list(self.remote.replicas_in_use()) + list(self.remote_turns.replicas_in_use()):
            self.remote.fail_replica(replica, "the backplane is unreachable")
            self.remote_turns.fail_replica(replica, "the backplane is unreachable")
        self.directory.drop_all("the backplane is unreachable")
        self.server.cancel_all()
        self.turn_server.cancel_all()

    async def _reconnected(self) -> None:
        self._joined()

    async def _error(self, exc: Exception) -> None:
        self._last_error = self.connection.hide(f"{type(exc).__name__}: {exc}")
        log.debug("backplane error: %s", self._last_error)

    # -- liveness ----------------------------------------------------------

    async def _check_replicas(self) -> None:
        """Ping every replica known or running calls for this one; drop those gone or silent."""
        watched = set(self.directory.replicas()) | self.remote.replicas_in_use() | self.server.callers()
        watched |= self.remote_turns.replicas_in_use() | self.turn_server.callers()
        if not watched:
            return
        results = await asyncio.gather(*(self._alive(r) for r in watched))
        if not self.connected:
            return  # every ping failed because NATS is away, not because the replicas are
        for replica, alive in zip(watched, results, strict=True):
            if not alive:
                self._replica_gone(replica, f"replica {replica} stopped answering")
        for replica in self.directory.silent():
            self._replica_gone(replica, f"replica {replica} went silent")

    async def _alive(self, replica: str) -> bool:
        try:
            await self._request(self.subjects.replica(replica, "ping"), {}, PING_TIMEOUT_S)
            return True
        except Exception:
            return False

    def _replica_gone(self, replica: str, reason: str) -> None:
        self.remote.fail_replica(replica, reason)
        self.remote_turns.fail_replica(replica, reason)
        self.directory.drop(replica, reason)
        self.server.cancel_from(replica)
        self.turn_server.cancel_from(replica)

    # -- page events -------------------------------------------------------

    def _on_runtime_event(self, event: RuntimeEvent) -> None:
        runtime = event.runtime
        if not self.bridge.holds(runtime.runtime_id) and not isinstance(event, RuntimeGone):
            return  # a mirror's change: its own replica announces it
        if isinstance(event, PageEvent):
            if self.connected:
                note = {"kind": "page_event", "replica": self.replica_id, "runtime_id": runtime.runtime_id, "record": event.record}
                self._spawn(self._publish(self.subjects.notes, note))
            return
        if isinstance(event, (RuntimeArrived, RuntimeUpdated, RuntimeGone)):
            self._announce_soon.set()

    async def client_ended_session(self, mcp_session_id: str) -> None:
        """A client ended its streamable-HTTP session here (``DELETE``): every other replica ends it too."""
        if not self.connected:
            return
        note = {"kind": "session_ended", "replica": self.replica_id, "session": SessionKey.of_http(mcp_session_id).id}
        try:
            await self._publish(self.subjects.notes, note)
        except Exception as exc:
            log.warning("could not tell the other replicas that a session ended: %s", exc)

    async def share_log_level(self, session: str, level: str) -> None:
        """An HTTP session (``SessionKey`` id) set its log level here: the other replicas hear it."""
        await self._note({"kind": "log_level", "session": session, "level": level})

    async def _note(self, note: dict[str, Any]) -> None:
        if not self.connected:
            return
        try:
            await self._publish(self.subjects.notes, {**note, "replica": self.replica_id})
        except Exception as exc:
            log.warning("could not tell the other replicas (%s): %s", note.get("kind"), exc)

    async def share_subscription(self, session: str, uri: str, subscribed: bool) -> None:
        """An HTTP session (``SessionKey`` id) subscribed to ``uri`` here, or unsubscribed: the other replicas hear it."""
        if not self.connected:
            return
        note = {"kind": "subscription", "replica": self.replica_id, "session": session, "uri": uri, "subscribed": subscribed}
        try:
            await self._publish(self.subjects.notes, note)
        except Exception as exc:
            log.warning("could not share a resource subscription with the other replicas: %s", exc)

    def _heard_note(self, note: dict[str, Any]) -> None:
        if note.get("replica") == self.replica_id:
            return
        if note.get("kind") == "session_ended":
            session = note.get("session")
            if isinstance(session, str) and self.on_session_ended is not None:
                self.on_session_ended(session)
            return
        if note.get("kind") == "log_level":
            session, level = note.get("session"), note.get("level")
            if isinstance(session, str) and isinstance(level, str) and self.on_log_level is not None:
                self.on_log_level(session, level)
            return
        if note.get("kind") == "subscription":
            session, uri = note.get("session"), note.get("uri")
            if isinstance(session, str) and isinstance(uri, str) and self.on_subscription is not None:
                self.on_subscription(session, uri, bool(note.get("subscribed")))
            return
        if note.get("kind") != "page_event":
            return
        runtime_id, record = note.get("runtime_id"), note.get("record")
        if isinstance(runtime_id, str) and isinstance(record, dict):
            self.bridge.note_remote_event(runtime_id, record)

    # -- NATS --------------------------------------------------------------

    async def _request(self, subject: str, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self._nc is None or not self.connected:
            raise ConnectionError("the backplane is unreachable")
        return await self.nats.request(subject, message, timeout)

    async def _publish(self, subject: str, message: dict[str, Any]) -> None:
        if self._nc is None or not self.connected:
            raise ConnectionError("the backplane is unreachable")
        await self.nats.publish(subject, message)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._background.discard)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
