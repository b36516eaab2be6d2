"""The agent sessions an HTTP server serves: who a request is for, how many may be open, and when one ends (docs/sessions.md).

Every MCP request runs inside ``session_scope`` of the ``SessionKey`` it
belongs to (``bridge/scope.py``), set by the middleware ``AgentSessions.middleware``:

- a 2025-11-25 client over streamable HTTP: its ``Mcp-Session-Id``;
- a 2026-07-28 client (stateless, SEP-2567): the handle the server minted for it,
  which it passes back in the request's ``_meta`` under ``mcp-actions/session``.
  A ``tools/call`` without one, when sessions have contexts of their own, gets a
  fresh handle: the call runs in the new session and its result carries the
  handle in ``_meta`` (``mcp-actions/session``) for the next call;
- an SSE client: its connection (the server's lifespan runs once per connection);
- stdio and in-process clients: no session (everything is the operator's, as ever).

A session is opened when it is first seen (refused beyond ``--max-sessions``),
and ended when its client deletes it (``DELETE /mcp``), its SSE connection
closes, or it stays idle longer than ``--session-idle-timeout``: then its
browser context (or remote browser connection) is closed and its runtimes end
(``ActionsApp.end_session``), and what they freed is given back to the system
(``memory.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..bridge.scope import ANONYMOUS, SessionKey, mint_handle, session_scope
from .memory import MemoryRelease
from .peers import Peers

__all__ = ["HANDLE_META_KEY", "AgentSessions", "SessionGate", "SessionRefused"]

log = logging.getLogger(__name__)

#: Where a 2026-07-28 client passes its session handle (request ``_meta``), and where a minted one is handed back (result ``_meta``).
HANDLE_META_KEY = "mcp-actions/session"
#: Where the SSE connection's session sits in the lifespan context.
SESSION_KEY = "mcp-actions/session"
_SESSION_HEADER = "mcp-session-id"
#: The JSON-RPC error code of a refused session (the implementation-defined server-error range).
SESSION_REFUSED_CODE = -32001
#: A session that never made a request after the one that opened it is idle after this long, not after
#: the full idle timeout: a minted handle that never came back (a stateless client that does not thread
#: it: each of its calls made a context of its own), or an ``initialize`` with nothing after it (which
#: would otherwise hold a place under ``--max-sessions`` for half an hour).
UNCLAIMED_HANDLE_S = 60.0
#: When ``--max-sessions`` is reached, a new session takes the place of the oldest one that made no
#: request since it opened, once that one is this old (a client is given this long to make its first).
UNUSED_GRACE_S = 5.0


class SessionRefused(Exception):
    """A new session beyond ``--max-sessions``."""


@dataclass
class _Open:
    key: SessionKey
    opened_at: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.monotonic)
    busy: int = 0  # requests of this session running now (a long call is not idleness)
    requests: int = 0  # requests seen: a minted handle never passed back is ended sooner (UNCLAIMED_HANDLE_S)
    #: When this server last served one of its requests itself (not told by another replica; docs/deploying.md).
    local_seen: float = field(default_factory=time.monotonic)

    @property
    def unused(self) -> bool:
        """Whether it made no request since the one that opened it (an ``initialize``, a first call with no handle).

        An SSE session is its connection, which ends it: never unused.
        """
        return self.key.kind != "sse" and self.requests <= 1


class AgentSessions:
    """The open agent sessions of one HTTP server, their limit, their idle timeout and their end."""

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
        self._open: dict[str, _Open] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: Sessions being closed (their contexts, runtimes): awaited by ``stop``.
        self._closing: set[asyncio.Task[None]] = set()
        #: Called with the ``Mcp-Session-Id`` of a session its client deleted (the MCP adapter forgets its peer).
        self.on_deleted: list[Callable[[str], None]] = []
        #: Gives the memory ended sessions freed back to the system (server/memory.py: why, and what it cannot).
        self.memory = MemoryRelease()

    # -- bookkeeping -----------------------------------------------------------

    def __len__(self) -> int:
        return len(self._open)

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

    def open(self, key: SessionKey) -> _Open:
        """The session ``key``, opened now when it is new; ``SessionRefused`` beyond the limit."""
        found = self._open.get(key.id)
        if found is None:
            if self.full():
                raise SessionRefused(self.refusal())
            found = self._open[key.id] = _Open(key)
            log.info("session %s opened (%s)", key.id, key.kind)
        found.last_seen = found.local_seen = time.monotonic()
        found.requests += 1
        return found

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
                continue  # an SSE session is one connection, to one replica
            found = self._open.get(session_id)
            if found is None:
                if self.full():
                    continue
                found = self._open[session_id] = _Open(SessionKey(session_id, "http" if kind == "http" else "handle", bool(entry.get("isolated", True))), local_seen=0.0)
                log.info("session %s is served by another replica", session_id)
            found.last_seen = now
            found.requests = max(found.requests, 2)  # its handle was passed back, there

    def describe(self) -> list[dict[str, Any]]:
        """The open sessions for the status page: ``{id, kind, isolated, opened_at, idle_seconds}``."""
        now = time.monotonic()
        return [{**o.key.describe(), "opened_at": o.opened_at, "idle_seconds": round(now - o.last_seen, 1)} for o in self._open.values()]

    async def end(self, session_id: str, reason: str) -> bool:
        """End one session: forget it, close its browser context and runtimes. True when it was open.

        The closing runs in a task of its own, shielded: the request that ended the session (a
        ``DELETE`` whose client went away, a closing SSE connection) may be cancelled, and a
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
        self.memory.soon()  # its context's objects are let go now: hand what they freed back

    # -- which session a request is -------------------------------------------

    def key_of(self, ctx: ServerRequestContext[Any, Any]) -> tuple[SessionKey | None, str | None]:
        """The session of a request, and a handle minted for it now (to hand back), if one was."""
        if Peers.is_modern(ctx):
            handle = ctx.meta.get(HANDLE_META_KEY) if ctx.meta else None
            if isinstance(handle, str) and handle:
                return SessionKey.of_handle(handle, isolated=self.isolated), None
            if ctx.method == "tools/call" and self.isolated:
                # The call needs a context of its own: a new session, whose handle the result carries.
                minted = mint_handle()
                return SessionKey.of_handle(minted, isolated=True), minted
            return None if not self.isolated else ANONYMOUS, None
        lifespan = ctx.lifespan_context
        sse = lifespan.get(SESSION_KEY) if isinstance(lifespan, dict) else None
        if isinstance(sse, SessionKey):
            return sse, None
        headers = getattr(ctx.request, "headers", None)
        session_id = headers.get(_SESSION_HEADER) if headers is not None else None
        if session_id:
            return SessionKey.of_http(session_id, isolated=self.isolated), None
        return None, None

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Run the request in its session's scope (opening the session; refusing it beyond the limit)."""
        key, minted = self.key_of(ctx)
        if key is None or ctx.method == "initialize":
            return await call_next(ctx)
        if key is ANONYMOUS or ctx.method.startswith("notifications/"):
            # A 2026-07-28 request without a handle that needs no context (tools/list, resources/list…):
            # it sees no session's runtimes, and opens no session. A notification (notifications/initialized)
            # runs in its session but neither opens one nor counts as a request: a client that only
            # initialized has made none (UNCLAIMED_HANDLE_S).
            with session_scope(key):
                return await call_next(ctx)
        try:
            state = self.open(key)
        except SessionRefused as exc:
            raise MCPError(SESSION_REFUSED_CODE, str(exc), data={"code": "session_limit", "max_sessions": self.max_sessions}) from exc
        state.busy += 1
        try:
            with session_scope(key):
                result = await call_next(ctx)
        finally:
            state.busy -= 1
            state.last_seen = state.local_seen = time.monotonic()
        if minted is not None:
            # The SDK shapes the result inside the middleware chain: here it is the wire dict already.
            if isinstance(result, dict):
                meta = result.get("_meta")
                result["_meta"] = {**(meta if isinstance(meta, dict) else {}), HANDLE_META_KEY: minted}
            elif isinstance(result, types.CallToolResult):
                result.meta = {**(result.meta or {}), HANDLE_META_KEY: minted}
        return result

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
        await self.memory.stop()




