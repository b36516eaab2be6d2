"""Storage scopes: private, shared and public site maps in one directory tree.

A storage root is a directory laid out as::

    <root>/scopes/private/sites/<host>/<path…>/actions.json
    <root>/scopes/shared/sites/<host>/<path…>/actions.json
    <root>/scopes/public/sites/<host>/<path…>/actions.json

The *site key* of a manifest is ``<host>/<path…>`` (``example.com/search``).
When several scopes hold a map for one site key, only the highest-precedence
one is loaded — private over shared over public — so a user's private edits
override a team's shared map, which overrides the published one. The others
are *shadowed*: listed for the launch report, never exposed.

Storage imports name a site with a ``storage:`` URI (see ``parse_storage_uri``)
and resolve through the same precedence. The boundaries between scopes are
kept by the caller passing ``allowed_scopes``: a public map may not reach into
private storage (``scopes_visible_from``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SCOPES",
    "STORAGE_URI_PREFIX",
    "ShadowedManifest",
    "StorageEntry",
    "is_inside",
    "is_storage_root",
    "load_storage",
    "parse_storage_uri",
    "resolve_site",
    "scope_dir",
    "scopes_visible_from",
    "site_namespace",
]

#: Scopes in precedence order: an earlier scope shadows a later one for the same site key.
SCOPES: tuple[str, ...] = ("private", "shared", "public")
STORAGE_URI_PREFIX = "storage:"
_MANIFEST = "actions.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
# A site-key segment: no empty, '.' or '..' segments, no separators; hosts may carry a port.
_SEGMENT = re.compile(r"^[A-Za-z0-9_~-][A-Za-z0-9._~:@+-]*$")


@dataclass(frozen=True)
class ShadowedManifest:
    """A storage manifest that is not loaded because a higher-precedence scope maps the same site."""

    site_key: str
    path: Path
    scope: str
    shadowed_by: str  # the scope whose manifest was chosen


@dataclass(frozen=True)
class StorageEntry:
    """The manifest chosen for one site key: its file, its scope (also its trust), and what it shadows."""

    site_key: str
    path: Path
    scope: str
    shadowed: tuple[ShadowedManifest, ...] = field(default=())

    @property
    def trust(self) -> str:
        """The trust level of a storage manifest is its scope's name."""
        return self.scope

    @property
    def namespace(self) -> str:
        """The namespace the manifest is published under (from the site key)."""
        return site_namespace(self.site_key)


def is_storage_root(path: Path) -> bool:
    """True when ``path`` is a directory that contains a ``scopes/`` directory."""
    return path.is_dir() and (path / "scopes").is_dir()


def scope_dir(root: Path, scope: str) -> Path:
    """The directory of one scope inside a storage root."""
    if scope not in SCOPES:
        raise ValueError(f"unknown storage scope {scope!r}")
    return root / "scopes" / scope


def site_namespace(site_key: str) -> str:
    """A publishing namespace for a site key (``example.com/search`` → ``example-com-search``).

    Uses the same character set as ``load.namespace_for`` so storage manifests
    sit beside file-loaded ones under ``actions://manifests/{namespace}``.
    """
    return _UNSAFE.sub("-", site_key).strip("-") or "site"


def _valid_site_key(site_key: str) -> bool:
    segments = site_key.split("/")
    return bool(segments) and all(_SEGMENT.match(s) and s not in (".", "..") for s in segments)


def is_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` lies under ``root`` once both are resolved (a symlink cannot lead out of a scope)."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _site_files(root: Path, scope: str) -> dict[str, Path]:
    sites = scope_dir(root, scope) / "sites"
    if not sites.is_dir():
        return {}
    found: dict[str, Path] = {}
    for manifest in sorted(sites.rglob(_MANIFEST)):
        if not manifest.is_file() or not is_inside(manifest, sites):
            continue
        site_key = manifest.parent.relative_to(sites).as_posix()
        if site_key != "." and _valid_site_key(site_key):
            found[site_key] = manifest
    return found


def load_storage(root: Path) -> list[StorageEntry]:
    """The manifest chosen for every site key under a storage root, sorted by site key.

    For each site key the private scope's file wins over the shared one, which
    wins over the public one; the losers are listed in ``StorageEntry.shadowed``.
    A missing scope directory is simply empty.
    """
    by_scope = {scope: _site_files(root, scope) for scope in SCOPES}
    entries: list[StorageEntry] = []
    for site_key in sorted({key for files in by_scope.values() for key in files}):
        present = [(scope, by_scope[scope][site_key]) for scope in SCOPES if site_key in by_scope[scope]]
        (scope, path), losers = present[0], present[1:]
        shadowed = tuple(ShadowedManifest(site_key, lost_path, lost_scope, scope) for lost_scope, lost_path in losers)
        entries.append(StorageEntry(site_key, path, scope, shadowed))
    return entries


def parse_storage_uri(uri: str) -> tuple[str | None, str] | None:
    """Split a storage URI into ``(scope or None, site_key)``; None when ``uri`` is not one.

    The form is ``storage:[<scope>/]sites/<host>/<path…>[/actions.json]``:
    ``storage:sites/example.com/search`` names a site through the scope
    precedence, ``storage:shared/sites/example.com/search`` pins one scope.
    """
    if not uri.startswith(STORAGE_URI_PREFIX):
        return None
    rest = uri[len(STORAGE_URI_PREFIX) :].strip("/")
    scope: str | None = None
    head, _, tail = rest.partition("/")
    if head in SCOPES:
        scope, rest = head, tail
    if not rest.startswith("sites/"):
        return None
    site_key = rest[len("sites/") :].strip("/")
    if site_key.endswith("/" + _MANIFEST):
        site_key = site_key[: -len(_MANIFEST) - 1]
    if not site_key or not _valid_site_key(site_key):
        return None
    return scope, site_key


def scopes_visible_from(trust: str) -> tuple[str, ...]:
    """The scopes a map of this trust may import from (keeps private data out of public maps)."""
    if trust in ("private", "local"):
        return SCOPES
    if trust == "shared":
        return ("shared", "public")
    return ("public",)


def resolve_site(root: Path, site_key: str, *, allowed_scopes: tuple[str, ...] = SCOPES) -> StorageEntry | None:
    """The manifest for ``site_key`` from the highest-precedence allowed scope, or None.

    Returns None as well for a site key that is malformed or would leave its scope.
    """
    if not _valid_site_key(site_key):
        return None
    present: list[tuple[str, Path]] = []
    for scope in SCOPES:
        if scope not in allowed_scopes:
            continue
        sites = scope_dir(root, scope) / "sites"
        candidate = sites / site_key / _MANIFEST
        if candidate.is_file() and is_inside(candidate, sites):
            present.append((scope, candidate))
    if not present:
        return None
    (scope, path), losers = present[0], present[1:]
    return StorageEntry(site_key, path, scope, tuple(ShadowedManifest(site_key, p, s, scope) for s, p in losers))
