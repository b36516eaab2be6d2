"""Where an import points: resolving an import's ``kind`` and ``uri`` to a ``Location``.

``resolve_import`` turns an import into a ``Location`` (a file or a URL) and
the defaults that follow from it (trust, the root that nested imports must
stay inside). Reading the bytes is ``fetch.py``'s job. Every failure is a
``ManifestError`` whose ``code`` is one of ``SOURCE_CODES``; the composer
turns it into a ``Problem`` at the import's pointer.

URI forms, by what the importing document is:

* ``https://…`` — a URL, read by ``fetch.RemoteFetcher``. ``http://`` only
  for loopback hosts, and only while ``allow_insecure_loopback`` is on
  (tests, local development servers).
* a relative reference — against the importing document: joined to its URL
  when it was fetched, else a path relative to its directory. ``file:`` URIs
  name local files too. Local paths must stay inside ``local_root`` (symlinks
  resolved), and a fetched document can never name a local file.
* ``package:<relative path>`` or any URI of an import of kind ``package`` —
  a manifest bundled with mcp_actions (``paths.bundled_manifests_dir()``).
* ``storage:[<scope>/]sites/<host>/<path>`` (kinds ``storage``, ``shared``,
  ``public``) — a site in the storage root, through the scope precedence
  (see ``storage.py``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit
from urllib.request import url2pathname

from ..errors import ErrorCode, ManifestError, codes_in_group
from .paths import bundled_manifests_dir
from .storage import SCOPES, parse_storage_uri, resolve_site, scope_dir, scopes_visible_from

__all__ = [
    "DEFAULT_TRUST_BY_KIND",
    "SOURCE_CODES",
    "ImportContext",
    "Location",
    "Resolved",
    "check_remote_url",
    "is_loopback",
    "resolve_import",
    "source_error",
]

#: The trust an import gets when it declares none.
DEFAULT_TRUST_BY_KIND: dict[str, str] = {
    "website": "website",
    "local": "local",
    "storage": "private",  # refined to the scope the site was found in
    "shared": "shared",
    "public": "public",
    "package": "local",
}

_SOURCE_CODE_NAMES = frozenset(
    {
        ErrorCode.IMPORT_NOT_FOUND,
        ErrorCode.IMPORT_FETCH_FAILED,
        ErrorCode.IMPORT_TOO_LARGE,
        ErrorCode.IMPORT_INVALID_JSON,
        ErrorCode.IMPORT_URI_FORBIDDEN,
    }
)
#: The codes a source failure (resolving here, reading in ``fetch.py``) carries: a view of ``ErrorCode``.
SOURCE_CODES: dict[str, str] = {
    code: meaning for code, meaning in codes_in_group("import").items() if code in _SOURCE_CODE_NAMES
}


def source_error(code: ErrorCode, message: str, **evidence: Any) -> ManifestError:
    """The ``ManifestError`` of a source failure (``code`` is one of ``SOURCE_CODES``)."""
    return ManifestError(message, code=code, evidence=evidence)


@dataclass(frozen=True)
class Location:
    """Where a manifest lives: exactly one of a local file and a URL."""

    path: Path | None = None
    url: str | None = None

    @property
    def is_remote(self) -> bool:
        """True for a fetched manifest."""
        return self.url is not None

    @property
    def key(self) -> str:
        """Identity used to detect import cycles (resolved path, or URL without fragment)."""
        if self.url is not None:
            return urlunsplit(urlsplit(self.url)._replace(fragment=""))
        assert self.path is not None
        return str(self.path.resolve())

    def __str__(self) -> str:
        return self.url if self.url is not None else str(self.path)


@dataclass(frozen=True)
class ImportContext:
    """What the resolver needs to know about the importing document."""

    location: Location | None  # None for an inline manifest (sent by a runtime)
    local_root: Path | None  # local imports must stay inside it
    storage_root: Path | None
    trust: str
    allow_insecure_loopback: bool = True
    package_root: Path | None = None  # default: paths.bundled_manifests_dir()


@dataclass(frozen=True)
class Resolved:
    """An import's source and the context its own imports resolve in."""

    location: Location
    default_trust: str
    local_root: Path | None


def is_loopback(host: str | None) -> bool:
    """True for ``localhost`` and loopback IP addresses."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_remote_url(url: str, *, allow_insecure_loopback: bool) -> None:
    """Refuse a URL that may not be fetched (``import_uri_forbidden``)."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{url}: credentials in import URLs are not allowed", uri=url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and allow_insecure_loopback and is_loopback(parts.hostname):
        return
    raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{url}: only https:// imports are allowed (http:// only to loopback hosts)", uri=url)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _local_file(candidate: Path, root: Path, uri: str) -> Path:
    """``candidate`` resolved (``actions.json`` for a directory), checked to stay in ``root`` and exist."""
    resolved = candidate.resolve()
    if not _inside(resolved, root):
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: resolves outside its root {root}", uri=uri)
    if resolved.is_dir():
        resolved = (resolved / "actions.json").resolve()
        if not _inside(resolved, root):
            raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: resolves outside its root {root}", uri=uri)
    if not resolved.is_file():
        raise source_error(ErrorCode.IMPORT_NOT_FOUND, f"{uri}: no such file {resolved}", uri=uri)
    return resolved


