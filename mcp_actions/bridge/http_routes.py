"""The bridge port's small HTTP surface, and who may open its WebSocket.

The bridge's WebSocket server hands every opening handshake to
``HttpRoutes.handle`` before upgrading it:

- ``/bridge`` — the WebSocket endpoint. The token travels as ``?token=`` or
  ``Authorization: Bearer …`` and is compared in constant time, so a refused
  client (401) never gets to send an item. With ``allowed_origins`` set, a
  browser ``Origin`` outside it is refused (403); clients that send no
  ``Origin`` (non-browser runtimes) pass. ``None`` means: upgrade.
- ``GET /runtime.js`` — the page runtime, loadable cross-origin by any page.
  Its text comes from the ``runtime_script`` callable the composition root
  supplies (the bridge does not know how the page runtime is assembled). It
  carries no secret: its client reads the bridge URL and token from its own
  ``src`` (``…/runtime.js?token=T`` → ``ws://host:port/bridge?token=T``).
- ``GET /?token=…`` — the local status page (``status_page.py``).
- ``GET /healthz`` — ``ok``, for supervisors; reveals nothing.
- ``GET /pair`` — with the start token (``Authorization: Bearer …``), a new
  pairing for the browser extension (``pairings.py``): JSON
  ``{authorization_id, secret, label, server}``. Its secret is then accepted
  on ``/bridge`` like the token, after restarts too. A GET because the
  WebSocket server's HTTP parser reads nothing else; it sends no CORS header,
  so no web page can read the answer (the extension's pages may, by their
  host permission). ``?replaces=<authorization_id>`` revokes that older one.
"""

from __future__ import annotations

import email.utils
import hmac
import http
import json
import logging
from collections.abc import Callable, Sequence
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .pairings import PairingStore

__all__ = ["HttpRoutes", "json_response", "plain_response"]

log = logging.getLogger(__name__)


