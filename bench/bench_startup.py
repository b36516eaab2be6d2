"""Start-up, side by side: spawn to ``initialize`` and to the first ``tools/list`` (issue 55).

A host starts its MCP servers when it opens, and nothing can be done until each has
answered ``initialize`` and ``tools/list``. This bench spawns each server cold over
stdio, as a host does, and times with a plain JSON-RPC client (no SDK on the client's
side, so the client adds nothing):

- spawn to the ``initialize`` answer, and spawn to the first ``tools/list`` answer
  (``notifications/initialized`` and ``tools/list`` are sent as soon as ``initialize``
  is answered);
- the server's CPU time until then (/proc: user + system of the process), which on a
  busy machine says what the server itself costs whatever the load;
- for mcp-actions only, where its time goes: ``-X importtime`` of the start (the
  largest imports before the first answer) and the server's own log of when it
  answered and when the MCP SDK was loaded.

Servers: mcp-actions (``serve --headless``: the browser starts with the first call that
needs it, as the peers start theirs), @playwright/mcp and chrome-devtools-mcp installed
from the npm registry (``--peers-dir`` keeps them, as bench_peers.py does), each with its
own headless, isolated options. ``--actions-root LABEL=PATH`` adds another mcp-actions
tree (e.g. the commit before) under LABEL. The starts are interleaved (one of each server
per round) so that a busy moment falls on all of them alike.

Command: ``.venv/bin/python bench/bench_startup.py --runs 10 --peers-dir /tmp/peers``.
Results: ``bench/results/startup-<date>-<commit>.json`` and a Markdown table.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
PEER_PACKAGES = {"playwright-mcp": "@playwright/mcp@0.0.83", "chrome-devtools-mcp": "chrome-devtools-mcp"}

__all__ = ["main"]

_INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench-startup", "version": "1"}}


def install_peers(peers_dir: Path) -> dict[str, str]:
    """``npm install`` both peers into ``peers_dir`` (kept when already there); their versions."""
    peers_dir.mkdir(parents=True, exist_ok=True)
    names = {"playwright-mcp": "@playwright/mcp", "chrome-devtools-mcp": "chrome-devtools-mcp"}
    if not all((peers_dir / "node_modules" / pkg / "package.json").exists() for pkg in names.values()):
        print(f"installing {', '.join(PEER_PACKAGES.values())} into {peers_dir} ...", file=sys.stderr)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(peers_dir), *PEER_PACKAGES.values()], check=True, stdout=subprocess.DEVNULL)
    return {name: json.loads((peers_dir / "node_modules" / pkg / "package.json").read_text())["version"] for name, pkg in names.items()}


def command(name: str, peers_dir: Path, browser: str, roots: dict[str, Path]) -> tuple[list[str], dict[str, str]]:
    """How each server is started: headless, isolated, its browser left to start with the first call."""
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "LANG", "USER", "TMPDIR")}
    bin_dir = peers_dir / "node_modules" / ".bin"
    no_sandbox = os.geteuid() == 0
    if name == "playwright-mcp":
        return [str(bin_dir / "playwright-mcp"), "--headless", "--isolated", "--executable-path", browser] + (["--no-sandbox"] if no_sandbox else []), env
    if name == "chrome-devtools-mcp":
        env["CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS"] = "1"
        args = ["--headless", "--isolated", "--executablePath", browser, "--no-usage-statistics", "--no-performance-crux"]
        return [str(bin_dir / "chrome-devtools-mcp"), *args] + (["--chromeArg=--no-sandbox"] if no_sandbox else []), env
    env["PYTHONPATH"] = str(roots[name])
    return [sys.executable, "-m", "mcp_actions", "serve", "--headless", "--bridge-port", "0", "--browser-path", browser], env


def _cpu_ms(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def one_start(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """Spawn, ``initialize``, ``tools/list``: the times from the spawn (ms) and the server's CPU time until then."""
    spawned = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        process.stdin.flush()

    def answer(request_id: int) -> dict[str, Any]:
        assert process.stdout is not None
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"{argv[0]} ended before answering request {request_id}")
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    try:
        send({"id": 1, "method": "initialize", "params": _INITIALIZE})
        answer(1)
        initialized = time.perf_counter()
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/list"})
        tools = answer(2)["result"]["tools"]
        listed = time.perf_counter()
        cpu = _cpu_ms(process.pid)
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return {"initialize_ms": (initialized - spawned) * 1000, "tools_list_ms": (listed - spawned) * 1000, "cpu_ms": cpu, "tools": len(tools)}


