"""Benchmark: routed calls through the bridge over loopback WebSocket.

A real ``BridgeServer`` in this process; N runtimes (``websockets`` clients
that echo each call's arguments) connected from a second process, so the
bridge and the runtimes do not share one interpreter. Calls are routed by
``runtime_id``, round-robin over all runtimes, with a fixed number in flight.
Reports routed calls per second and p50 / p99 / max latency (the full
``Bridge.call``: route, serialise, send, runtime echo, parse, correlate).

Usage: ``.venv/bin/python bench/bench_bridge.py [--runtimes 100 1000] [--calls 20000]
[--concurrency 50] [--in-process]``

1,000 sockets on each side need ``ulimit -n`` ≥ 4096: the script raises the
soft limit itself when the hard limit allows.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import multiprocessing
import os
import platform
import resource
import statistics
import time
from typing import Any

from websockets.asyncio.client import connect

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.runtimes.page_script import runtime_js

TOKEN = "bench-token"
FD_NEEDED = 4096


def raise_fd_limit(needed: int = FD_NEEDED) -> int:
    """Raise the soft RLIMIT_NOFILE to ``needed`` (bounded by the hard limit); return the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# -- runtimes ----------------------------------------------------------------


async def echo_runtime(url: str, runtime_id: str, ready: asyncio.Event | None = None) -> None:
    """One runtime: announce, then answer every action_call with its arguments."""
    async with connect(f"{url}?token={TOKEN}", compression=None, max_size=None, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "runtime_ready", "runtime_id": runtime_id, "url": f"https://bench.test/{runtime_id}"}))
        async for frame in ws:
            item = json.loads(frame)
            if item.get("type") == "action_call":
                await ws.send(
                    json.dumps(
                        {"type": "action_call_output", "call_id": item["call_id"], "runtime_id": runtime_id, "output": item["arguments"]},
                        separators=(",", ":"),
                    )
                )


async def run_runtimes(url: str, count: int, stop: Any) -> None:
    """Connect ``count`` echo runtimes (in batches, to not flood the accept queue) until ``stop`` is set."""
    tasks = []
    for start in range(0, count, 100):
        tasks += [asyncio.create_task(echo_runtime(url, f"rt-{i:04d}")) for i in range(start, min(count, start + 100))]
        await asyncio.sleep(0.05)
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def runtimes_process(url: str, count: int, stop: Any) -> None:
    """Entry point of the runtimes' process."""
    raise_fd_limit()
    asyncio.run(run_runtimes(url, count, stop))


# -- measurement -----------------------------------------------------------


async def measure(bridge: Bridge, runtime_ids: list[str], calls: int, concurrency: int) -> dict[str, float]:
    """Make ``calls`` routed calls, ``concurrency`` in flight; return throughput and latency figures."""
    latencies: list[float] = []
    targets = itertools.cycle(runtime_ids)
    remaining = iter(range(calls))

    async def worker() -> None:
        for i in remaining:
            runtime_id = next(targets)
            started = time.perf_counter()
            output = await bridge.call("bench.echo", {"i": i}, runtime_id=runtime_id, timeout_ms=30_000)
            latencies.append(time.perf_counter() - started)
            assert output == {"i": i}

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "calls": calls,
        "seconds": elapsed,
        "calls_per_s": calls / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99) - 1],
        "max_ms": 1000 * latencies[-1],
        "mean_ms": 1000 * statistics.fmean(latencies),
    }


async def bench(runtime_count: int, calls: int, concurrency: int, in_process: bool) -> dict[str, Any]:
    """Start a bridge, connect the runtimes, warm up, measure, tear down."""
    bridge = Bridge()
    server = BridgeServer(bridge, port=0, token=TOKEN, runtime_script=runtime_js)
    await server.start()
    stop: Any
    if in_process:
        stop = asyncio.Event()
        clients: Any = asyncio.create_task(run_runtimes(server.url, runtime_count, stop))
    else:
        ctx = multiprocessing.get_context("spawn")
        stop = ctx.Event()
        clients = ctx.Process(target=runtimes_process, args=(server.url, runtime_count, stop), daemon=True)
        clients.start()
    connect_started = time.perf_counter()
    while bridge.session_count < runtime_count:
        await asyncio.sleep(0.05)
        if time.perf_counter() - connect_started > 120:
            raise RuntimeError(f"only {bridge.session_count} of {runtime_count} runtimes connected")
    connect_s = time.perf_counter() - connect_started
    runtime_ids = sorted(info.runtime_id for info in bridge.registry.list())
    await measure(bridge, runtime_ids, min(calls, 2000), concurrency)  # warm-up
    result = await measure(bridge, runtime_ids, calls, concurrency)
    result.update(runtimes=runtime_count, concurrency=concurrency, connect_s=connect_s, clients="in-process" if in_process else "separate process")
    stop.set()
    if in_process:
        await clients
    else:
        await asyncio.to_thread(clients.join, 30)
    await server.stop()
    await bridge.stop()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtimes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--in-process", action="store_true", help="run the runtimes in the bridge's process and event loop")
    parser.add_argument("--json", action="store_true", help="print one JSON object per configuration")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    limit = raise_fd_limit()
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, fd limit {limit}")
    for runtime_count in args.runtimes:
        result = asyncio.run(bench(runtime_count, args.calls, args.concurrency, args.in_process))
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"{result['runtimes']:>5} runtimes, {result['concurrency']} in flight, {result['calls']} calls "
                f"({result['clients']}): {result['calls_per_s']:,.0f} calls/s, "
                f"p50 {result['p50_ms']:.2f} ms, p99 {result['p99_ms']:.2f} ms, max {result['max_ms']:.1f} ms "
                f"(connect {result['connect_s']:.1f} s)"
            )


if __name__ == "__main__":
    main()
