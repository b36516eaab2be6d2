"""Reading an import's bytes: local files with a size cap, and an https fetcher with a cache.

``read_source`` reads the bytes of a resolved ``Location`` (``resolve.py``);
``parse_json_strictly`` parses them (content types are never trusted: every
body is strict JSON). Remote bodies come from a ``RemoteFetcher`` that the
caller passes in: there is no process-wide fetcher. Whoever composes
(``load.load_paths``, the application) creates one and hands it down, so
its cache lives exactly as long as they want. Every failure is a
``ManifestError`` whose ``code`` is one of ``resolve.SOURCE_CODES``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ..errors import ErrorCode, ManifestError
from ..jsonutil import strict_loads
from .resolve import Location, check_remote_url, is_loopback, source_error

if TYPE_CHECKING:  # httpx is imported where a remote import is fetched: most servers never fetch one (issue 55)
    import httpx

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "MAX_LOCAL_BYTES",
    "MAX_REDIRECTS",
    "RemoteFetcher",
    "parse_json_strictly",
    "read_source",
]

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 2 * 1024 * 1024
#: Local, package and storage files get the same bound as a manifest loaded directly.
MAX_LOCAL_BYTES = 8 * 1024 * 1024
MAX_REDIRECTS = 5

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def parse_json_strictly(data: bytes, *, what: str = "import") -> Any:
    """Parse ``data`` as strict JSON (``jsonutil.strict_loads``); ``import_invalid_json`` on anything else."""
    try:
        return strict_loads(data)
    except (ValueError, RecursionError) as exc:
        raise source_error(ErrorCode.IMPORT_INVALID_JSON, f"{what} is not strict JSON: {exc}") from exc


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
        deadline = time.monotonic() + self.timeout
        import httpx

        try:
            status, body, response_headers = self._get(url, headers, deadline)
        except httpx.TimeoutException as exc:
            raise source_error(ErrorCode.IMPORT_FETCH_FAILED, f"{url}: timed out after {self.timeout:g} s", uri=url) from exc
        except httpx.HTTPError as exc:
            raise source_error(ErrorCode.IMPORT_FETCH_FAILED, f"{url}: {type(exc).__name__}: {exc}", uri=url) from exc
        if status == 304 and cached is not None:
            with self._lock:
                cached.stored_at = time.monotonic()
            return cached.body
        entry = _Cached(body, response_headers.get("etag"), response_headers.get("last-modified"), time.monotonic())
        with self._lock:
            self._cache[url] = entry
        return body

    def _get(self, url: str, headers: dict[str, str], deadline: float) -> tuple[int, bytes, httpx.Headers]:
        import httpx

        current = url
        for _ in range(MAX_REDIRECTS + 1):
            remaining = max(deadline - time.monotonic(), 0.001)
            # Proxies from the environment make sense for the internet, not for loopback.
            with httpx.Client(timeout=remaining, follow_redirects=False, trust_env=not is_loopback(urlsplit(current).hostname)) as client:
                with client.stream("GET", current, headers=headers) as response:
                    if response.status_code in _REDIRECTS:
                        target = urljoin(current, response.headers.get("location", ""))
                        self._check_redirect(current, target)
                        current = target
                        continue
                    if response.status_code == 304:
                        return 304, b"", response.headers
                    if response.status_code != 200:
                        raise source_error(ErrorCode.IMPORT_FETCH_FAILED, f"{url}: HTTP {response.status_code}", uri=url, status=response.status_code)
                    return 200, self._read_capped(url, response, deadline), response.headers
        raise source_error(ErrorCode.IMPORT_FETCH_FAILED, f"{url}: more than {MAX_REDIRECTS} redirects", uri=url)

    def _check_redirect(self, current: str, target: str) -> None:
        # An https source must not be downgraded; plain http is tolerated only loopback to loopback.
        insecure_ok = self.allow_insecure_loopback and urlsplit(current).scheme == "http"
        try:
            check_remote_url(target, allow_insecure_loopback=insecure_ok)
        except ManifestError as exc:
            raise source_error(ErrorCode.IMPORT_URI_FORBIDDEN, f"redirect from {current} to {target} refused: redirects are followed only to https", uri=current) from exc

    def _read_capped(self, url: str, response: httpx.Response, deadline: float) -> bytes:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise source_error(ErrorCode.IMPORT_TOO_LARGE, f"{url}: {declared} bytes; the limit is {self.max_bytes}", uri=url)
        chunks: list[bytes] = []
        total = 0
        for chunk in response.iter_bytes():
            total += len(chunk)
            if total > self.max_bytes:
                raise source_error(ErrorCode.IMPORT_TOO_LARGE, f"{url}: more than {self.max_bytes} bytes", uri=url)
            if time.monotonic() > deadline:
                # httpx's timeouts bound each read; a server dripping bytes needs the overall deadline.
                import httpx

                raise httpx.ReadTimeout("overall deadline exceeded")
            chunks.append(chunk)
        return b"".join(chunks)


def read_source(location: Location, *, fetcher: RemoteFetcher) -> bytes:
    """The bytes of a resolved import (``import_not_found``, ``import_too_large``, fetch failures).

    ``fetcher`` reads a URL; a local file is read directly.
    """
    if location.url is not None:
        return fetcher.fetch(location.url)
    assert location.path is not None
    try:
        size = location.path.stat().st_size
        if size > MAX_LOCAL_BYTES:
            raise source_error(ErrorCode.IMPORT_TOO_LARGE, f"{location.path}: {size} bytes; the limit is {MAX_LOCAL_BYTES}", uri=str(location.path))
        return location.path.read_bytes()
    except FileNotFoundError as exc:
        raise source_error(ErrorCode.IMPORT_NOT_FOUND, f"{location.path}: no such file", uri=str(location.path)) from exc
    except OSError as exc:
        raise source_error(ErrorCode.IMPORT_NOT_FOUND, f"{location.path}: cannot read: {exc.strerror or exc}", uri=str(location.path)) from exc
