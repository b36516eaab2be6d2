"""``--metrics-port``: ``/metrics`` on a port of its own, without a token, for a scraper on a private network.

The bridge port serves ``/metrics`` behind the bridge token (``bridge/http_routes.py``); a
deployment whose Prometheus reaches the replicas on an internal interface may prefer a port that
serves nothing else. It answers ``GET /metrics`` and ``GET /healthz``; anything else is 404, and
it never upgrades to WebSocket. It is a WebSocket server's HTTP side, as the bridge and the BAP door
are, so no other HTTP server is loaded for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

__all__ = ["MetricsPort"]

log = logging.getLogger(__name__)


class MetricsPort:
    """Serves ``scrape()`` at ``http://host:port/metrics``."""

    def __init__(self, scrape: Callable[[], tuple[bytes, str]], *, host: str, port: int) -> None:
        self.scrape = scrape
        self.host = host
        self.requested_port = port
        self._server: Server | None = None

    @property
    def port(self) -> int:
        """The bound port (the requested one until ``start``)."""
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self.requested_port

    async def start(self) -> None:
        """Bind and listen (``OSError`` when the port cannot be had)."""
        self._server = await serve(self._never, self.host, self.requested_port, process_request=self._answer, server_header=None)
        log.info("metrics at http://%s:%d/metrics", self.host, self.port)

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            await server.wait_closed()

    async def _never(self, connection: ServerConnection) -> None:  # every request was answered before an upgrade
        await connection.close()

    def _answer(self, connection: ServerConnection, request: Request) -> Response:
        path = urlsplit(request.path).path
        if path == "/metrics":
            body, content_type = self.scrape()
            return _response(HTTPStatus.OK, body, content_type)
        if path == "/healthz":
            return _response(HTTPStatus.OK, b"ok\n", "text/plain; charset=utf-8")
        return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))), ("Cache-Control", "no-store"), ("Connection", "close")])
    return Response(status.value, status.phrase, headers, body)