class HttpRoutes:
    """Answers the bridge port's HTTP requests and authorises WebSocket upgrades."""

    def __init__(
        self,
        *,
        token: str,
        runtime_script: Callable[[], str],
        status_page: Callable[[], str],
        allowed_origins: Sequence[str] | None = None,
        pairings: PairingStore | None = None,
        server_name: str = "mcp-actions",
    ) -> None:
        """``runtime_script()`` gives the page runtime's source; ``status_page()`` the status page's HTML.

        ``pairings``: where extension pairings are kept (None: no ``/pair`` route, the token alone connects);
        ``server_name`` is what a pairing's answer says asked (the connect page shows it)."""
        if not token:
            raise ValueError("the bridge needs a non-empty token")
        self._token = token.encode("utf-8")
        self._runtime_script = runtime_script
        self._status_page = status_page
        self.allowed_origins = None if allowed_origins is None else frozenset(o.rstrip("/") for o in allowed_origins)
        self.pairings = pairings
        self.server_name = server_name

    def token_ok(self, request: Request, query: dict[str, list[str]]) -> bool:
        """True when the request presents the bridge token (query first, then a Bearer header)."""
        presented = _presented(request, query)
        if presented is None:
            return False
        return hmac.compare_digest(presented.encode("utf-8"), self._token)

    def pairing_of(self, request: Request) -> str | None:
        """The authorization_id of the live pairing whose secret ``request`` presents (None: none, or the start token)."""
        presented = _presented(request, parse_qs(urlsplit(request.path).query))
        return self.pairings.authorization_of(presented) if presented and self.pairings is not None else None

    def handle(self, request: Request) -> Response | None:
        """Route one handshake: ``None`` lets an authorised ``/bridge`` upgrade; anything else is answered."""
        parts = urlsplit(request.path)
        query = parse_qs(parts.query)
        path = parts.path.rstrip("/") or "/"
        if request.method != "GET":
            return plain_response(http.HTTPStatus.METHOD_NOT_ALLOWED, "only GET is served here\n", extra={"Allow": "GET"})
        if path == "/bridge":
            return self._authorise_upgrade(request, query)
        if path == "/runtime.js":
            return self._runtime_js()
        if path == "/healthz":
            return plain_response(http.HTTPStatus.OK, "ok\n")
        if path == "/pair" and self.pairings is not None:
            return self._pair(request, query)
        if path == "/":
            if not self.token_ok(request, query):
                return plain_response(
                    http.HTTPStatus.UNAUTHORIZED,
                    "This is the mcp-actions bridge. Open the address mcp-actions printed to stderr "
                    "(it ends in ?token=…) to see its status.\n",
                )
            return self._status()
        return plain_response(http.HTTPStatus.NOT_FOUND, "not found\n")

    def _pair(self, request: Request, query: dict[str, list[str]]) -> Response:
        assert self.pairings is not None
        if not self.token_ok(request, query):
            log.warning("refused a pairing request without this start's bridge token")
            return json_response(
                http.HTTPStatus.UNAUTHORIZED,
                {"error": {"code": "permission_denied", "message": "the bridge refused this token: it is wrong, or from an earlier start of mcp-actions"}},
            )
        label = (query.get("label") or ["browser extension"])[0]
        replaces = (query.get("replaces") or [""])[0] or None
        pairing = self.pairings.create(label, replaces=replaces)
        log.info("paired %s (%s)", pairing.authorization_id, pairing.label)
        return json_response(http.HTTPStatus.OK, {**pairing.to_dict(), "server": self.server_name})

    def origin_ok(self, request: Request) -> bool:
        """True unless ``allowed_origins`` is set and a browser sent another (or several) ``Origin``."""
        if self.allowed_origins is None:
            return True
        origins = request.headers.get_all("Origin")
        if not origins:
            return True  # not a browser: the token alone decides
        return len(origins) == 1 and origins[0].rstrip("/") in self.allowed_origins

    def _authorise_upgrade(self, request: Request, query: dict[str, list[str]]) -> Response | None:
        if not (self.token_ok(request, query) or self.pairing_of(request) is not None):
            log.warning("refused a bridge connection without a valid token")
            return plain_response(
                http.HTTPStatus.UNAUTHORIZED,
                "a valid bridge token is required (?token=… or Authorization: Bearer …); "
                "mcp-actions prints it to stderr when it starts\n",
                extra={"WWW-Authenticate": 'Bearer realm="mcp-actions bridge"'},
            )
        if not self.origin_ok(request):
            log.warning("refused a bridge connection from origin %s", request.headers.get_all("Origin"))
            return plain_response(http.HTTPStatus.FORBIDDEN, "this origin may not connect to the bridge\n")
        return None

    def _runtime_js(self) -> Response:
        try:
            source = self._runtime_script()
        except Exception:
            log.exception("the page runtime is not available")
            return plain_response(http.HTTPStatus.SERVICE_UNAVAILABLE, "the page runtime is not available\n")
        return plain_response(
            http.HTTPStatus.OK,
            source,
            content_type="application/javascript; charset=utf-8",
            extra={
                # Pages of any origin load it; it carries no secret.
                "Access-Control-Allow-Origin": "*",
                "Cross-Origin-Resource-Policy": "cross-origin",
                "Cache-Control": "no-cache",
            },
        )

    def _status(self) -> Response:
        return plain_response(
            http.HTTPStatus.OK,
            self._status_page(),
            content_type="text/html; charset=utf-8",
            extra={
                "Cache-Control": "no-store",
                "X-Frame-Options": "DENY",
                "Referrer-Policy": "no-referrer",
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            },
        )


def _presented(request: Request, query: dict[str, list[str]]) -> str | None:
    """The credential a request presents: ``?token=`` first, then ``Authorization: Bearer …``."""
    if query.get("token"):
        return query["token"][0]
    for value in request.headers.get_all("Authorization"):
        scheme, _, credentials = value.partition(" ")
        if scheme.lower() == "bearer":
            return credentials.strip()
    return None


def json_response(status: http.HTTPStatus, body: dict[str, object]) -> Response:
    """A JSON answer that no cache keeps (pairing secrets travel in it)."""
    return plain_response(status, json.dumps(body), content_type="application/json", extra={"Cache-Control": "no-store"})


def plain_response(
    status: http.HTTPStatus,
    body: str,
    *,
    content_type: str = "text/plain; charset=utf-8",
    extra: dict[str, str] | None = None,
) -> Response:
    """A complete HTTP response that closes the connection after it."""
    data = body.encode("utf-8", "replace")  # page-supplied titles may hold lone surrogates
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Length", str(len(data))),
            ("Content-Type", content_type),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    for name, value in (extra or {}).items():
        headers[name] = value
    return Response(status.value, status.phrase, headers, data)
