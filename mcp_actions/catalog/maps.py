"""The maps a server serves: loaded from files and from runtimes, reloaded after edits, their failures reported.

``MapLoader`` owns the loading side of the catalogue (``catalog.py`` owns what
is exposed): the manifest files and directories given (``--manifests``, or
the bundled ones), each runtime's inline map (``runtime_ready`` ``manifest``),
and the report of every map tried (``reports``: what
``actions://bridge/launch`` shows). A map file that fails on its first load
exposes nothing; one that loaded before and fails after an edit keeps serving
its last good version (``last_good``), as the policy file does, so a save with
a typo does not take its tools away mid-session. Either is reported three
ways, as docs/cli.md says:

- each problem as one line on stderr, ``mcp-actions: <file>:<pointer> <code>
  <message>``, through the ``mcp_actions.user`` logger (``USER_LOG``: lines
  for the person who started the server, written as they are whatever the
  ``--log-level``);
- in the reports (``failed_maps``, with ``last_good_served`` when the last
  good version still serves), which the catalogue keeps for ``actions.site``
  and ``actions://bridge/launch`` shows;
- once per distinct failure as a ``MapsFailed`` event, which the MCP layer
  sends to hosts as an error log message (a user inside a desktop host sees
  neither stderr nor a missing tool).

A tool of a map that failed on its first load is named in the catalogue's
``failed_tools`` (from the tool names the broken file still shows), so that
calling it answers the map's first problem, not "unknown tool".

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
from pathlib import Path
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..bridge.scope import session_scope, visible_to
from ..events import EventHub, MapsFailed
from ..manifest.fetch import RemoteFetcher
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..manifest.load import LoadedManifest, LoadResult, ManifestReport, load_document, load_paths, read_document
from .catalog import Catalog, ToolBinding
from .naming import mcp_tool_name

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


def _tool_names(file: str) -> list[str]:
    """The tool names a map file that failed still shows (``tools[].name``), or none when it is not a JSON object."""
    try:
        document, problems = read_document(Path(file))
    except Exception:  # unreadable meanwhile (a UsageError, an OSError): it shows no names
        return []
    tools = document.get("tools") if isinstance(document, dict) and not problems else None
    if not isinstance(tools, list):
        return []
    return [tool["name"] for tool in tools if isinstance(tool, dict) and isinstance(tool.get("name"), str) and tool["name"]]


@dataclass(frozen=True)
class MapsChange:
    """What a load changed, for the composition root to announce (``MapLoader.announce``).

    ``tools``: what a host sees of the tools changed; ``documents``: namespaces whose document
    changed; ``maps_came_or_went``: the set of maps (and so of resources) changed; ``config``:
    the runtimes' signals and attachments may have changed (their ``runtime_config`` is sent again).
    """

    tools: bool
    documents: frozenset[str] = field(default_factory=frozenset)
    #: Whose tools changed: the agent sessions owning the runtimes whose maps came or went; None: everyone's.
    tools_of: frozenset[str] | None = None
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
        owner_of_file: Callable[[str], str | None] = lambda _: None,
    ) -> None:
        """``paths``: manifest files and directories; ``listed(binding)``: whether ``tools/list`` shows it (part of what a
        host sees); ``after_load()``: runs after each load of the files, before what changed is compared (what is listed
        may depend on the maps); ``current(runtime_id)``: the connected runtime of that id now; ``announce(change)``:
        tells the rest of the server what a runtime's map changed (a reload's change is returned instead);
        ``owner_of_file(source)``: the agent session whose map a file is (an agent session's saved tools,
        ``learning/store.py``), None for everyone's."""
        self.catalog = catalog
        self.events = events
        self.paths = list(paths)
        self.limits = limits
        self.fetcher = fetcher
        self.listed = listed
        self.after_load = after_load
        self.current = current
        self.announce = announce
        self.owner_of_file = owner_of_file
        self._composing: set[asyncio.Task[None]] = set()
        self.load_result = LoadResult()
        #: The last report of each runtime's map: its inline map by runtime id, its page tools' maps by source.
        self.inline_reports: dict[str, ManifestReport] = {}
        self._told_failures: set[str] = set()  # failed maps already announced (see note_failures)
        #: The last version of each map file that loaded, by file: what serves while an edit breaks it.
        self.last_good: dict[str, LoadedManifest] = {}
        self._kept: set[str] = set()  # failed files whose last good version serves now

    # -- files ---------------------------------------------------------------

    def load(self) -> LoadResult:
        """(Re)load the manifest files now; invalid ones are reported (and keep their last good version, if any)."""
        self._apply(*self._load_files())
        return self.load_result

    def _load_files(self) -> tuple[LoadResult, dict[str, list[str]]]:
        """Load the files, and read the tool names each failed file still shows (in a worker thread on reload)."""
        result = load_paths(self.paths, limits=self.limits, fetcher=self.fetcher)
        return result, {report.file: _tool_names(report.file) for report in result.failures}

    async def reload(self) -> MapsChange:
        """Load the manifest files again, off the event loop, and say what changed."""
        tools_before = self._tools_fingerprint()
        documents_before = self._documents()
        result, names = await asyncio.to_thread(self._load_files)
        self._apply(result, names)
        documents_after = self._documents()
        tools_after = self._tools_fingerprint()
        changed_tools = tools_after != tools_before
        # Whose tools changed: one session's own saved map changes its list alone (None: everyone's changed).
        owners = {owner for owner in tools_before.keys() | tools_after.keys() if tools_before.get(owner) != tools_after.get(owner)}
        log.info("manifests reloaded: %d valid, %d invalid; tools %s", len(result.manifests), len(result.failures), "changed" if changed_tools else "unchanged")
        return MapsChange(
            tools=changed_tools,
            tools_of=None if None in owners else frozenset(o for o in owners if o is not None),
            documents=frozenset(ns for ns in documents_before.keys() & documents_after.keys() if documents_before[ns] != documents_after[ns]),
            maps_came_or_went=documents_before.keys() != documents_after.keys(),
            # Other maps may declare other signals and attachments for the pages runtimes are on.
            config=True,
        )

    def _apply(self, result: LoadResult, failed_names: dict[str, list[str]] | None = None) -> None:
        self.load_result = result
        served = list(result.manifests)
        for manifest in served:
            manifest.owner = self.owner_of_file(manifest.source)  # an agent session's saved map is its tools alone
        # A file that loaded before and fails now keeps serving its last good version (a save with
        # a typo mid-session must not take its tools away); a file gone from disk serves nothing.
        kept = [self.last_good[r.file] for r in result.failures if r.file in self.last_good]
        self._kept = {m.source for m in kept}
        self.last_good = {m.source: m for m in [*served, *kept]}
        self.catalog.set_manifests([*served, *kept])
        self.catalog.failed_tools = self._failed_tools(result, failed_names or {})
        self.after_load()
        for report in result.failures:
            self._tell_problems(report.file, report)
            if report.file in self._kept:
                log.info("manifest %s is invalid (%d errors); its last good version still serves", report.file, len(report.errors))
            else:
                log.info("manifest %s is invalid and exposes nothing (%d errors)", report.file, len(report.errors))
        self.note_failures()

    def _failed_tools(self, result: LoadResult, names: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
        """The tools of maps that failed with no good version to serve, by MCP name: the map's file and first problem."""
        failed: dict[str, dict[str, Any]] = {}
        for report in result.failures:
            if report.file in self._kept or not report.errors:
                continue
            for name in names.get(report.file, []):
                mcp_name = mcp_tool_name(name)
                if self.catalog.get(mcp_name) is None:  # another map serves that name: it answers
                    failed.setdefault(mcp_name, {"file": report.file, "error": report.errors[0].to_dict()})
        return failed

    def _tools_fingerprint(self) -> dict[str | None, list[tuple[str, ...]]]:
        # What a host sees of each tool, by whose it is: a change in any of it is a tools/list_changed for its owner.
        found: dict[str | None, list[tuple[str, ...]]] = {}
        for b in self.catalog.every_binding():
            seen = json.dumps([self.listed(b), b.input_schema, b.result_schema, b.annotations, b.meta()], sort_keys=True, default=str)
            found.setdefault(b.owner, []).append((b.mcp_name, b.name, b.description, seen))
        return {owner: sorted(tools) for owner, tools in found.items()}

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
            self.announce(MapsChange(tools=changed, config=config, tools_of=_owners(runtime.session)))
            return
        self.inline_reports[runtime.runtime_id] = loaded.report
        self.note_failures()
        if loaded.namespace == "inline":
            loaded.namespace = f"runtime-{runtime.runtime_id}"
        loaded.owner = runtime.session  # a session's own runtime's map is that session's tools alone (docs/sessions.md)
        self.catalog.set_inline(runtime.runtime_id, loaded)
        self.announce(MapsChange(tools=True, maps_came_or_went=True, config=config, tools_of=_owners(runtime.session)))

    def forget_runtime(self, runtime_id: str) -> None:
        """A runtime left: withdraw its inline map and page tools, and announce it when it had any."""
        owner = self.catalog.owner_of_runtime(runtime_id)
        if self.catalog.drop_runtime(runtime_id):
            self.inline_reports.pop(runtime_id, None)
            self.announce(MapsChange(tools=True, tools_of=_owners(owner)))

    # -- reports -------------------------------------------------------------

    def reports(self) -> list[ManifestReport]:
        """The report of every map tried that the current agent session may see: files, runtimes' inline maps and their page tools' maps."""
        return [*self.load_result.reports, *(r for r in self.inline_reports.values() if visible_to(self.owner_of_map(r.file)))]

    def failed_maps(self) -> list[dict[str, Any]]:
        """Every map that failed to load (files, and runtimes' maps): ``{file, errors}``, errors as problems.

        The maps of another agent session's runtimes are left out (docs/sessions.md): what they said is theirs.
        """
        inline = [r for r in self.inline_reports.values() if not r.valid and visible_to(self.owner_of_map(r.file))]
        reports = [*self.load_result.failures, *inline]
        failed: list[dict[str, Any]] = []
        for r in reports:
            entry: dict[str, Any] = {"file": r.file, "errors": [p.to_dict() for p in r.errors]}
            if r.file in self._kept:
                entry["last_good_served"] = True  # the version that loaded before the edit still serves
            failed.append(entry)
        return failed

    def note_failures(self) -> None:
        """Keep the catalogue's list of failed maps current, and publish ``MapsFailed`` for failures not told yet.

        Once per distinct failure: an edit elsewhere does not repeat it, a new problem does.
        """
        with session_scope(None):  # every failure, whoever's: each reader is shown only what it may see
            failed = self.failed_maps()
        self.catalog.set_failed_maps((self.owner_of_map(entry["file"]), entry) for entry in failed)
        new = [entry for entry in failed if json.dumps(entry, sort_keys=True) not in self._told_failures]
        self._told_failures = {json.dumps(entry, sort_keys=True) for entry in failed}
        if new:
            self.events.publish(MapsFailed(tuple(new)))

    def owner_of_map(self, file: str) -> str | None:
        """The agent session whose map a report is (``runtime:<id>`` and ``runtime:<id>#<protocol>``: its runtime's).

        None for everyone's (the map files, the operator's runtimes); a runtime no longer connected is
        no session's business any more (``GONE``: the operator's alone).
        """
        if not file.startswith(_RUNTIME_SOURCE):
            return None
        runtime = self.current(file[len(_RUNTIME_SOURCE) :].partition("#")[0])
        return runtime.session if runtime is not None else GONE

    def _tell_problems(self, where: str, report: ManifestReport) -> None:
        if report.file in self._kept:
            USER_LOG.error("%s is invalid; its last good version still serves until it is fixed", where)
        for problem in report.errors:
            USER_LOG.error("%s:%s %s %s", where, problem.path, problem.code, problem.message)


#: How a runtime's map (inline, or its page's tools) is named in reports: ``runtime:<id>``, then ``#<protocol>`` or nothing.
_RUNTIME_SOURCE = "runtime:"
#: The owner of a report whose runtime left: no agent session's (only the operator, outside any, sees it).
GONE = "\x00gone"


def _owners(session: str | None) -> frozenset[str] | None:
    """Whose tools a runtime's map changes: its agent session's alone, or (the operator's runtime) everyone's."""
    return frozenset({session}) if session is not None else None
