"""Chaos over real WebSockets: many runtimes, thousands of calls, disconnects, slow and silent runtimes.

The done-when of the bridge: every call ends exactly once with the right
outcome (the runtime's output, ``handler_timeout``, ``transport_failed``, or
``runtime_not_found`` for runtimes already gone), nothing stays pending, every
session is released, and the bridge's memory returns to its baseline.

Runtimes (all real ``websockets`` clients in this process, seeded random):
- echo: answer at once, in order;
- slow: answer each call after 5-80 ms, concurrently;
- silent: read calls, never answer → the caller's 200-500 ms timeout ends them;
- doomed: read calls, never answer, and vanish (crash or clean close) at a
  random point of the run → their calls fail with ``transport_failed`` at once,
  and later calls to them get ``runtime_not_found``.
The expected outcome of each call is decided when it is made, from what the
test knows of its target at that moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
import tracemalloc
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import mcp_actions.bridge
from mcp_actions.bridge.websocket import BridgeServer

from .conftest import MakeServer
from .wsclient import WsRuntime, eventually, outcome

pytestmark = pytest.mark.slow

BRIDGE_DIR = str(Path(mcp_actions.bridge.__file__).parent)
#: Calls of the measured round, to 200 runtimes. 2,500 rather than 5,000: every kind of ending still comes by the
#: hundreds (about 1,800 outputs, 340 timeouts, 200 runtime_not_found, 160 transport_failed with this seed), and a
#: doomed runtime's calls wait half as long for its drop: on a loaded machine 5,000 calls took long enough for
#: calls made early to a doomed runtime to wait more than DOOMED_TIMEOUT_MS / 3 for it (a false failure).
CALLS = 2500
#: Growth of the bridge's memory allowed after a run, once everything has disconnected: about 105 bytes a call
#: (512 KiB for 5,000 calls before), so a leak of that much per call still fails it. A run grows it by ~90 KB
#: (the expired-call memory of its ~340 timeouts).
MEMORY_BOUND = 256 * 1024
#: Doomed runtimes' calls carry this timeout: they must end long before it, when the runtime drops.
DOOMED_TIMEOUT_MS = 30_000
ANSWERED_TIMEOUT_MS = 10_000


@dataclass
class Target:
    runtime: WsRuntime
    kind: str  # echo, slow, silent, doomed
    state: str = "alive"  # alive → dropping → gone (doomed only)
    received: list[str] = field(default_factory=list)
    answer: Callable[[dict[str, Any]], Awaitable[Any]] | None = None


def _make_runtime(server: BridgeServer, runtime_id: str, kind: str, rng: random.Random) -> Target:
    runtime = WsRuntime(server.url, runtime_id, url=f"https://site-{runtime_id}.test/", title=f"{kind} {runtime_id}")
    target = Target(runtime, kind)
    delays = random.Random(rng.random())  # slow runtimes draw from their own stream: call order must not shift the main one

    async def answer(call: dict[str, Any]) -> Any:
        target.received.append(call["call_id"])
        if kind == "echo":
            return {"ran_on": runtime_id, "arguments": call["arguments"]}
        if kind == "slow":
            await asyncio.sleep(delays.uniform(0.005, 0.08))
            return {"ran_on": runtime_id, "arguments": call["arguments"]}
        return None  # silent and doomed runtimes never answer

    target.answer = answer
    return target


async def run_chaos(server: BridgeServer, *, seed: int, runtimes: int, calls: int, in_flight: int = 250) -> Counter[str]:
    """Run one chaos round to completion; assert every call's outcome; return the outcome counts."""
    rng = random.Random(seed)
    bridge = server.bridge
    kinds = ["echo"] * 50 + ["slow"] * 20 + ["silent"] * 15 + ["doomed"] * 15  # percent of runtimes
    targets: dict[str, Target] = {}
    for i in range(runtimes):
        runtime_id = f"s{seed}-r{i:03d}"
        targets[runtime_id] = _make_runtime(server, runtime_id, kinds[i * len(kinds) // runtimes], rng)
    await asyncio.gather(*(t.runtime.open() for t in targets.values()))
    for target in targets.values():
        assert target.answer is not None
        target.runtime.serve(target.answer, concurrent=target.kind == "slow")
    assert bridge.session_count == runtimes

    # Each doomed runtime vanishes after a random number of calls has been made.
    doomed = [rid for rid, t in targets.items() if t.kind == "doomed"]
    drop_at = {rid: rng.randrange(calls // 20, calls * 9 // 10) for rid in doomed}
    drops: list[asyncio.Task[None]] = []

    async def vanish(runtime_id: str, crash: bool) -> None:
        target = targets[runtime_id]
        target.state = "dropping"
        await (target.runtime.drop() if crash else target.runtime.close())
        await eventually(lambda: runtime_id not in bridge.registry, timeout=5)
        target.state = "gone"

    ended: dict[int, str] = {}
    slots = asyncio.Semaphore(in_flight)
    ids = list(targets)

    async def one(index: int, runtime_id: str, expected: str, timeout_ms: int) -> None:
        arguments = {"i": index, "pad": "x" * (index % 64)}
        started = time.monotonic()
        try:
            kind, result = await outcome(
                bridge.call("chaos.step", arguments, runtime_id=runtime_id, timeout_ms=timeout_ms, call_id=f"c{seed}-{index}")
            )
        finally:
            slots.release()
        elapsed_ms = (time.monotonic() - started) * 1000
        assert index not in ended, f"call {index} ended twice"
        ended[index] = kind
        assert kind == expected, f"call {index} to {runtime_id}: expected {expected}, got {kind} ({result})"
        if kind == "output":
            assert result == {"ran_on": runtime_id, "arguments": arguments}
        elif kind == "handler_timeout":
            assert result.evidence["elapsed_ms"] >= timeout_ms
            assert result.evidence["call_id"] == f"c{seed}-{index}"
        elif kind == "transport_failed":
            assert elapsed_ms < DOOMED_TIMEOUT_MS / 3  # ended by the drop, not by the timeout
        elif kind == "runtime_not_found":
            assert result.evidence["asked"] == {"runtime_id": runtime_id}

    tasks: list[asyncio.Task[None]] = []
    for index in range(calls):
        for runtime_id, at in drop_at.items():
            if at == index:
                drops.append(asyncio.create_task(vanish(runtime_id, crash=rng.random() < 0.5)))
        await slots.acquire()
        if rng.random() < 0.01:
            runtime_id, target = f"ghost-{index}", None  # never existed
        else:
            runtime_id = rng.choice(ids)
            target = targets[runtime_id]
            while target.state == "dropping":  # the one moment whose outcome is a race: avoid it
                runtime_id = rng.choice(ids)
                target = targets[runtime_id]
        if target is None or target.state == "gone":
            expected, timeout_ms = "runtime_not_found", ANSWERED_TIMEOUT_MS
        elif target.kind in ("echo", "slow"):
            expected, timeout_ms = "output", ANSWERED_TIMEOUT_MS
        elif target.kind == "silent":
            expected, timeout_ms = "handler_timeout", rng.randrange(200, 501)
        else:
            expected, timeout_ms = "transport_failed", DOOMED_TIMEOUT_MS
        tasks.append(asyncio.create_task(one(index, runtime_id, expected, timeout_ms)))
        if index % 50 == 0:
            await asyncio.sleep(0)  # let answers flow while calls are being made
    await asyncio.gather(*tasks)
    await asyncio.gather(*drops)

    assert len(ended) == calls
    assert bridge.pending_count == 0
    # No runtime was ever sent the same call twice.
    received = [call_id for t in targets.values() for call_id in t.received]
    assert len(received) == len(set(received))

    # Everyone left disconnects: half cleanly, half by vanishing.
    leaving = [t for t in targets.values() if t.state == "alive"]
    await asyncio.gather(*(t.runtime.close() if i % 2 else t.runtime.drop() for i, t in enumerate(leaving)))
    await eventually(lambda: bridge.session_count == 0 and server.connection_count == 0, timeout=10)
    return Counter(ended.values())


def _bridge_snapshot() -> tracemalloc.Snapshot:
    """What the bridge's own code (mcp_actions/bridge/*) has allocated and still holds."""
    return tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, BRIDGE_DIR + "/*")])


def _size(snapshot: tracemalloc.Snapshot) -> int:
    return sum(stat.size for stat in snapshot.statistics("filename"))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0.01)
    gc.collect()


