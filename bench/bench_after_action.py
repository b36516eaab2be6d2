"""Benchmark: rounds of thousands of concurrent map-tool calls, what they are reported as, and memory across rounds (issue 42).

The round of issue 42: a real ``BridgeServer`` and ``ActionService`` in this process, N runtimes
(``websockets`` clients in a second process) that answer every call at once with a card archived,
and C concurrent calls of ``board.archive_card`` (a map tool with a ``result_schema``), each with
a deadline of D ms, routed round-robin over the runtimes. Each round reports how the calls ended:
ok, ``handler_timeout`` waiting for the tab (nothing sent), and anything else (a failure after the
page answered is the bug the issue is about), with the round's time. Between rounds: the process's
RSS and Python's traced memory after a ``gc.collect()``, so growth across identical rounds shows.

``--check-cost`` prints instead what checking one answer against the schema costs by its size
(``schema_check.json_weight``): what ``SMALL_WEIGHT`` is chosen from.

Usage: ``.venv/bin/python bench/bench_after_action.py [--runtimes 300] [--calls 3000] [--timeout-ms 1500]
[--rounds 5] [--neighbours 5] [--load] [--tracemalloc] [--check-cost]``; run it against another tree with
``PYTHONPATH=<tree>``. ``--load`` adds a busy thread in the server's process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import multiprocessing
import os
import platform
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from bench_bridge import TOKEN, raise_fd_limit
from websockets.asyncio.client import connect

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.naming import mcp_tool_name
from mcp_actions.dispatch.builtins.registry import BUILTIN_TOOLS, builtin_bindings
from mcp_actions.dispatch.call.service import ActionService
from mcp_actions.errors import ActionError
from mcp_actions.manifest.load import LoadedManifest, load_document
from mcp_actions.runtimes.page_script import runtime_js

CARD = {
    "type": "object",
    "required": ["id", "title", "column"],
    "properties": {"id": {"type": "string", "pattern": "^card-[0-9]+$"}, "title": {"type": "string"}, "column": {"enum": ["todo", "done", "archive"]}},
}
RESULT_SCHEMA = {
    "type": "object",
    "required": ["archived", "card"],
    "properties": {"archived": {"const": True}, "card": CARD, "neighbours": {"type": "array", "items": CARD}},
    "additionalProperties": False,
}
MAP = {
    "protocol": "actions.json",
    "version": 1,
    "surface": {"origin": "https://*.bench.test"},
    "tools": [
        {
            "name": "board.archive_card",
            "description": "Archive a card",
            "input_schema": {"type": "object", "properties": {"card": {"type": "string"}}, "required": ["card"]},
            "result_schema": RESULT_SCHEMA,
            "x_actions": {"handler": "board.archiveCard"},
        }
    ],
}


def _card(n: int) -> dict[str, Any]:
    return {"id": f"card-{n}", "title": f"Card {n}", "column": "archive"}


def archived(card: str, neighbours: int) -> dict[str, Any]:
    """What a runtime answers for ``card``: the card archived and its neighbours."""
    n = int(card.split("-")[1])
    return {"archived": True, "card": _card(n), "neighbours": [_card(n + k) for k in range(1, neighbours + 1)]}


# -- runtimes (a second process) -----------------------------------------------


async def board_runtime(url: str, runtime_id: str, neighbours: int, answered: Any) -> None:
    """One runtime: announce, then answer every action_call at once with the card archived."""
    async with connect(f"{url}?token={TOKEN}", compression=None, max_size=None, open_timeout=60) as ws:
        ready = {"type": "runtime_ready", "runtime_id": runtime_id, "url": f"https://{runtime_id}.bench.test/", "capabilities": []}
        await ws.send(json.dumps(ready))
        async for frame in ws:
            item = json.loads(frame)
            if item.get("type") == "action_call":
                output = archived(item["arguments"]["card"], neighbours)
                answered.value += 1
                await ws.send(json.dumps({"type": "action_call_output", "call_id": item["call_id"], "runtime_id": runtime_id, "output": output}, separators=(",", ":")))


async def run_runtimes(url: str, count: int, neighbours: int, stop: Any, answered: Any) -> None:
    tasks = []
    for start in range(0, count, 100):
        tasks += [asyncio.create_task(board_runtime(url, f"rt-{i:04d}", neighbours, answered)) for i in range(start, min(count, start + 100))]
        await asyncio.sleep(0.05)
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def runtimes_process(url: str, count: int, neighbours: int, stop: Any, answered: Any) -> None:
    raise_fd_limit()
    asyncio.run(run_runtimes(url, count, neighbours, stop, answered))


# -- the server side ---------------------------------------------------------


def rss_kib() -> int:
    """This process's resident set size, in KiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def one_round(service: ActionService, runtime_ids: list[str], calls: int, timeout_ms: int, offset: int) -> dict[str, Any]:
    name = mcp_tool_name("board.archive_card")

    async def one(n: int) -> str:
        arguments = {"card": f"card-{n}", "target": {"runtime_id": runtime_ids[n % len(runtime_ids)]}, "timeout_ms": timeout_ms}
        try:
            outcome = await service.handle(name, arguments)
        except ActionError as exc:
            if exc.code == "handler_timeout" and not exc.evidence.get("phase"):
                # The bridge's own timeout names the call it sent; the deadline found spent before sending does not.
                return "handler_timeout/sent" if "call_id" in exc.evidence else "handler_timeout/not sent"
            return f"{exc.code}/{exc.evidence.get('phase') or '-'}"
        return "ok (check unknown)" if getattr(outcome, "unchecked", ()) else "ok"

    started = time.perf_counter()
    ends = await asyncio.gather(*(one(offset + n) for n in range(calls)))
    return {"seconds": round(time.perf_counter() - started, 2), "ends": dict(Counter(ends))}


