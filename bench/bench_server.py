"""Startup and live-catalogue latency of the MCP server over stdio.

1. Process start to the first ``tools/list`` answer: the server is spawned
   as users run it (``python -m mcp_actions``, stdio, bundled manifests,
   ``--browser none``) by the SDK ``Client``; the clock starts before the
   spawn and stops when ``tools/list`` returns.
2. Manifest edit to ``notifications/tools/list_changed``: the same server
   serving a directory; the clock starts just before a file is rewritten
   with one more tool and stops when the client hears the notification.

Command: ``PYTHONPATH=$PWD .venv/bin/python bench/bench_server.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters


def _manifest(n: int) -> str:
    tools = [
        {"name": f"bench.t{i}", "description": "t", "input_schema": {"type": "object", "properties": {}}, "x_actions": {"handler": "app.t"}}
        for i in range(n)
    ]
    return json.dumps({"protocol": "actions.json", "version": 1, "tools": tools})


def _params(*extra: str) -> StdioServerParameters:
    env = {**os.environ, "MCP_ACTIONS_LOG_LEVEL": "ERROR"}
    return StdioServerParameters(command=sys.executable, args=["-m", "mcp_actions", "--bridge-port", "0", "--browser", "none", *extra], env=env)


async def first_tools_list() -> float:
    started = time.perf_counter()
    async with Client(_params(), mode="legacy") as client:
        await client.list_tools()
        return time.perf_counter() - started


async def edit_to_list_changed(folder: Path, edits: int) -> list[float]:
    heard = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    path = folder / "bench.actions.json"
    path.write_text(_manifest(1))
    timings: list[float] = []
    async with Client(_params("--manifests", str(folder)), mode="legacy", message_handler=on_message) as client:
        await client.list_tools()
        for i in range(edits):
            heard.clear()
            started = time.perf_counter()
            path.write_text(_manifest(i + 2))
            await asyncio.wait_for(heard.wait(), 30)
            timings.append(time.perf_counter() - started)
            await asyncio.sleep(0.3)  # let the watcher settle between edits
    return timings


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    starts = [await first_tools_list() for _ in range(args.runs)]
    with tempfile.TemporaryDirectory() as tmp:
        edits = await edit_to_list_changed(Path(tmp), args.runs)
    for label, values in (("start -> first tools/list", starts), ("manifest edit -> tools/list_changed", edits)):
        ms = sorted(v * 1000 for v in values)
        print(f"{label}: median {statistics.median(ms):.0f} ms, min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms ({len(ms)} runs)")


if __name__ == "__main__":
    asyncio.run(main())
