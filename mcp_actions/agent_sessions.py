"""The agent sessions a server serves, whatever door they came in by: open, limit, idle, end (docs/sessions.md).

Agents come in through front doors (MCP's transports in ``server/``, BAP's
WebSocket in ``bap/``). Each agent session is a ``SessionKey``
(``bridge/scope.py``); what every door needs of it is here, below the doors,
and knows nothing of their protocols:

- a session is opened when first seen, and refused (``SessionRefused``) beyond
  ``--max-sessions``, counting every door's sessions together;
- a session with a request running is never idle (``serving``); one idle
  longer than ``--session-idle-timeout`` is ended by the sweeper;
- ending a session (``end``) forgets it and closes its browser context and
  runtimes (``ActionsApp.end_session``), in a shielded task so a cancelled
  request cannot leave a context half closed.

How a door tells its requests apart (an ``Mcp-Session-Id``, a minted handle,
a connection) stays in the door: the MCP adapter's ``server/sessions.py``
``AgentSessions`` is this book plus MCP's own ways of naming a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bridge.scope import SessionKey
from .operators.users import current_user

__all__ = ["CONNECTION_KINDS", "UNCLAIMED_HANDLE_S", "UNUSED_GRACE_S", "OpenSession", "SessionBook", "SessionRefused"]

log = logging.getLogger(__name__)

#: A session that never made a request after the one that opened it is idle after this long, not after
#: the full idle timeout: a minted handle that never came back (a stateless client that does not thread
#: it: each of its calls made a context of its own), or an ``initialize`` with nothing after it (which
#: would otherwise hold a place under ``--max-sessions`` for half an hour).
UNCLAIMED_HANDLE_S = 60.0
#: When ``--max-sessions`` is reached, a new session takes the place of the oldest one that made no
#: request since it opened, once that one is this old (a client is given this long to make its first).
UNUSED_GRACE_S = 5.0
#: Sessions that are one connection (SSE, BAP): the connection's close ends them, never their first request's silence.
CONNECTION_KINDS = frozenset({"sse", "bap"})


class SessionRefused(Exception):
    """A new session beyond ``--max-sessions``."""


@dataclass
class OpenSession:
    """One open session's bookkeeping: when it was seen, and whether a request of it runs now."""

    key: SessionKey
    opened_at: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.monotonic)
    busy: int = 0  # requests of this session running now (a long call is not idleness)
    requests: int = 0  # requests seen: a minted handle never passed back is ended sooner (UNCLAIMED_HANDLE_S)
    #: When this server last served one of its requests itself (not told by another replica; docs/deploying.md).
    local_seen: float = field(default_factory=time.monotonic)
    #: Its user: the subject of the OAuth token its requests present (operators/users.py); None without authorization.
    user: str | None = None

    @property
    def unused(self) -> bool:
        """Whether it made no request since the one that opened it (an ``initialize``, a first call with no handle).

        A session that is one connection (SSE, BAP) ends with it: never unused.
        """
        return self.key.kind not in CONNECTION_KINDS and self.requests <= 1


