"""What guards the HTTP transports: Host and Origin allow-lists, an optional bearer token, CORS.

DNS rebinding lets a web page reach a server on the user's loopback
interface under a hostile name; refusing a ``Host`` that is not ours stops
it (421). A browser's ``Origin`` that is not allowed is refused (403): by
default only the server's own origin is (the scheme, host and port it is
reached at, once that ``Host`` passed). The MCP port serves no page (every
other path is a plain-text 404), so no script runs in that origin to abuse it;
the official MCP conformance suite's DNS-rebinding scenario sends it. A page
on another loopback port is a web page too (any
local dev server, or a page the agent's own browser opened, could otherwise
open a session and read what the server holds), so a browser-based client
such as the MCP Inspector is allowed by naming its origin
(``--http-allowed-origins http://localhost:6274``) or by the token.
Programs send no ``Origin`` and are unaffected. With a token, every request must carry
``Authorization: Bearer <token>`` (401 otherwise). An allowed ``Origin``
gets CORS answers, so a browser-based client (the MCP Inspector, a web IDE)
can call, read the session header and send preflights.

A pattern ending in ``:*`` allows any port (``localhost:*``,
``http://localhost:*``); ``*`` alone allows anything.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..ports import LOOPBACK_HOSTS, host_allowed, hosts_for_bind

__all__ = ["HttpGuard", "HttpPolicy", "LOOPBACK_HOSTS", "LOOPBACK_ORIGINS"]

log = logging.getLogger(__name__)

#: Loopback pages' origins, as patterns: allowed only when ``--http-allowed-origins`` names them.
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")
_EXPOSED = "mcp-session-id, mcp-protocol-version"


@dataclass(frozen=True)
class HttpPolicy:
    """Who may call the HTTP transports."""

    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS
    allowed_origins: Sequence[str] = ()
    token: str | None = None

    @classmethod
    def for_bind(cls, host: str, *, allowed_hosts: Sequence[str] = (), allowed_origins: Sequence[str] = (), token: str | None = None) -> HttpPolicy:
        """Hosts: loopback plus the bound address (unless it is a wildcard), plus those allowed; origins: only those allowed."""
        return cls(allowed_hosts=hosts_for_bind(host, allowed_hosts), allowed_origins=tuple(allowed_origins), token=token)

    def host_ok(self, host: str | None) -> bool:
        """Whether the ``Host`` header names us."""
        return bool(host) and host_allowed(host or "", self.allowed_hosts)

    def origin_ok(self, origin: str | None, *, own: str | None = None) -> bool:
        """Whether a browser page of ``origin`` may call (no ``Origin``: not a browser page; allowed).

        ``own``: the server's own origin as this request reached it (``http://127.0.0.1:8931``), from a
        ``Host`` already found to be ours; an ``Origin`` equal to it is accepted (CONTRACT §8).
        """
        if origin is None:
            return True
        if own is not None and origin.strip().lower() == own.lower():
            return True
        return host_allowed(origin, self.allowed_origins)

    def token_ok(self, authorization: str | None) -> bool:
        """Whether the request carries the bearer token (always, without one configured)."""
        if self.token is None:
            return True
        scheme, _, given = (authorization or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self.token.encode())


def _own_origin(scope: Scope, headers: Headers) -> str | None:
    """The origin this request reached the server at: its scheme and its ``Host`` (checked before this is asked)."""
    host = headers.get("host")
    if not host:
        return None
    return f"{scope.get('scheme', 'http')}://{host.strip()}"


class HttpGuard:
    """ASGI middleware enforcing an ``HttpPolicy`` in front of the MCP HTTP app."""

    def __init__(self, app: ASGIApp, policy: HttpPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        refusal = self._refusal(scope, headers, origin)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if origin is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            await self._preflight(headers, origin)(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [
                    (b"access-control-allow-origin", origin.encode("latin-1")),
                    (b"access-control-expose-headers", _EXPOSED.encode()),
                    (b"vary", b"Origin"),
                ]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def _refusal(self, scope: Scope, headers: Headers, origin: str | None) -> Response | None:
        if not self.policy.host_ok(headers.get("host")):
            log.warning("refused an HTTP request for Host %r (DNS rebinding protection)", headers.get("host"))
            return PlainTextResponse("Invalid Host header", status_code=421)
        if not self.policy.origin_ok(origin, own=_own_origin(scope, headers)):
            log.warning("refused an HTTP request from Origin %r", origin)
            return PlainTextResponse("Origin not allowed", status_code=403)
        if scope["method"] != "OPTIONS" and not self.policy.token_ok(headers.get("authorization")):
            return PlainTextResponse("Missing or wrong bearer token", status_code=401, headers={"WWW-Authenticate": 'Bearer realm="mcp-actions"'})
        return None

    @staticmethod
    def _preflight(headers: Headers, origin: str) -> Response:
        requested = headers.get("access-control-request-headers", "")
        return Response(
            status_code=204,
            headers={
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
                "Access-Control-Allow-Headers": requested or "authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id",
                "Access-Control-Expose-Headers": _EXPOSED,
                "Access-Control-Max-Age": "600",
                "Vary": "Origin",
            },
        )
