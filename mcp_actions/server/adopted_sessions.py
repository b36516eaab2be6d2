"""Streamable-HTTP sessions any replica serves: adopted from the backplane where a request lands.

``AdoptingSessionManager`` is the SDK's session manager with two additions,
used when replicas share a backplane (docs/deploying.md):

- when a session is established, what the handshake settled is written to
  the cluster's session bucket (``backplane/sessions.py``) before the
  ``initialize`` answer, which carries the session id, reaches the client;
- a request carrying a session id this replica does not serve, but the bucket
  knows, *adopts* it: a transport with that id and a server connection that
  starts already initialised with the stored params, then the request is
  served as any other of that session. ``DELETE`` removes it from the bucket.

The additions reach into the manager's private state (``_server_instances``,
``_task_group``, ``_lifespan_state``, ``_discard_session``,
``_serve_opening_request``), since the SDK has no public hook for a session
it did not create; ``mcp`` is pinned below 3, and
tests/backplane/test_replicas.py fails the day these change.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

import anyio
from anyio.abc import TaskStatus
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_connection
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.transport_context import TransportContext
from mcp_types import InitializeRequestParams
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from ..backplane.sessions import SessionStore
from ..bridge.scope import SessionKey

__all__ = ["AdoptingSessionManager", "streamable_http_app"]

log = logging.getLogger(__name__)

#: How often a replica serving a session refreshes its record (the bucket forgets records after twice the idle timeout).
REFRESH_EVERY_S = 60.0


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.lower().encode("latin-1")
    return next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == wanted), None)


def _handshake(body: bytes) -> dict[str, Any] | None:
    """What an ``initialize`` request body settles: ``{client_params, protocol_version}`` (None for any other body)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # nested past the stack: not a handshake, and no failed request
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize" or not isinstance(message.get("params"), dict):
        return None
    params = message["params"]
    requested = params.get("protocolVersion")
    # The SDK answers with the version asked for when it speaks it, else its latest handshake version.
    version = requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    return {"client_params": params, "protocol_version": version}


class AdoptingSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, whose sessions live in the backplane and are adopted by whichever replica a request reaches."""

    def __init__(self, app: Server[Any], *, store: SessionStore, replica_id: str, on_ended: Callable[[str], Awaitable[None]] | None = None, **options: Any) -> None:
        """``on_ended(mcp_session_id)``: a client ended its session here (``DELETE``), for the other replicas to end it too."""
        super().__init__(app, **options)
        self.store = store
        self.on_ended = on_ended
        self.replica_id = replica_id
        self._refreshed: dict[str, float] = {}
        #: Sessions this replica adopted (served without having answered their initialize), for tests and the status page.
        self.adopted = 0

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        session_id = _header(scope, MCP_SESSION_ID_HEADER)
        if session_id is not None and session_id not in self._server_instances:
            record = await self.store.get(session_id)
            if record is not None:
                async with self._session_creation_lock:
                    if session_id not in self._server_instances:
                        await self._adopt(session_id, record)
        elif session_id is not None:
            await self._refresh(session_id)
        await super()._handle_stateful_request(scope, receive, send)
        if session_id is not None and scope.get("method") == "DELETE":
            self._refreshed.pop(session_id, None)
            await self.store.delete(session_id)
            if self.on_ended is not None:
                await self.on_ended(session_id)

    async def _refresh(self, session_id: str) -> None:
        last = self._refreshed.get(session_id)
        if last is not None and time.monotonic() - last < REFRESH_EVERY_S:
            return
        record = await self.store.get(session_id)
        if record is not None:
            self._refreshed[session_id] = time.monotonic()
            await self.store.put(session_id, record)

    async def _serve_opening_request(self, http_transport: StreamableHTTPServerTransport, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()

        async def reading() -> Message:
            message = await receive()
            if message.get("type") == "http.request":
                body.extend(message.get("body", b""))
            return message

        async def sending(message: Message) -> None:
            # Stored before the client can learn the session id: its next request may reach another replica at once.
            if message.get("type") == "http.response.start" and message.get("status", 500) < 400:
                session_id = http_transport.mcp_session_id
                handshake = _handshake(bytes(body))
                if session_id is not None and handshake is not None:
                    self._refreshed[session_id] = time.monotonic()
                    # Whose it is (--oauth-issuer: the token's client, issuer and subject), so that every replica
                    # serves it to that principal alone, as the SDK does for the sessions it opened itself.
                    owner = self._session_owners.get(session_id)
                    record = {**handshake, "created_by": self.replica_id, "created_at": time.time(), **({"owner": dict(owner)} if owner else {})}
                    await self.store.put(session_id, record)
            await send(message)

        await super()._serve_opening_request(http_transport, scope, reading, sending)

    async def _adopt(self, session_id: str, record: dict[str, Any]) -> None:
        """Serve a session another replica opened: a transport with its id, a connection born initialised."""
        try:
            params = InitializeRequestParams.model_validate(record.get("client_params"), by_name=False)
        except Exception as exc:
            log.warning("session %s in the backplane cannot be adopted: %s", SessionKey.of_http(session_id).id, exc)
            return
        version = str(record.get("protocol_version") or LATEST_HANDSHAKE_VERSION)
        transport = StreamableHTTPServerTransport(
            mcp_session_id=session_id,
            is_json_response_enabled=self.json_response,
            event_store=self.event_store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=self.session_idle_timeout,
        )
        self._server_instances[session_id] = transport
        owner = record.get("owner")
        if isinstance(owner, dict) and set(owner) == {"client_id", "issuer", "subject"}:
            self._session_owners[session_id] = cast(AuthorizationContext, owner)

        async def run_server(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                try:
                    idle_scope = transport.idle_scope or anyio.CancelScope()
                    with idle_scope:
                        dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(read_stream, write_stream, inline_methods=frozenset({"initialize"}))
                        connection = Connection.for_loop(dispatcher, session_id=session_id, protocol_version_hint=version)
                        connection.client_params = params
                        connection.initialized.set()  # the client said notifications/initialized to the replica that opened it
                        await serve_connection(self.app, dispatcher, connection=connection, lifespan_state=self._lifespan_state)
                except Exception:
                    log.exception("adopted session %s crashed", SessionKey.of_http(session_id).id)
                finally:
                    self._refreshed.pop(session_id, None)
                    await self._discard_session(session_id, transport)

        assert self._task_group is not None
        await self._task_group.start(run_server)
        self.adopted += 1
        self._refreshed[session_id] = time.monotonic()
        log.info("adopted session %s opened by replica %s", SessionKey.of_http(session_id).id, record.get("created_by"))


def streamable_http_app(
    server: Server[Any],
    store: SessionStore,
    *,
    replica_id: str,
    path: str,
    security: TransportSecuritySettings,
    idle_timeout: float,
    on_ended: Callable[[str], Awaitable[None]] | None = None,
) -> tuple[Starlette, AdoptingSessionManager]:
    """The streamable-HTTP ASGI app of a replica (as ``Server.streamable_http_app`` builds it, with the adopting manager)."""
    manager = AdoptingSessionManager(server, store=store, replica_id=replica_id, on_ended=on_ended, security_settings=security, session_idle_timeout=idle_timeout)
    return Starlette(routes=[Route(path, endpoint=StreamableHTTPASGIApp(manager))], lifespan=lambda _: manager.run()), manager
