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

import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..agent_sessions import SessionBook, SessionRefused
from ..bridge.scope import ANONYMOUS, SessionKey, mint_handle, session_scope
from ..operators.users import User, user_scope
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


class AgentSessions(SessionBook):
    """The agent sessions of an HTTP server (``agent_sessions.SessionBook``, which BAP's door shares), and MCP's ways of naming one."""

    def __init__(
        self,
        end: Callable[[str, str], Awaitable[None]],
        *,
        isolated: bool = True,
        max_sessions: int | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        """``end(session_id, reason)``: close the session's browser context and runtimes (``ActionsApp.end_session``)."""
        super().__init__(end, isolated=isolated, max_sessions=max_sessions, idle_timeout=idle_timeout)
        #: Called with the ``Mcp-Session-Id`` of a session its client deleted (the MCP adapter forgets its peer).
        self.on_deleted: list[Callable[[str], None]] = []
        #: Gives the memory ended sessions freed back to the system (server/memory.py: why, and what it cannot).
        self.memory = MemoryRelease()

    def closed(self, session_id: str) -> None:
        """Its context's objects are let go now: hand what they freed back."""
        self.memory.soon()

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
        """Run the request as its user (an OAuth token's subject), in its session's scope (opening the session; refusing it beyond the limit)."""
        with user_scope(_user_of(ctx)):
            return await self._in_session(ctx, call_next)

    async def _in_session(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
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

    async def stop(self) -> None:
        """Stop the sweeper and end every open session, then the memory release."""
        await super().stop()
        await self.memory.stop()


def _user_of(ctx: ServerRequestContext[Any, Any]) -> User | None:
    """The user the SDK's bearer middleware authenticated for this HTTP request (``--oauth-issuer``), None without one."""
    scope = getattr(ctx.request, "scope", None)
    authenticated = scope.get("user") if isinstance(scope, dict) else None
    access = getattr(authenticated, "access_token", None)
    if access is None:
        return None
    from .oauth import user_of_token

    user: User = user_of_token(access)
    return user


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
    except (ValueError, RecursionError):  # nested past the stack: the SDK answers its parse error
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


async def _refuse(send: Any, message: str, max_sessions: int | None) -> None:
    payload = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": SESSION_REFUSED_CODE, "message": message, "data": {"code": "session_limit", "max_sessions": max_sessions}}}
    ).encode("utf-8")
    await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), (b"retry-after", b"30")]})
    await send({"type": "http.response.body", "body": payload})
