"""The Actions Bridge Protocol over WebSocket: one port, one connection per runtime.

``BridgeServer`` binds the bridge port and serves ``ws://host:port/bridge``.
With ``fallback`` (the port came from the default), a port another program
already listens on (say a second mcp-actions beside the first) gives way to a
free one, and ``port_note`` says so; without it a taken port is ``PortInUse``.
Every opening handshake first passes ``HttpRoutes`` (``http_routes.py``),
which refuses a foreign ``Host`` (421), authorises the upgrade (start token,
page credential or pairing; allowed origins) and answers the port's plain HTTP
routes (``/runtime.js``, the status page, ``/healthz``, ``/pair``). What the
handshake proved (``credentials.Admission``) becomes the connection's trust:
the bridge never takes it from what the runtime says of itself.

Each text frame of an upgraded connection is one JSON item fed to the
connection's ``RuntimeSession`` in arrival order; binary frames and oversize
frames are answered with an ``action_error`` and the connection stays usable.
Frames above the hard transport cap (``max_frame_bytes``) close the connection
(1009), because buffering arbitrarily large frames is how one would exhaust
the bridge.

When the bridge drops a connection it closes it with a code that tells the
runtime whether to come back: 4001 replaced by a newer connection of the same
runtime (do not reconnect), 4002 retired as stale (reconnect), 4003 its
pairing was revoked (do not reconnect with it), 1001 bridge stopping, 4000
anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from ..defaults import DEFAULT_BRIDGE_PORT
from ..errors import ActionError, ErrorCode
from ..ports import PortInUse, address_in_use, bind_error, fallback_note, hosts_for_bind
from .bridge import Bridge, RuntimeSession
from .credentials import page_credential
from .http_routes import HttpRoutes
from .items import ActionErrorItem, error_body
from .pairings import PairingStore
from .status_page import bookmarklet_url, render_status_body, render_status_page, runtime_script_url

__all__ = [
    "CLOSE_DROPPED",
    "CLOSE_REPLACED",
    "CLOSE_REVOKED",
    "CLOSE_STALE",
    "PAIRING_CHECK_S",
    "BridgeServer",
]

log = logging.getLogger(__name__)

#: Close codes the bridge uses when it drops a runtime (see the module docstring).
CLOSE_DROPPED = 4000
CLOSE_REPLACED = 4001
CLOSE_STALE = 4002
CLOSE_REVOKED = 4003
_CLOSE_GOING_AWAY = 1001
#: How often the pairings file is read again to end connections of a revoked pairing, in seconds.
PAIRING_CHECK_S = 5.0
#: Hosts that mean "every interface": clients reach them through loopback.
_WILDCARD_HOSTS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def _close_code(reason: str) -> int:
    # The bridge core speaks reasons, not codes; map its known reasons to codes a runtime can act on.
    if reason.startswith("replaced"):
        return CLOSE_REPLACED
    if reason.startswith("stale"):
        return CLOSE_STALE
    if reason.startswith("pairing revoked"):
        return CLOSE_REVOKED
    if reason.startswith("bridge stopping"):
        return _CLOSE_GOING_AWAY
    return CLOSE_DROPPED


def _close_reason(reason: str) -> str:
    # A close reason must fit in 123 bytes of UTF-8.
    return reason.encode("utf-8")[:120].decode("utf-8", "ignore")


def _utf8_size(frame: str) -> int:
    return len(frame.encode("utf-8"))


class _BridgeConnection(ServerConnection):
    """A server connection that closes TCP as soon as the closing handshake is done.

    RFC 6455 §5.5.1: after sending and receiving a Close frame the server MUST
    close the TCP connection immediately. websockets instead half-closes and
    waits for the client, so a runtime that sent Close but stopped reading
    would keep its session (and its pending calls) alive until it finally
    hung up. The read loop only ends on ``connection_lost``; closing here ends
    it right after the frames already received have been handled.
    """

    _closing_tcp = False

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        protocol = self.protocol
        if not self._closing_tcp and protocol.close_rcvd is not None and protocol.close_sent is not None:
            self._closing_tcp = True
            self.transport.close()  # flushes our Close reply first
            if self.close_timeout is not None:
                self.loop.call_later(self.close_timeout, self._abort_if_open)

    def _abort_if_open(self) -> None:
        # The peer did not take our Close reply off the wire in time: drop it.
        if not self.connection_lost_waiter.done():
            self.transport.abort()


class _WebSocketLink:
    """The bridge's handle on one WebSocket: one JSON text frame per item."""

    def __init__(self, ws: ServerConnection, spawn: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self._ws = ws
        self._spawn = spawn  # runs a coroutine in the background, owned (and reaped) by the server

    async def send(self, item: dict[str, Any]) -> None:
        # ASCII-escaped JSON: a lone surrogate that arrived inside an item (from a JSON escape)
        # must not make the frame unencodable on its way back out.
        await self._ws.send(json.dumps(item, separators=(",", ":")))

    async def close(self, reason: str) -> None:
        # Start the closing handshake without waiting for it: the bridge calls this while
        # failing calls and registering replacements, and an unresponsive peer must not
        # stall that for close_timeout. The read loop ends when the close completes.
        self._spawn(self._ws.close(_close_code(reason), _close_reason(reason)))


class BridgeServer:
    """Serves the bridge to runtimes over WebSocket, with ``/runtime.js`` and a status page."""

    def __init__(
        self,
        bridge: Bridge,
        *,
        host: str = "127.0.0.1",
        port: int = DEFAULT_BRIDGE_PORT,
        fallback: bool = False,
        token: str,
        runtime_script: Callable[[], str],
        allowed_origins: Sequence[str] | None = None,
        max_item_bytes: int | None = None,
        max_frame_bytes: int | None = None,
        ping_interval: float | None = 20.0,
        close_timeout: float = 2.0,
        status_extras: Callable[[], Mapping[str, Any]] | None = None,
        pairings: PairingStore | None = None,
        allowed_hosts: Sequence[str] = (),
    ) -> None:
        """``runtime_script()`` gives the page runtime served at ``/runtime.js`` (the
        composition root passes the page runtime's assembler). ``max_item_bytes``
        (default: the bridge's) is the largest item accepted; bigger frames up to
        ``max_frame_bytes`` (default: twice that) are answered with
        ``item_too_large``, and anything bigger closes the connection.

        ``fallback``: when ``port`` is taken, serve on a free port instead of
        raising ``PortInUse`` (for a port that came from the default).

        ``status_extras()``: more of the status page, ``render_status_page``'s keyword
        arguments (the composition root passes recent calls, failed maps, runtime tools).

        ``pairings``: the browser extension's lasting credentials (``pairings.py``), accepted
        beside ``token`` and handed out at ``/pair``; None serves neither. A connection that
        authenticated with a pairing is that pairing's, and ends soon after it is revoked
        (``mcp-actions extension --forget``, from another process: the file is read again
        every ``PAIRING_CHECK_S``; a re-pairing that revokes its older pairing ends them at once).

        ``allowed_hosts``: ``Host`` patterns answered beside loopback and the bound address
        (``ports.hosts_for_bind``); any other ``Host`` is refused with 421 on every route.

        Pages are handed the page credential (``page_credential``, derived from ``token``), never
        ``token`` itself: ``script_url``, ``bookmarklet`` and the status page's tag carry it."""
        self.status_extras = status_extras
        #: What pages present instead of the start token (bridge/credentials.py).
        self.page_credential = page_credential(token) if token else ""
        self.routes = HttpRoutes(
            token=token,
            runtime_script=runtime_script,
            status_page=self._status_page,
            allowed_origins=allowed_origins,
            pairings=pairings,
            page_credential=self.page_credential,
            allowed_hosts=hosts_for_bind(host, allowed_hosts),
            on_revoked=self._end_pairing,
        )
        self.routes.status_body = self._status_body
        self.bridge = bridge
        self.host = host
        #: The port asked for; ``port`` is the one bound.
        self.requested_port = port
        #: Whether a taken ``requested_port`` may give way to a free one.
        self.port_fallback = fallback
        #: Set when it did: one sentence naming both ports (None while serving on ``requested_port``).
        self.port_note: str | None = None
        self._token_text = token
        self.max_item_bytes = max_item_bytes or bridge.max_item_bytes
        self.max_frame_bytes = max(max_frame_bytes or 2 * self.max_item_bytes, self.max_item_bytes)
        self.ping_interval = ping_interval
        self.close_timeout = close_timeout
        self._server: Server | None = None
        self._port: int | None = None
        self._sessions: set[RuntimeSession] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopping = False
        self._pairing_watch: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Bind and start serving (``port=0`` picks a free port); starts the bridge's stale sweeper.

        A taken port gives way to a free one with ``fallback`` (``port_note`` says so) and
        raises ``PortInUse`` without it; any other failure to listen is a ``UsageError``.
        """
        if self._server is not None:
            return
        self._stopping = False
        self.port_note = None
        self.routes.live.open()
        try:
            self._server = await self._listen(self.requested_port)
        except OSError as exc:
            # Bound for real, and only the refusal decides: probing first would race another server starting now.
            if not address_in_use(exc):
                raise bind_error("bridge", self.host, self.requested_port, exc) from exc
            if not self.port_fallback or self.requested_port == 0:
                raise PortInUse("bridge", self.host, self.requested_port) from exc
            try:
                self._server = await self._listen(0)
            except OSError as again:
                raise bind_error("bridge", self.host, 0, again) from again
        sockets = self._server.sockets
        self._port = sockets[0].getsockname()[1] if sockets else self.requested_port
        if self._port != self.requested_port and self.requested_port != 0:
            self.port_note = fallback_note("bridge", self.requested_port, self._port, default=DEFAULT_BRIDGE_PORT)
            log.info("%s", self.port_note)
        await self.bridge.start()
        if self.routes.pairings is not None:
            self._pairing_watch = asyncio.create_task(self._end_revoked_pairings(), name="bridge-pairing-watch")
        log.info("bridge listening at %s", self.url)

    async def _listen(self, port: int) -> Server:
        # asyncio closes whatever it bound when a bind fails, so a refused port leaves nothing open.
        return await serve(
            self._handle,
            self.host,
            port,
            process_request=self._process_request,
            max_size=self.max_frame_bytes,
            # Items are small and local: per-connection zlib state would cost more than it saves.
            compression=None,
            ping_interval=self.ping_interval,
            close_timeout=self.close_timeout,
            server_header=None,
            create_connection=_BridgeConnection,
        )

    async def stop(self) -> None:
        """Close every connection (their pending calls fail with ``transport_failed``) and unbind."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping = True
        self.routes.live.close()  # the status page's held requests are answered now, not after their hold
        if self._pairing_watch is not None:
            self._pairing_watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pairing_watch
            self._pairing_watch = None
        server.close()
        await server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def __aenter__(self) -> BridgeServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # -- addresses ---------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (the requested one until ``start``)."""
        return self._port if self._port is not None else self.requested_port

    @property
    def _public_host(self) -> str:
        host = _WILDCARD_HOSTS.get(self.host, self.host)
        return f"[{host}]" if ":" in host else host

    @property
    def http_url(self) -> str:
        """``http://host:port`` of the bridge port (no trailing slash)."""
        return f"http://{self._public_host}:{self.port}"

    @property
    def url(self) -> str:
        """``ws://host:port/bridge``, where runtimes connect (add ``?token=``)."""
        return f"ws://{self._public_host}:{self.port}/bridge"

    @property
    def connection_count(self) -> int:
        """Open WebSocket connections, announced or not."""
        return len(self._sessions)

    def script_url(self) -> str:
        """``http://host:port/runtime.js?token=<page credential>``: what a page loads to become a runtime."""
        return runtime_script_url(self.http_url, self.page_credential)

    def bookmarklet(self) -> str:
        """A ``javascript:`` URL that injects the page runtime (with the page credential) into the open page."""
        return bookmarklet_url(self.script_url())

    def status_url(self) -> str:
        """The local status page, start token included (for the operator, never for a page)."""
        return f"{self.http_url}/?token={quote(self._token_text, safe='')}"

    @property
    def allowed_origins(self) -> frozenset[str] | None:
        """The browser origins allowed to connect (None: any, the token decides)."""
        return self.routes.allowed_origins

    # -- HTTP --------------------------------------------------------------

    async def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        return await self.routes.answer(request)

    def _status_page(self) -> str:
        return render_status_page(**self._status_arguments())

    def _status_body(self) -> str:
        return render_status_body(**self._status_arguments())

    def _status_arguments(self) -> dict[str, Any]:
        return dict(
            runtimes=self.bridge.registry.list(),
            pending_calls=self.bridge.pending_count,
            bridge_url=self.url,
            script_url=self.script_url(),
            active_id=self.bridge.registry.active_id,
            port_note=self.port_note,
            **(self.status_extras() if self.status_extras is not None else {}),
        )

    # -- WebSocket ---------------------------------------------------------

    async def _end_revoked_pairings(self) -> None:
        """Close the connections whose pairing is no longer in the store (revoked while they were open)."""
        store = self.routes.pairings
        assert store is not None
        while True:
            await asyncio.sleep(PAIRING_CHECK_S)
            paired = [s for s in self._sessions if s.authorization_id is not None]
            if not paired:
                continue
            live = await asyncio.to_thread(store.authorization_ids)
            for session in paired:
                if session.authorization_id not in live:
                    log.info("pairing %s was revoked: closing runtime %s", session.authorization_id, session.runtime_id)
                    await session.link.close("pairing revoked")

    def _end_pairing(self, authorization_id: str) -> None:
        """A re-pairing revoked ``authorization_id``: close its connections now, not at the next check."""
        for session in list(self._sessions):
            if session.authorization_id == authorization_id:
                log.info("pairing %s was replaced: closing runtime %s", authorization_id, session.runtime_id)
                self._spawn(session.link.close("pairing revoked"))

    async def _handle(self, ws: ServerConnection) -> None:
        """One runtime connection: feed each frame to its session, in order, until it ends."""
        # The handshake was authorised (routes.handle); what it proved is this connection's trust.
        admission = self.routes.admission(ws.request) if ws.request is not None else None
        if admission is None:  # revoked between the handshake and now
            await ws.close(CLOSE_REVOKED, "credential no longer valid")
            return
        session = self.bridge.connect(
            _WebSocketLink(ws, self._spawn),
            transport="websocket",
            authorization_id=admission.authorization_id,
            trust=admission.trust,
            origin=admission.origin,
            agent_session=admission.agent_session,
        )
        self._sessions.add(session)
        reason = "disconnected"
        try:
            async for frame in ws:
                refusal = self._check_frame(frame)
                if refusal is not None:
                    await self._refuse(session, refusal)
                    continue
                try:
                    await session.receive(frame)
                except ConnectionClosed:
                    raise
                except Exception:
                    log.exception("bridge failed handling an item from %s", session.runtime_id or "an unannounced runtime")
            reason = "bridge stopping" if self._stopping else _closed_reason(ws, "closed by the runtime")
        except ConnectionClosed:
            reason = "bridge stopping" if self._stopping else _closed_reason(ws, "connection lost")
        except asyncio.CancelledError:
            reason = "bridge stopping"
            raise
        except Exception:
            log.exception("bridge connection failed")
            reason = "connection failed"
        finally:
            self._sessions.discard(session)
            await session.close(reason)

    def _check_frame(self, frame: str | bytes) -> ActionError | None:
        if isinstance(frame, (bytes, bytearray, memoryview)):
            return ActionError(
                "binary frames are not bridge items; send each item as one JSON text frame",
                code=ErrorCode.INVALID_ITEM,
                evidence={"frame": "binary", "bytes": len(frame)},
            )
        # A str of n characters holds at most 4n UTF-8 bytes: only measure when it could be too big.
        if len(frame) * 4 > self.max_item_bytes:
            size = _utf8_size(frame)
            if size > self.max_item_bytes:
                return ActionError(
                    f"frame of {size} bytes exceeds the {self.max_item_bytes}-byte limit",
                    code=ErrorCode.ITEM_TOO_LARGE,
                    evidence={"bytes": size, "max_bytes": self.max_item_bytes},
                )
        return None

    async def _refuse(self, session: RuntimeSession, error: ActionError) -> None:
        log.warning("refused a frame from %s: %s", session.runtime_id or "an unannounced runtime", error.message)
        await session.send(ActionErrorItem(type="action_error", error=error_body(error), runtime_id=session.runtime_id or None))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("closing a bridge connection failed: %s", task.exception())


def _closed_reason(ws: ServerConnection, default: str) -> str:
    code = ws.close_code
    if code is None:
        return default
    return f"{default} (code {code}{': ' + ws.close_reason if ws.close_reason else ''})"
