"""Shared parts of the open-web benches (bench_open_web.py, bench_learned.py).

What they share with ``bench_peers.py`` is imported from it, not copied: how each server is
started (``server_params``), what a call costs the model (``result_bytes``: every text item
plus the compact JSON of ``structuredContent``), how a peer's snapshot is read
(``parse_snapshot``, ``find_ref``), installing the npm peers and waiting for the previous
run's browser to exit. Added here:

- ``actions_params``: mcp-actions with **no map** (no ``--manifests``) and a learned-maps
  folder of the bench's own, so nothing from the user's data directory is loaded;
- ``open_session``: one cold server process with its browser up (untimed), yielding an
  ``Agent`` that counts each call's bytes and time;
- ``build_site``: ``bench/pages/`` plus the frameworks' files from npm (installed at run time
  into the tests' npm cache, ``tests/npm_cache.py``; never copied into the repository), and
  Debian's HTML manuals of Python 3.11 and PostgreSQL 15 linked in as ``python/`` and
  ``postgresql/`` (``python3.11-doc``, ``postgresql-doc-15``, installed with apt-get when missing);
- ``refs_in``/``scope_of``: finding a ref in a peer's snapshot or in our page tools' text;
  ``flat_text``: a peer's snapshot as the words a person reads (names and texts, in order);
- ``Task``: a task on one page, with a scripted agent per server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench_peers import (
    Node,
    TaskFailed,
    install_peers,
    parse_snapshot,
    result_bytes,
    result_text,
    server_params,
    site_origin,
    tools_list_bytes,
    wait_for_quiet,
    wait_for_runtime,
)

__all__ = [
    "DOCS",
    "PAGES",
    "Agent",
    "Script",
    "Task",
    "Node",
    "TaskFailed",
    "actions_params",
    "build_site",
    "flat_text",
    "install_peers",
    "open_session",
    "parse_snapshot",
    "ref_in",
    "result_text",
    "scope_of",
    "site_origin",
    "wait_for_quiet",
]

PAGES = BENCH / "pages"
#: npm packages the pages load from ``vendor/``: spec -> files copied from the package.
VENDOR = {
    "react@18.3.1": ["umd/react.production.min.js"],
    "react-dom@18.3.1": ["umd/react-dom.production.min.js"],
    "vue@3.5.13": ["dist/vue.global.prod.js"],
    "angular@1.8.3": ["angular.min.js"],
    "jquery@3.7.1": ["dist/jquery.min.js"],
    "jquery-ui@1.14.1": ["dist/jquery-ui.min.js", "dist/themes/base/jquery-ui.min.css", "dist/themes/base/images"],
    "knockout@3.5.1": ["build/output/knockout-latest.js"],
    "underscore@1.13.8": ["underscore-umd-min.js"],
    "backbone@1.6.1": ["backbone-min.js"],
    "htm@3.1.1": ["preact/standalone.umd.js"],
    "bootstrap@5.3.3": ["dist/css/bootstrap.min.css"],
}
#: Debian's HTML manuals, served as written by others: site folder -> (package, its html folder).
DOCS = {
    "python": ("python3.11-doc", Path("/usr/share/doc/python3.11-doc/html")),
    "postgresql": ("postgresql-doc-15", Path("/usr/share/doc/postgresql-doc-15/html")),
}


def _docs(site: Path) -> dict[str, str]:
    """Link Debian's manuals into the site (apt-get installs them when missing); their package versions."""
    missing = [package for package, folder in DOCS.values() if not (folder / "index.html").exists()]
    if missing:
        if os.geteuid() != 0:
            raise SystemExit(f"the manuals' packages are missing: sudo apt-get install {' '.join(missing)}")
        print(f"installing {', '.join(missing)} with apt-get ...", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, stdout=subprocess.DEVNULL, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    versions = {}
    for name, (package, folder) in DOCS.items():
        link = site / name
        if not link.exists():
            link.symlink_to(folder, target_is_directory=True)
        query = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=False)
        versions[package] = query.stdout.strip()
    return versions


def build_site(workdir: Path) -> tuple[Path, dict[str, str]]:
    """A folder to serve: ``bench/pages/`` and ``vendor/`` with the npm files; the versions used."""
    from tests.npm_cache import npm_package  # the tests' cache: one install per spec, reused across runs

    site = workdir / "pages"
    shutil.copytree(PAGES, site, dirs_exist_ok=True)
    (site / "vendor").mkdir(exist_ok=True)
    versions = {}
    for spec, files in VENDOR.items():
        package = npm_package(spec)
        versions[spec.rsplit("@", 1)[0]] = json.loads((package / "package.json").read_text())["version"]
        for name in files:
            if (package / name).is_dir():  # a theme's images, beside its CSS
                shutil.copytree(package / name, site / "vendor" / Path(name).name, dirs_exist_ok=True)
            else:
                shutil.copyfile(package / name, site / "vendor" / Path(name).name)
    versions.update(_docs(site))
    return site, versions


