"""Composition: fold a manifest's imports into one document with namespaced names.

``compose`` returns the composed document (the importing map's own entries
plus every enabled import's, renamed into the import's namespace), the origin
of every tool (source and trust level, carried into MCP ``_meta``), and the
problems found on the way. It never raises for a bad import: every failure is
a ``Problem`` at the import's pointer (``/imports/2/uri``).

How an import is composed:

1. its source is resolved (``resolve.py``: files, bundled package
   manifests, storage sites, https URLs), read and parsed as strict JSON
   (``fetch.py``);
2. it is validated on its own (``check_manifest``); its errors become
   ``import_invalid`` problems that name the imported file and pointer;
3. its own imports are composed recursively (cycles, at any depth, are
   ``import_cycle``);
4. every name it declares — tools, states, signals, transitions, context ids,
   attachment ids, check ids, state projections (``shape.DECLARED_KINDS``) —
   and every reference to one of them inside it (``shape.REFERENCES``) gets
   the prefix ``<namespace>.`` (nested namespaces nest: ``outer.inner.name``),
   so the composed document is consistent again;
5. its entries are merged after the importing map's own. A name already
   present is a conflict, never merged silently: ``composition.
   default_conflict_policy`` ``prefer_local`` keeps the entry that was there
   first (the importing map's, or an earlier import's) and warns,
   ``prefer_import`` replaces it with the later import's and warns, ``error``
   makes the conflict an error.

``composition.namespace_required`` defaults to true: an enabled import without
a namespace is ``import_namespace_required``; when false, such an import is
merged un-prefixed, still under the conflict policy.

Trust: the root map has the ``trust`` passed in; an import has its declared
``trust``, else its kind's default (``resolve.DEFAULT_TRUST_BY_KIND``; a
storage import gets the scope it was found in, and a ``local`` import made by
a storage map gets that map's scope). An import is never trusted
more than the map that imports it: a public map cannot declare its imports
``private``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ErrorCode, ManifestError, codes_in_group
from ..jsonutil import json_pointer
from .dictionary import map_primitives
from .execution import classify_tool
from .fetch import RemoteFetcher, parse_json_strictly, read_source
from .limits import DEFAULT_LIMITS, Limits
from .problems import Problem, child_pointer
from .resolve import SOURCE_CODES, ImportContext, Location, resolve_import
from .shape import CONFLICT_POLICIES, DECLARED_KINDS, Reference, locate, references
from .validate import check_manifest

__all__ = [
    "COMPOSE_CODES",
    "MAX_IMPORTS",
    "TRUST_RANK",
    "Composition",
    "ToolOrigin",
    "compose",
]

#: How far each trust level is trusted; an import is capped at its importer's rank.
TRUST_RANK: dict[str, int] = {"unknown": 0, "public": 1, "website": 1, "shared": 2, "private": 3, "local": 3}
#: Imports composed for one root manifest, all depths together (bounds diamonds and fan-out).
MAX_IMPORTS = 64

#: The codes composition reports: a view of ``ErrorCode`` (import group, minus the source codes).
COMPOSE_CODES: dict[str, str] = {
    code: meaning for code, meaning in codes_in_group("import").items() if code not in SOURCE_CODES
}


@dataclass(frozen=True)
class ToolOrigin:
    """Where a composed tool came from and how far it is trusted.

    ``import_id`` is the id of the import that brought the tool in (nested
    imports joined by ``/``), ``namespace`` the prefix its name received
    (nested namespaces joined by ``.``); both are None for the root map's own tools.
    """

    source: str
    trust: str
    import_id: str | None = None
    namespace: str | None = None


@dataclass
class Composition:
    """A composed manifest document with the origin of each tool."""

    document: dict[str, Any]
    origins: dict[str, ToolOrigin] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        """The problems that make the composition unusable."""
        return [p for p in self.problems if p.severity == "error"]


def _join(sep: str, *parts: str | None) -> str | None:
    present = [p for p in parts if p]
    return sep.join(present) if present else None


def _effective_trust(declared: Any, default: str, importer_trust: str) -> str:
    trust = declared if isinstance(declared, str) and declared in TRUST_RANK else default
    if TRUST_RANK.get(trust, 0) > TRUST_RANK.get(importer_trust, 0):
        return importer_trust
    return trust


def _root_location(source: str, base_dir: Path | None) -> Location | None:
    if urlsplit(source).scheme in ("http", "https"):
        return Location(url=source)
    if base_dir is None:
        return None
    path = Path(source)
    if path.parent.resolve() == base_dir.resolve():
        return Location(path=path.resolve())
    # The source names no file in base_dir (a label); imports still resolve against base_dir.
    return Location(path=base_dir.resolve() / "actions.json")


# ---------------------------------------------------------------- renaming


class _Renamer:
    """Prefix every declared name of one document, and every reference to one, with a namespace.

    What is a declared name and what is a reference is ``shape.DECLARED_KINDS``
    and ``shape.REFERENCES``: a member is renamed once for each reference that
    reaches it, and only when it names something the document declares (a
    primitive, a free-form precondition or a runtime-defined signal stays as it is).
    """

    def __init__(self, document: dict[str, Any], namespace: str) -> None:
        self.maps: dict[str, dict[str, str]] = {}
        for kind, (list_key, name_key) in DECLARED_KINDS.items():
            entries = document.get(list_key)
            names = [e[name_key] for e in entries if isinstance(e, dict) and isinstance(e.get(name_key), str)] if isinstance(entries, list) else []
            self.maps[kind] = {name: f"{namespace}.{name}" for name in names}

    def name(self, kind: str, value: str) -> str:
        """The new name of ``value`` (unchanged when it is not declared by the document, e.g. a primitive)."""
        return self.maps[kind].get(value, value)

    def key(self, obj: Any, key: str, kind: str) -> None:
        if isinstance(obj, dict) and isinstance(obj.get(key), str):
            obj[key] = self.name(kind, obj[key])

    def reference(self, entry: dict[str, Any], reference: Reference) -> None:
        """Rename every member of ``entry`` that ``reference`` reaches."""
        for obj, key, _tokens in list(locate(entry, reference.path)):
            value = obj[key]
            if reference.form == "name":
                self.key(obj, key, reference.kind)
            elif reference.form == "names" and isinstance(value, list):
                obj[key] = [self.name(reference.kind, v) if isinstance(v, str) else v for v in value]
            elif reference.form == "values" and isinstance(value, dict):
                for name_key, item in value.items():
                    if isinstance(item, str):
                        value[name_key] = self.name(reference.kind, item)

    def apply(self, doc: dict[str, Any]) -> None:
        """Rename, in place, every declared name of ``doc`` and every reference to one."""
        for kind, (list_key, name_key) in DECLARED_KINDS.items():
            entries = doc.get(list_key)
            if not isinstance(entries, list):
                continue
            held = references(list_key)
            for entry in entries:
                if isinstance(entry, dict):
                    if kind == "tool":
                        _pin_host_native(entry)
                    self.key(entry, name_key, kind)
                    for reference in held:
                        self.reference(entry, reference)


def _pin_host_native(tool: dict[str, Any]) -> None:
    """Before a host-native tool is renamed, name its primitive as its handler.

    A tool with no handler, workflow or steps runs the primitive of its own
    name; ``ns.browser.navigate`` no longer names one, so it keeps
    ``browser.navigate`` as a primitive handler (the same run, said explicitly).
    """
    name = tool.get("name")
    x_actions = tool.get("x_actions", {})
    if not isinstance(name, str) or not isinstance(x_actions, dict) or x_actions.get("direction") == "html_to_agent":
        return
    if classify_tool(tool, host_primitives=(), map_primitives=()) is None:
        tool["x_actions"] = {**x_actions, "handler": name}


def _merge_primitive_dictionary(document: dict[str, Any], imported: dict[str, Any]) -> None:
    """Add the primitives an import's own ``primitive_dictionary`` declares (names are not namespaced)."""
    incoming = map_primitives(imported)
    if not incoming:
        return
    dictionary = document.get("primitive_dictionary")
    if not isinstance(dictionary, dict):
        dictionary = document["primitive_dictionary"] = {"primitives": []}
    if not isinstance(dictionary.get("primitives"), list):
        dictionary["primitives"] = []
    present = set(map_primitives(document))
    source = imported["primitive_dictionary"]["primitives"]
    dictionary["primitives"].extend(
        copy.deepcopy(entry) for entry in source if isinstance(entry, dict) and entry.get("name") in incoming and entry["name"] not in present
    )


