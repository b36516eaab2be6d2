"""The composition root: the running product without its MCP shell, wired and started and stopped.

``ActionsApp`` makes the parts, connects them, starts and stops them; each does
its own work. Maps: ``MapLoader`` (``catalog/maps.py``) loads, reloads and
reports them into the ``Catalog``; the tools pages declare (WebMCP, ABP, WAB)
are exposed by ``PageToolExposure`` (``protocols/exposure.py``) and WAB
documents found by ``WabDiscovery``; ``BuiltinListing``
(``dispatch/builtins/listing.py``) keeps the listed built-ins current. Calls run
through the ``ActionService`` (``dispatch/``), past the ``--policy`` file's
guards (``dispatch/call/policy_file.py``), on runtimes of the ``Bridge`` and its
WebSocket endpoint, on a browser host launched now, lazily or never; each is
recorded in the audit log. Change travels on one event hub (``events``): the
bridge's runtime events, which the app hands to those parts (and
``resources/notices.py`` to the resources), and ``ToolsChanged``, ``MapsFailed``
and the resources' changes, which the MCP adapter (``server/mcp_server.py``)
turns into notifications. The views are ``resources/views.py`` (the launch
report and the status page). With ``--backplane`` the replica joins the others
(``backplane/``). The ``demo`` command drives one too.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import replace
from pathlib import Path
from typing import Any

from .app_options import AppOptions, parse_cdp_headers
from .audit_log import AuditFileRefused, AuditLog
from .bridge import Bridge, BridgeServer, PageEvent, RuntimeArrived, RuntimeEvent, RuntimeGone, RuntimeUpdated
from .bridge.events import AttachmentOpened
from .bridge.pairings import PairingStore
from .catalog import Catalog, ManifestWatcher, ToolSelection
from .catalog.maps import MapLoader, MapsChange
from .catalog.prepare import CheckPreparation
from .catalog.visibility import ToolVisibility
from .dispatch import ActionService, builtin_bindings
from .dispatch.builtins.listing import BuiltinListing
from .dispatch.builtins.registry import BUILTIN_TOOLS
from .dispatch.call.launchers import run_attachment_open
from .dispatch.call.policy_file import PolicyFile
from .errors import ErrorCode, UsageError
from .events import EventHub, ToolsChanged
from .extension import extension_origin
from .learning.store import open_learned_maps
from .manifest import LoadResult, ManifestReport, RemoteFetcher
from .operators.parts import Operators
from .projection import ProjectionService
from .projection.extract import EXTRACT_PRIMITIVE
from .projection.registry import ProjectionRegistry
from .protocols import PageToolExposure, PageToolRunner
from .protocols.registry import PAGE_TOOL_KEYS
from .protocols.wab_discovery import WabDiscovery
from .resources import ResourceRegistry, register_builtin_resources
from .resources.audit import register_audit_resource
from .resources.builtin import LAUNCH_URI
from .resources.launch import tell_how_to_connect
from .resources.notices import follow_runtimes, maps_changed
from .resources.projections import register_projection_resources
from .resources.views import Served, ServerViews
from .resources.wab import register_wab_resource
from .runtimes import runtime_js
from .runtimes.chromium import has_display
from .runtimes.deferred import DeferredBrowser

__all__ = ["ActionsApp", "AppOptions"]  # AppOptions lives in app_options.py; importable from here as ever

log = logging.getLogger(__name__)


class ActionsApp:
    """Manifests + catalog + bridge + endpoint + browser host, started and stopped together."""

    def __init__(self, options: AppOptions) -> None:
        self.options = options
        self.token = options.bridge_token or secrets.token_urlsafe(18)
        selection = ToolSelection(tuple(options.tools), tuple(options.exclude_tools)) if options.tools or options.exclude_tools else None
        #: Which tools exist, take direct calls and are listed: the one owner (catalog/visibility.py).
        self.visibility = ToolVisibility(selection=selection, tool_mode=options.tool_mode)
        self.catalog = Catalog(builtin_bindings(), allow=self.visibility.exists if selection is not None else None)
        #: Where change is published: the bridge's runtime events, tools and failed maps, resources.
        self.events = EventHub()
        self.bridge = Bridge(
            default_timeout_ms=options.default_timeout_ms, signal_source=self.catalog.signals_for, attachment_source=self.catalog.attachments_for,
            event_log_size=options.event_log_size, events=self.events, page_tool_protocols=PAGE_TOOL_KEYS,
            allow_file_urls=options.allow_file_urls,
        )
        self.browser = self._make_browser() if options.browser != "none" else None
        self.projection_registry = ProjectionRegistry(self.catalog, self.bridge.registry.get)
        self.projections = ProjectionService(extract=self._extract, projections_for=self.projection_registry.for_runtime, events=self.events)
        self.service = ActionService(
            bridge=self.bridge, catalog=self.catalog, browser=self.browser, browser_mode=options.browser, builtins=BUILTIN_TOOLS,
            page_tool_runner=PageToolRunner(self.bridge), projections=self.projections, limits=options.limits, visibility=self.visibility,
        )
        #: Every call, once ended: one line in the --audit-log file, and the latest for actions://audit/recent.
        self.audit = self.service.audit = AuditLog(options.audit_log)
        self.service.upload_roots = tuple(Path(root).expanduser() for root in options.upload_roots)
        #: The --policy file: its guards on the call path, reloaded when it changes (dispatch/call/policy_file.py); ``PolicyError`` when bad.
        self.policy_file = PolicyFile(options.policy, changed=lambda: self.resources.updated(LAUNCH_URI))
        self.policy_file.install(self.service.guards)
        self.policy = self.policy_file.holder  # the rules in force; ``error``: why the last reload was refused
        #: Where actions.save_tool writes what agents learn (--learned-maps); its folder is always loaded.
        self.learned = self.service.learned = open_learned_maps(options.learned_maps, limits=options.limits, on_saved=self.reload_manifests)
        self.endpoint: BridgeServer | None = None
        # The composition root owns the https fetcher: one cache for file maps and runtime maps.
        self.fetcher = RemoteFetcher()
        #: The maps of files and runtimes: loaded, reloaded and reported (catalog/maps.py).
        self.maps = MapLoader(
            self.catalog, self.events, paths=self.manifest_paths, limits=options.limits, fetcher=self.fetcher, listed=self.visibility.listed,
            after_load=lambda: self.listing.relist(announce=False),  # compared, and so announced, with the load
            current=self.bridge.registry.get, announce=self._maps_changed,
            owner_of_file=self.learned.owner_of if self.learned is not None else (lambda _: None),  # a session's saved maps
        )
        #: The tools pages declare (WebMCP, ABP, WAB) as their runtimes' tools; their failures are reported with the maps'.
        self.page_tools = PageToolExposure(self.catalog, fetcher=self.fetcher, changed=self._tools_changed, reports=self.maps.inline_reports)
        #: Which built-ins tools/list shows (the others still answer by name); only maps given with --manifests make a map server.
        self.listing = BuiltinListing(
            self.visibility, self.catalog, choice=options.builtin_tools, map_server=bool(options.manifests), actives=self.bridge.registry.actives, changed=self._tools_changed
        )
        self.listing.relist(announce=False)
        #: Where MCP is served over HTTP (``transport``, ``url``, ``port_note``), set by the transport; None over stdio.
        self.mcp_http: dict[str, Any] | None = None
        self.events.subscribe(RuntimeEvent, self._on_runtime_event)
        self.events.subscribe(AttachmentOpened, self._on_attachment_opened)
        self._background: set[asyncio.Task[None]] = set()
        self.resources = ResourceRegistry(self.events)
        follow_runtimes(self.resources, self.events)  # after the handler above: resources hear of a runtime once its tools did
        #: The WAB discovery documents of the runtimes' sites; their commands become the runtimes' tools.
        self.wab = WabDiscovery(
            quiet_for=lambda: self.bridge.quiet_for, current=self.bridge.registry.get, extract=self._extract, expose=self.page_tools.site_found, resources=self.resources
        )
        register_builtin_resources(self.resources, catalog=self.catalog, runtimes=self.bridge.registry, launch_report=self.launch_report)
        register_projection_resources(self.resources, projections=self.projections, runtimes=self.bridge.registry)
        register_wab_resource(self.resources, self.wab.documents, visible=lambda runtime_id: self.bridge.registry.get_visible(runtime_id) is not None)
        register_audit_resource(self.resources, self.audit)  # served, and announced after each call
        self.watcher: ManifestWatcher | None = None
        #: Compiles the calls' checks while the host thinks, after its first tools/list (catalog/prepare.py).
        self.checks = CheckPreparation(self.catalog, self.bridge.dictionary, warm=self.wab.client)
        #: The HTTP transports' agent sessions (server/sessions.py), set by the transport; None over stdio.
        self.sessions: Any = None
        #: The BAP door (mcp_actions/bap/, ``--bap-port``), set by the transport when it listens; None otherwise.
        self.bap: Any = None
        #: This replica's link to the others (``--backplane``; mcp_actions/backplane/), None alone.
        self.backplane: Any = None
        #: The launch report and the status page's part (resources/views.py); the parts made later are read at each view.
        self.views = ServerViews(
            token=self.token, catalog=self.catalog, maps=self.maps, runtimes=self.bridge.registry, audit=self.audit, policy=self.policy_file.describe,
            browser=self.browser, browser_mode=options.browser, cdp_endpoint=options.cdp_endpoint,
            served=lambda: Served(self.endpoint, self.mcp_http, self.sessions, self.backplane, {"url": self.bap.url} if self.bap is not None else None),
        )
        #: /metrics' call counts and the live status page's changes (operators/), below both doors.
        self.operators = Operators(self)

    def _make_browser(self) -> DeferredBrowser:
        # Deferred: Playwright is imported when the browser first starts, not before tools/list.
        o = self.options
        return DeferredBrowser(
            self.bridge, executable_path=o.browser_path, headless=o.headless if o.headless is not None else not has_display(), cdp_endpoint=o.cdp_endpoint, cdp_own_context=o.cdp_own_context,
            cdp_headers=tuple(parse_cdp_headers(o.cdp_headers).items()), browser_endpoint=o.browser_endpoint, user_data_dir=o.user_data_dir, isolated=o.isolated,
        )

    async def _extract(self, runtime_id: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
        """One ``dom.extract`` on a runtime (the projections' and WAB discovery's way to the page; refused where not provided)."""
        return await self.bridge.call(EXTRACT_PRIMITIVE, arguments, runtime_id=runtime_id, timeout_ms=timeout_ms)

    # -- maps and policy -----------------------------------------------------

    @property
    def manifest_paths(self) -> list[str]:
        """The manifest files and directories served: those given, and none by default, and the learned-maps folder.

        The bundled demo map belongs to ``mcp-actions demo``, which passes it explicitly: a host
        started without ``--manifests`` would otherwise list tools of a site that is not running.
        """
        return [*self.options.manifests, *([str(self.learned.directory)] if self.learned is not None else [])]

    @property
    def load_result(self) -> LoadResult:
        """The last load of the manifest files."""
        return self.maps.load_result

    @property
    def inline_reports(self) -> dict[str, ManifestReport]:
        """The last report of each runtime's maps (inline, and its page tools')."""
        return self.maps.inline_reports

    def load_manifests(self) -> LoadResult:
        """(Re)load the configured manifests; invalid ones expose nothing and are reported on stderr."""
        return self.maps.load()

    def failed_maps(self) -> list[dict[str, Any]]:
        """Every map that failed to load (files, and runtimes' maps): ``{file, errors}``, errors as problems."""
        return self.maps.failed_maps()

    async def reload_manifests(self) -> bool:
        """Load the manifests again (in a worker thread) and tell listeners what changed; True when the tools changed."""
        change = await self.maps.reload()
        self._maps_changed(replace(change, config=False))
        await self.bridge.refresh_config()  # before returning: other maps may declare other signals and attachments
        return change.tools

    def _maps_changed(self, change: MapsChange) -> None:
        """Announce what a load of maps changed: tools, the launch report, manifest resources, runtimes' config."""
        if change.tools:
            self._tools_changed(change.tools_of)
        maps_changed(self.resources, change)
        if change.config:
            self._spawn(self.bridge.refresh_config(), "refresh-config")

    async def reload_policy(self) -> bool:
        """Read the policy file again; a bad edit keeps the policy in force and is reported. True when it was replaced."""
        return await self.policy_file.reload()

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Open the audit log, load manifests, start the bridge and its endpoint, and launch the browser when asked to."""
        try:
            self.audit.open()
        except AuditFileRefused as exc:  # another user's file, or one open to others: one line saying which and why
            raise UsageError(f"{exc} (choose another with --audit-log PATH, or --audit-log off)") from exc
        except OSError as exc:
            raise UsageError(f"cannot write the audit log {self.audit.path}: {exc.strerror or exc} (choose another with --audit-log PATH, or --audit-log off)") from exc
        self.load_manifests()
        await self.bridge.start()
        if self.options.serve_bridge:
            o = self.options
            self.endpoint = BridgeServer(
                self.bridge, host=o.bridge_host, port=o.bridge_port, fallback=o.bridge_port_fallback, token=self.token, runtime_script=runtime_js,
                # The extension's pages pass an --allowed-origins list too: its tabs are shared by the user, one by one.
                allowed_origins=[*o.allowed_origins, extension_origin()] if o.allowed_origins else None,
                status_extras=self.status_extras, pairings=PairingStore(),
            )
            self.operators.serve_on(self.endpoint)
            await self.endpoint.start()
            tell_how_to_connect(self.endpoint, self.token, token_given=bool(self.options.bridge_token))
        await self.operators.start()  # --metrics-port
        if self.options.backplane:
            # Imported only here: without --backplane nothing of NATS is loaded (docs/deploying.md).
            from .backplane.node import Backplane
            from .backplane.session_link import SessionLink

            self.backplane = Backplane(self.options.backplane, self.bridge, self.events, turns=self.service.turns)
            self.audit.replica = self.backplane.replica_id
            SessionLink(lambda: self.sessions, self.end_session).attach(self.backplane)
            await self.backplane.start()
        if self.browser is not None and self.options.browser == "launch":
            # In the background: the MCP handshake and tools/list need no browser, and a
            # call that does waits for this same launch. Over HTTP with a context per session,
            # what starts is the sessions' shared browser (no profile held: docs/sessions.md).
            self.browser.start_in_background(sessions=self.mcp_http is not None and not self.options.shared_browser_context)
        if self.options.watch:
            self.watcher = ManifestWatcher(self.manifest_paths, self.reload_manifests, debounce_ms=self.options.watch_debounce_ms)
            await self.watcher.start()
            await self.policy_file.watch(debounce_ms=self.options.watch_debounce_ms)

    def prepare_in_background(self, *, again: bool = False) -> None:
        """Compile every tool's and primitive's checks in an idle task, once (``again``: the catalogue changed); catalog/prepare.py."""
        self.checks.start(again=again)

    async def stop(self) -> None:
        """Record calls still running as ended, then stop the browser, the endpoint and the bridge; nothing is left pending.

        The calls are recorded first (``cancelled``): stopping the browser or the bridge could
        hang or end the process (a second Ctrl-C), and no call may go unrecorded.
        """
        pending = self.service.record_pending(ErrorCode.CANCELLED)
        if pending:
            log.warning("%d call(s) still running at shutdown recorded as cancelled", pending)
        await self.checks.stop()
        await self.wab.aclose()
        # Each part is stopped even when another failed; a failure is logged, never hidden.
        if self.watcher is not None:
            await self.watcher.stop()
            self.watcher = None
        await self.policy_file.stop()
        for part, failed in (
            (self.browser, "stopping the browser host"),
            (self.backplane, "leaving the backplane"),
            (self.endpoint, "stopping the bridge endpoint"),
            (self.operators, "stopping the metrics port"),
        ):
            if part is not None:
                try:
                    await part.stop()
                except Exception:
                    log.exception("%s failed", failed)
        await self.bridge.stop()
        self.audit.close()

    # -- agent sessions (docs/sessions.md) -----------------------------------

    async def end_session(self, session_id: str, reason: str) -> None:
        """An agent session ended: close its browser context (or remote browser) and end every runtime it owns."""
        if self.browser is not None:
            await self.browser.close_session(session_id)
        await self.bridge.end_agent_session(session_id, reason)

    # -- change ------------------------------------------------------------

    def _tools_changed(self, sessions: frozenset[str] | None = None) -> None:
        """What a host sees of the tools changed: publish ``ToolsChanged`` (the MCP layer sends list_changed).

        ``sessions``: only these agent sessions' tools changed (their runtimes', their active page's); None: everyone's.
        """
        self.checks.again()  # new bindings: their checks too, before their first call
        self.events.publish(ToolsChanged(sessions))

    def _spawn(self, work: Any, name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._background.add(task)  # held until done: the loop keeps only weak references to tasks
        task.add_done_callback(self._background.discard)

    def _on_attachment_opened(self, event: AttachmentOpened) -> None:
        """The user clicked a launcher that opens a map tool: run it on that runtime (dispatch/call/launchers.py)."""
        self._spawn(run_attachment_open(self.service, event), f"attachment:{event.opens.attachment_id}")

    def _on_runtime_event(self, event: RuntimeEvent) -> None:
        """A runtime came, changed, became active or left: its tools, WAB and inline map follow (resources: resources/notices.py)."""
        runtime = event.runtime
        if isinstance(event, PageEvent):
            return
        if isinstance(event, (RuntimeArrived, RuntimeUpdated)):
            self.page_tools.page_reported(runtime)
            self.wab.seen(runtime)
            self.maps.runtime_seen(runtime)  # its inline map, if it sent one
        elif isinstance(event, RuntimeGone):
            self.projections.forget_runtime(runtime.runtime_id)
            self.wab.forget(runtime.runtime_id)
            self.maps.forget_runtime(runtime.runtime_id)
            self.service.journal.forget(runtime.runtime_id)
        self.listing.relist()  # the active page may have moved to (or away from) a page no map covers

    # -- views (resources/views.py) ------------------------------------------

    def extension_connect_url(self) -> str | None:
        """The browser extension's connect page for this bridge (None without a bridge port)."""
        return self.views.extension_connect_url()

    def status_extras(self) -> dict[str, Any]:
        """What the bridge's status page shows besides runtimes."""
        return self.views.status_extras()

    def launch_report(self) -> dict[str, Any]:
        """What ``actions://bridge/launch`` shows."""
        return self.views.launch_report()