class SessionBook:
    """The open agent sessions of one server, their limit, their idle timeout and their end."""

    def __init__(
        self,
        end: Callable[[str, str], Awaitable[None]],
        *,
        isolated: bool = True,
        max_sessions: int | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        """``end(session_id, reason)``: close the session's browser context and runtimes (``ActionsApp.end_session``)."""
        self._end = end
        self.isolated = isolated
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._open: dict[str, OpenSession] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: Sessions being closed (their contexts, runtimes): awaited by ``stop``.
        self._closing: set[asyncio.Task[None]] = set()
        #: Told the id of each session that ended, whatever ended it (a door forgets what it kept for it).
        self.on_ended: list[Callable[[str], None]] = []

    # -- bookkeeping -----------------------------------------------------------

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._open

    def full(self) -> bool:
        """True when one more session would be beyond ``--max-sessions``."""
        return self.max_sessions is not None and len(self._open) >= self.max_sessions

    async def make_room(self) -> bool:
        """At ``--max-sessions``, end the oldest session that made no request since it opened (and had
        ``UNUSED_GRACE_S`` to); True when there is room now.
        """
        if not self.full():
            return True
        moment = time.monotonic() - UNUSED_GRACE_S
        unused = sorted((o.last_seen, sid) for sid, o in self._open.items() if o.unused and o.busy == 0 and o.last_seen < moment)
        if not unused:
            return False
        await self.end(unused[0][1], "a new session needed its place, and it had made no request since it opened")
        return not self.full()

    def refusal(self) -> str:
        """The message a refused session reads."""
        return (
            f"mcp-actions: this server already serves {len(self._open)} sessions, its limit (--max-sessions {self.max_sessions}); "
            "try again when one ends (they end when their client closes them or after --session-idle-timeout)"
        )

    def open(self, key: SessionKey) -> OpenSession:
        """The session ``key``, opened now when it is new; ``SessionRefused`` beyond the limit."""
        found = self._open.get(key.id)
        if found is None:
            if self.full():
                raise SessionRefused(self.refusal())
            found = self._open[key.id] = OpenSession(key)
            log.info("session %s opened (%s)", key.id, key.kind)
        user = current_user()
        if user is not None and found.user is None:
            found.user = user.subject
        found.last_seen = found.local_seen = time.monotonic()
        found.requests += 1
        return found

    @contextlib.contextmanager
    def serving(self, key: SessionKey) -> Iterator[OpenSession]:
        """Hold ``key`` busy while the block serves one of its requests (opening it; ``SessionRefused`` beyond the limit)."""
        state = self.open(key)
        state.busy += 1
        try:
            yield state
        finally:
            state.busy -= 1
            state.last_seen = state.local_seen = time.monotonic()

    def active_since(self, moment: float) -> list[dict[str, Any]]:
        """Sessions this server served a request of since ``moment`` (monotonic) or serves one now, as ``SessionKey.describe()``.

        What a replica tells the others (docs/deploying.md): a session busy on one replica is not idle on any.
        """
        return [o.key.describe() for o in self._open.values() if o.busy or o.local_seen >= moment]

    def touch(self, described: Iterable[Mapping[str, Any]]) -> None:
        """Another replica served these sessions just now (``active_since`` there): they are not idle here either.

        A session not open here is opened (unless this server is full): the runtimes this replica holds
        for it then end with it here, when it has been idle everywhere.
        """
        now = time.monotonic()
        for entry in described:
            session_id, kind = entry.get("id"), entry.get("kind")
            if not isinstance(session_id, str) or kind not in ("http", "handle"):
                continue  # an SSE or BAP session is one connection, to one replica
            found = self._open.get(session_id)
            if found is None:
                if self.full():
                    continue
                found = self._open[session_id] = OpenSession(SessionKey(session_id, "http" if kind == "http" else "handle", bool(entry.get("isolated", True))), local_seen=0.0)
                log.info("session %s is served by another replica", session_id)
            found.last_seen = now
            found.requests = max(found.requests, 2)  # its handle was passed back, there

    def describe(self) -> list[dict[str, Any]]:
        """The open sessions for the status page: ``{id, kind, isolated, opened_at, idle_seconds}``, and ``user`` once known."""
        now = time.monotonic()
        return [
            {**o.key.describe(), "opened_at": o.opened_at, "idle_seconds": round(now - o.last_seen, 1), **({"user": o.user} if o.user else {})} for o in self._open.values()
        ]

    def served_here(self) -> list[SessionKey]:
        """The open sessions this server served a request of itself: not those only another replica served (``touch``)."""
        return [o.key for o in self._open.values() if o.local_seen > 0]

    async def end(self, session_id: str, reason: str) -> bool:
        """End one session: forget it, close its browser context and runtimes. True when it was open.

        The closing runs in a task of its own, shielded: the request that ended the session (a
        ``DELETE`` whose client went away, a closing connection) may be cancelled, and a
        context closed half-way would be left running. ``stop`` waits for every closing.
        """
        if self._open.pop(session_id, None) is None:
            return False
        log.info("session %s ended: %s", session_id, reason)
        closing = asyncio.get_running_loop().create_task(self._close(session_id, reason), name=f"end-session-{session_id}")
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)
        await asyncio.shield(closing)
        return True

    async def _close(self, session_id: str, reason: str) -> None:
        try:
            await self._end(session_id, reason)
        except Exception:
            log.exception("ending session %s failed", session_id)
        for ended in list(self.on_ended):
            try:
                ended(session_id)
            except Exception:
                log.exception("a listener of session %s's end failed", session_id)
        self.closed(session_id)

    def closed(self, session_id: str) -> None:
        """A session's context and runtimes are closed (a door may release what they held; nothing here)."""

    # -- idle sessions -----------------------------------------------------------

    async def start(self) -> None:
        """Start ending idle sessions in the background (with an idle timeout)."""
        if self.idle_timeout is not None and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(), name="session-idle-sweeper")

    async def sweep(self) -> list[str]:
        """End every session idle longer than the idle timeout (none with a request running); their ids."""
        if self.idle_timeout is None:
            return []
        now = time.monotonic()
        oldest, unclaimed = now - self.idle_timeout, now - min(self.idle_timeout, UNCLAIMED_HANDLE_S)
        idle = [sid for sid, o in self._open.items() if o.busy == 0 and (o.last_seen < oldest or (o.unused and o.last_seen < unclaimed))]
        for sid in idle:
            await self.end(sid, f"idle for more than {self.idle_timeout:g} s (--session-idle-timeout)")
        return idle

    async def _sweep_forever(self) -> None:
        assert self.idle_timeout is not None
        interval = max(0.05, min(5.0, self.idle_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            await self.sweep()

    async def stop(self) -> None:
        """Stop the sweeper and end every open session."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        for sid in list(self._open):
            await self.end(sid, "server stopping")
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)  # sessions whose ending request was cancelled
