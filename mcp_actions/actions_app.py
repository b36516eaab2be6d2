"""The running product without its MCP shell: manifests, catalog, bridge, endpoint, browser.

``ActionsApp`` loads the manifests, builds the catalog, starts the bridge and
its WebSocket endpoint, owns the browser host (launched now, lazily, or
never), and exposes runtimes' inline manifests as they arrive. The catalogue
is live: the manifest files and directories are watched, and an edit is
re-validated and applied (an invalid map withdraws its tools and reports its
problems; fixing it brings them back). Change is published on one event
hub (``events``, ``mcp_actions.events``): the bridge's runtime events, which
the app turns into tools, resources and WAB discovery (``protocols/wab_discovery.py``),
and the app's own ``ToolsChanged``, ``MapsFailed`` and the resource registry's
changes, which the MCP adapter (``server/mcp_server.py``) turns into
notifications. Every call is recorded in the audit log (``audit_log.py``,
``--audit-log``; its latest entries are ``actions://audit/recent`` and the
status page's recent calls), and a ``--policy`` file inserts its guards
(``dispatch/policy.py``) into the service's chain, watched and reloaded like
the maps. The ``demo`` command drives one too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .audit_log import AuditLog
from .bridge.bridge import Bridge
from .bridge.events import AttachmentOpened, PageEvent, RuntimeActive, RuntimeArrived, RuntimeEvent, RuntimeGone, RuntimeUpdated
from .bridge.pairings import PairingStore
from .bridge.registry import EVENT_LOG_SIZE, RuntimeInfo
from .bridge.websocket import BridgeServer
from .catalog.catalog import Catalog
from .catalog.selection import ToolSelection
from .catalog.visibility import ToolVisibility
from .catalog.watch import ManifestWatcher
from .defaults import DEFAULT_BRIDGE_PORT, DEFAULT_TIMEOUT_MS
from .dispatch.builtin_groups import listed_builtins
from .dispatch.builtins import BUILTIN_TOOLS, builtin_bindings
from .dispatch.launchers import run_attachment_open
from .dispatch.policy import Policy, PolicyError, PolicyGuard, PolicyHolder, PolicyOriginGuard
from .dispatch.service import ActionService
from .errors import ErrorCode, UsageError
from .events import EventHub, MapsFailed, ToolsChanged
from .extension import connect_url, extension_origin
from .manifest.execution import ToolKind
from .manifest.fetch import RemoteFetcher
from .manifest.limits import DEFAULT_LIMITS, Limits
from .manifest.load import LoadedManifest, LoadResult, ManifestReport, load_document, load_paths
from .manifest.paths import bundled_manifests_dir
from .projection.extract import EXTRACT_PRIMITIVE
from .projection.registry import ProjectionRegistry
from .projection.service import ProjectionService
from .protocols.exposure import page_manifest, wab_manifest
from .protocols.runner import PageToolRunner
from .protocols.wab_discovery import WabDiscovery
from .resources import ResourceRegistry, expand, register_builtin_resources
from .resources.audit import AUDIT_RECENT_URI, register_audit_resource
from .resources.builtin import EVENTS, LAUNCH_URI, MANIFEST, RUNTIMES_URI, runtime_resource_uris
from .resources.projections import register_projection_resources
from .resources.wab import register_wab_resource
from .runtimes.chromium import has_display
from .runtimes.deferred import DeferredBrowser
from .runtimes.page_script import runtime_js

__all__ = ["ActionsApp", "AppOptions"]

#: The idle preparation of checks starts this long after the tools/list that asked for it.
PREPARE_AFTER_S = 0.1

log = logging.getLogger(__name__)


@dataclass
class AppOptions:
    """Everything ``mcp-actions serve`` can be told (see docs/cli.md)."""

    manifests: Sequence[str] = ()
    bridge_host: str = "127.0.0.1"
    bridge_port: int = DEFAULT_BRIDGE_PORT
    bridge_port_fallback: bool = True  # a taken bridge_port gives way to a free one (False: --bridge-port given, taken = error)
    bridge_token: str | None = None
    allowed_origins: Sequence[str] = ()
    browser: Literal["auto", "launch", "none"] = "auto"
    browser_path: str | None = None
    cdp_endpoint: str | None = None
    headless: bool | None = None
    user_data_dir: str | None = None
    isolated: bool = False
    default_timeout_ms: int = DEFAULT_TIMEOUT_MS
    event_log_size: int = EVENT_LOG_SIZE  # accepted page events kept per runtime (--event-log-size)
    serve_bridge: bool = True  # False: no WebSocket endpoint (in-process tests of the MCP layer only)
    tool_mode: Literal["tools", "site"] = "tools"  # site: the host sees actions.site and the browser tools only
    tools: Sequence[str] = ()  # --tools: expose only tools whose dotted name matches one of these globs
    exclude_tools: Sequence[str] = ()  # --exclude-tools: never expose tools matching these
    builtin_tools: Sequence[str] = ()  # --builtin-tools: the built-in groups tools/list shows (empty: auto)
    watch: bool = True  # reload the catalogue when a manifest file changes
    watch_debounce_ms: int = 150
    limits: Limits = DEFAULT_LIMITS  # workflow and projection limits (validation and run time)
    audit_log: str | None = None  # --audit-log: the JSON-lines file every call is appended to (None: no file)
    policy: str | None = None  # --policy: the rules file deciding calls before they reach a page (None: allow all)


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
            default_timeout_ms=options.default_timeout_ms,
            signal_source=self.catalog.signals_for,
            attachment_source=self.catalog.attachments_for,
            event_log_size=options.event_log_size,
            events=self.events,
        )
        self.browser = self._make_browser() if options.browser != "none" else None
        self.projection_registry = ProjectionRegistry(self.catalog, self.bridge.registry.get)
        self.projections = ProjectionService(extract=self._extract, projections_for=self.projection_registry.for_runtime, events=self.events)
        self.service = ActionService(
            bridge=self.bridge,
            catalog=self.catalog,
            browser=self.browser,
            browser_mode=options.browser,
            builtins=BUILTIN_TOOLS,
            page_tool_runner=PageToolRunner(self.bridge),
            projections=self.projections,
            limits=options.limits,
            visibility=self.visibility,
        )
        #: Every call, once ended: one line in the --audit-log file, and the latest for actions://audit/recent.
        self.audit = AuditLog(options.audit_log)
        self.audit.listeners.append(lambda _: self.resources.updated(AUDIT_RECENT_URI))
        self.service.audit = self.audit
        #: The --policy rules in force (reloaded when the file changes); ``PolicyError`` when the file is bad.
        self.policy = PolicyHolder(Policy.load(options.policy) if options.policy else None)
        if options.policy:
            self.service.guards.insert(PolicyGuard(self.policy), before="confirmation")
            self.service.guards.insert(PolicyOriginGuard(), before="page")
        self.policy_watcher: ManifestWatcher | None = None
        # Built-ins tools/list shows (the others still answer by name): see dispatch/builtin_groups.py.
        # With ``auto`` it depends on the maps and the active page, so loads and page moves compute it again.
        self.visibility.listed_builtins = self._listed_builtins()
        self.endpoint: BridgeServer | None = None
        self.load_result = LoadResult()
        # The composition root owns the https fetcher: one cache for file maps and runtime maps.
        self.fetcher = RemoteFetcher()
        self.inline_reports: dict[str, ManifestReport] = {}
        self._told_failures: set[str] = set()  # failed maps already announced (see _note_failures)
        self.started_at: float | None = None
        #: Where MCP is served over HTTP (``transport``, ``url``, ``port_note``), set by the transport; None over stdio.
        self.mcp_http: dict[str, Any] | None = None
        self.events.subscribe(RuntimeEvent, self._on_runtime_event)
        self.events.subscribe(AttachmentOpened, self._on_attachment_opened)
        self._launcher_calls: set[asyncio.Task[None]] = set()
        self.resources = ResourceRegistry(self.events)
        #: The WAB discovery documents of the runtimes' sites; their commands become the runtimes' tools.
        self.wab = WabDiscovery(
            quiet_for=lambda: self.bridge.quiet_for,
            current=self.bridge.registry.get,
            extract=self._extract,
            expose=self._expose_wab,
            resources=self.resources,
        )
        register_builtin_resources(self.resources, catalog=self.catalog, runtimes=self.bridge.registry, launch_report=self.launch_report)
        register_projection_resources(self.resources, projections=self.projections, runtimes=self.bridge.registry)
        register_wab_resource(self.resources, self.wab.documents)
        register_audit_resource(self.resources, self.audit.recent, log_file=lambda: str(self.audit.path) if self.audit.path else None, health=self.audit.health)
        self.watcher: ManifestWatcher | None = None
        self._preparing: asyncio.Task[None] | None = None

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

    async def _extract(self, runtime_id: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
        """One ``dom.extract`` on a runtime (the projection service's only way to the page).

        The bridge refuses it with ``capability_unavailable`` when the runtime does not provide it
        (``RuntimeInfo.provides``), as it does every dictionary primitive."""
        return await self.bridge.call(EXTRACT_PRIMITIVE, arguments, runtime_id=runtime_id, timeout_ms=timeout_ms)

    async def reload_policy(self) -> bool:
        """Read the policy file again; a bad edit keeps the policy in force and is reported. True when it was replaced."""
        path = self.options.policy
        if not path:
            return False
        try:
            policy = await asyncio.to_thread(Policy.load, path)
        except PolicyError as exc:
            self.policy.error = str(exc)
            log.error("the policy was not reloaded, the previous one stays in force: %s", exc)
            print(f"mcp-actions: policy not reloaded (the previous one stays in force): {exc}", file=sys.stderr)
            self.resources.updated(LAUNCH_URI)
            return False
        self.policy.policy, self.policy.error = policy, None
        log.info("policy reloaded from %s: %d rules", path, len(policy.rules))
        self.resources.updated(LAUNCH_URI)
        return True

    async def _reload_policy_after_edit(self) -> None:
        await self.reload_policy()

    def runtime_tools(self) -> dict[str, list[str]]:
        """Each connected runtime's tools: those of the maps covering its page and those it brought itself."""
        tools: dict[str, list[str]] = {}
        bindings = list(self.catalog.tools.values())
        for runtime in self.bridge.registry.list():
            namespaces = {loaded.namespace for loaded in self.catalog.manifests_for(runtime)}
            tools[runtime.runtime_id] = sorted(
                b.name for b in bindings if b.kind is not ToolKind.BUILTIN and (b.runtime_id == runtime.runtime_id or (b.runtime_id is None and b.namespace in namespaces))
            )
        return tools

    def status_extras(self) -> dict[str, Any]:
        """What the bridge's status page shows besides runtimes: recent calls, failed maps, each runtime's tools, the policy."""
        return {
            "recent_calls": self.audit.recent(),
            "audit_health": self.audit.health(),
            "failed_maps": self.failed_maps(),
            "runtime_tools": self.runtime_tools(),
            "policy": self.policy.describe() if self.options.policy else None,
            "extension_connect_url": self.extension_connect_url(),
            "browser_session": self.browser.session() if self.browser is not None else None,
        }

    def extension_connect_url(self) -> str | None:
        """The browser extension's connect page for this bridge (None without a bridge port)."""
        return connect_url(self.endpoint.http_url, self.token) if self.endpoint else None

    def _listed_builtins(self) -> frozenset[str]:
        # The bundled sample map (served when no --manifests is given) does not make this a map server.
        maps = [loaded.model for loaded in self.catalog.manifests.values()] if self.options.manifests else []
        return listed_builtins(self.options.builtin_tools, maps=maps, uncovered_page=self._active_page_uncovered(), tool_mode=self.options.tool_mode)

    def _active_page_uncovered(self) -> bool:
        """Whether the active tab shows an http(s) page that no loaded map covers (observe tools help there)."""
        active = self.bridge.registry.active
        if active is None or not active.url.startswith(("http://", "https://")) or active.runtime_id in self.catalog.inline:
            return False
        return not self.catalog.manifests_for(active)

    def _relist(self) -> None:
        """Recompute the listed built-ins (the active page moved, maps changed); announce a change."""
        listed = self._listed_builtins()
        if listed != self.visibility.listed_builtins:
            self.visibility.listed_builtins = listed
            self._tools_changed()

    # -- lifecycle ---------------------------------------------------------

    @property
    def manifest_paths(self) -> list[str]:
        """The manifest files and directories served (the bundled ones when none were given)."""
        return list(self.options.manifests) or [str(bundled_manifests_dir())]

    def load_manifests(self) -> LoadResult:
        """(Re)load the configured manifests; invalid ones expose nothing and are reported on stderr."""
        self._apply_load(load_paths(self.manifest_paths, limits=self.options.limits, fetcher=self.fetcher))
        return self.load_result

    def _apply_load(self, result: LoadResult) -> None:
        self.load_result = result
        self.catalog.set_manifests(result.manifests)
        self.visibility.listed_builtins = self._listed_builtins()
        for report in result.failures:
            for problem in report.errors:
                print(f"mcp-actions: {report.file}:{problem.path} {problem.code} {problem.message}", file=sys.stderr)
            log.info("manifest %s is invalid and exposes nothing (%d errors)", report.file, len(report.errors))
        self._note_failures()

    def failed_maps(self) -> list[dict[str, Any]]:
        """Every map that failed to load (files, and runtimes' inline maps): ``{file, errors}``, errors as problems."""
        reports = [*self.load_result.failures, *(r for r in self.inline_reports.values() if not r.valid)]
        return [{"file": r.file, "errors": [p.to_dict() for p in r.errors]} for r in reports]

    def _note_failures(self) -> None:
        """Keep the catalogue's list of failed maps current, and tell listeners of failures not told yet.

        A user inside a desktop host sees neither stderr nor a missing tool, so each
        failure reaches the host as an error log message (``maps_failed``), once per
        distinct failure: an edit elsewhere does not repeat it, a new problem does.
        """
        failed = self.failed_maps()
        self.catalog.failed_maps = failed
        new = [entry for entry in failed if json.dumps(entry, sort_keys=True) not in self._told_failures]
        self._told_failures = {json.dumps(entry, sort_keys=True) for entry in failed}
        if new:
            self.events.publish(MapsFailed(tuple(new)))

    async def reload_manifests(self) -> bool:
        """Load the manifests again and tell listeners what changed; True when the tools changed.

        Loading runs in a worker thread: imports may be fetched over https.
        """
        tools_before = self._tools_fingerprint()
        documents_before = self._documents()
        result = await asyncio.to_thread(load_paths, self.manifest_paths, limits=self.options.limits, fetcher=self.fetcher)
        self._apply_load(result)
        documents_after = self._documents()
        changed_tools = self._tools_fingerprint() != tools_before
        log.info("manifests reloaded: %d valid, %d invalid; tools %s", len(result.manifests), len(result.failures), "changed" if changed_tools else "unchanged")
        if changed_tools:
            self._tools_changed()
        # Other maps may declare other signals and attachments for the pages runtimes are on.
        await self.bridge.refresh_config()
        self.resources.updated(LAUNCH_URI)
        for namespace in documents_before.keys() & documents_after.keys():
            if documents_before[namespace] != documents_after[namespace]:
                self.resources.updated(expand(MANIFEST, namespace=namespace))
        if documents_before.keys() != documents_after.keys():
            self.resources.list_changed()
        return changed_tools

    async def _reload_after_edit(self) -> None:
        """What the watcher runs after an edit (whether the tools changed is told to hosts, not to it)."""
        await self.reload_manifests()

    def _tools_fingerprint(self) -> list[tuple[str, ...]]:
        # What a host sees of each tool: a change in any of it is a tools/list_changed.
        return sorted(
            (b.mcp_name, b.name, b.description, json.dumps([self.visibility.listed(b), b.input_schema, b.result_schema, b.annotations, b.meta()], sort_keys=True, default=str))
            for b in self.catalog.tools.values()
        )

    def _documents(self) -> dict[str, str]:
        return {ns: json.dumps(m.document, sort_keys=True, default=str) for ns, m in self.catalog.all_manifests().items()}

    async def start(self) -> None:
        """Open the audit log, load manifests, start the bridge and its endpoint, and launch the browser when asked to."""
        try:
            self.audit.open()
        except OSError as exc:
            raise UsageError(f"cannot write the audit log {self.audit.path}: {exc.strerror or exc} (choose another with --audit-log PATH, or --audit-log off)") from exc
        self.load_manifests()
        await self.bridge.start()
        if self.options.serve_bridge:
            self.endpoint = BridgeServer(
                self.bridge,
                host=self.options.bridge_host,
                port=self.options.bridge_port,
                fallback=self.options.bridge_port_fallback,
                token=self.token,
                runtime_script=runtime_js,
                # The extension's pages pass an --allowed-origins list too: its tabs are shared by the user, one by one.
                allowed_origins=[*self.options.allowed_origins, extension_origin()] if self.options.allowed_origins else None,
                status_extras=self.status_extras,
                pairings=PairingStore(),
            )
            await self.endpoint.start()
            if not self.options.bridge_token:
                print(f"mcp-actions: bridge token for this run: {self.token}", file=sys.stderr)
            print(f"mcp-actions: runtimes connect at {self.endpoint.url}; status page {self.endpoint.status_url()}", file=sys.stderr)
            print(f"mcp-actions: to share tabs of your own browser (mcp-actions extension), open {self.extension_connect_url()}", file=sys.stderr)
        if self.browser is not None and self.options.browser == "launch":
            # In the background: the MCP handshake and tools/list need no browser, and a
            # call that does waits for this same launch.
            self.browser.start_in_background()
        if self.options.watch:
            self.watcher = ManifestWatcher(self.manifest_paths, self._reload_after_edit, debounce_ms=self.options.watch_debounce_ms)
            await self.watcher.start()
            if self.options.policy:
                self.policy_watcher = ManifestWatcher([self.options.policy], self._reload_policy_after_edit, debounce_ms=self.options.watch_debounce_ms)
                await self.policy_watcher.start()
        self.started_at = time.time()

    def prepare_in_background(self, *, again: bool = False) -> None:
        """Compile every tool's and primitive's schema checks in an idle task, once (``again``: the catalogue changed).

        A JSON Schema validator costs about 2 ms to build, and a workflow call checks
        its arguments, its result and each primitive's input: a first ``add_card``
        paid ~20 ms for them. Built at start they would delay the first ``tools/list``
        (0.78 s against 0.69 s, measured), so the MCP layer calls this once that list
        is answered; the task yields between schemas, so a call arriving meanwhile
        is served at once and compiles only what it needs.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop (a synchronous reload): each first call compiles what it needs
        # Later tools/list requests find everything compiled; only new bindings need another pass.
        if self._preparing is None or (again and self._preparing.done()):
            self._preparing = loop.create_task(self._prepare_checks(), name="prepare-checks")

    async def _prepare_checks(self) -> None:
        # Called as the tools/list answer is being sent: let it reach the host first.
        await asyncio.sleep(PREPARE_AFTER_S)
        self.wab.client()  # its TLS context costs ~40 ms of CPU, which a navigation would share
        await asyncio.sleep(0)
        for binding in list(self.catalog.tools.values()):
            binding.prepare_checks()
            await asyncio.sleep(0)
        for name in self.bridge.dictionary:
            primitive = self.bridge.dictionary.get(name)
            if primitive is not None:
                primitive.prepare()
            await asyncio.sleep(0)

    async def stop(self) -> None:
        """Record calls still running as ended, then stop the browser, the endpoint and the bridge; nothing is left pending.

        The calls are recorded first (``cancelled``): stopping the browser or the bridge could
        hang or end the process (a second Ctrl-C), and no call may go unrecorded.
        """
        pending = self.service.record_pending(ErrorCode.CANCELLED)
        if pending:
            log.warning("%d call(s) still running at shutdown recorded as cancelled", pending)
        if self._preparing is not None:
            self._preparing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._preparing
        await self.wab.aclose()
        # Each part is stopped even when another failed; a failure is logged, never hidden.
        if self.watcher is not None:
            await self.watcher.stop()
            self.watcher = None
        if self.policy_watcher is not None:
            await self.policy_watcher.stop()
            self.policy_watcher = None
        if self.browser is not None:
            try:
                await self.browser.stop()
            except Exception:
                log.exception("stopping the browser host failed")
        if self.endpoint is not None:
            try:
                await self.endpoint.stop()
            except Exception:
                log.exception("stopping the bridge endpoint failed")
        await self.bridge.stop()
        self.audit.close()

    # -- change notification ----------------------------------------------

    def _tools_changed(self) -> None:
        """What a host sees of the tools changed: publish ``ToolsChanged`` (the MCP layer sends list_changed)."""
        if self._preparing is not None:
            self.prepare_in_background(again=True)  # new bindings: their checks too, before their first call
        self.events.publish(ToolsChanged())

    def _on_attachment_opened(self, event: AttachmentOpened) -> None:
        """The user clicked a launcher that opens a map tool: run it on that runtime (dispatch/launchers.py)."""
        task = asyncio.get_running_loop().create_task(run_attachment_open(self.service, event), name=f"attachment:{event.opens.attachment_id}")
        self._launcher_calls.add(task)  # held until done: the loop keeps only weak references to tasks
        task.add_done_callback(self._launcher_calls.discard)

    def _on_runtime_event(self, event: RuntimeEvent) -> None:
        """A runtime came, changed, became active or left, or sent a page event: tools, WAB and resources follow."""
        runtime = event.runtime
        if isinstance(event, PageEvent):
            self.resources.updated(expand(EVENTS, runtime_id=runtime.runtime_id))
            return
        if isinstance(event, RuntimeActive):
            self._relist()
            return
        if isinstance(event, (RuntimeArrived, RuntimeUpdated)):
            self._expose_page_tools(runtime)
            self.wab.seen(runtime)
            if runtime.manifest is not None:
                if runtime.manifest.get("imports"):
                    # Imports may be fetched over https: compose in a worker thread, off the event loop.
                    asyncio.get_running_loop().create_task(self._expose_inline_in_thread(runtime))
                else:
                    self._apply_inline(runtime, self._load_inline(runtime))
        elif isinstance(event, RuntimeGone):
            self.projections.forget_runtime(runtime.runtime_id)
            self.wab.forget(runtime.runtime_id)
            if self.catalog.drop_runtime(runtime.runtime_id):
                self.inline_reports.pop(runtime.runtime_id, None)
                self._tools_changed()
        self._relist()  # the active page may have moved to (or away from) a page no map covers
        # A runtime that comes, goes or moves changes the runtime list, its states and which
        # context blocks and projections apply: the set of resources changes with it.
        for uri in (RUNTIMES_URI, LAUNCH_URI, *runtime_resource_uris(runtime.runtime_id)):
            self.resources.updated(uri)
        self.resources.list_changed()

    def _expose_page_tools(self, runtime: RuntimeInfo) -> None:
        """The runtime's page-declared tools (WebMCP, ABP) as its tools; ``tools`` changes when they change."""
        changed = False
        for protocol in ("webmcp", "abp"):
            tools = runtime.page_tools.get(protocol)
            loaded: LoadedManifest | None = None
            if tools:
                source = f"runtime:{runtime.runtime_id}#{protocol}"
                result = load_document(page_manifest(protocol, tools, url=runtime.url), source=source, trust="website", fetcher=self.fetcher)
                if isinstance(result, ManifestReport):
                    self.inline_reports[source] = result
                    log.warning("runtime %s declares %s tools that cannot be exposed: %s", runtime.runtime_id, protocol, [p.to_dict() for p in result.errors][:3])
                else:
                    result.namespace = f"runtime-{runtime.runtime_id}-{protocol}"
                    loaded = result
            changed = self.catalog.set_page_tools(runtime.runtime_id, protocol, loaded) or changed
        if changed:
            self._tools_changed()

    def _wab_loaded(self, runtime: RuntimeInfo, found: Mapping[str, Any] | None, page: list[dict[str, Any]] | None) -> LoadedManifest | None:
        """The runtime's WAB map (document and page actions), or None when there is none or it cannot be exposed."""
        source = f"runtime:{runtime.runtime_id}#wab"
        manifest = wab_manifest(
            found["document"] if found is not None else None,
            url=runtime.url,
            document_url=found["url"] if found is not None else None,
            page_tools=page,
        )
        loaded = load_document(manifest, source=source, trust="website", fetcher=self.fetcher)
        if isinstance(loaded, ManifestReport):
            self.inline_reports[source] = loaded
            where = found["url"] if found is not None else runtime.url
            log.warning("the WAB commands of %s cannot be exposed: %s", where, [p.to_dict() for p in loaded.errors][:3])
            return None
        self.inline_reports.pop(source, None)
        loaded.namespace = f"runtime-{runtime.runtime_id}-wab"
        return loaded

    def _expose_wab(self, runtime: RuntimeInfo, found: Mapping[str, Any] | None, page: list[dict[str, Any]] | None) -> None:
        """Expose the runtime's WAB commands (its site's document, its page's own actions) as one map of the runtime.

        WAB discovery calls this when either changed; ``tools`` changes when the tools do.
        """
        loaded: LoadedManifest | None = None
        if found is not None or page:
            loaded = self._wab_loaded(runtime, found, page)
            if loaded is None and found is not None and page:
                loaded = self._wab_loaded(runtime, None, page)  # the page's own actions still serve
        if self.catalog.set_page_tools(runtime.runtime_id, "wab", loaded):
            self._tools_changed()

    def _load_inline(self, runtime: RuntimeInfo) -> LoadedManifest | ManifestReport:
        return load_document(runtime.manifest, source=f"runtime:{runtime.runtime_id}", trust="website", limits=self.options.limits, fetcher=self.fetcher)

    async def _expose_inline_in_thread(self, runtime: RuntimeInfo) -> None:
        loaded = await asyncio.to_thread(self._load_inline, runtime)
        if self.bridge.registry.get(runtime.runtime_id) is runtime:  # still connected
            self._apply_inline(runtime, loaded)
            await self.bridge.refresh_config()  # its map's signals and attachments, now that it is composed

    def _apply_inline(self, runtime: RuntimeInfo, loaded: LoadedManifest | ManifestReport) -> None:
        source = f"runtime:{runtime.runtime_id}"
        if isinstance(loaded, ManifestReport):
            self.inline_reports[runtime.runtime_id] = loaded
            log.warning("runtime %s sent an invalid manifest (%d errors); it exposes nothing", runtime.runtime_id, len(loaded.errors))
            for problem in loaded.errors:
                print(f"mcp-actions: {source}:{problem.path} {problem.code} {problem.message}", file=sys.stderr)
            if self.catalog.set_inline(runtime.runtime_id, None):
                self._tools_changed()
            self._note_failures()
            self.resources.updated(LAUNCH_URI)
            return
        self.inline_reports[runtime.runtime_id] = loaded.report
        self._note_failures()
        if loaded.namespace == "inline":
            loaded.namespace = f"runtime-{runtime.runtime_id}"
        self.catalog.set_inline(runtime.runtime_id, loaded)
        self._tools_changed()
        self.resources.updated(LAUNCH_URI)
        self.resources.list_changed()

    # -- views -------------------------------------------------------------

    def launch_report(self) -> dict[str, Any]:
        """What ``actions://bridge/launch`` shows: how to connect, what loaded, what failed and why."""
        endpoint = self.endpoint
        return {
            "bridge": {
                "websocket_url": endpoint.url if endpoint else None,
                # With the page credential, never the start token: this URL goes into pages (docs/bridge-protocol.md).
                "runtime_js": endpoint.script_url() if endpoint else None,
                "status_page": f"{endpoint.http_url}/" if endpoint else None,
                "token_hint": "pass ?token=… (printed on stderr at start, or set --bridge-token)",
                "bookmarklet": endpoint.bookmarklet() if endpoint else None,
                # Set when the default port was taken (another server runs) and a free one serves instead.
                "port_note": endpoint.port_note if endpoint else None,
                # The browser extension's connect page (docs/extension.md): share tabs of the user's own browser.
                "extension_connect_url": self.extension_connect_url(),
            },
            "mcp": self.mcp_http,
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
            "policy": self.policy.describe() if self.options.policy else None,
            "audit_log": str(self.audit.path) if self.audit.path else None,
            # Whether calls can run: while the log cannot be written they are refused (audit_unavailable).
            "audit_health": self.audit.health(),
            "runtimes": [r.describe() for r in self.bridge.registry.list()],
        }
