"""Where imported manifests come from: resolving an import's URI and reading its bytes.

An import names its source by ``kind`` and ``uri``. ``resolve_import`` turns
that into a ``Location`` (a file or a URL) and the defaults that follow from
it (trust, the root that nested imports must stay inside); ``read_source``
reads the bytes; ``parse_json_strictly`` parses them. Every failure is a
``ManifestError`` whose ``code`` is one of ``SOURCE_CODES``; the composer
turns it into a ``Problem`` at the import's pointer.

URI forms, by what the importing document is:

* ``https://…`` — fetched by ``RemoteFetcher`` (timeout, size cap checked
  while streaming, in-memory cache with ETag/Last-Modified revalidation).
  ``http://`` only for loopback hosts, and only while
  ``allow_insecure_loopback`` is on (tests, local development servers).
* a relative reference — against the importing document: joined to its URL
  when it was fetched, else a path relative to its directory. ``file:`` URIs
  name local files too. Local paths must stay inside ``local_root`` (symlinks
  resolved), and a fetched document can never name a local file.
* ``package:<relative path>`` or any URI of an import of kind ``package`` —
  a manifest bundled with mcp_actions (``load.bundled_manifests_dir()``).
* ``storage:[<scope>/]sites/<host>/<path>`` (kinds ``storage``, ``shared``,
  ``public``) — a site in the storage root, through the scope precedence
  (see ``storage.py``).

Content types are never trusted: every body is parsed as strict JSON (UTF-8,
no NaN/Infinity, no duplicate keys).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit, urlunsplit
from urllib.request import url2pathname

from ..errors import ManifestError, codes_in_group
from .storage import SCOPES, parse_storage_uri, resolve_site, scope_dir, scopes_visible_from

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "DEFAULT_TRUST_BY_KIND",
    "MAX_LOCAL_BYTES",
    "SOURCE_CODES",
    "ImportContext",
    "Location",
    "RemoteFetcher",
    "Resolved",
    "check_remote_url",
    "default_fetcher",
    "parse_json_strictly",
    "read_source",
    "resolve_import",
]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 2 * 1024 * 1024
#: Local, package and storage files get the same bound as a manifest loaded directly.
MAX_LOCAL_BYTES = 8 * 1024 * 1024
MAX_REDIRECTS = 5

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
    {"import_not_found", "import_fetch_failed", "import_too_large", "import_invalid_json", "import_uri_forbidden"}
)
#: The codes a source failure carries: a view of ``ErrorCode``.
SOURCE_CODES: dict[str, str] = {
    code: meaning for code, meaning in codes_in_group("import").items() if code in _SOURCE_CODE_NAMES
}

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def _fail(code: str, message: str, **evidence: Any) -> ManifestError:
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
    package_root: Path | None = None  # default: load.bundled_manifests_dir()


@dataclass(frozen=True)
class Resolved:
    """An import's source and the context its own imports resolve in."""

    location: Location
    default_trust: str
    local_root: Path | None


