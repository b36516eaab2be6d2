"""npm packages for tests, installed once per spec into a cache outside the repository.

Tests that load what real sites load (a WebMCP polyfill, ABP's web resources…)
get the package from the npm registry with ``npm_package("@scope/name@1.2.3")``:
the first call installs it with npm into its own folder of the cache, every
later call (in this run or the next) returns the same folder at once.

- The cache is ``$MCP_ACTIONS_TEST_NPM_CACHE``, else ``~/.cache/mcp-actions-tests/npm``;
  nothing is ever written into the repository.
- One folder per spec, named from the spec (``@mcp-b/global@5.1.0`` →
  ``mcp-b_global_5.1.0-<hash>``), holding an ordinary ``node_modules`` tree.
- Parallel use is safe: an install holds a file lock on the spec, installs into
  a temporary folder and renames it into place, so no one ever sees half an
  install (where there is no ``fcntl``, the rename alone decides who wins).
- Only a missing ``npm`` skips the test (with how to get it), and only in a
  developer's run: a CI run (``CI`` set, whose setup installs npm) fails it, so a
  test never silently stops running there. An install that fails (a wrong spec,
  no registry) fails it with npm's own words.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["npm_cache_dir", "npm_package", "serving_with_packages"]

#: Where the cache lives unless the environment says otherwise.
DEFAULT_CACHE = Path.home() / ".cache" / "mcp-actions-tests" / "npm"
#: The file that marks a finished install (written last, before the rename).
_DONE = ".mcp-actions-installed.json"
_INSTALL_TIMEOUT_S = 300


def npm_cache_dir() -> Path:
    """The cache folder (created when missing)."""
    configured = os.environ.get("MCP_ACTIONS_TEST_NPM_CACHE")
    path = Path(configured).expanduser() if configured else DEFAULT_CACHE
    path.mkdir(parents=True, exist_ok=True)
    return path


def _folder_name(spec: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_")[:60] or "package"
    return f"{readable}-{hashlib.sha256(spec.encode()).hexdigest()[:10]}"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # not POSIX: the atomic rename alone keeps installs whole
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _installed(folder: Path) -> Path | None:
    """The package directory of a finished install in ``folder``, or None."""
    try:
        done = json.loads((folder / _DONE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    package = folder / "node_modules" / done.get("name", "")
    return package if (package / "package.json").is_file() else None


def _install(npm: str, spec: str, cache: Path, folder: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix=".installing-", dir=cache))
    try:
        (work / "package.json").write_text('{"name": "mcp-actions-test-npm-cache", "private": true}\n', encoding="utf-8")
        command = [npm, "install", spec, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--save-exact"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip()[-2000:]
            pytest.fail(f"npm install {spec} failed (exit {done.returncode}):\n{tail}", pytrace=False)
        # The one dependency npm saved is the package's real name (aliases and ranges included).
        dependencies = json.loads((work / "package.json").read_text(encoding="utf-8")).get("dependencies") or {}
        if len(dependencies) != 1:
            pytest.fail(f"npm install {spec} saved {sorted(dependencies)} instead of one package", pytrace=False)
        (name,) = dependencies
        version = json.loads((work / "node_modules" / name / "package.json").read_text(encoding="utf-8")).get("version")
        (work / _DONE).write_text(json.dumps({"spec": spec, "name": name, "version": version}) + "\n", encoding="utf-8")
        try:
            os.rename(work, folder)
        except OSError:
            if _installed(folder) is None:  # not someone else's finished install: a real failure
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def missing(message: str) -> None:
    """A tool the test needs is not installed: skip a developer's run saying so, fail a CI run (``CI`` set)."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def npm_package(spec: str) -> Path:
    """The directory of the npm package ``spec`` (``name``, ``name@version`` or a range), installed once.

    Skips the calling test when ``npm`` is not installed (fails it under CI); fails it when the install fails.
    """
    npm = shutil.which("npm")
    if npm is None:
        missing(f"npm is not installed, so {spec} cannot be fetched (Debian: apt-get install nodejs npm)")
    cache = npm_cache_dir()
    folder = cache / _folder_name(spec)
    package = _installed(folder)
    if package is not None:
        return package
    with _locked(cache / f"{folder.name}.lock"):
        package = _installed(folder)
        if package is None:
            if folder.exists():  # an install that never finished (killed mid-way): start again
                shutil.rmtree(folder, ignore_errors=True)
            _install(npm, spec, cache, folder)
            package = _installed(folder)
    if package is None:
        pytest.fail(f"npm install {spec} left no package in {folder}", pytrace=False)
    return package


class _PagesAndPackages(http.server.SimpleHTTPRequestHandler):
    """A folder of fixture pages, plus ``<mount><name>/…`` from installed packages' folders."""

    mount = "/node_modules/"
    packages: dict[str, Path] = {}

    def log_message(self, format: str, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        route = path.split("?", 1)[0].split("#", 1)[0]
        for name, directory in self.packages.items():
            prefix = f"{self.mount}{name}/"
            if route.startswith(prefix):
                return str(directory / route[len(prefix) :])
        return super().translate_path(path)


@contextlib.contextmanager
def serving_with_packages(pages: Path, packages: dict[str, Path], *, mount: str = "/node_modules/") -> Iterator[str]:
    """A static server on loopback for ``pages`` and, under ``mount``, each package's folder by its name:
    the pages load what real sites load from where a site would serve it. Yields the base URL."""
    handler = type("Pages", (_PagesAndPackages,), {"packages": dict(packages), "mount": mount})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(pages)))
    threading.Thread(target=server.serve_forever, name="npm-pages", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
