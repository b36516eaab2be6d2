"""Benchmark: what the audit log costs a call, measured through ``ActionService.handle``.

One ``ActionsApp`` serves the notes map of ``tests/fixtures/server/notes`` to
an in-process memory runtime (its handlers answer at once), so a call's time
is the server's own: guards, routing, the bridge round trip, result checks.
``notes.rename`` (one string argument) is called in rounds, each round
running the same number of calls in three configurations, interleaved so
they share the machine's load:

- ``off``: no audit at all (``service.audit = None``);
- ``memory``: ``--audit-log off`` (entries kept for ``actions://audit/recent``, no file);
- ``file``: ``--audit-log PATH`` (one JSON line appended and flushed per call).

Reports the median call of each and the difference from ``off``.

Usage: ``.venv/bin/python bench/bench_audit.py [--calls 2000] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import platform
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.audit_log import AuditLog
from mcp_actions.runtimes.memory import MemoryRuntime

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "tests" / "fixtures" / "server" / "notes"


async def measure(calls: int, rounds: int) -> dict[str, list[float]]:
    """Per-call times in ms for each configuration, over every round."""
    app = ActionsApp(AppOptions(manifests=[str(NOTES)], browser="none", serve_bridge=False, watch=False))
    await app.start()
    runtime = MemoryRuntime(app.bridge, runtime_id="notes-1", url="memory://notes/edit/1", title="Note 1", handlers={"notes.rename": lambda a: {"ok": True, "title": a["title"]}})
    await runtime.start()
    times: dict[str, list[float]] = {"off": [], "memory": [], "file": []}
    with tempfile.TemporaryDirectory() as tmp:
        audits = {"off": None, "memory": AuditLog(None), "file": AuditLog(Path(tmp) / "audit.jsonl")}
        file_audit = audits["file"]
        assert file_audit is not None
        file_audit.open()
        try:
            for _ in range(50):  # warm: checks compiled, caches filled
                await app.service.handle("notes_rename", {"title": "warm"})
            for _ in range(rounds):
                for label, audit in audits.items():
                    app.service.audit = audit
                    for i in range(calls):
                        started = time.perf_counter()
                        await app.service.handle("notes_rename", {"title": f"note {i}"})
                        times[label].append((time.perf_counter() - started) * 1000)
        finally:
            file_audit.close()
            await runtime.stop()
            await app.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per configuration per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    times = asyncio.run(measure(args.calls, args.rounds))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()
    print(f"commit {commit}, Python {platform.python_version()}, {args.rounds} rounds × {args.calls} calls per configuration")
    base = statistics.median(times["off"])
    for label, values in times.items():
        median = statistics.median(values)
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"{label:>6}: median {median * 1000:7.1f} µs  p90 {p90 * 1000:7.1f} µs  (median − off: {(median - base) * 1000:+6.1f} µs)")


if __name__ == "__main__":
    main()
