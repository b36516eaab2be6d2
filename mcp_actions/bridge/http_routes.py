"""The bridge port's small HTTP surface, and who may open its WebSocket.

The bridge's WebSocket server hands every opening handshake to
``HttpRoutes.handle`` before upgrading it. First of all, a ``Host`` that does
not name this port (loopback, or the bound address) is refused with 421 on
every route: DNS rebinding would otherwise let a web page under a hostile name
read the status page or ask ``/pair`` for a pairing (the notion of "ours" is
``ports.hosts_for_bind``, shared with the HTTP transports).

- ``/bridge`` — the WebSocket endpoint. A credential travels as ``?token=`` or
  ``Authorization: Bearer …`` and is compared in constant time, so a refused
  client (401) never gets to send an item. Three credentials open it: the
  start token, the page credential (``credentials.page_credential``: for web
  pages only, so a handshake without ``Origin`` is refused with it), and a
  pairing's secret. ``admission`` says what a handshake proved and the trust
  that follows (``credentials.trust_of``). With ``allowed_origins`` set, a
  browser ``Origin`` outside it is refused (403); clients that send no
  ``Origin`` (non-browser runtimes) pass. ``None`` means: upgrade.
- ``GET /runtime.js`` — the page runtime, loadable cross-origin by any page.
  Its text comes from the ``runtime_script`` callable the composition root
  supplies (the bridge does not know how the page runtime is assembled). It
  carries no secret: its client reads the bridge URL and credential from its
  own ``src`` (``…/runtime.js?token=P`` → ``ws://host:port/bridge?token=P``),
  and what is handed out for pages (bookmarklet, script tag) names the page
  credential, never the start token.
- ``GET /?token=…`` — the local status page (``status_page.py``), start token only.
- ``GET /status/events?token=…`` — the status page's live updates (server-sent events,
  ``status_live.py``), start token only; ``GET /status.js`` — the page's own script (no secret).
- ``GET /metrics`` — Prometheus' text format (``operators/metrics.py``), with the start token as a
  bearer token or ``?token=``; 404 until the composition root sets ``metrics``.
- ``GET /healthz`` — ``ok``, for supervisors; reveals nothing.
- ``GET /pair`` — with the start token in ``Authorization: Bearer …`` (never
  the query: a web page could put it there in a no-cors request), a new
  pairing for the browser extension (``pairings.py``): JSON
  ``{authorization_id, secret, label, server}``. A request carrying a web
  page's ``Origin`` is refused (403): pairing is for the extension's own pages
  and local programs. Its secret is then accepted on ``/bridge`` like the
  token, after restarts too. A GET because the WebSocket server's HTTP parser
  reads nothing else; it sends no CORS header, so no web page can read the
  answer (the extension's pages may, by their host permission). A client
  re-pairing revokes its older pairing by presenting that pairing's secret in
  ``X-MCP-Actions-Replaces`` (``?replaces=<authorization_id>`` alone revokes
  nothing: knowing an id is not holding it, so only the paired browser itself,
  or the local ``mcp-actions extension --forget``, ends a pairing).
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

from ..ports import LOOPBACK_HOSTS, host_allowed
from .credentials import Admission, Credential, is_web_origin, trust_of
from .pairings import PairingStore
from .scope import session_of_credential
from .status_live import LiveFeed, event_stream
from .status_page import STATUS_SCRIPT

__all__ = ["REPLACES_HEADER", "HttpRoutes", "json_response", "plain_response"]

#: The header in which a re-pairing client presents its older pairing's secret, to have that pairing revoked.
REPLACES_HEADER = "X-MCP-Actions-Replaces"

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
        page_credential: str | None = None,
        allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
        on_revoked: Callable[[str], None] | None = None,
    ) -> None:
        """``runtime_script()`` gives the page runtime's source; ``status_page()`` the status page's HTML.

        ``pairings``: where extension pairings are kept (None: no ``/pair`` route, the token alone connects);
        ``server_name`` is what a pairing's answer says asked (the connect page shows it);
        ``page_credential``: what pages present instead of the token (None: pages need the token);
        ``allowed_hosts``: the ``Host`` patterns that name this port (``ports.hosts_for_bind``);
        ``on_revoked(authorization_id)``: a re-pairing revoked that pairing (its connections should end now)."""
        if not token:
            raise ValueError("the bridge needs a non-empty token")
        self._token = token.encode("utf-8")
        self._page_credential = page_credential.encode("utf-8") if page_credential else None
        self.allowed_hosts = tuple(allowed_hosts)
        self.on_revoked = on_revoked
        self._runtime_script = runtime_script
        self._status_page = status_page
        self.allowed_origins = None if allowed_origins is None else frozenset(o.rstrip("/") for o in allowed_origins)
        self.pairings = pairings
        self.server_name = server_name
        #: ``/metrics``: the scrape's text and content type (operators/metrics.py); None: not served.
        self.metrics: Callable[[], tuple[bytes, str]] | None = None
        #: The status page's changes, for ``/status/events``; ``status_body()`` renders what an event carries.
        self.live = LiveFeed()
        self.status_body: Callable[[], str] | None = None

    def token_ok(self, request: Request, query: dict[str, list[str]]) -> bool:
        """True when the request presents the bridge token (query first, then a Bearer header)."""
        presented = _presented(request, query)
        if presented is None:
            return False
        return hmac.compare_digest(presented.encode("utf-8"), self._token)

    def page_credential_ok(self, request: Request, query: dict[str, list[str]]) -> bool:
        """True when the request presents the page credential."""
        presented = _presented(request, query)
        if presented is None or self._page_credential is None:
            return False
        return hmac.compare_digest(presented.encode("utf-8"), self._page_credential)

    def host_ok(self, request: Request) -> bool:
        """Whether the request's one ``Host`` header names this port (DNS rebinding protection)."""
        hosts = request.headers.get_all("Host")
        return len(hosts) == 1 and host_allowed(hosts[0].strip(), self.allowed_hosts)

    def admission(self, request: Request) -> Admission | None:
        """What an upgrade request proved (credential, trust, pairing, ``Origin``), or None when it presents nothing valid."""
        query = parse_qs(urlsplit(request.path).query)
        origins = request.headers.get_all("Origin")
        origin = origins[0] if len(origins) == 1 else None
        credential: Credential
        authorization: str | None = None
        presented = _presented(request, query)
        agent_session = session_of_credential(self._token.decode("utf-8"), presented) if presented else None
        if self.token_ok(request, query):
            credential = "start"
        elif self.page_credential_ok(request, query):
            credential = "page"
        elif agent_session is not None:
            # An agent session's credential (from its actions://bridge/launch): as the start token, for that session only.
            session_trust = trust_of("session", origin)
            return Admission("session", session_trust, None, origin if session_trust == "page" else None, agent_session=agent_session)
        else:
            authorization = self.pairing_of(request)
            if authorization is None:
                return None
            credential = "pairing"
        trust = trust_of(credential, origin)
        # Only a page runtime's origin matters later (its announced urls are held to it).
        return Admission(credential, trust, authorization, origin if trust == "page" else None)

    def pairing_of(self, request: Request) -> str | None:
        """The authorization_id of the live pairing whose secret ``request`` presents (None: none, or the start token)."""
        presented = _presented(request, parse_qs(urlsplit(request.path).query))
        return self.pairings.authorization_of(presented) if presented and self.pairings is not None else None

    async def answer(self, request: Request) -> Response | None:
        """``handle``, and the one route answered later: ``/status/events``, held until the page changed."""
        parts = urlsplit(request.path)
        if (parts.path.rstrip("/") or "/") != "/status/events" or not self.host_ok(request) or request.method != "GET":
            return self.handle(request)
        if not self.token_ok(request, parse_qs(parts.query)):
            return plain_response(http.HTTPStatus.UNAUTHORIZED, "the status page's events need the bridge token (?token=)\n")
        seen = request.headers.get("Last-Event-ID")
        version = await self.live.wait_after(seen)
        body = self.status_body() if self.status_body is not None else ""
        return plain_response(http.HTTPStatus.OK, event_stream(version, body), content_type="text/event-stream; charset=utf-8", extra=_PAGE_HEADERS)

    def handle(self, request: Request) -> Response | None:
        """Route one handshake: ``None`` lets an authorised ``/bridge`` upgrade; anything else is answered."""
        parts = urlsplit(request.path)
        query = parse_qs(parts.query)
        path = parts.path.rstrip("/") or "/"
        if not self.host_ok(request):
            log.warning("refused a request for Host %r on the bridge port (DNS rebinding protection)", request.headers.get_all("Host"))
            return plain_response(http.HTTPStatus.MISDIRECTED_REQUEST, "Invalid Host header\n")
        if request.method != "GET":
            return plain_response(http.HTTPStatus.METHOD_NOT_ALLOWED, "only GET is served here\n", extra={"Allow": "GET"})
        if path == "/bridge":
            return self._authorise_upgrade(request, query)
        if path == "/runtime.js":
            return self._runtime_js()
        if path == "/healthz":
            return plain_response(http.HTTPStatus.OK, "ok\n")
        if path == "/status.js":
            return plain_response(http.HTTPStatus.OK, STATUS_SCRIPT, content_type="application/javascript; charset=utf-8", extra={"Cache-Control": "no-store"})
        if path == "/metrics" and self.metrics is not None:
            return self._metrics(request, query)
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
        origins = request.headers.get_all("Origin")
        if any(is_web_origin(origin) for origin in origins):
            log.warning("refused a pairing request from a web page (Origin %s)", origins)
            return _refusal(http.HTTPStatus.FORBIDDEN, "web_origin", "a web page may not ask for a pairing; open the connect link in the browser extension")
        # The start token from the Authorization header only: a page that learnt it could put it in a query.
        if not self.token_ok(request, {}):
            log.warning("refused a pairing request without this start's bridge token")
            return _refusal(http.HTTPStatus.UNAUTHORIZED, "token", "the bridge refused this token: it is wrong, or from an earlier start of mcp-actions")
        replaces, refusal = self._replaced_pairing(request, (query.get("replaces") or [""])[0] or None)
        if refusal is not None:
            return refusal
        label = (query.get("label") or ["browser extension"])[0]
        pairing = self.pairings.create(label, replaces=replaces)
        log.info("paired %s (%s)%s", pairing.authorization_id, pairing.label, f", replacing {replaces}" if replaces else "")
        if replaces is not None and self.on_revoked is not None:
            self.on_revoked(replaces)
        return json_response(http.HTTPStatus.OK, {**pairing.to_dict(), "server": self.server_name})

    def _replaced_pairing(self, request: Request, named: str | None) -> tuple[str | None, Response | None]:
        """The older pairing a re-pairing revokes: the one whose secret it presents (``REPLACES_HEADER``).

        ``?replaces=<id>`` only names it: when that pairing is live and the secret does not prove it, the
        request is refused (403) and nothing changes; when it is gone already there is nothing to revoke.
        """
        assert self.pairings is not None
        secrets_given = request.headers.get_all(REPLACES_HEADER)
        proved = self.pairings.authorization_of(secrets_given[0]) if len(secrets_given) == 1 else None
        if named is not None and proved != named and named in self.pairings.authorization_ids():
            log.warning("refused to revoke pairing %s: the request does not present its secret", named)
            return None, _refusal(
                http.HTTPStatus.FORBIDDEN, "not_the_pairing", f"only the browser paired as {named} (its secret in {REPLACES_HEADER}) or mcp-actions extension --forget may revoke it"
            )
        return proved, None

    def origin_ok(self, request: Request) -> bool:
        """True unless ``allowed_origins`` is set and a browser sent another (or several) ``Origin``."""
        if self.allowed_origins is None:
            return True
        origins = request.headers.get_all("Origin")
        if not origins:
            return True  # not a browser: the token alone decides
        return len(origins) == 1 and origins[0].rstrip("/") in self.allowed_origins

    def _authorise_upgrade(self, request: Request, query: dict[str, list[str]]) -> Response | None:
        admission = self.admission(request)
        if admission is None:
            log.warning("refused a bridge connection without a valid token")
            return plain_response(
                http.HTTPStatus.UNAUTHORIZED,
                "a valid bridge token is required (?token=… or Authorization: Bearer …); "
                "mcp-actions prints it to stderr when it starts\n",
                extra={"WWW-Authenticate": 'Bearer realm="mcp-actions bridge"'},
            )
        if admission.credential == "page" and len(request.headers.get_all("Origin")) != 1:
            # Browsers always send Origin on a WebSocket handshake: without one this is no page,
            # and without one nothing the runtime says of its page could be held to an origin.
            log.warning("refused a bridge connection that presented the page credential without an Origin")
            return plain_response(http.HTTPStatus.FORBIDDEN, "the page credential is for web pages, which send an Origin header\n")
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
        return plain_response(http.HTTPStatus.OK, self._status_page(), content_type="text/html; charset=utf-8", extra=_PAGE_HEADERS)

    def _metrics(self, request: Request, query: dict[str, list[str]]) -> Response:
        if not self.token_ok(request, query):
            return plain_response(
                http.HTTPStatus.UNAUTHORIZED,
                "/metrics needs the bridge token (Authorization: Bearer …, or ?token=)\n",
                extra={"WWW-Authenticate": 'Bearer realm="mcp-actions bridge"'},
            )
        assert self.metrics is not None
        body, content_type = self.metrics()
        return plain_response(http.HTTPStatus.OK, body.decode("utf-8"), content_type=content_type, extra={"Cache-Control": "no-store"})


#: The status page's and its events' headers: no cache keeps them, no page frames them, no link says where it
#: came from (the token is in the address); its one script is its own (``/status.js``), which reads its events.
_PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
}


def _refusal(status: http.HTTPStatus, reason: str, message: str) -> Response:
    """A JSON refusal with the stable ``permission_denied`` code and ``evidence.reason``."""
    return json_response(status, {"error": {"code": "permission_denied", "message": message, "evidence": {"reason": reason}}})


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
