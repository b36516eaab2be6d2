"""Serve a directory over HTTP on loopback, in a background thread.

The demo site and the test fixtures are plain files; the standard library's
threaded HTTP server is all they need. Request logs are silenced because
stdout may belong to MCP.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["StaticSite", "demo_site_dir"]


def demo_site_dir() -> Path:
    """The bundled demo site's directory."""
    return Path(__file__).resolve().parent / "site"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class StaticSite:
    """A directory served at ``http://127.0.0.1:<port>/`` until ``stop``; also a context manager."""

    def __init__(self, directory: str | Path, *, host: str = "127.0.0.1", port: int = 0) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="static-site", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The base URL, ending in ``/``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StaticSite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