def where_our_time_goes(root: Path, browser: str, cwd: Path) -> dict[str, Any]:
    """One start of mcp-actions under ``-X importtime``: the largest imports (cumulative, ms), and the total."""
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "LANG", "USER", "TMPDIR")}
    env["PYTHONPATH"] = str(root)
    argv = [sys.executable, "-X", "importtime", "-m", "mcp_actions", "serve", "--headless", "--bridge-port", "0", "--browser-path", browser]
    log = cwd / "importtime.txt"
    with log.open("wb") as stderr:  # a file, not a pipe: the list is longer than a pipe holds
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=cwd)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _INITIALIZE}) + "\n").encode())
        process.stdin.flush()
        process.stdout.readline()
        time.sleep(3.0)  # the MCP SDK loads after the first answer: let it, to see its share too
        process.stdin.close()
        process.wait(timeout=30)
    imports: dict[str, float] = {}
    for line in log.read_text(errors="replace").splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|", 2)
        try:
            us = int(cumulative.strip())
        except ValueError:
            continue
        if not name.startswith("  "):  # a top-level import: what the start asked for by name
            imports[name.strip()] = us / 1000
    groups = {
        "mcp-actions (before the first answer)": [k for k in imports if k.startswith("mcp_actions") and k != "mcp_actions.server.mcp_server"],
        "MCP SDK (after the first answer over stdio)": [k for k in imports if k.split(".")[0] in ("mcp", "mcp_types") or k == "mcp_actions.server.mcp_server"],
    }
    top = sorted(imports.items(), key=lambda item: -item[1])[:15]
    return {"top_level_imports_ms": dict(top), "groups_ms": {label: round(sum(imports[k] for k in keys), 1) for label, keys in groups.items()}}


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def summarise(starts: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    rows = []
    for name, runs in starts.items():
        rows.append(
            {
                "server": name,
                "runs": len(runs),
                "initialize_ms": round(_median([r["initialize_ms"] for r in runs]), 1),
                "tools_list_ms": round(_median([r["tools_list_ms"] for r in runs]), 1),
                "tools_list_min_ms": round(min(r["tools_list_ms"] for r in runs), 1),
                "tools_list_max_ms": round(max(r["tools_list_ms"] for r in runs), 1),
                "cpu_ms": round(_median([r["cpu_ms"] for r in runs]), 1),
                "tools": runs[0]["tools"],
            }
        )
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| server | tools | start → `initialize`, median | start → `tools/list`, median (min–max) | server CPU until then, median |", "|---|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row['server']} | {row['tools']} | {row['initialize_ms']:.0f} ms | {row['tools_list_ms']:.0f} ms ({row['tools_list_min_ms']:.0f}–{row['tools_list_max_ms']:.0f}) | {row['cpu_ms']:.0f} ms |"
        )
    return "\n".join(lines)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="starts per server (interleaved)")
    parser.add_argument("--servers", nargs="+", default=["mcp-actions", "playwright-mcp", "chrome-devtools-mcp"])
    parser.add_argument("--actions-root", action="append", default=[], metavar="LABEL=PATH", help="also start the mcp-actions tree at PATH under LABEL")
    parser.add_argument("--peers-dir", type=Path, help="install the peers here and keep them (default: a temporary folder)")
    parser.add_argument("--browser-path", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--label", default="", help="a suffix for the results file")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    roots = {"mcp-actions": ROOT}
    for spec in args.actions_root:
        label, _, path = spec.partition("=")
        roots[label] = Path(path).resolve()
        if label not in args.servers:
            args.servers.append(label)
    temporary = None
    peers_dir = args.peers_dir
    if peers_dir is None:
        temporary = tempfile.TemporaryDirectory(prefix="bench-startup-npm-")
        peers_dir = Path(temporary.name)
    try:
        versions = install_peers(peers_dir) if any(name in PEER_PACKAGES for name in args.servers) else {}
        starts: dict[str, list[dict[str, Any]]] = {name: [] for name in args.servers}
        with tempfile.TemporaryDirectory(prefix="bench-startup-") as workdir:
            cwd = Path(workdir)
            for round_ in range(args.runs):
                for name in args.servers:
                    argv, env = command(name, peers_dir, args.browser_path, roots)
                    result = one_start(argv, env, cwd)
                    starts[name].append(result)
                    print(f"round {round_ + 1} {name}: initialize {result['initialize_ms']:.0f} ms, tools/list {result['tools_list_ms']:.0f} ms, cpu {result['cpu_ms']:.0f} ms", file=sys.stderr)
            ours = {label: where_our_time_goes(root, args.browser_path, cwd) for label, root in roots.items() if label in args.servers}
    finally:
        if temporary is not None:
            temporary.cleanup()
    rows = summarise(starts)
    commit = _git("rev-parse", "--short", "HEAD") + ("-dirty" if _git("status", "--porcelain", "--untracked-files=no") else "")
    report = {
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg(), "note": "shared with other jobs: compare servers within one run"},
        "versions": versions,
        "sources": {label: str(path) for label, path in roots.items()},
        "summary": rows,
        "where_mcp_actions_time_goes": ours,
        "starts": starts,
    }
    if not args.no_save:
        RESULTS_DIR.mkdir(exist_ok=True)
        path = RESULTS_DIR / f"startup-{report['date']}-{commit}{'-' + args.label if args.label else ''}.json"
        path.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    print(markdown(rows))
    for label, found in ours.items():
        print(f"\n{label}: {found['groups_ms']}; largest top-level imports (ms, -X importtime): " + ", ".join(f"{k} {v:.0f}" for k, v in found["top_level_imports_ms"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
