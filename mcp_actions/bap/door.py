"""The BAP door: a WebSocket listener speaking JSON-RPC 2.0, each connection one agent session (docs/bap.md).

``serve --bap-port PORT`` starts it beside MCP. A connection must present the token (``?token=``
or the ``X-BAP-Token`` header) and, when it comes from a browser page, an ``Origin`` that
``--http-allowed-origins`` lists (no ``Origin``: a program, accepted); both are checked on the
HTTP upgrade, before any message is read. Then the connection is an agent session
(With ``--oauth-issuer`` a client may present, instead, the bearer token an MCP client of this
server would (``Authorization: Bearer``, checked as MCP's are: ``operators/tokens.py``); its
subject is then the session's user (the audit log, the status page, the policy).
``SessionKey.of_bap``, in the server's ``SessionBook``, so ``--max-sessions`` counts it with
MCP's): every request runs in its scope, and when the connection closes, sends ``shutdown``
or sits idle past ``--session-idle-timeout``, the session ends (its browser context closed,
its runtimes ended: ``ActionsApp.end_session``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from .. import __version__
from ..agent_sessions import SessionBook, SessionRefused
from ..bridge.scope import SessionKey, session_scope
from ..operators.users import User, user_scope
from ..page_chars import well_formed
from ..ports import host_allowed
from .approvals import Approvals
from .errors import BAP_CODES, BapError, error_object
from .events import EVENT_KINDS, EventRelay
from .methods import ACT_ACTIONS, BAP_VERSION, BapMethods

if TYPE_CHECKING:
    from ..actions_app import ActionsApp

__all__ = ["BapDoor"]

log = logging.getLogger(__name__)

_WILDCARD_HOSTS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}
#: The largest message a client may send (a step list, a fill value): 4 MiB.
_MAX_MESSAGE = 4 * 1024 * 1024


class BapDoor:
    """Listens for BAP clients on ``host:port`` and serves each connection as an agent session of ``app``."""

    def __init__(self, app: ActionsApp, *, host: str, port: int, token: str, allowed_origins: Sequence[str] = (), sessions: SessionBook | None = None) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self.token = token
        self.allowed_origins = tuple(allowed_origins)
        #: The server's sessions (shared with MCP's over HTTP); a book of its own otherwise (stdio).
        self.sessions = sessions
        self._own_book = sessions is None
        self._server: Server | None = None
        self._connections: dict[str, ServerConnection] = {}
        #: The user each connection's bearer token proved (``--oauth-issuer``): by connection until it is a session, then by session.
        self._users: dict[object, User] = {}

    @property
    def port(self) -> int:
        """The bound port (the requested one until ``start``)."""
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self.requested_port

    @property
    def url(self) -> str:
        """``ws://host:port/`` where BAP clients connect (add ``?token=``)."""
        host = _WILDCARD_HOSTS.get(self.host, self.host)
        return f"ws://{f'[{host}]' if ':' in host else host}:{self.port}/"

    async def start(self) -> None:
        """Bind and listen (``OSError`` when the port cannot be had)."""
        if self.sessions is None:
            options = self.app.options
            self.sessions = SessionBook(
                self.app.end_session, isolated=not options.shared_browser_context, max_sessions=options.max_sessions, idle_timeout=options.session_idle_timeout
            )
            await self.sessions.start()
        self.sessions.on_ended.append(self._ended)
        self._server = await serve(
            self._serve, self.host, self.requested_port, process_request=self._check, max_size=_MAX_MESSAGE, compression=None, server_header=None
        )
        log.info("BAP listening at %s", self.url)

    async def stop(self) -> None:
        """Close every connection (their sessions end) and unbind."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            await server.wait_closed()
        if self.sessions is not None:
            with contextlib.suppress(ValueError):
                self.sessions.on_ended.remove(self._ended)
            if self._own_book:
                await self.sessions.stop()

    # -- who may connect -----------------------------------------------------------

    async def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse, before the upgrade, a request without the token (or a valid OAuth bearer token) or from a browser origin not allowed."""
        origin = request.headers.get("Origin")
        if origin is not None and not host_allowed(origin, self.allowed_origins):
            log.warning("refused a BAP connection from the browser origin %s (--http-allowed-origins)", origin)
            return connection.respond(HTTPStatus.FORBIDDEN, "mcp-actions: this browser origin may not connect (--http-allowed-origins)\n")
        scheme, _, bearer = (request.headers.get("Authorization") or "").partition(" ")
        if self.app.options.oauth is not None and scheme.lower() == "bearer" and bearer.strip():
            return await self._check_bearer(connection, bearer.strip())
        presented = request.headers.get("X-BAP-Token")
        if presented is None:
            tokens = parse_qs(urlsplit(request.path).query).get("token")
            presented = tokens[0] if tokens else None
        if presented is None or not hmac.compare_digest(presented.encode("utf-8"), self.token.encode("utf-8")):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "mcp-actions: a BAP client presents the token (?token= or X-BAP-Token)\n")
        return None

    async def _check_bearer(self, connection: ServerConnection, token: str) -> Response | None:
        """An OAuth bearer token, checked as the MCP door checks it (signature, issuer, audience, time, scopes)."""
        settings = self.app.options.oauth
        assert settings is not None
        verified = await self.app.operators.verifier().verify(token)
        if verified is None:
            return connection.respond(HTTPStatus.UNAUTHORIZED, "mcp-actions: the bearer token was refused (signature, issuer, audience or expiry)\n")
        missing = verified.lacks(settings.scopes)
        if missing:
            return connection.respond(HTTPStatus.FORBIDDEN, f"mcp-actions: the bearer token lacks the scope {missing[0]}\n")
        self._users[connection] = verified.user
        return None

    def _ended(self, session_id: str) -> None:
        """A BAP session ended (idle, the server stopping, shutdown): its connection closes too."""
        connection = self._connections.pop(session_id, None)
        if connection is not None:
            asyncio.get_running_loop().create_task(connection.close(1000, "session ended"))

    # -- one connection --------------------------------------------------------------

    async def _serve(self, connection: ServerConnection) -> None:
        assert self.sessions is not None
        book = self.sessions
        key = SessionKey.of_bap(isolated=book.isolated)
        user = self._users.pop(connection, None)
        try:
            with user_scope(user):
                book.open(key)
        except SessionRefused as exc:
            await connection.close(1013, str(exc)[:120])
            return
        self._connections[key.id] = connection
        if user is not None:
            self._users[key.id] = user
        methods = BapMethods(self.app, key)
        relay = methods.relay = EventRelay(self.app.bridge.events, key, lambda message: _send(connection, message))
        approvals = methods.approvals = Approvals(lambda message: _send(connection, message))
        tasks: set[asyncio.Task[None]] = set()
        state = {"initialized": False, "ended": False}
        try:
            async for raw in connection:
                message = _parse(raw)
                if isinstance(message, BapError):
                    await _send(connection, {"jsonrpc": "2.0", "id": None, "error": message.as_json()})
                    continue
                if "id" not in message:
                    continue  # a notification (notifications/initialized): nothing to answer
                task = asyncio.get_running_loop().create_task(self._answer(connection, book, key, methods, message, state))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except ConnectionClosed:
            pass
        finally:
            for task in list(tasks):
                task.cancel()
            self._connections.pop(key.id, None)
            self._users.pop(key.id, None)
            approvals.close()
            await relay.close()
            await book.end(key.id, "the BAP connection closed")

    async def _answer(self, connection: ServerConnection, book: SessionBook, key: SessionKey, methods: BapMethods, message: dict[str, Any], state: dict[str, bool]) -> None:
        request_id, method = message.get("id"), message.get("method")
        given = message.get("params")
        params: dict[str, Any] = given if isinstance(given, dict) else {}
        try:
            if not isinstance(method, str):
                raise BapError("InvalidRequest", "a request names its method")
            if method == "initialize":
                result: Any = self._initialize(methods, params, state)
            elif not state["initialized"]:
                raise BapError("NotInitialized", "send initialize first")
            elif method == "events/subscribe":
                result = {"subscribed": methods.relay.subscribe(params.get("events")) if methods.relay is not None else []}
            elif method == "shutdown":
                state["ended"] = True
                self._connections.pop(key.id, None)  # answered first, closed after (not by the session's end)
                await book.end(key.id, "the BAP client sent shutdown")
                result = {}
            elif key.id not in book:
                raise BapError("ServerError", "this BAP session has ended; connect again", details={"code": "session_ended"})
            elif method == "approval/respond":
                result = methods.approvals.respond(params) if methods.approvals is not None else {"acknowledged": False}
            elif method in methods.table:
                with user_scope(self._users.get(key.id)), session_scope(key), book.serving(key):
                    result = await methods.run(method, params)
            else:
                raise BapError.unsupported(f"the method {method}")
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except BapError as exc:
            reply = {"jsonrpc": "2.0", "id": request_id, "error": exc.as_json()}
        except Exception as exc:  # a bug of ours: answered (never a silent hang of the client), and logged
            log.exception("BAP %s failed", method)
            reply = {"jsonrpc": "2.0", "id": request_id, "error": error_object(BAP_CODES["InternalError"], f"internal error: {exc}", {"retryable": False, "details": {"code": "internal_error"}})}
        await _send(connection, reply)
        if method == "shutdown":
            await connection.close(1000, "shutdown")

    def _initialize(self, methods: BapMethods, params: dict[str, Any], state: dict[str, bool]) -> dict[str, Any]:
        if state["initialized"]:
            raise BapError("AlreadyInitialized", "initialize was already sent on this connection")
        info = params.get("clientInfo")
        given = info.get("name") if isinstance(info, dict) else None
        name = given if isinstance(given, str) and given else "client"
        methods.client = f"bap:{name}"  # what the audit log's ``client`` names
        state["initialized"] = True
        return {
            "protocolVersion": BAP_VERSION,
            "serverInfo": {"name": "mcp-actions", "version": __version__},
            "capabilities": {
                "browsers": ["chromium"],
                "actions": [a for a in ACT_ACTIONS if a.startswith("action/")],
                "observations": ["observe/screenshot", "observe/content", "observe/ariaSnapshot", "agent/observe", "agent/extract"],
                "events": list(EVENT_KINDS),
                "streaming": False,
                "compression": False,
            },
        }


def _parse(raw: str | bytes) -> dict[str, Any] | BapError:
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        # RecursionError: nested deeper than the interpreter's stack ("[[[[…"); a parse error, not a closed connection.
        return BapError("ParseError", "not JSON")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return BapError("InvalidRequest", "not a JSON-RPC 2.0 message")
    return message


async def _send(connection: ServerConnection, message: dict[str, Any]) -> None:
    # Well formed whatever a page put in it: a lone surrogate would stop the UTF-8 frame (page_chars.well_formed).
    text = well_formed(json.dumps(message, ensure_ascii=False, default=str))
    with contextlib.suppress(ConnectionClosed):
        await connection.send(text)
