"""The server's state as people and hosts see it: the ``actions://bridge/launch`` report and the status page's part.

Both views show the same running parts: how to connect, what loaded and
what failed, the policy in force, the audit log, the browser, the replicas
and the HTTP sessions. ``ServerViews`` reads them, so the composition root
only hands it the parts. Those made with the server are given once; those
that exist only once it serves (the bridge's endpoint, the MCP HTTP
address, the HTTP sessions, the backplane) are read at each view through
``served()``, since the transport and ``start`` set them later.

The launch report's shape is ``launch.py``'s (docs/mcp-surface.md); the
status page renders its part (``bridge/status_page.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..audit_log import AuditLog
from ..bridge.registry import RuntimeRegistry
from ..bridge.websocket import BridgeServer
from ..catalog.catalog import Catalog
from ..catalog.maps import MapLoader
from ..operators.last_check import drifted_maps
from ..runtimes.deferred import DeferredBrowser
from ..url_secrets import shown_url
from .launch import extension_connect_url, launch_report

__all__ = ["Served", "ServerViews"]


class _Sessions(Protocol):
    """The HTTP transports' agent sessions (``server/sessions.py``), as the status page shows them."""

    def describe(self) -> list[dict[str, Any]]: ...


class _Replica(Protocol):
    """This replica's link to the others (``backplane/node.py``), as both views show it."""

    def status(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Served:
    """What exists only once the server serves: each None until then (and the first two for good over stdio, alone)."""

    endpoint: BridgeServer | None = None
    #: Where MCP is served over HTTP (``transport``, ``url``, ``port_note``).
    mcp_http: dict[str, Any] | None = None
    sessions: _Sessions | None = None
    backplane: _Replica | None = None
    #: Where BAP is served (``{url}``; ``--bap-port``), None when it is not.
    bap: dict[str, Any] | None = None


class ServerViews:
    """The launch report and the status page's part, read from the running parts at each view."""

    def __init__(
        self,
        *,
        token: str,
        catalog: Catalog,
        maps: MapLoader,
        runtimes: RuntimeRegistry,
        audit: AuditLog,
        policy: Callable[[], dict[str, Any] | None],
        browser: DeferredBrowser | None,
        browser_mode: str,
        cdp_endpoint: str | None,
        served: Callable[[], Served],
    ) -> None:
        """``token``: the bridge's start token; ``policy()``: the policy in force, None without one; ``browser_mode``,
        ``cdp_endpoint``: what ``--browser`` and ``--cdp-endpoint`` said; ``served()``: the parts that came later."""
        self.token = token
        self.catalog = catalog
        self.maps = maps
        self.runtimes = runtimes
        self.audit = audit
        self.policy = policy
        self.browser = browser
        self.browser_mode = browser_mode
        self.cdp_endpoint = shown_url(cdp_endpoint)  # a remote pool's token in it is the operator's, never a session's
        self.served = served

    def extension_connect_url(self) -> str | None:
        """The browser extension's connect page for this bridge (None without a bridge port)."""
        return extension_connect_url(self.served().endpoint, self.token)

    def launch_report(self) -> dict[str, Any]:
        """What ``actions://bridge/launch`` shows (``launch.py``), as the asking agent session sees it."""
        served = self.served()
        return launch_report(
            endpoint=served.endpoint,
            token=self.token,
            mcp_http=served.mcp_http,
            browser={"mode": self.browser_mode, "started": bool(self.browser is not None and self.browser.started), "cdp_endpoint": self.cdp_endpoint},
            reports=self.maps.reports(),
            tools=list(self.catalog.tools),
            policy=self.policy(),
            audit_log=str(self.audit.path) if self.audit.path else None,
            audit_health=self.audit.health(),
            failed_maps=self.maps.failed_maps(),
            runtimes=self.runtimes.visible(),  # a session sees its own runtimes only (bridge/scope.py)
            backplane=served.backplane.status() if served.backplane is not None else None,
            bap=served.bap,
        )

    def status_extras(self) -> dict[str, Any]:
        """What the bridge's status page shows besides runtimes: recent calls, failed maps, each runtime's tools, the policy."""
        served = self.served()
        return {
            "recent_calls": self.audit.recent(),
            "audit_health": self.audit.health(),
            "failed_maps": self.maps.failed_maps(),
            # The map files served whose last `mcp-actions check` drifted (operators/last_check.py).
            "drifted_maps": drifted_maps(report.file for report in self.maps.load_result.reports),
            # Each connected runtime's tools: those of the maps covering its page and those it brought itself.
            "runtime_tools": self.catalog.runtime_tools(self.runtimes.list()),
            "policy": self.policy(),
            "extension_connect_url": extension_connect_url(served.endpoint, self.token),
            "browser_session": self.browser.session() if self.browser is not None else None,
            "backplane": served.backplane.status() if served.backplane is not None else None,
            # The HTTP sessions served (id, kind, idle time) and each one's browser (docs/sessions.md).
            "sessions": served.sessions.describe() if served.sessions is not None else None,
            "session_browsers": self.browser.sessions() if self.browser is not None else {},
        }
