"""Many agents on one server: N concurrent MCP sessions, each doing the board task over streamable HTTP (issue #32).

Each session is a 2025-11-25 SDK ``Client`` of its own (``Mcp-Session-Id``), so each
gets its own browser context (docs/sessions.md). Its task is the board task of
``bench/bench_peers.py``: ``browser_navigate`` to the board (4 cards), then
``board_add_card`` ("Buy ladders" to Doing), confirmed from add_card's own answer.

Two browsers:

- ``local``: the server launches one headless Chromium and opens a context per session;
- ``browser-server``: a Playwright browser server (node + ``playwright-core`` from npm at
  the Python driver's version, Debian's Chromium), started here; the server connects to it
  once per session (``--browser-endpoint``).

For each, with one server process: one session alone, then 8, then 32 at once, then 32 again
(what the second batch leaves behind, against the first, tells a leak from a plateau). Figures:

- **per-session time**: a session's first call sent → its last answer read (its context is
  made by its first call, so that is inside), median and max over the sessions, and the
  median against one session alone;
- **errors**: calls that failed or tasks that did not show the card (goal 0);
- **memory**: the memory of the process trees (the server and its
  browser, plus the browser server's tree) before any session, with all N sessions open
  (per session: the growth over the start divided by N), and after all of them closed and
  the server let go (goal: within 10% of the start). Memory is the proportional set
  size (Pss) of every process of those trees, summed (Chromium's processes share most pages);
  ``server_*`` figures are the mcp-actions process tree alone (without the browser server).
  Two baselines, both reported: **start** (the server before any session) and **warm** (after
  the first session: by then it imported Playwright and compiled the map's checks, once for
  its life); the goal is read against warm. The server gives what ended sessions freed back
  to the system at most every 5 s (``server/memory.py``), so "after" is read no sooner than
  7 s after the batch closed. ``--python-malloc malloc`` runs the server with
  ``PYTHONMALLOC=malloc`` (every Python object in glibc's heap, which that release trims;
  see docs/sessions.md, "Memory").

Command: ``.venv/bin/python bench/bench_sessions.py`` (``--sessions 1 8 32``). Results:
``bench/results/sessions-<date>-<commit>.json``, summarised in bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp import Client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_peers import LIST, TITLE, board_map, board_site, board_url, site_origin
from mcp_actions.demo.static import StaticSite

__all__ = ["main"]

RESULTS_DIR = ROOT / "bench" / "results"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SERVER_JS = """
const { chromium } = require(process.argv[2]);
(async () => {
  const server = await chromium.launchServer({ executablePath: process.argv[3], headless: true, args: ["--no-sandbox"] });
  console.log(server.wsEndpoint());
  const stop = async () => { await server.close(); process.exit(0); };
  process.on("SIGTERM", stop);
})();
"""


# -- processes and memory ------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [pid], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_mb(pids: list[int]) -> float:
    """Memory of the process trees under ``pids``, in MB: their proportional set size (Pss) summed.

    Pss, not VmRSS: Chromium's many processes share most of their pages, which a sum of
    VmRSS would count once per process.
    """
    total = 0
    for root in pids:
        for pid in _tree(root):
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
    return round(total / 1024, 1)


@contextlib.contextmanager
def browser_server(workdir: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A Playwright browser server (node + playwright-core from npm at the Python driver's version)."""
    import playwright

    from tests.npm_cache import npm_package

    version = json.loads((Path(playwright.__file__).parent / "driver" / "package" / "package.json").read_text())["version"]
    core = npm_package(f"playwright-core@{version}")
    script = workdir / "browser-server.js"
    script.write_text(SERVER_JS)
    node = shutil.which("node") or "node"
    process = subprocess.Popen([node, str(script), str(core), CHROMIUM], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        endpoint = process.stdout.readline().strip()
        if not endpoint.startswith("ws://"):
            raise RuntimeError(f"the browser server did not start: {endpoint!r}")
        yield endpoint, process
    finally:
        process.terminate()
        process.wait(15)


@contextlib.contextmanager
def http_server(workdir: Path, board: Path, extra: list[str], python_malloc: str | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``serve --transport streamable-http`` with the board map, headless, one context per session."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "LANG", "USER", "TMPDIR")}
    env["PYTHONPATH"] = str(ROOT)
    if python_malloc:
        env["PYTHONMALLOC"] = python_malloc
    command = [sys.executable, "-m", "mcp_actions", "serve", "--transport", "streamable-http", "--port", str(port), "--manifests", str(board)]
    command += ["--headless", "--browser-path", CHROMIUM, "--bridge-port", "0", "--bridge-token", "bench", "--audit-log", "off", *extra]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=(workdir / "server.err").open("wb"))
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                raise RuntimeError((workdir / "server.err").read_text())
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        process.wait(20)


# -- one session, N sessions -----------------------------------------------------------


async def one_session(url: str, board: str, done: asyncio.Event, finished: list[int]) -> dict[str, Any]:
    """Connect, do the board task, then stay open until every session finished (so memory is read with all open)."""
    record: dict[str, Any] = {"errors": []}
    try:
        async with Client(url, mode="legacy", read_timeout_seconds=120) as client:
            started = time.perf_counter()
            navigated = await client.call_tool("browser_navigate", {"url": board})
            if navigated.is_error:
                record["errors"].append(f"browser_navigate: {navigated.structured_content}")
            added = await client.call_tool("board_add_card", {"list": LIST, "title": TITLE})
            record["task_s"] = round(time.perf_counter() - started, 3)
            content = added.structured_content or {}
            if added.is_error or not content.get("added") or content.get("last_card") != TITLE:
                record["errors"].append(f"board_add_card: {content}")
            finished.append(1)
            await done.wait()
    except Exception as exc:  # a session that could not even run counts as an error, never hides the others
        record["errors"].append(f"{type(exc).__name__}: {exc}")
        finished.append(1)
    return record


async def run_sessions(url: str, board: str, count: int, pids: list[int], server_pid: int) -> dict[str, Any]:
    """``count`` sessions at once; per-session times, errors, and memory with all open."""
    done, finished = asyncio.Event(), list[int]()
    tasks = [asyncio.create_task(one_session(url, board, done, finished)) for _ in range(count)]
    while len(finished) < count:
        await asyncio.sleep(0.05)
    open_mb, server_open_mb = rss_mb(pids), rss_mb([server_pid])
    done.set()
    records = await asyncio.gather(*tasks)
    times = [r["task_s"] for r in records if "task_s" in r]
    errors = [e for r in records for e in r["errors"]]
    return {
        "sessions": count,
        "task_s_median": round(statistics.median(times), 3) if times else None,
        "task_s_max": max(times) if times else None,
        "task_s_all": sorted(times),
        "errors": len(errors),
        "error_samples": errors[:5],
        "rss_open_mb": open_mb,
        "server_open_mb": server_open_mb,
    }


#: Seconds before "after" is read: the server gives freed memory back at most every 5 s (server/memory.py).
SETTLE_MIN_S = 7.0


async def settle(pids: list[int], floor: float, timeout: float = 30.0) -> float:
    """The memory once the server let go of the ended sessions (read until it stops falling, or ``timeout``)."""
    deadline, last = time.monotonic() + timeout, rss_mb(pids)
    await asyncio.sleep(SETTLE_MIN_S)
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        now = rss_mb(pids)
        if now >= last - 1 and now <= floor * 1.1:
            return now
        last = now
    return last


async def bench_backend(name: str, url: str, board: str, counts: list[int], pids: list[int]) -> dict[str, Any]:
    """``pids[0]`` is the mcp-actions server; the others (a browser server) count in the totals too."""
    start_mb = rss_mb(pids)
    out: dict[str, Any] = {"backend": name, "rss_start_mb": start_mb, "server_start_mb": rss_mb(pids[:1]), "runs": []}
    alone: float | None = None
    warm: float | None = None
    server_start, server_warm = out["server_start_mb"], None
    for count in counts:
        result = await run_sessions(url, board, count, pids, pids[0])
        result["rss_after_mb"] = await settle(pids, warm or start_mb)
        result["server_after_mb"] = rss_mb(pids[:1])  # the mcp-actions process tree alone
        result["rss_per_session_mb"] = round((result["rss_open_mb"] - start_mb) / count, 1)
        result["after_vs_start"] = round(result["rss_after_mb"] / start_mb, 3)
        result["server_after_vs_start"] = round(result["server_after_mb"] / server_start, 3)
        if warm is not None and server_warm is not None:
            # Against the server after its first session: by then it imported Playwright and the
            # board map's checks, once for its life; what a later batch leaves behind is on top of that.
            result["after_vs_warm"] = round(result["rss_after_mb"] / warm, 3)
            result["server_after_vs_warm"] = round(result["server_after_mb"] / server_warm, 3)
        if count == 1:
            alone = result["task_s_median"]
            warm, server_warm = result["rss_after_mb"], result["server_after_mb"]
        if alone:
            result["vs_alone"] = round(result["task_s_median"] / alone, 2) if result["task_s_median"] else None
        out["runs"].append(result)
        print(json.dumps({"backend": name, "rss_start_mb": start_mb, **{k: v for k, v in result.items() if k != "task_s_all"}}), flush=True)
    return out


def _commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="mcp-actions-bench-sessions-"))
    site_root = board_site(workdir, [4])
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "commit": _commit(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "python": platform.python_version(),
        "backends": [],
    }
    with StaticSite(site_root) as site:
        board = board_url(site.url, 4)
        board_file = board_map(ROOT, site_origin(site.url), workdir)
        extra = ["--timeout-ms", str(args.timeout_ms)] if args.timeout_ms else []
        results["timeout_ms"] = args.timeout_ms or 30000
        results["python_malloc"] = args.python_malloc or "pymalloc (default)"
        if "local" in args.backends:
            with http_server(workdir, board_file, extra, args.python_malloc) as (url, server):
                results["backends"].append(await bench_backend("local", url, board, args.sessions, [server.pid]))
        if "browser-server" in args.backends:
            with browser_server(workdir) as (endpoint, node), http_server(workdir, board_file, [*extra, "--browser-endpoint", endpoint], args.python_malloc) as (url, server):
                results["backends"].append(await bench_backend("browser-server", url, board, args.sessions, [server.pid, node.pid]))
    results["load_average_after"] = os.getloadavg()
    shutil.rmtree(workdir, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 32 twice: memory left after the second batch, against the first, tells a leak from a plateau.
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 8, 32, 32])
    parser.add_argument("--backends", nargs="+", default=["local", "browser-server"], choices=["local", "browser-server"])
    parser.add_argument("--timeout-ms", type=int, default=None, help="the server's --timeout-ms (default: its own, 30000)")
    parser.add_argument("--python-malloc", choices=["malloc"], default=None, help="run the server with PYTHONMALLOC=malloc (docs/sessions.md, Memory)")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write bench/results/")
    args = parser.parse_args()
    if 1 not in args.sessions:
        args.sessions = [1, *args.sessions]
    results = asyncio.run(main_async(args))
    if not args.no_save:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        suffix = (f"-timeout{args.timeout_ms}" if args.timeout_ms else "") + (f"-pythonmalloc-{args.python_malloc}" if args.python_malloc else "")
        path = RESULTS_DIR / f"sessions-{results['date']}-{results['commit']}{suffix}.json"
        path.write_text(json.dumps(results, indent=2) + "\n")
        print(f"written {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