def _package_root(context: ImportContext) -> Path:
    return context.package_root if context.package_root is not None else bundled_manifests_dir()


def _resolve_package(uri: str, context: ImportContext) -> Resolved:
    relative = uri[len("package:") :] if uri.startswith("package:") else uri
    pure = PurePosixPath(relative)
    if not relative or pure.is_absolute() or urlsplit(relative).scheme or ".." in pure.parts:
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: a package import is a relative path inside the bundled manifests", uri=uri)
    root = _package_root(context).resolve()
    path = _local_file(root / pure, root, uri)
    return Resolved(Location(path=path), DEFAULT_TRUST_BY_KIND["package"], root)


def _resolve_storage(kind: str, uri: str, context: ImportContext) -> Resolved:
    if context.location is not None and context.location.is_remote:
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: a fetched map cannot import from local storage", uri=uri)
    parsed = parse_storage_uri(uri)
    if parsed is None:
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: a storage URI is storage:[<scope>/]sites/<host>/<path>", uri=uri)
    pinned, site_key = parsed
    if kind not in ("storage", "shared", "public"):
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: storage URIs belong to imports of kind storage, shared or public", uri=uri)
    allowed = [s for s in scopes_visible_from(context.trust) if kind == "storage" or s == kind]
    if pinned is not None:
        allowed = [s for s in allowed if s == pinned]
    if not allowed:
        wanted = pinned or kind
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: a map trusted as {context.trust!r} may not import from {wanted} storage", uri=uri)
    if context.storage_root is None:
        raise source_error(ErrorCode.IMPORT_NOT_FOUND, f"{uri}: no storage root is configured", uri=uri)
    entry = resolve_site(context.storage_root, site_key, allowed_scopes=tuple(s for s in SCOPES if s in allowed))
    if entry is None:
        raise source_error(ErrorCode.IMPORT_NOT_FOUND, f"{uri}: no manifest for site {site_key!r} in scopes {', '.join(allowed)}", uri=uri)
    return Resolved(Location(path=entry.path.resolve()), entry.scope, scope_dir(context.storage_root, entry.scope).resolve())


def resolve_import(kind: str, uri: str, context: ImportContext) -> Resolved:
    """Where an import of ``kind`` with ``uri`` points, from the document described by ``context``.

    Raises ``ManifestError`` with code ``import_uri_forbidden`` or ``import_not_found``.
    """
    if kind == "package" or uri.startswith("package:"):
        return _resolve_package(uri, context)
    if uri.startswith("storage:"):
        return _resolve_storage(kind, uri, context)
    default_trust = DEFAULT_TRUST_BY_KIND.get(kind, "unknown")
    importer = context.location
    if importer is not None and importer.is_remote:
        # Everything a fetched map names is a URL reference; it can never reach a local file.
        scheme = urlsplit(uri).scheme
        if scheme and scheme not in ("http", "https"):
            raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: a fetched map can only import http(s) URLs", uri=uri)
        url = urljoin(importer.url or "", uri)
        check_remote_url(url, allow_insecure_loopback=context.allow_insecure_loopback)
        return Resolved(Location(url=url), default_trust, None)
    parts = urlsplit(uri)
    if parts.scheme in ("http", "https"):
        check_remote_url(uri, allow_insecure_loopback=context.allow_insecure_loopback)
        return Resolved(Location(url=uri), default_trust, None)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: file URIs must name a local file", uri=uri)
        raw = Path(url2pathname(parts.path))
    elif len(parts.scheme) > 1:
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: unsupported URI scheme {parts.scheme!r}", uri=uri)
    else:
        raw = Path(uri).expanduser() if uri.startswith("~") else Path(uri)
    if raw.is_absolute() and kind in ("website", "public"):
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: a {kind} import may not name an absolute local path", uri=uri)
    base_dir = importer.path.parent if importer is not None and importer.path is not None else None
    root = context.local_root or base_dir
    if root is None:
        raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"{uri}: this manifest has no directory, so it cannot import local files", uri=uri)
    candidate = raw if raw.is_absolute() else (base_dir or root) / raw
    path = _local_file(candidate, root.resolve(), uri)
    return Resolved(Location(path=path), default_trust, root.resolve())
