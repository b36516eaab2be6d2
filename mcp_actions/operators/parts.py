"""The operators' parts of one server, wired to the app below both doors: call counts and the live page's changes.

``ActionsApp`` makes one ``Operators`` (so every way of serving has them: stdio, HTTP, BAP beside
either) and hands its parts to the bridge port once it listens (``serve_on``): ``/metrics`` and
the status page's events. ``--metrics-port`` serves ``scrape`` on a port of its own
(``metrics_port.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..bridge.events import RuntimeEvent
from ..bridge.status_live import LiveFeed
from ..errors import UsageError
from ..events import MapsFailed, ResourcesListChanged, ToolsChanged
from .metrics import CallCounts, ScrapeSources, door_of_session, render

if TYPE_CHECKING:
    from ..bridge.websocket import BridgeServer
    from .metrics_port import MetricsPort
    from .tokens import JwksVerifier

__all__ = ["Operators"]


class Operators:
    """Counts every call that ends and follows what the status page shows, for ``/metrics`` and the live page."""

    def __init__(self, app: Any) -> None:
        """``app``: the ``ActionsApp`` (not named as a type: it imports this module, and modules here import each other one way only)."""
        self.app = app
        self.calls = CallCounts(named=self._named)
        self.live = LiveFeed()
        self._verifier: JwksVerifier | None = None
        self._port: MetricsPort | None = None
        app.audit.listeners.append(self.calls.heard)
        app.audit.listeners.append(self.live.changed)  # a call ended: it appears on the page now
        for kind in (ToolsChanged, MapsFailed, ResourcesListChanged, RuntimeEvent):
            app.events.subscribe(kind, self.live.changed)

    def verifier(self) -> JwksVerifier:
        """The bearer-token verifier of ``--oauth-issuer`` (one for both doors: one JWKS cache), made at first use."""
        if self._verifier is None:
            from .tokens import JwksVerifier

            settings = self.app.options.oauth
            assert settings is not None
            audience = settings.audience or (self.app.mcp_http or {}).get("url")
            if not audience:
                raise UsageError("--oauth-issuer needs --oauth-audience here (the server's own /mcp URL is not known)")
            self._verifier = JwksVerifier(settings, audience)
        return self._verifier

    async def start(self) -> None:
        """Serve ``/metrics`` on ``--metrics-port`` when given (``PortInUse`` when that port is taken)."""
        options = self.app.options
        if options.metrics_port is None or self._port is not None:
            return
        from .metrics_port import MetricsPort

        port = MetricsPort(self.scrape, host=options.metrics_host, port=options.metrics_port)
        try:
            await port.start()
        except OSError as exc:
            from ..ports import PortInUse

            raise PortInUse("metrics", options.metrics_host, options.metrics_port) from exc
        self._port = port

    async def stop(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            await port.stop()

    def serve_on(self, endpoint: BridgeServer) -> None:
        """Serve ``/metrics`` and the status page's events on the bridge port."""
        endpoint.routes.metrics = self.scrape
        endpoint.routes.live = self.live

    def scrape(self) -> tuple[bytes, str]:
        """``/metrics``' text and content type."""
        return render(self.sources())

    def sources(self) -> ScrapeSources:
        app = self.app
        return ScrapeSources(
            calls=self.calls,
            in_flight=lambda: ("bap" if str(call.context.client or "").startswith("bap:") else "mcp" for call in app.service.running_calls()),
            sessions=self._sessions,
            runtimes=lambda: ((info.transport, door_of_session(info.session)) for info in app.bridge.registry.list() if not info.replica or info.replica == app.bridge.replica_id),
            audit=app.audit,
            backplane=self._backplane,
        )

    def _named(self, tool: str) -> bool:
        """Whether a tool's name is the operator's to label with: a built-in, or a tool of a map file served to everyone."""
        return any(b.name == tool and b.runtime_id is None and b.owner is None for b in self.app.catalog.tools.values())

    def _sessions(self) -> Iterator[tuple[str, str]]:
        books: dict[int, Any] = {}
        for book in (self.app.sessions, getattr(self.app.bap, "sessions", None)):
            if book is not None:
                books[id(book)] = book
        for book in books.values():
            for key in book.served_here():  # per replica: a session only another replica served is that one's
                yield key.kind, "bap" if key.kind == "bap" else "mcp"

    def _backplane(self) -> Mapping[str, Any] | None:
        backplane = self.app.backplane
        if backplane is None:
            return None
        return {"connected": backplane.connected, "sent": backplane.remote.sent_total, "taken": backplane.server.taken_total}