async def bench(args: argparse.Namespace) -> None:
    loaded = load_document(MAP, source="bench")
    assert isinstance(loaded, LoadedManifest), [p.to_dict() for p in loaded.errors]
    bridge = Bridge()
    server = BridgeServer(bridge, port=0, token=TOKEN, runtime_script=runtime_js)
    await server.start()
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests([loaded])
    service = ActionService(bridge=bridge, catalog=catalog, browser=None, browser_mode="none", builtins=BUILTIN_TOOLS)
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    answered = ctx.Value("l", 0)  # answers the runtimes sent (each ok, at once)
    clients = ctx.Process(target=runtimes_process, args=(server.url, args.runtimes, args.neighbours, stop, answered), daemon=True)
    clients.start()
    while bridge.session_count < args.runtimes:
        await asyncio.sleep(0.05)
    runtime_ids = sorted(info.runtime_id for info in bridge.registry.list())
    spinning = threading.Event()

    def spin() -> None:
        while not spinning.is_set():
            pass

    if args.load:
        threading.Thread(target=spin, daemon=True).start()
    if args.tracemalloc:
        tracemalloc.start()
    memory: list[tuple[int, int]] = []
    snapshots: list[tracemalloc.Snapshot] = []
    for number in range(args.rounds):
        before = answered.value
        result = await one_round(service, runtime_ids, args.calls, args.timeout_ms, number * args.calls)
        await asyncio.sleep(0.5)  # late answers, cancels and background work of the round end
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] if args.tracemalloc else 0
        if args.tracemalloc and number in (1, args.rounds - 1):
            snapshots.append(tracemalloc.take_snapshot())
        memory.append((rss_kib(), traced))
        grew = f", RSS {memory[-1][0] - memory[0][0]:+,} KiB since round 1" if number else ""
        traced_text = f", traced {traced / 1024:,.0f} KiB" if args.tracemalloc else ""
        ok = sum(count for end, count in result["ends"].items() if end.startswith("ok"))
        lost = answered.value - before - ok
        print(f"round {number + 1}: {result['seconds']} s, pages answered ok {answered.value - before}, reported ok {ok} (answered, not ok: {lost}), {result['ends']}; RSS {memory[-1][0]:,} KiB{traced_text}{grew}", flush=True)
    if len(snapshots) == 2:
        print("traced growth from round 2 to the last, by line (top 8):")
        for stat in snapshots[1].compare_to(snapshots[0], "lineno")[:8]:
            print(f"  {stat}")
    spinning.set()
    stop.set()
    await asyncio.to_thread(clients.join, 30)
    await server.stop()
    await bridge.stop()


def check_cost() -> None:
    """What one check costs by the answer's weight (the median of 200 checks)."""
    from mcp_actions.schema_check import CompiledSchema, json_weight

    schema = CompiledSchema(RESULT_SCHEMA, label="bench")
    schema.prepare()
    for neighbours in (0, 5, 20, 35, 50, 200, 1000):
        answer = archived("card-1", neighbours)
        times = []
        for _ in range(200):
            started = time.perf_counter()
            schema.first_error(answer)
            times.append(time.perf_counter() - started)
        times.sort()
        weight = json_weight(answer, 10**9)
        median = times[len(times) // 2] * 1e6
        print(f"{neighbours:>5} neighbours: weight {weight:>6}, check {median:,.0f} µs ({median / weight:.1f} µs a unit)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtimes", type=int, default=300)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--timeout-ms", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--neighbours", type=int, default=5, help="cards beside the archived one in each answer")
    parser.add_argument("--load", action="store_true", help="a busy thread in the server's process")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python's allocations (slower)")
    parser.add_argument("--check-cost", action="store_true", help="print what a check costs by the answer's size, and stop")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.check_cost:
        check_cost()
        return
    limit = raise_fd_limit()
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, fd limit {limit}, load average {os.getloadavg()[0]:.1f}")
    print(f"{args.runtimes} runtimes, {args.calls} calls a round, {args.timeout_ms} ms deadlines, {args.neighbours} neighbours, load: {args.load}")
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
