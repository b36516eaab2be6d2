"""Load manifests from files and directories, validated and composed.

A path is a manifest file, or a directory searched recursively for
``actions.json`` and ``*.actions.json``. Each file is read, validated on its
own, then composed with its imports; a file with any error yields a
``ManifestReport`` that exposes nothing, and the other files load regardless.

A directory that contains ``scopes/`` is a storage root (``storage.py``): for
each site only the manifest of the highest-precedence scope (private, then
shared, then public) loads, with the scope as its trust and a namespace made
from the site key; the others are listed in ``LoadResult.shadowed``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ErrorCode, UsageError
from ..jsonutil import StrictJsonError, strict_loads
from .compose import ToolOrigin, compose
from .dictionary import host_primitives, map_primitives
from .execution import ExecutionPlan, classify_tool
from .fetch import RemoteFetcher
from .limits import DEFAULT_LIMITS, Limits
from .model import Manifest
from .paths import bundled_manifests_dir
from .problems import Problem
from .storage import ShadowedManifest, is_storage_root, load_storage, scope_dir
from .validate import check_manifest

__all__ = [
    "LoadResult",
    "LoadedManifest",
    "ManifestReport",
    "PlannedFile",
    "bundled_manifests_dir",
    "discover",
    "load_document",
    "load_file",
    "load_paths",
    "plan_path",
    "storage_root_of",
    "namespace_for",
    "read_document",
    "tool_executions",
]

MAX_MANIFEST_BYTES = 8 * 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class ManifestReport:
    """The outcome of loading one manifest: its problems, valid or not."""

    file: str
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when the manifest has no errors."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``mcp-actions validate --json`` for this file."""
        return {
            "file": self.file,
            "valid": self.valid,
            "errors": [p.to_dict() for p in self.errors],
            "warnings": [p.to_dict() for p in self.warnings],
        }


@dataclass
class LoadedManifest:
    """A valid, composed manifest ready to expose."""

    namespace: str
    source: str
    document: dict[str, Any]
    model: Manifest
    origins: dict[str, ToolOrigin]
    report: ManifestReport
    # How each tool runs (tool name -> ExecutionPlan); every agent-callable tool has one.
    executions: dict[str, ExecutionPlan] = field(default_factory=dict)
    #: The agent session whose tools these are (its id, docs/sessions.md): a map a session's own runtime sent,
    #: or a page of its tab declared. None: everyone's (files the operator gave, and everything over stdio).
    owner: str | None = None

    def __post_init__(self) -> None:
        # Decided here when the maker did not: the kind travels with every loaded map, however made.
        if not self.executions:
            self.executions = tool_executions(self.document)


@dataclass
class LoadResult:
    """Every manifest that loaded, and a report for every file tried."""

    manifests: list[LoadedManifest] = field(default_factory=list)
    reports: list[ManifestReport] = field(default_factory=list)
    shadowed: list[ShadowedManifest] = field(default_factory=list)  # storage maps a higher scope overrides

    @property
    def failures(self) -> list[ManifestReport]:
        """Reports of the files that expose nothing."""
        return [r for r in self.reports if not r.valid]


def _is_manifest_name(name: str) -> bool:
    return name == "actions.json" or name.endswith(".actions.json")


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Manifest files named by ``paths`` (files as given, directories searched recursively).

    Raises ``UsageError`` for a path that does not exist.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.json") if p.is_file() and _is_manifest_name(p.name)))
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"no such manifest file or directory: {raw}", code=ErrorCode.PATH_NOT_FOUND)
    return found