class SessionGate:
    """ASGI, in front of streamable HTTP: refuses an ``initialize`` beyond ``--max-sessions``, opens and ends sessions.

    The SDK makes the session when it answers ``initialize`` (its ``Mcp-Session-Id`` is in that
    answer), so the gate opens ours there, and ends it when the client sends ``DELETE /mcp``.
    """

    def __init__(self, app: Any, sessions: AgentSessions, *, path: str = "/mcp") -> None:
        self.app = app
        self.sessions = sessions
        self.path = path

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("path", "").rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        session_id = headers.get(_SESSION_HEADER)
        method = scope.get("method")
        if method == "DELETE" and session_id:
            await self.app(scope, receive, send)
            await self.sessions.end(SessionKey.of_http(session_id, isolated=self.sessions.isolated).id, "the client ended its session")
            for forget in self.sessions.on_deleted:
                forget(session_id)
            return
        if method != "POST" or session_id:
            await self.app(scope, receive, send)
            return
        # A POST without a session: an initialize (a new session) or a 2026-07-28 request. With a limit
        # (and only then) it is read once, to refuse an initialize beyond it, and replayed.
        if self.sessions.full():
            body, receive = await _buffered(receive)
            if _is_initialize(body) and not await self.sessions.make_room():
                log.warning("refused a new MCP session: %s", self.sessions.refusal())
                await _refuse(send, self.sessions.refusal(), self.sessions.max_sessions)
                return

        async def send_noting_session(message: dict[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.decode("latin-1").lower() == _SESSION_HEADER:
                        with contextlib.suppress(SessionRefused):  # raced past the check above: refused at its next request
                            self.sessions.open(SessionKey.of_http(value.decode("latin-1"), isolated=self.sessions.isolated))
            await send(message)

        await self.app(scope, receive, send_noting_session)


async def _buffered(receive: Any) -> tuple[bytes, Any]:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> dict[str, Any]:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        result: dict[str, Any] = await receive()
        return result

    return body, replay


def _is_initialize(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


async def _refuse(send: Any, message: str, max_sessions: int | None) -> None:
    payload = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": SESSION_REFUSED_CODE, "message": message, "data": {"code": "session_limit", "max_sessions": max_sessions}}}
    ).encode("utf-8")
    await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), (b"retry-after", b"30")]})
    await send({"type": "http.response.body", "body": payload})