# ---------------------------------------------------------------- merging


@dataclass
class _Merger:
    """The composed document under construction, and who contributed each name."""

    document: dict[str, Any]
    origins: dict[str, ToolOrigin]
    problems: list[Problem]
    policy: str
    owners: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def start(cls, document: dict[str, Any], origins: dict[str, ToolOrigin], policy: str, label: str) -> _Merger:
        merger = cls(document, origins, [], policy)
        for kind, (list_key, name_key) in DECLARED_KINDS.items():
            entries = document.get(list_key)
            merger.owners[kind] = {
                e[name_key]: label for e in (entries if isinstance(entries, list) else []) if isinstance(e, dict) and isinstance(e.get(name_key), str)
            }
        return merger

    def merge(self, imported: dict[str, Any], origins: dict[str, ToolOrigin], *, label: str, pointer: str) -> None:
        """Add the entries of an already renamed import, applying the conflict policy to every clash."""
        for kind, (list_key, name_key) in DECLARED_KINDS.items():
            incoming = imported.get(list_key)
            if not isinstance(incoming, list) or not incoming:
                continue
            current = self.document.get(list_key)
            if not isinstance(current, list):
                current = self.document[list_key] = []
            for entry in incoming:
                name = entry.get(name_key) if isinstance(entry, dict) else None
                if not isinstance(name, str):
                    continue
                owner = self.owners[kind].get(name)
                if owner is None:
                    current.append(entry)
                    self.owners[kind][name] = label
                    if kind == "tool" and name in origins:
                        self.origins[name] = origins[name]
                    continue
                self._conflict(kind, name, owner, label, pointer)
                if self.policy == "prefer_import":
                    position = next(i for i, e in enumerate(current) if isinstance(e, dict) and e.get(name_key) == name)
                    current[position] = entry
                    self.owners[kind][name] = label
                    if kind == "tool" and name in origins:
                        self.origins[name] = origins[name]

    def _conflict(self, kind: str, name: str, owner: str, label: str, pointer: str) -> None:
        if self.policy == "error":
            self.problems.append(
                Problem(pointer, ErrorCode.NAME_CONFLICT, f"{kind} {name!r} from {label} conflicts with the one from {owner} (conflict policy: error)", "error")
            )
            return
        kept, dropped = (owner, label) if self.policy == "prefer_local" else (label, owner)
        self.problems.append(
            Problem(pointer, ErrorCode.NAME_CONFLICT, f"{kind} {name!r} is declared by {owner} and by {label}; kept {kept}'s, dropped {dropped}'s ({self.policy})", "warning")
        )


