"""The first call against the tenth: what a session pays once, measured over stdio.

Each session is a fresh ``mcp-actions serve`` process (``--browser launch``)
driven by the MCP SDK's ``Client``: wait (untimed) until its browser has a
tab, ``browser_navigate`` (listed beside the map's tools: the map names
only its site's origin) to the board of ``bench/board/`` (``/cards/N/``), then
``board_add_card`` ten times into Doing with distinct titles. Per
session it records each call's wall time as the client sees it; across
sessions it reports the median first ``add_card``, the median of calls 2–10,
and their difference (what the first call pays once). ``--actions-root
LABEL=PATH`` runs another source tree the same way, sessions interleaved, so
before and after share the machine's load.

Command: ``.venv/bin/python bench/bench_first_call.py`` (``--sessions 8 --cards 300``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_peers import ROOT, board_map, board_site, board_url, server_params, site_origin, wait_for_runtime

from mcp_actions.demo.static import StaticSite

__all__ = ["main"]


async def session(source: Path, url: str, browser: str, workdir: Path, calls: int) -> dict[str, float | list[float]]:
    """One cold server: navigate, then ``calls`` add_card calls; their times in ms."""
    params = server_params("mcp-actions", Path("/nonexistent"), browser, workdir, board_map(source, site_origin(url), workdir), source=source)
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        await client.list_tools()
        await wait_for_runtime(client)
        started = time.perf_counter()
        await client.call_tool("browser_navigate", {"url": url})
        navigate = (time.perf_counter() - started) * 1000
        times = []
        for n in range(calls):
            started = time.perf_counter()
            result = await client.call_tool("board_add_card", {"list": "Doing", "title": f"Buy ladders {n + 1}"})
            times.append(round((time.perf_counter() - started) * 1000, 1))
            if result.is_error or not (result.structured_content or {}).get("added"):
                raise RuntimeError(f"add_card {n + 1} failed: {result.content[0].text[:300]}")
        return {"navigate_ms": round(navigate, 1), "add_card_ms": times}


async def run(args: argparse.Namespace) -> dict[str, list[dict[str, float | list[float]]]]:
    results: dict[str, list[dict[str, float | list[float]]]] = {label: [] for label in args.roots}
    with tempfile.TemporaryDirectory(prefix="bench-first-call-") as work, StaticSite(board_site(Path(work), [args.cards])) as site:
        for n in range(args.sessions):
            for label, source in args.roots.items():
                outcome = await session(source, board_url(site.url, args.cards), args.browser_path, Path(work), args.calls)
                results[label].append(outcome)
                print(f"{label:12} session {n + 1}: navigate {outcome['navigate_ms']:.0f} ms, add_card {outcome['add_card_ms']}", file=sys.stderr)
    return results


def summary(sessions: list[dict[str, float | list[float]]]) -> dict[str, float]:
    """Median first add_card, median of the later ones, and the difference."""
    first = statistics.median(s["add_card_ms"][0] for s in sessions)  # type: ignore[index]  # sessions are JSON records of this script
    later = statistics.median(t for s in sessions for t in s["add_card_ms"][1:])  # type: ignore[index]  # sessions are JSON records of this script
    navigate = statistics.median(s["navigate_ms"] for s in sessions)  # type: ignore[misc]  # sessions are JSON records of this script
    return {"navigate_ms": round(navigate, 1), "first_add_card_ms": round(first, 1), "later_add_card_ms": round(later, 1), "paid_once_ms": round(first - later, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--cards", type=int, default=300)
    parser.add_argument("--browser-path", default="/usr/bin/chromium")
    parser.add_argument("--actions-root", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--json", type=Path, help="also write the raw sessions and summary here")
    args = parser.parse_args()
    args.roots = {"mcp-actions": ROOT}
    for spec in args.actions_root:
        label, _, path = spec.partition("=")
        args.roots[label] = Path(path).resolve()
    results = asyncio.run(run(args))
    rows = {label: summary(sessions) for label, sessions in results.items()}
    print("| tree | navigate | first add_card | add_card 2–10 | paid once |\n|---|---:|---:|---:|---:|")
    for label, row in rows.items():
        print(f"| {label} | {row['navigate_ms']:.0f} ms | {row['first_add_card_ms']:.0f} ms | {row['later_add_card_ms']:.0f} ms | {row['paid_once_ms']:.0f} ms |")
    if args.json:
        args.json.write_text(json.dumps({"cards": args.cards, "summary": rows, "sessions": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