def _assert_internals_empty(server: BridgeServer) -> None:
    bridge = server.bridge
    assert bridge.pending_count == 0 and bridge.session_count == 0
    assert bridge.calls.pending_count == 0 and bridge.calls.channel_count == 0  # no per-connection bookkeeping left
    assert len(bridge.registry) == 0 and bridge.registry.active_id is None
    assert server.connection_count == 0
    assert len(server._tasks) == 0


async def test_chaos_every_call_ends_once_and_nothing_leaks(make_server: MakeServer) -> None:
    server = await make_server()
    tracemalloc.start()
    try:
        # Warm-up: first-use caches (pydantic, json, websockets) fill here, not in the measure.
        await run_chaos(server, seed=1, runtimes=20, calls=400)
        await _settle()
        _assert_internals_empty(server)
        baseline = _bridge_snapshot()

        started = time.monotonic()
        counts = await run_chaos(server, seed=2026, runtimes=200, calls=CALLS)
        duration = time.monotonic() - started
        await _settle()
        _assert_internals_empty(server)
        after = _bridge_snapshot()
        growth = _size(after) - _size(baseline)
        top = [str(stat) for stat in after.compare_to(baseline, "lineno")[:5]]
    finally:
        tracemalloc.stop()

    # Every kind of ending happened, in the expected proportions (the bounds of 5,000 calls, halved).
    assert sum(counts.values()) == CALLS
    assert set(counts) == {"output", "handler_timeout", "transport_failed", "runtime_not_found"}
    assert counts["output"] > 1500 and counts["handler_timeout"] > 200
    assert counts["transport_failed"] > 50 and counts["runtime_not_found"] > 50
    # Bounded memory: the bridge keeps only a small ring of expired call ids beyond its baseline.
    assert growth < MEMORY_BOUND, f"bridge memory grew by {growth} bytes; top growth: {top}"
    print(f"chaos: {dict(counts)} in {duration:.1f}s, bridge memory growth {growth} bytes")


async def test_a_runtime_that_stops_reading_cannot_hold_calls_past_their_timeout(make_server: MakeServer) -> None:
    # Never-reading runtime: the socket buffers fill and sends block; the timeout still ends every call.
    server = await make_server(max_item_bytes=8 * 1024 * 1024)
    runtime = await WsRuntime(server.url, "rt-stuck").open()
    runtime.ws.transport.pause_reading()  # the client's kernel buffer fills, then the server's send blocks
    big = {"blob": "y" * 2_000_000}
    started = time.monotonic()
    results = await asyncio.gather(*(outcome(server.bridge.call("push", big, runtime_id="rt-stuck", timeout_ms=400)) for _ in range(8)))
    assert [kind for kind, _ in results] == ["handler_timeout"] * 8
    assert time.monotonic() - started < 3.0
    assert server.bridge.pending_count == 0
    with contextlib.suppress(Exception):
        await runtime.drop()
