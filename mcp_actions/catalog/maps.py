"""The maps a server serves: loaded from files and from runtimes, reloaded after edits, their failures reported.

``MapLoader`` owns the loading side of the catalogue (``catalog.py`` owns what
is exposed): the manifest files and directories given (``--manifests``, or
the bundled ones), each runtime's inline map (``runtime_ready`` ``manifest``),
and the report of every map tried (``reports``: what
``actions://bridge/launch`` shows). A map that fails exposes nothing and is
reported three ways, as docs/cli.md says:

- each problem as one line on stderr, ``mcp-actions: <file>:<pointer> <code>
  <message>``, through the ``mcp_actions.user`` logger (``USER_LOG``: lines
  for the person who started the server, written as they are whatever the
  ``--log-level``);
- in the reports (``failed_maps``), which the catalogue keeps for
  ``actions.site``;
- once per distinct failure as a ``MapsFailed`` event, which the MCP layer
  sends to hosts as an error log message (a user inside a desktop host sees
  neither stderr nor a missing tool).

``reload`` loads the files again in a worker thread (imports may be fetched
over https) and says what a host would see change (``MapsChange``); a
runtime's inline map (``runtime_seen``) is composed, in a worker thread when
it has imports, and its change handed to ``announce``; the composition root
announces both.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..events import EventHub, MapsFailed
from ..manifest.fetch import RemoteFetcher
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..manifest.load import LoadedManifest, LoadResult, ManifestReport, load_document, load_paths
from .catalog import Catalog, ToolBinding

__all__ = ["USER_LOG", "MapLoader", "MapsChange"]

log = logging.getLogger(__name__)


class _UserLines(logging.Handler):
    """Writes each record as one ``mcp-actions: <message>`` line on the stderr of the moment (tests replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(f"mcp-actions: {record.getMessage()}\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


#: Lines for the person who started the server (a map's problems, a policy not reloaded): always
#: written to stderr as ``mcp-actions: …``, once, not through the root logger's format.
USER_LOG = logging.getLogger("mcp_actions.user")
if not any(isinstance(h, _UserLines) for h in USER_LOG.handlers):
    USER_LOG.addHandler(_UserLines())
USER_LOG.setLevel(logging.INFO)
USER_LOG.propagate = False


@dataclass(frozen=True)
class MapsChange:
    """What a load changed, for the composition root to announce (``MapLoader.announce``).

    ``tools``: what a host sees of the tools changed; ``documents``: namespaces whose document
    changed; ``maps_came_or_went``: the set of maps (and so of resources) changed; ``config``:
    the runtimes' signals and attachments may have changed (their ``runtime_config`` is sent again).
    """

    tools: bool
    documents: frozenset[str] = field(default_factory=frozenset)
    maps_came_or_went: bool = False
    config: bool = False


class MapLoader:
    """Loads, reloads and reports the maps of files and runtimes into one ``Catalog``."""

    def __init__(
        self,
        catalog: Catalog,
        events: EventHub,
        *,
        paths: Sequence[str],
        limits: Limits = DEFAULT_LIMITS,
        fetcher: RemoteFetcher | None = None,
        listed: Callable[[ToolBinding], bool] = lambda _: True,
        after_load: Callable[[], object] = lambda: None,
        current: Callable[[str], RuntimeInfo | None] = lambda _: None,
        announce: Callable[[MapsChange], None] = lambda _: None,
    ) -> None:
        """``paths``: manifest files and directories; ``listed(binding)``: whether ``tools/list`` shows it (part of what a
        host sees); ``after_load()``: runs after each load of the files, before what changed is compared (what is listed
        may depend on the maps); ``current(runtime_id)``: the connected runtime of that id now; ``announce(change)``:
        tells the rest of the server what a runtime's map changed (a reload's change is returned instead)."""
        self.catalog = catalog
        self.events = events
        self.paths = list(paths)
        self.limits = limits
        self.fetcher = fetcher
        self.listed = listed
        self.after_load = after_load
        self.current = current
        self.announce = announce
        self._composing: set[asyncio.Task[None]] = set()
        self.load_result = LoadResult()
        #: The last report of each runtime's map: its inline map by runtime id, its page tools' maps by source.
        self.inline_reports: dict[str, ManifestReport] = {}
        self._told_failures: set[str] = set()  # failed maps already announced (see note_failures)

    # -- files ---------------------------------------------------------------

    def load(self) -> LoadResult:
        """(Re)load the manifest files now; invalid ones expose nothing and are reported."""
        self._apply(load_paths(self.paths, limits=self.limits, fetcher=self.fetcher))
        return self.load_result

    async def reload(self) -> MapsChange:
        """Load the manifest files again, off the event loop, and say what changed."""
        tools_before = self._tools_fingerprint()
        documents_before = self._documents()
        result = await asyncio.to_thread(load_paths, self.paths, limits=self.limits, fetcher=self.fetcher)
        self._apply(result)
        documents_after = self._documents()
        changed_tools = self._tools_fingerprint() != tools_before
        log.info("manifests reloaded: %d valid, %d invalid; tools %s", len(result.manifests), len(result.failures), "changed" if changed_tools else "unchanged")
        return MapsChange(
            tools=changed_tools,
            documents=frozenset(ns for ns in documents_before.keys() & documents_after.keys() if documents_before[ns] != documents_after[ns]),
            maps_came_or_went=documents_before.keys() != documents_after.keys(),
            # Other maps may declare other signals and attachments for the pages runtimes are on.
            config=True,
        )

    def _apply(self, result: LoadResult) -> None:
        self.load_result = result
        self.catalog.set_manifests(result.manifests)
        self.after_load()
        for report in result.failures:
            self._tell_problems(report.file, report)
            log.info("manifest %s is invalid and exposes nothing (%d errors)", report.file, len(report.errors))
        self.note_failures()

    def _tools_fingerprint(self) -> list[tuple[str, ...]]:
        # What a host sees of each tool: a change in any of it is a tools/list_changed.
        return sorted(
            (b.mcp_name, b.name, b.description, json.dumps([self.listed(b), b.input_schema, b.result_schema, b.annotations, b.meta()], sort_keys=True, default=str))
            for b in self.catalog.tools.values()
        )

    def _documents(self) -> dict[str, str]:
        return {ns: json.dumps(m.document, sort_keys=True, default=str) for ns, m in self.catalog.all_manifests().items()}

    # -- runtimes' inline maps ---------------------------------------------

    def runtime_seen(self, runtime: RuntimeInfo) -> None:
        """A runtime arrived or changed: compose and expose its inline map, if it sent one, and announce the change.

        A map without imports is applied at once; one with imports may fetch them over https, so it is
        composed in a worker thread and applied only if the runtime is still the one connected.
        """
        if runtime.manifest is None:
            return
        if not runtime.manifest.get("imports"):
            self._apply_inline(runtime, self.load_inline(runtime))
            return
        task = asyncio.get_running_loop().create_task(self._compose_in_thread(runtime), name=f"inline:{runtime.runtime_id}")
        self._composing.add(task)  # held until done: the loop keeps only weak references to tasks
        task.add_done_callback(self._composing.discard)

    def load_inline(self, runtime: RuntimeInfo) -> LoadedManifest | ManifestReport:
        """Compose a runtime's inline map (trust ``website``); may fetch its imports over https."""
        return load_document(runtime.manifest, source=f"runtime:{runtime.runtime_id}", trust="website", limits=self.limits, fetcher=self.fetcher)

    async def _compose_in_thread(self, runtime: RuntimeInfo) -> None:
        loaded = await asyncio.to_thread(self.load_inline, runtime)
        if self.current(runtime.runtime_id) is runtime:  # still connected
            # Its map's signals and attachments reach it now that it is composed.
            self._apply_inline(runtime, loaded, config=True)

    def _apply_inline(self, runtime: RuntimeInfo, loaded: LoadedManifest | ManifestReport, *, config: bool = False) -> None:
        """Expose a runtime's composed inline map, or withdraw its tools and report it; announce what changed."""
        if isinstance(loaded, ManifestReport):
            self.inline_reports[runtime.runtime_id] = loaded
            log.warning("runtime %s sent an invalid manifest (%d errors); it exposes nothing", runtime.runtime_id, len(loaded.errors))
            self._tell_problems(f"runtime:{runtime.runtime_id}", loaded)
            changed = self.catalog.set_inline(runtime.runtime_id, None)
            self.note_failures()
            self.announce(MapsChange(tools=changed, config=config))
            return
        self.inline_reports[runtime.runtime_id] = loaded.report
        self.note_failures()
        if loaded.namespace == "inline":
            loaded.namespace = f"runtime-{runtime.runtime_id}"
        self.catalog.set_inline(runtime.runtime_id, loaded)
        self.announce(MapsChange(tools=True, maps_came_or_went=True, config=config))

    def forget_runtime(self, runtime_id: str) -> None:
        """A runtime left: withdraw its inline map and page tools, and announce it when it had any."""
        if self.catalog.drop_runtime(runtime_id):
            self.inline_reports.pop(runtime_id, None)
            self.announce(MapsChange(tools=True))

    # -- reports -------------------------------------------------------------

    def reports(self) -> list[ManifestReport]:
        """The report of every map tried: files, runtimes' inline maps and their page tools' maps."""
        return [*self.load_result.reports, *self.inline_reports.values()]

    def failed_maps(self) -> list[dict[str, Any]]:
        """Every map that failed to load (files, and runtimes' maps): ``{file, errors}``, errors as problems."""
        reports = [*self.load_result.failures, *(r for r in self.inline_reports.values() if not r.valid)]
        return [{"file": r.file, "errors": [p.to_dict() for p in r.errors]} for r in reports]

    def note_failures(self) -> None:
        """Keep the catalogue's list of failed maps current, and publish ``MapsFailed`` for failures not told yet.

        Once per distinct failure: an edit elsewhere does not repeat it, a new problem does.
        """
        failed = self.failed_maps()
        self.catalog.failed_maps = failed
        new = [entry for entry in failed if json.dumps(entry, sort_keys=True) not in self._told_failures]
        self._told_failures = {json.dumps(entry, sort_keys=True) for entry in failed}
        if new:
            self.events.publish(MapsFailed(tuple(new)))

    @staticmethod
    def _tell_problems(where: str, report: ManifestReport) -> None:
        for problem in report.errors:
            USER_LOG.error("%s:%s %s %s", where, problem.path, problem.code, problem.message)
