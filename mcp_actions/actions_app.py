"""The running product without its MCP shell: manifests, catalog, bridge, endpoint, browser.

``ActionsApp`` loads the manifests, builds the catalog, starts the bridge and
its WebSocket endpoint, owns the browser host (launched now, lazily, or
never), and exposes runtimes' inline manifests as they arrive. The MCP
adapter (``server/mcp_server.py``) and the ``demo`` command both drive one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .bridge.bridge import DEFAULT_TIMEOUT_MS, Bridge
from .bridge.registry import RuntimeInfo
from .catalog.catalog import Catalog
from .dispatch.builtins import BUILTIN_RUNNERS, builtin_bindings
from .dispatch.service import ActionService
from .manifest.load import LoadedManifest, LoadResult, ManifestReport, bundled_manifests_dir, load_document, load_paths
from .runtimes.chromium import has_display
from .runtimes.deferred import DeferredBrowser

__all__ = ["ActionsApp", "AppOptions"]

log = logging.getLogger(__name__)


@dataclass
class AppOptions:
    """Everything ``mcp-actions serve`` can be told (see the README's reference)."""

    manifests: Sequence[str] = ()
    bridge_host: str = "127.0.0.1"
    bridge_port: int = 17345
    bridge_token: str | None = None
    allowed_origins: Sequence[str] = ()
    browser: Literal["auto", "launch", "none"] = "auto"
    browser_path: str | None = None
    cdp_endpoint: str | None = None
    headless: bool | None = None
    user_data_dir: str | None = None
    isolated: bool = False
    default_timeout_ms: int = DEFAULT_TIMEOUT_MS
    serve_bridge: bool = True  # False: no WebSocket endpoint (in-process tests of the MCP layer only)
    extra: dict[str, Any] = field(default_factory=dict)


class ActionsApp:
    """Manifests + catalog + bridge + endpoint + browser host, started and stopped together."""

    def __init__(self, options: AppOptions) -> None:
        self.options = options
        self.token = options.bridge_token or secrets.token_urlsafe(18)
        self.catalog = Catalog(builtin_bindings())
        self.bridge = Bridge(default_timeout_ms=options.default_timeout_ms, signal_source=self.catalog.signals_for)
        self.browser = self._make_browser() if options.browser != "none" else None
        self.service = ActionService(
            bridge=self.bridge,
            catalog=self.catalog,
            browser=self.browser,
            browser_mode=options.browser,
            builtin_runners=BUILTIN_RUNNERS,
        )
        self.endpoint: Any = None
        self.load_result = LoadResult()
        self.inline_reports: dict[str, ManifestReport] = {}
        self.started_at: float | None = None
        self._change_listeners: list[Callable[[str, Mapping[str, Any]], None]] = []
        self.bridge.add_listener(self._on_bridge_event)

    def _make_browser(self) -> DeferredBrowser:
        # Deferred: Playwright is imported when the browser first starts, not before tools/list.
        headless = self.options.headless if self.options.headless is not None else not has_display()
        return DeferredBrowser(
            self.bridge,
            executable_path=self.options.browser_path,
            headless=headless,
            cdp_endpoint=self.options.cdp_endpoint,
            user_data_dir=self.options.user_data_dir,
            isolated=self.options.isolated,
        )

    # -- lifecycle ---------------------------------------------------------

    def load_manifests(self) -> LoadResult:
        """(Re)load the configured manifests; invalid ones expose nothing and are reported on stderr."""
        paths = list(self.options.manifests) or [str(bundled_manifests_dir())]
        self.load_result = load_paths(paths)
        self.catalog.set_manifests(self.load_result.manifests)
        for report in self.load_result.failures:
            for problem in report.errors:
                print(f"mcp-actions: {report.file}:{problem.path} {problem.code} {problem.message}", file=sys.stderr)
            log.warning("manifest %s is invalid and exposes nothing (%d errors)", report.file, len(report.errors))
        return self.load_result

    async def start(self) -> None:
        """Load manifests, start the bridge and its endpoint, and launch the browser when asked to."""
        self.load_manifests()
        await self.bridge.start()
        if self.options.serve_bridge:
            from .bridge.websocket import BridgeServer

            self.endpoint = BridgeServer(
                self.bridge,
                host=self.options.bridge_host,
                port=self.options.bridge_port,
                token=self.token,
                allowed_origins=list(self.options.allowed_origins) or None,
            )
            await self.endpoint.start()
            if not self.options.bridge_token:
                print(f"mcp-actions: bridge token for this run: {self.token}", file=sys.stderr)
            print(f"mcp-actions: runtimes connect at {self.endpoint.url}; status page {self.endpoint.status_url()}", file=sys.stderr)
        if self.browser is not None and self.options.browser == "launch":
            # In the background: the MCP handshake and tools/list need no browser, and a
            # call that does waits for this same launch.
            self.browser.start_in_background()
        self.started_at = time.time()

    async def stop(self) -> None:
        """Stop the browser, the endpoint and the bridge; nothing is left pending."""
        if self.browser is not None:
            with contextlib.suppress(Exception):
                await self.browser.stop()
        if self.endpoint is not None:
            with contextlib.suppress(Exception):
                await self.endpoint.stop()
        await self.bridge.stop()

    # -- change notification ----------------------------------------------

    def on_change(self, listener: Callable[[str, Mapping[str, Any]], None]) -> None:
        """Hear ``tools`` / ``runtimes`` / ``events`` changes (the MCP layer turns them into notifications)."""
        self._change_listeners.append(listener)

    def _changed(self, what: str, detail: Mapping[str, Any] | None = None) -> None:
        for listener in list(self._change_listeners):
            try:
                listener(what, detail or {})
            except Exception:
                log.exception("change listener failed")

    def _on_bridge_event(self, kind: str, runtime: RuntimeInfo, detail: Mapping[str, Any]) -> None:
        if kind == "event":
            self._changed("events", {"runtime_id": runtime.runtime_id})
            return
        if kind in ("ready", "updated") and runtime.manifest is not None:
            if runtime.manifest.get("imports"):
                # Imports may be fetched over https: compose in a worker thread, off the event loop.
                asyncio.get_running_loop().create_task(self._expose_inline_in_thread(runtime))
            else:
                self._apply_inline(runtime, self._load_inline(runtime))
        elif kind == "gone" and self.catalog.set_inline(runtime.runtime_id, None):
            self.inline_reports.pop(runtime.runtime_id, None)
            self._changed("tools")
        self._changed("runtimes", {"runtime_id": runtime.runtime_id, "kind": kind})

    def _load_inline(self, runtime: RuntimeInfo) -> LoadedManifest | ManifestReport:
        return load_document(runtime.manifest, source=f"runtime:{runtime.runtime_id}", trust="website")

    async def _expose_inline_in_thread(self, runtime: RuntimeInfo) -> None:
        loaded = await asyncio.to_thread(self._load_inline, runtime)
        if self.bridge.registry.get(runtime.runtime_id) is runtime:  # still connected
            self._apply_inline(runtime, loaded)

    def _apply_inline(self, runtime: RuntimeInfo, loaded: LoadedManifest | ManifestReport) -> None:
        source = f"runtime:{runtime.runtime_id}"
        if isinstance(loaded, ManifestReport):
            self.inline_reports[runtime.runtime_id] = loaded
            log.warning("runtime %s sent an invalid manifest (%d errors); it exposes nothing", runtime.runtime_id, len(loaded.errors))
            for problem in loaded.errors:
                print(f"mcp-actions: {source}:{problem.path} {problem.code} {problem.message}", file=sys.stderr)
            if self.catalog.set_inline(runtime.runtime_id, None):
                self._changed("tools")
            return
        self.inline_reports[runtime.runtime_id] = loaded.report
        if loaded.namespace == "inline":
            loaded.namespace = f"runtime-{runtime.runtime_id}"
        self.catalog.set_inline(runtime.runtime_id, loaded)
        self._changed("tools")

    # -- views -------------------------------------------------------------

    def launch_report(self) -> dict[str, Any]:
        """What ``actions://bridge/launch`` shows: how to connect, what loaded, what failed and why."""
        endpoint = self.endpoint
        return {
            "bridge": {
                "websocket_url": endpoint.url if endpoint else None,
                "runtime_js": f"{endpoint.http_url}/runtime.js" if endpoint else None,
                "status_page": f"{endpoint.http_url}/" if endpoint else None,
                "token_hint": "pass ?token=… (printed on stderr at start, or set --bridge-token)",
                "bookmarklet": endpoint.bookmarklet() if endpoint else None,
            },
            "browser": {
                "mode": self.options.browser,
                "started": bool(self.browser is not None and self.browser.started),
                "cdp_endpoint": self.options.cdp_endpoint,
            },
            "manifests": [
                {"file": r.file, "valid": r.valid, "errors": [p.to_dict() for p in r.errors], "warnings": [p.to_dict() for p in r.warnings]}
                for r in [*self.load_result.reports, *self.inline_reports.values()]
            ],
            "tools": sorted(self.catalog.tools),
            "runtimes": [r.describe() for r in self.bridge.registry.list()],
        }