def actions_params(peers_dir: Path, browser: str, workdir: Path, learned: Path) -> StdioServerParameters:
    """mcp-actions as bench_peers starts it, but with no map and its own learned-maps folder."""
    params = server_params("mcp-actions", peers_dir, browser, workdir, workdir / "unused.json")
    args = list(params.args)
    at = args.index("--manifests")
    del args[at : at + 2]
    return params.model_copy(update={"args": [*args, "--learned-maps", str(learned)]})


@dataclass
class Agent:
    """A scripted agent's side of one session: each call's tool, bytes and time, and the totals."""

    client: Client
    server: str
    calls: int = 0
    bytes_to_model: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)

    async def call(self, name: str, arguments: dict[str, Any], *, may_fail: bool = False) -> str:
        """Call a tool and return the text the model reads; a failed call raises TaskFailed unless ``may_fail``."""
        started = time.perf_counter()
        result = await self.client.call_tool(name, arguments)
        size = result_bytes(result)
        self.calls += 1
        self.bytes_to_model += size
        text = result_text(result)
        # The answer's start is kept too: the write-up quotes the words that misled an agent.
        self.log.append({"tool": name, "args": arguments, "bytes": size, "ms": round((time.perf_counter() - started) * 1000, 1), "error": bool(result.is_error), "answer": text[:400]})
        if result.is_error and not may_fail:
            raise TaskFailed(f"{name} {json.dumps(arguments)[:120]} failed: {text[:300]}")
        return ("ERROR " + text) if result.is_error else text


@contextlib.asynccontextmanager
async def open_session(server: str, peers_dir: Path, browser: str, workdir: Path, learned: Path) -> AsyncIterator[tuple[Agent, int]]:
    """A cold server process with its browser up (untimed); yields the agent and the tools/list bytes."""
    await wait_for_quiet(browser)
    if server == "mcp-actions":
        params = actions_params(peers_dir, browser, workdir, learned)
    else:
        params = server_params(server, peers_dir, browser, workdir, workdir / "unused.json")
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        listing = tools_list_bytes(await client.list_tools())
        if server == "playwright-mcp":
            await client.call_tool("browser_tabs", {"action": "list"})
        elif server == "chrome-devtools-mcp":
            await client.call_tool("list_pages", {})
        else:
            await wait_for_runtime(client)
        yield Agent(client, server), listing


Script = Callable[[Agent, str], Awaitable[str]]


@dataclass
class Task:
    """A task on one page: what it asks, what a right answer contains, and a scripted agent per server."""

    name: str
    page: str
    goal: str
    expect: list[str]
    playwright: Script
    actions: Script


# -- reading answers like an agent ---------------------------------------------------

_NODE = re.compile(r'^\s*- (?:/url: .*|/placeholder: .*|([\w-]+)(?: "((?:[^"\\]|\\.)*)")?(?: \[[^\]]*\])*:?\s*(.*))$')


def flat_text(snapshot: str) -> str:
    """A peer's snapshot as the words on the page: each node's name and text, in order, one space apart."""
    words = []
    for line in snapshot.splitlines():
        node = _NODE.match(line)
        if node is None:
            continue
        role, name, rest = node.groups()
        if role == "text" or (role and rest and not name):
            words.append(rest.strip('"'))
        elif name:
            words.append(name.replace('\\"', '"'))
            if rest:
                words.append(rest.strip('"'))
    return " ".join(w for w in words if w)


def scope_of(text: str, pattern: str) -> Node | None:
    """The first node of a peer's snapshot whose line matches ``pattern`` (its subtree is the scope)."""
    wanted = re.compile(pattern)
    for node in parse_snapshot(text).walk():
        if wanted.search(node.line):
            found: Node = node
            return found
    return None


def ref_in(text: str | Node | None, pattern: str) -> str | None:
    """The ref on the first line matching ``pattern``: a peer's ``[ref=e12]`` or our ``@e12``.

    ``text`` is a whole answer or a snapshot scope (a node: its line and subtree are searched).
    """
    if text is None:
        return None
    lines = [text.line, *(n.line for n in text.walk())] if isinstance(text, Node) else text.splitlines()
    wanted = re.compile(pattern)
    for line in lines:
        if wanted.search(line):
            found = re.search(r"\[ref=([^\]]+)\]", line) or re.search(r"(@e\d+)", line)
            if found:
                return found.group(1)
    return None