# ---------------------------------------------------------------- composing


class _Composer:
    """One composition run: shared settings, the import budget and the fetcher."""

    def __init__(
        self,
        *,
        limits: Limits,
        storage_root: Path | None,
        fetcher: RemoteFetcher | None,
        allow_insecure_loopback: bool,
        package_root: Path | None,
        max_imports: int,
    ) -> None:
        self.limits = limits
        self.storage_root = storage_root
        # No process-wide fetcher: the caller's, or one of our own for this composition.
        self.fetcher = fetcher if fetcher is not None else RemoteFetcher(allow_insecure_loopback=allow_insecure_loopback)
        self.allow_insecure_loopback = allow_insecure_loopback
        self.package_root = package_root
        self.budget = max_imports
        self.max_imports = max_imports

    def compose(
        self,
        document: dict[str, Any],
        *,
        source: str,
        location: Location | None,
        trust: str,
        local_root: Path | None,
        stack: tuple[str, ...],
    ) -> Composition:
        doc = copy.deepcopy(document)
        tools = doc.get("tools")
        origins = {
            t["name"]: ToolOrigin(source=source, trust=trust)
            for t in (tools if isinstance(tools, list) else [])
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        }
        imports = doc.get("imports")
        if not isinstance(imports, list) or not imports:
            return Composition(document=doc, origins=origins)
        problems: list[Problem] = []
        declared = doc.get("composition")
        settings: dict[str, Any] = declared if isinstance(declared, dict) else {}
        policy = settings.get("default_conflict_policy", "prefer_local")
        if policy not in CONFLICT_POLICIES:
            problems.append(Problem("/composition/default_conflict_policy", ErrorCode.INVALID_VALUE, f"default_conflict_policy must be one of {', '.join(CONFLICT_POLICIES)}"))
            return Composition(document=doc, origins=origins, problems=problems)
        namespace_required = settings.get("namespace_required", True) is not False
        merger = _Merger.start(doc, origins, policy, f"this manifest ({source})")
        context = ImportContext(
            location=location,
            local_root=local_root,
            storage_root=self.storage_root,
            trust=trust,
            allow_insecure_loopback=self.allow_insecure_loopback,
            package_root=self.package_root,
        )
        for position, entry in enumerate(imports):
            if not isinstance(entry, dict) or entry.get("enabled", True) is False:
                continue
            pointer = json_pointer(("imports", position))
            imported = self._import(entry, pointer=pointer, context=context, namespace_required=namespace_required, stack=stack, problems=problems)
            if imported is None:
                continue
            sub, label = imported
            merger.merge(sub.document, sub.origins, label=label, pointer=pointer)
            _merge_primitive_dictionary(merger.document, sub.document)
        problems.extend(merger.problems)
        return Composition(document=merger.document, origins=merger.origins, problems=problems)

    def _import(
        self,
        entry: dict[str, Any],
        *,
        pointer: str,
        context: ImportContext,
        namespace_required: bool,
        stack: tuple[str, ...],
        problems: list[Problem],
    ) -> tuple[Composition, str] | None:
        """Resolve, read, validate, compose and rename one import; None (with problems) when it fails."""
        kind, uri, import_id = entry.get("kind"), entry.get("uri"), entry.get("id")
        namespace = entry.get("namespace") or None
        if not isinstance(kind, str) or not isinstance(uri, str):
            return None  # malformed entries are the validator's to report
        label = f"import {import_id!r} ({uri})"
        if namespace is None and namespace_required:
            problems.append(Problem(child_pointer(pointer, "namespace"), ErrorCode.IMPORT_NAMESPACE_REQUIRED, f"{label} has no namespace and composition.namespace_required is true"))
            return None
        if not isinstance(namespace, (str, type(None))):
            return None
        where = child_pointer(pointer, "uri")
        if self.budget <= 0:
            problems.append(Problem(where, ErrorCode.IMPORT_LIMIT_EXCEEDED, f"{label}: more than {self.max_imports} imports in one composition"))
            return None
        self.budget -= 1
        try:
            resolved = resolve_import(kind, uri, context)
            if resolved.location.key in stack:
                chain = " -> ".join([*stack[stack.index(resolved.location.key) :], resolved.location.key])
                problems.append(Problem(where, ErrorCode.IMPORT_CYCLE, f"{label} imports a manifest that is already being composed: {chain}"))
                return None
            data = read_source(resolved.location, fetcher=self.fetcher)
            imported = parse_json_strictly(data, what=str(resolved.location))
        except ManifestError as exc:
            problems.append(Problem(where, exc.code, exc.message))
            return None
        report = check_manifest(imported, limits=self.limits)
        if report.errors:
            problems.extend(
                Problem(where, ErrorCode.IMPORT_INVALID, f"{resolved.location}#{p.path or '/'}: {p.code}: {p.message}") for p in report.errors
            )
            return None
        default_trust = resolved.default_trust
        if kind == "local" and context.trust in ("private", "shared", "public"):
            default_trust = context.trust  # a storage map's own files share its scope
        trust = _effective_trust(entry.get("trust"), default_trust, context.trust)
        sub = self.compose(
            imported,
            source=str(resolved.location),
            location=resolved.location,
            trust=trust,
            local_root=resolved.local_root,
            stack=(*stack, resolved.location.key),
        )
        # Problems deep inside are reported at this import, naming where they really are.
        problems.extend(Problem(where, p.code, f"{resolved.location}#{p.path or '/'}: {p.message}", p.severity) for p in sub.problems)
        if sub.errors:
            return None
        origins = {
            name: replace(origin, import_id=_join("/", import_id if isinstance(import_id, str) else None, origin.import_id), namespace=_join(".", namespace, origin.namespace))
            for name, origin in sub.origins.items()
        }
        if namespace is not None:
            renamer = _Renamer(sub.document, namespace)
            renamer.apply(sub.document)
            origins = {renamer.name("tool", name): origin for name, origin in origins.items()}
        return Composition(sub.document, origins), f"{label} from {resolved.location}"