def _is_loopback(host: str | None) -> bool:
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
        raise _fail("import_uri_forbidden", f"{url}: credentials in import URLs are not allowed", uri=url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and allow_insecure_loopback and _is_loopback(parts.hostname):
        return
    raise _fail("import_uri_forbidden", f"{url}: only https:// imports are allowed (http:// only to loopback hosts)", uri=url)


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
        raise _fail("import_uri_forbidden", f"{uri}: resolves outside its root {root}", uri=uri)
    if resolved.is_dir():
        resolved = (resolved / "actions.json").resolve()
        if not _inside(resolved, root):
            raise _fail("import_uri_forbidden", f"{uri}: resolves outside its root {root}", uri=uri)
    if not resolved.is_file():
        raise _fail("import_not_found", f"{uri}: no such file {resolved}", uri=uri)
    return resolved


def _package_root(context: ImportContext) -> Path:
    if context.package_root is not None:
        return context.package_root
    from .load import bundled_manifests_dir  # load imports compose, which imports us

    return bundled_manifests_dir()


def _resolve_package(uri: str, context: ImportContext) -> Resolved:
    relative = uri[len("package:") :] if uri.startswith("package:") else uri
    pure = PurePosixPath(relative)
    if not relative or pure.is_absolute() or urlsplit(relative).scheme or ".." in pure.parts:
        raise _fail("import_uri_forbidden", f"{uri}: a package import is a relative path inside the bundled manifests", uri=uri)
    root = _package_root(context).resolve()
    path = _local_file(root / pure, root, uri)
    return Resolved(Location(path=path), DEFAULT_TRUST_BY_KIND["package"], root)


def _resolve_storage(kind: str, uri: str, context: ImportContext) -> Resolved:
    if context.location is not None and context.location.is_remote:
        raise _fail("import_uri_forbidden", f"{uri}: a fetched map cannot import from local storage", uri=uri)
    parsed = parse_storage_uri(uri)
    if parsed is None:
        raise _fail("import_uri_forbidden", f"{uri}: a storage URI is storage:[<scope>/]sites/<host>/<path>", uri=uri)
    pinned, site_key = parsed
    if kind not in ("storage", "shared", "public"):
        raise _fail("import_uri_forbidden", f"{uri}: storage URIs belong to imports of kind storage, shared or public", uri=uri)
    allowed = [s for s in scopes_visible_from(context.trust) if kind == "storage" or s == kind]
    if pinned is not None:
        allowed = [s for s in allowed if s == pinned]
    if not allowed:
        wanted = pinned or kind
        raise _fail("import_uri_forbidden", f"{uri}: a map trusted as {context.trust!r} may not import from {wanted} storage", uri=uri)
    if context.storage_root is None:
        raise _fail("import_not_found", f"{uri}: no storage root is configured", uri=uri)
    entry = resolve_site(context.storage_root, site_key, allowed_scopes=tuple(s for s in SCOPES if s in allowed))
    if entry is None:
        raise _fail("import_not_found", f"{uri}: no manifest for site {site_key!r} in scopes {', '.join(allowed)}", uri=uri)
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
            raise _fail("import_uri_forbidden", f"{uri}: a fetched map can only import http(s) URLs", uri=uri)
        url = urljoin(importer.url or "", uri)
        check_remote_url(url, allow_insecure_loopback=context.allow_insecure_loopback)
        return Resolved(Location(url=url), default_trust, None)
    parts = urlsplit(uri)
    if parts.scheme in ("http", "https"):
        check_remote_url(uri, allow_insecure_loopback=context.allow_insecure_loopback)
        return Resolved(Location(url=uri), default_trust, None)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise _fail("import_uri_forbidden", f"{uri}: file URIs must name a local file", uri=uri)
        raw = Path(url2pathname(parts.path))
    elif len(parts.scheme) > 1:
        raise _fail("import_uri_forbidden", f"{uri}: unsupported URI scheme {parts.scheme!r}", uri=uri)
    else:
        raw = Path(uri).expanduser() if uri.startswith("~") else Path(uri)
    if raw.is_absolute() and kind in ("website", "public"):
        raise _fail("import_uri_forbidden", f"{uri}: a {kind} import may not name an absolute local path", uri=uri)
    base_dir = importer.path.parent if importer is not None and importer.path is not None else None
    root = context.local_root or base_dir
    if root is None:
        raise _fail("import_uri_forbidden", f"{uri}: this manifest has no directory, so it cannot import local files", uri=uri)
    candidate = raw if raw.is_absolute() else (base_dir or root) / raw
    path = _local_file(candidate, root.resolve(), uri)
    return Resolved(Location(path=path), default_trust, root.resolve())


def parse_json_strictly(data: bytes, *, what: str = "import") -> Any:
    """Parse ``data`` as strict JSON; ``import_invalid_json`` on anything else.

    Strict means UTF-8 text, no NaN/Infinity, and no repeated keys (parsers
    disagree about which copy wins, so a reviewer could read the other one).
    """

    def no_constants(token: str) -> Any:
        raise ValueError(f"{token} is not JSON")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise ValueError(f"duplicate key {key!r}")
            result[key] = value
        return result

    try:
        return json.loads(data.decode("utf-8"), parse_constant=no_constants, object_pairs_hook=no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _fail("import_invalid_json", f"{what} is not strict JSON: {exc}") from exc


@dataclass
class _Cached:
    body: bytes
    etag: str | None
    last_modified: str | None
    stored_at: float


class RemoteFetcher:
    """Fetch manifests over https with a timeout, a size cap and a per-process cache.

    A body fetched less than ``fresh_for`` seconds ago is reused without a
    request; an older one is revalidated with ``If-None-Match`` /
    ``If-Modified-Since`` when the server sent an ETag or Last-Modified, and
    a ``304`` reuses it. Redirects are followed by hand (at most five), only
    to URLs that pass the same check as the original: https, or http to
    loopback when allowed.
    """

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        allow_insecure_loopback: bool = True,
        fresh_for: float = 30.0,
    ) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.allow_insecure_loopback = allow_insecure_loopback
        self.fresh_for = fresh_for
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every cached body."""
        with self._lock:
            self._cache.clear()

    def fetch(self, url: str) -> bytes:
        """The body at ``url``; raises ``ManifestError`` (``import_fetch_failed``, ``import_too_large``, ``import_uri_forbidden``)."""
        check_remote_url(url, allow_insecure_loopback=self.allow_insecure_loopback)
        with self._lock:
            cached = self._cache.get(url)
        if cached is not None and time.monotonic() - cached.stored_at < self.fresh_for:
            return cached.body
        headers = {"Accept": "application/json"}
        if cached is not None and cached.etag:
            headers["If-None-Match"] = cached.etag
        if cached is not None and cached.last_modified:
            headers["If-Modified-Since"] = cached.last_modified
        # httpx is imported on the first remote fetch: most servers never make one, and
        # importing it costs about a tenth of the start-up before the first tools/list.
        import httpx

        deadline = time.monotonic() + self.timeout
        try:
            status, body, response_headers = self._get(url, headers, deadline)
        except httpx.TimeoutException as exc:
            raise _fail("import_fetch_failed", f"{url}: timed out after {self.timeout:g} s", uri=url) from exc
        except httpx.HTTPError as exc:
            raise _fail("import_fetch_failed", f"{url}: {type(exc).__name__}: {exc}", uri=url) from exc
        if status == 304 and cached is not None:
            with self._lock:
                cached.stored_at = time.monotonic()
            return cached.body
        entry = _Cached(body, response_headers.get("etag"), response_headers.get("last-modified"), time.monotonic())
        with self._lock:
            self._cache[url] = entry
        return body

    def _get(self, url: str, headers: dict[str, str], deadline: float) -> tuple[int, bytes, httpx.Headers]:
        import httpx  # deferred, see fetch

        current = url
        for _ in range(MAX_REDIRECTS + 1):
            remaining = max(deadline - time.monotonic(), 0.001)
            # Proxies from the environment make sense for the internet, not for loopback.
            with httpx.Client(timeout=remaining, follow_redirects=False, trust_env=not _is_loopback(urlsplit(current).hostname)) as client:
                with client.stream("GET", current, headers=headers) as response:
                    if response.status_code in _REDIRECTS:
                        target = urljoin(current, response.headers.get("location", ""))
                        self._check_redirect(current, target)
                        current = target
                        continue
                    if response.status_code == 304:
                        return 304, b"", response.headers
                    if response.status_code != 200:
                        raise _fail("import_fetch_failed", f"{url}: HTTP {response.status_code}", uri=url, status=response.status_code)
                    return 200, self._read_capped(url, response, deadline), response.headers
        raise _fail("import_fetch_failed", f"{url}: more than {MAX_REDIRECTS} redirects", uri=url)

    def _check_redirect(self, current: str, target: str) -> None:
        # An https source must not be downgraded; plain http is tolerated only loopback to loopback.
        insecure_ok = self.allow_insecure_loopback and urlsplit(current).scheme == "http"
        try:
            check_remote_url(target, allow_insecure_loopback=insecure_ok)
        except ManifestError as exc:
            raise _fail("import_uri_forbidden", f"redirect from {current} to {target} refused: redirects are followed only to https", uri=current) from exc

    def _read_capped(self, url: str, response: httpx.Response, deadline: float) -> bytes:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise _fail("import_too_large", f"{url}: {declared} bytes; the limit is {self.max_bytes}", uri=url)
        chunks: list[bytes] = []
        total = 0
        for chunk in response.iter_bytes():
            total += len(chunk)
            if total > self.max_bytes:
                raise _fail("import_too_large", f"{url}: more than {self.max_bytes} bytes", uri=url)
            if time.monotonic() > deadline:
                import httpx  # deferred, see fetch

                # httpx's timeouts bound each read; a server dripping bytes needs the overall deadline.
                raise httpx.ReadTimeout("overall deadline exceeded")
            chunks.append(chunk)
        return b"".join(chunks)


_DEFAULT_FETCHER: RemoteFetcher | None = None
_DEFAULT_LOCK = threading.Lock()


def default_fetcher() -> RemoteFetcher:
    """The process-wide fetcher (and so the process-wide cache) used when none is given."""
    global _DEFAULT_FETCHER
    with _DEFAULT_LOCK:
        if _DEFAULT_FETCHER is None:
            _DEFAULT_FETCHER = RemoteFetcher()
        return _DEFAULT_FETCHER


def read_source(location: Location, *, fetcher: RemoteFetcher | None = None) -> bytes:
    """The bytes of a resolved import (``import_not_found``, ``import_too_large``, fetch failures)."""
    if location.url is not None:
        return (fetcher or default_fetcher()).fetch(location.url)
    assert location.path is not None
    try:
        size = location.path.stat().st_size
        if size > MAX_LOCAL_BYTES:
            raise _fail("import_too_large", f"{location.path}: {size} bytes; the limit is {MAX_LOCAL_BYTES}", uri=str(location.path))
        return location.path.read_bytes()
    except FileNotFoundError as exc:
        raise _fail("import_not_found", f"{location.path}: no such file", uri=str(location.path)) from exc
    except OSError as exc:
        raise _fail("import_not_found", f"{location.path}: cannot read: {exc.strerror or exc}", uri=str(location.path)) from exc
