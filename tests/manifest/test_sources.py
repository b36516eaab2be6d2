"""Import sources: URI resolution, strict JSON, and https-style fetching against real local servers.

Plain http is allowed here only because the servers listen on 127.0.0.1
(``allow_insecure_loopback``, on by default for loopback hosts).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.demo.static import StaticSite
from mcp_actions.errors import ManifestError
from mcp_actions.manifest.compose import ToolOrigin, compose
from mcp_actions.manifest.fetch import RemoteFetcher, parse_json_strictly, read_source
from mcp_actions.manifest.resolve import ImportContext, Location, resolve_import
from mcp_actions.manifest.validate import check_manifest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"

OK_BODY = json.dumps(
    {
        "protocol": "actions.json",
        "version": 1,
        "tools": [{"name": "remote.run", "description": "A fetched tool.", "input_schema": {"type": "object"}, "x_actions": {"handler": "page.run"}}],
    }
).encode()
LAST_MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT"


class _Handler(BaseHTTPRequestHandler):
    """Routes for every behaviour the fetcher must handle; counts what it served."""

    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if "Content-Length" not in (headers or {}) and "Transfer-Encoding" not in (headers or {}):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.hits[self.path] = self.server.hits.get(self.path, 0) + 1
        path = self.path.partition("?")[0]  # a query string only makes a distinct cache key
        if path == "/etag.json":
            if self.headers.get("If-None-Match") == '"v1"':
                self.server.not_modified += 1
                self._send(304, headers={"ETag": '"v1"'})
            else:
                self._send(200, OK_BODY, {"ETag": '"v1"', "Content-Type": "application/json"})
        elif path == "/last-modified.json":
            if self.headers.get("If-Modified-Since") == LAST_MODIFIED:
                self.server.not_modified += 1
                self._send(304)
            else:
                self._send(200, OK_BODY, {"Last-Modified": LAST_MODIFIED})
        elif path == "/plain.json":
            self._send(200, OK_BODY)
        elif path == "/as-html.json":
            self._send(200, OK_BODY, {"Content-Type": "text/html"})
        elif path == "/html":
            self._send(200, b"<!doctype html><title>not json</title>", {"Content-Type": "application/json"})
        elif path.startswith("/status/"):
            self._send(int(path.rsplit("/", 1)[1]), b"{}")
        elif path == "/big-declared":
            self._send(200, b"{}", {"Content-Length": str(10 * 1024 * 1024)})
        elif path == "/big-streamed":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b" " * 65536
            try:
                for _ in range(64):  # 4 MiB, more than the cap, without a Content-Length
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the client hung up once it had seen enough
        elif path == "/slow":
            time.sleep(1.5)
            self._send(200, OK_BODY)
        elif path == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", str(len(OK_BODY)))
            self.end_headers()
            try:
                for byte in OK_BODY[:20]:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
        elif path == "/redirect/plain":
            self._send(302, headers={"Location": "/plain.json"})
        elif path == "/redirect/insecure":
            self._send(302, headers={"Location": "http://example.com/actions.json"})
        elif path == "/redirect/loop":
            self._send(302, headers={"Location": "/redirect/loop"})
        else:
            self._send(404, b"{}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.hits: dict[str, int] = {}
        self.not_modified = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    srv = _Server()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def static_site() -> Iterator[StaticSite]:
    with StaticSite(FIXTURES) as site:
        yield site


# ------------------------------------------------------------------ fetching


FETCH_FAILURES = [
    # not found
    ("/status/404", "import_fetch_failed"),
    # server error
    ("/status/500", "import_fetch_failed"),
    # Content-Length over the cap: refused before reading
    ("/big-declared", "import_too_large"),
    # no Content-Length: the cap is checked while streaming
    ("/big-streamed", "import_too_large"),
    # no response within the timeout
    ("/slow", "import_fetch_failed"),
    # bytes arrive, but too slowly to finish before the overall deadline
    ("/drip", "import_fetch_failed"),
    # a redirect to plain http on another host
    ("/redirect/insecure", "import_uri_forbidden"),
    # endless redirects
    ("/redirect/loop", "import_fetch_failed"),
]


@pytest.mark.parametrize(("path", "code"), FETCH_FAILURES, ids=[p for p, _ in FETCH_FAILURES])
def test_fetch_failures_have_stable_codes(server: _Server, path: str, code: str) -> None:
    fetcher = RemoteFetcher(timeout=0.8, max_bytes=2 * 1024 * 1024)
    with pytest.raises(ManifestError) as caught:
        fetcher.fetch(server.url + path)
    assert caught.value.code == code


def test_connection_refused_is_a_fetch_failure() -> None:
    closed = _Server()
    url = closed.url + "/plain.json"
    closed.server_close()  # the port is now free, nothing listens
    with pytest.raises(ManifestError) as caught:
        RemoteFetcher(timeout=2).fetch(url)
    assert caught.value.code == "import_fetch_failed"


def test_redirect_within_loopback_is_followed(server: _Server) -> None:
    assert RemoteFetcher().fetch(server.url + "/redirect/plain") == OK_BODY


def test_content_type_is_not_trusted(server: _Server) -> None:
    # JSON labelled text/html is still JSON; HTML labelled application/json is still not.
    fetcher = RemoteFetcher()
    assert parse_json_strictly(fetcher.fetch(server.url + "/as-html.json"))["protocol"] == "actions.json"
    with pytest.raises(ManifestError) as caught:
        parse_json_strictly(fetcher.fetch(server.url + "/html"))
    assert caught.value.code == "import_invalid_json"


def test_plain_http_needs_the_loopback_allowance(server: _Server) -> None:
    with pytest.raises(ManifestError) as caught:
        RemoteFetcher(allow_insecure_loopback=False).fetch(server.url + "/plain.json")
    assert caught.value.code == "import_uri_forbidden"


def test_fresh_cache_answers_without_a_request(server: _Server) -> None:
    fetcher = RemoteFetcher(fresh_for=60)
    url = server.url + "/plain.json?fresh"
    assert fetcher.fetch(url) == OK_BODY
    assert fetcher.fetch(url) == OK_BODY
    assert server.hits["/plain.json?fresh"] == 1
    fetcher.clear()
    fetcher.fetch(url)
    assert server.hits["/plain.json?fresh"] == 2


@pytest.mark.parametrize("path", ["/etag.json", "/last-modified.json"], ids=["etag", "last-modified"])
def test_stale_cache_revalidates_and_reuses_the_body_on_304(server: _Server, path: str) -> None:
    fetcher = RemoteFetcher(fresh_for=0)
    before = server.not_modified
    assert fetcher.fetch(server.url + path) == OK_BODY
    assert fetcher.fetch(server.url + path) == OK_BODY
    assert server.not_modified == before + 1


def test_without_validators_a_stale_entry_is_fetched_again(server: _Server) -> None:
    fetcher = RemoteFetcher(fresh_for=0)
    url = server.url + "/plain.json?stale"
    fetcher.fetch(url)
    fetcher.fetch(url)
    assert server.hits["/plain.json?stale"] == 2


# ------------------------------------------------------------------ strict JSON


STRICT_CASES = [
    # NaN / Infinity are Python extensions
    (b'{"a": NaN}', False),
    (b'{"a": -Infinity}', False),
    # repeated keys
    (b'{"a": 1, "a": 2}', False),
    # repeated keys nested deeper
    (b'{"a": {"b": 1, "b": 1}}', False),
    # not UTF-8
    (b'{"a": "\xff"}', False),
    # trailing garbage
    (b"{} {}", False),
    # plain, valid JSON
    (b'{"a": [1, 2.5, "x", null, true]}', True),
]


@pytest.mark.parametrize(("data", "ok"), STRICT_CASES)
def test_strict_json(data: bytes, ok: bool) -> None:
    if ok:
        assert isinstance(parse_json_strictly(data), dict)
    else:
        with pytest.raises(ManifestError) as caught:
            parse_json_strictly(data)
        assert caught.value.code == "import_invalid_json"


# ------------------------------------------------------------------ resolution


def _context(location: Location | None, **extra: Any) -> ImportContext:
    return ImportContext(location=location, local_root=extra.pop("local_root", None), storage_root=None, trust=extra.pop("trust", "local"), **extra)


RESOLVE_CASES = [
    # a relative reference from a fetched map is a URL reference
    ("https://maps.example/a/actions.json", "website", "../b/actions.json", "https://maps.example/b/actions.json"),
    # an absolute path from a fetched map stays on its host
    ("https://maps.example/a/actions.json", "public", "/etc/hostname", "https://maps.example/etc/hostname"),
    # an absolute https URL is taken as is
    ("https://maps.example/a/actions.json", "website", "https://other.example/x.json", "https://other.example/x.json"),
]


@pytest.mark.parametrize(("importer", "kind", "uri", "expected"), RESOLVE_CASES)
def test_resolution_from_fetched_maps(importer: str, kind: str, uri: str, expected: str) -> None:
    resolved = resolve_import(kind, uri, _context(Location(url=importer), trust="website"))
    assert resolved.location == Location(url=expected)
    assert resolved.local_root is None


FORBIDDEN_FROM_REMOTE = [
    # a file: URI
    ("local", "file:///etc/hostname"),
    # storage
    ("storage", "storage:sites/example.com"),
    # plain http to a non-loopback host
    ("website", "http://maps.example/x.json"),
    # a relative reference that joins into http on a remote host
    ("website", "//maps.example/x.json"),
]


@pytest.mark.parametrize(("kind", "uri"), FORBIDDEN_FROM_REMOTE)
def test_fetched_maps_cannot_reach_local_files_or_storage(kind: str, uri: str) -> None:
    importer = Location(url="http://maps.example/a/actions.json")  # would itself be refused; only its URIs matter here
    with pytest.raises(ManifestError) as caught:
        resolve_import(kind, uri, _context(importer, trust="website", allow_insecure_loopback=False))
    assert caught.value.code == "import_uri_forbidden"


def test_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.json").write_text("{}")
    (root / "link.json").symlink_to(tmp_path / "secret.json")
    with pytest.raises(ManifestError) as caught:
        resolve_import("local", "link.json", _context(Location(path=root / "actions.json"), local_root=root))
    assert caught.value.code == "import_uri_forbidden"


def test_read_source_of_a_missing_file() -> None:
    with pytest.raises(ManifestError) as caught:
        read_source(Location(path=FIXTURES / "no-such-file.json"), fetcher=RemoteFetcher())
    assert caught.value.code == "import_not_found"


# ------------------------------------------------------------------ composing over http


def test_website_import_composes_nested_relative_urls(static_site: StaticSite) -> None:
    document = {
        "protocol": "actions.json",
        "version": 1,
        "tools": [],
        "imports": [{"id": "shop", "kind": "website", "uri": static_site.url + "composed/shop/actions.json", "namespace": "shop"}],
    }
    result = compose(document, source=str(FIXTURES / "root.actions.json"), base_dir=FIXTURES, fetcher=RemoteFetcher())
    assert result.problems == []
    assert check_manifest(result.document).errors == ()
    # The shop map's '../common/actions.json' was joined to its URL, fetched, and capped at website trust.
    assert result.origins["shop.common.help.open"] == ToolOrigin(static_site.url + "composed/common/actions.json", "website", "shop/common-help", "shop.common")
    assert result.origins["shop.cart.add"] == ToolOrigin(static_site.url + "composed/shop/actions.json", "website", "shop", "shop")


REMOTE_EVIL = [
    # a fetched map naming a local file by file: URI
    ("evil-file.actions.json", "import_uri_forbidden"),
    # a fetched map naming local storage
    ("evil-storage.actions.json", "import_uri_forbidden"),
    # a fetched map naming '/etc/hostname' gets the site's /etc/hostname, which does not exist
    ("evil-abs.actions.json", "import_fetch_failed"),
]


@pytest.mark.parametrize(("name", "code"), REMOTE_EVIL)
def test_fetched_maps_are_confined_to_the_web(static_site: StaticSite, name: str, code: str) -> None:
    document = {
        "protocol": "actions.json",
        "version": 1,
        "tools": [],
        "imports": [{"id": "evil", "kind": "website", "uri": static_site.url + "remote/" + name, "namespace": "evil"}],
    }
    result = compose(document, source="inline", fetcher=RemoteFetcher())
    assert [(p.code, p.path) for p in result.problems] == [(code, "/imports/0/uri")]
    assert result.document["tools"] == []


def test_root_fetched_from_a_url_resolves_relative_imports_as_urls(static_site: StaticSite) -> None:
    url = static_site.url + "composed/actions.json"
    fetcher = RemoteFetcher()
    document = parse_json_strictly(fetcher.fetch(url))
    result = compose(document, source=url, trust="website", fetcher=fetcher)
    assert result.problems == []
    assert result.origins["shop.cart.add"].source == static_site.url + "composed/shop/actions.json"