def compose(
    document: dict[str, Any],
    *,
    source: str,
    base_dir: Path | None = None,
    trust: str = "local",
    local_root: Path | None = None,
    storage_root: Path | None = None,
    fetcher: RemoteFetcher | None = None,
    limits: Limits = DEFAULT_LIMITS,
    allow_insecure_loopback: bool = True,
    package_root: Path | None = None,
    max_imports: int = MAX_IMPORTS,
) -> Composition:
    """Compose ``document`` (already valid on its own) with its imports.

    ``source`` names the document (its file path or URL; a URL makes relative
    imports resolve as URLs), ``base_dir`` is the directory relative imports
    resolve against, and ``local_root`` the directory local imports must stay
    inside (default ``base_dir``). ``storage_root`` serves ``storage:`` URIs;
    ``fetcher`` reads https imports (default: a new ``RemoteFetcher`` for this
    composition; pass one to share its cache);
    ``package_root`` defaults to the bundled manifests.
    """
    composer = _Composer(
        limits=limits,
        storage_root=storage_root,
        fetcher=fetcher,
        allow_insecure_loopback=allow_insecure_loopback,
        package_root=package_root,
        max_imports=max_imports,
    )
    location = _root_location(source, base_dir)
    anchor = local_root or base_dir
    root = anchor.resolve() if anchor is not None else None
    stack = (location.key,) if location is not None else ()
    composition = composer.compose(document, source=source, location=location, trust=trust, local_root=root, stack=stack)
    if not composition.errors and composition.document is not document and _imported_anything(document):
        # A safety net: renaming must leave a consistent document; never expose one that is not.
        report = check_manifest(composition.document, limits=limits)
        composition.problems.extend(
            Problem(p.path, ErrorCode.COMPOSITION_INVALID, f"the composed document is inconsistent: {p.code}: {p.message}") for p in report.errors
        )
    return composition


def _imported_anything(document: dict[str, Any]) -> bool:
    imports = document.get("imports")
    return isinstance(imports, list) and any(isinstance(e, dict) and e.get("enabled", True) is not False for e in imports)