def read_document(path: Path) -> tuple[Any, list[Problem]]:
    """Read and parse one file as strict JSON; a parse failure is a problem of the manifest, not an exception.

    Strict as imports are: a repeated key (``"name": "a", "name": "b"``, where readers
    disagree which wins) or a non-finite number is ``invalid_json`` at its pointer.

    Raises ``UsageError`` when the file cannot be read at all.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}", code=ErrorCode.IO_ERROR) from exc
    if len(data) > MAX_MANIFEST_BYTES:
        return None, [Problem("", ErrorCode.MANIFEST_TOO_LARGE, f"file is {len(data)} bytes; the limit is {MAX_MANIFEST_BYTES}")]
    try:
        return strict_loads(data), []
    except StrictJsonError as exc:
        # A repeated key or a NaN: refused as an import's are (fetch.parse_json_strictly), at its place.
        return None, [Problem(exc.pointer, ErrorCode.INVALID_JSON, f"not strict JSON: {exc}")]
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: absurdly nested arrays/objects are refused like any other bad JSON.
        return None, [Problem("", ErrorCode.INVALID_JSON, f"not JSON: {exc}")]


def namespace_for(document: Any, path: Path | None) -> str:
    """The namespace a manifest is published under (``actions://manifests/{namespace}``).

    ``surface.surface_id`` when set; else the file name (``shop.actions.json``
    → ``shop``) or, for ``actions.json``, its directory's name.
    """
    surface = document.get("surface") if isinstance(document, dict) else None
    surface_id = surface.get("surface_id") if isinstance(surface, dict) else None
    if isinstance(surface_id, str) and surface_id:
        raw = surface_id
    elif path is not None:
        raw = path.parent.name if path.name == "actions.json" else path.name[: -len(".actions.json")] if path.name.endswith(".actions.json") else path.stem
    else:
        raw = "inline"
    return _UNSAFE.sub("-", raw).strip("-") or "manifest"


def load_document(
    document: Any,
    *,
    source: str,
    path: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
    trust: str = "local",
    namespace: str | None = None,
    local_root: Path | None = None,
    storage_root: Path | None = None,
    fetcher: RemoteFetcher | None = None,
    reference_only: bool = False,
) -> LoadedManifest | ManifestReport:
    """Validate and compose one already-parsed manifest.

    ``namespace`` overrides ``namespace_for``; ``local_root`` is the directory
    local imports must stay inside (default: the file's directory);
    ``storage_root`` serves ``storage:`` imports; ``fetcher`` fetches https
    imports (default: a new one for this call; pass the application's to share its cache);
    ``reference_only`` also warns about what runtimes written from the reference dictionary alone refuse.
    """
    report = check_manifest(document, limits=limits, reference_only=reference_only)
    result = ManifestReport(file=source, errors=list(report.errors), warnings=list(report.warnings))
    if result.errors:
        return result
    composition = compose(
        document,
        source=source,
        base_dir=path.parent if path else None,
        trust=trust,
        local_root=local_root,
        storage_root=storage_root,
        fetcher=fetcher,
        limits=limits,
    )
    for problem in composition.problems:
        (result.errors if problem.severity == "error" else result.warnings).append(problem)
    if result.errors:
        return result
    return LoadedManifest(
        namespace=namespace or namespace_for(document, path),
        source=source,
        document=composition.document,
        model=Manifest.model_validate(composition.document),
        origins=composition.origins,
        report=result,
    )


def tool_executions(document: dict[str, Any]) -> dict[str, ExecutionPlan]:
    """How each tool of a valid (composed) document runs, by tool name (tools that cannot run are left out)."""
    host = host_primitives()
    own = map_primitives(document)
    published = isinstance(document.get("primitive_dictionary"), dict)
    executions = {}
    for tool in document.get("tools", []):
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            execution = classify_tool(tool, host_primitives=host, map_primitives=own, host_published=published)
            if execution is not None:
                executions[tool["name"]] = execution
    return executions


@dataclass(frozen=True)
class PlannedFile:
    """One manifest file as ``serve`` loads it: where it is and what its composition is given.

    ``mcp-actions validate`` loads the same plan (``manifest/report.py``), so the two agree
    on every import: which directory local imports stay inside, the trust a storage map
    has, which storage root serves ``storage:`` imports.
    """

    path: Path
    trust: str = "local"
    namespace: str | None = None
    local_root: Path | None = None
    storage_root: Path | None = None
    #: Storage maps of the same site that a higher scope overrides (``serve`` does not load them).
    shadowed: tuple[ShadowedManifest, ...] = ()


def storage_root_of(paths: Sequence[Path]) -> Path | None:
    """The storage root that serves ``storage:`` imports of plain maps: the first one given."""
    return next((p for p in paths if is_storage_root(p)), None)


def plan_path(given: Path, storage_root: Path | None, *, shadowed_too: bool = False) -> list[PlannedFile]:
    """The manifest files ``given`` names, each with its composition's options (``UsageError`` when it does not exist).

    A storage root gives the map chosen for each site (trust: its scope; local imports
    inside its scope); with ``shadowed_too``, the overridden maps as well, each as it
    would load on its own. Another directory gives every ``actions.json`` and
    ``*.actions.json`` under it (local imports inside it); a file, itself (inside its folder).
    """
    if is_storage_root(given):
        planned: list[PlannedFile] = []
        for entry in load_storage(given):
            planned.append(PlannedFile(entry.path, entry.trust, entry.namespace, scope_dir(given, entry.scope), given, entry.shadowed))
            if shadowed_too:
                planned.extend(PlannedFile(lost.path, lost.scope, entry.namespace, scope_dir(given, lost.scope), given) for lost in entry.shadowed)
        return planned
    return [PlannedFile(path, local_root=given if given.is_dir() else None, storage_root=storage_root) for path in discover([given])]


def load_file(
    planned: PlannedFile, *, limits: Limits = DEFAULT_LIMITS, fetcher: RemoteFetcher | None = None, reference_only: bool = False
) -> LoadedManifest | ManifestReport:
    """Read, validate and compose one planned file (``UsageError`` when it cannot be read)."""
    path = planned.path
    document, problems = read_document(path)
    if problems:
        return ManifestReport(file=str(path), errors=problems)
    return load_document(
        document,
        source=str(path),
        path=path,
        limits=limits,
        trust=planned.trust,
        namespace=planned.namespace,
        local_root=planned.local_root,
        storage_root=planned.storage_root,
        fetcher=fetcher,
        reference_only=reference_only,
    )


def load_paths(paths: Sequence[str | Path], *, limits: Limits = DEFAULT_LIMITS, fetcher: RemoteFetcher | None = None) -> LoadResult:
    """Load every manifest under ``paths``; invalid ones are reported, the rest load.

    Local imports may reach anywhere under the directory given in ``paths``
    (for a file given directly: its own directory). A storage root loads
    through its scope precedence, each map confined to its own scope; the
    first storage root given also serves the ``storage:`` imports of the
    other manifests (``plan_path``).
    """
    result = LoadResult()
    # One fetcher for the whole load: an https import shared by several maps is fetched once.
    fetcher = fetcher if fetcher is not None else RemoteFetcher()
    given_paths = [Path(raw).expanduser() for raw in paths]
    storage_root = storage_root_of(given_paths)
    for given in given_paths:
        for planned in plan_path(given, storage_root):
            result.shadowed.extend(planned.shadowed)
            loaded = load_file(planned, limits=limits, fetcher=fetcher)
            if isinstance(loaded, ManifestReport):
                result.reports.append(loaded)
            else:
                result.manifests.append(loaded)
                result.reports.append(loaded.report)
    return result
