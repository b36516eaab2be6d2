"""Benchmark: thousands of map-tool calls on one tab, sent together, each checked against its own arguments.

The board of ``bench/board/`` (300 cards to start) in one headless Chromium tab; an MCP client over stdio
sends ``board_add_card`` N times (default 3,000), ``--concurrency`` at a time (default 1 and 4), each with a
title of its own. A call is **right** when it succeeded and its answer shows its own card as the list's
new last card (``added`` and ``last_card``); **wrong** when it succeeded with another call's card (two
workflows typed into one composer); **failed** when it ended in an error (the codes are counted). Calls
per second and p50/p99 latency are recorded too.

Several source trees run in one pass (``--actions-root LABEL=PATH``, the working tree as ``now``), each
its own server process and browser, alternating blocks of ``--block`` calls so that they share the
machine's load. Results: ``bench/results/reliability-<date>-<commit>.json``.

Usage: ``.venv/bin/python bench/bench_reliability.py [--calls 3000] [--concurrency 1 4]
[--actions-root before=/path/to/old/checkout]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_peers import ROOT, board_map, board_site, board_url, server_params, site_origin, wait_for_runtime

from mcp_actions.demo.static import StaticSite

LIST = "Doing"


@dataclass
class Tally:
    """What one tree's calls came to at one concurrency."""

    label: str
    concurrency: int
    right: int = 0
    wrong: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    busy_s: float = 0.0  # wall time spent sending this tree's blocks

    def row(self) -> dict[str, Any]:
        calls = self.right + self.wrong + sum(self.failed.values())
        ordered = sorted(self.latencies_ms)
        return {
            "label": self.label,
            "concurrency": self.concurrency,
            "calls": calls,
            "right": self.right,
            "wrong": self.wrong,
            "failed": dict(self.failed),
            "calls_per_s": round(calls / self.busy_s, 2) if self.busy_s else None,
            "p50_ms": round(statistics.median(ordered), 1) if ordered else None,
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1) if ordered else None,
        }


async def one_call(client: Client, title: str, tally: Tally) -> None:
    started = time.perf_counter()
    result = await client.call_tool("board_add_card", {"list": LIST, "title": title})
    tally.latencies_ms.append((time.perf_counter() - started) * 1000)
    content = result.structured_content or {}
    if result.is_error:
        tally.failed[str((content.get("error") or {}).get("code", "unknown"))] += 1
    elif content.get("added") is True and content.get("last_card") == title:
        tally.right += 1
    else:
        tally.wrong += 1


async def block(client: Client, tally: Tally, first: int, count: int) -> None:
    """``count`` calls, ``tally.concurrency`` in flight at a time, titles numbered from ``first``."""
    queue = list(range(first, first + count))

    async def worker() -> None:
        while queue:
            number = queue.pop(0)
            await one_call(client, f"{tally.label} card {number:05d}", tally)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(tally.concurrency)))
    tally.busy_s += time.perf_counter() - started


async def run(args: argparse.Namespace, trees: dict[str, Path], workdir: Path) -> list[Tally]:
    tallies: list[Tally] = []
    with StaticSite(board_site(workdir, [args.cards])) as site:
        url = board_url(site.url, args.cards)
        for concurrency in args.concurrency:
            # One fresh server (and browser) per tree and concurrency, all up at once, closed in reverse order.
            async with contextlib.AsyncExitStack() as stack:
                clients: dict[str, Client] = {}
                for label, source in trees.items():
                    params = server_params("mcp-actions", workdir, args.browser_path, workdir, board_map(source, site_origin(site.url), workdir), source=source)
                    client = await stack.enter_async_context(Client(params, mode="legacy", read_timeout_seconds=300))
                    clients[label] = client
                    await wait_for_runtime(client)
                    await client.call_tool("browser_navigate", {"url": url})
                current = {label: Tally(label, concurrency) for label in trees}
                done = 0
                while done < args.calls:
                    count = min(args.block, args.calls - done)
                    for label, client in clients.items():
                        await block(client, current[label], done, count)
                    done += count
                    print(f"  concurrency {concurrency}: {done}/{args.calls}", file=sys.stderr)
                tallies.extend(current.values())
    return tallies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=3000, help="calls per tree and concurrency")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--cards", type=int, default=300, help="cards on the board at the start")
    parser.add_argument("--block", type=int, default=100, help="calls per tree before the next tree's turn")
    parser.add_argument("--actions-root", action="append", default=[], metavar="LABEL=PATH", help="another mcp-actions tree to run beside this one")
    parser.add_argument("--browser-path", default="/usr/bin/chromium")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    trees = {"now": ROOT}
    for item in args.actions_root:
        label, _, path = item.partition("=")
        trees[label] = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="bench-reliability-") as tmp:
        tallies = asyncio.run(run(args, trees, Path(tmp)))
    rows = [t.row() for t in tallies]
    print("| tree | concurrency | calls | right | wrong | failed | calls/s | p50 | p99 |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for r in rows:
        failed = ", ".join(f"{code} {n}" for code, n in sorted(r["failed"].items())) or "0"
        print(f"| {r['label']} | {r['concurrency']} | {r['calls']} | {r['right']} | {r['wrong']} | {failed} | {r['calls_per_s']} | {r['p50_ms']} ms | {r['p99_ms']} ms |")
    if not args.no_save:
        import subprocess

        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
        out = ROOT / "bench" / "results" / f"reliability-{datetime.date.today().isoformat()}-{commit}.json"
        out.write_text(json.dumps({"args": {k: v for k, v in vars(args).items()}, "trees": {k: str(v) for k, v in trees.items()}, "rows": rows}, indent=1))
        print(f"saved {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
