"""Benchmark: the workflow interpreter's own cost per step, and the settle wait's cost on a quiet page.

1. Overhead per simple step. A workflow of N steps runs against an in-process
   ``PrimitiveCaller`` that answers at once; the time spent inside the
   caller (the "primitive") is measured and subtracted, so what remains is
   the interpreter: deadline checks, ``when``, argument rendering, records,
   progress reports. Three shapes of step: literal arguments, one JSONata
   slot in the arguments, and a slot plus a ``when`` condition.

2. The settle between retry attempts on a quiet page (nothing mutates).
   ``dom.settle`` resolves after ``quiet_ms`` (150 ms by default) without
   mutations, so its floor is the quiet period. Measured in real headless
   Chromium through the browser host: with ``dom.settle`` when the page
   engine provides it, otherwise the fixed fallback delay the interpreter
   uses instead (``--no-browser`` skips this part).

Usage: ``.venv/bin/python bench/bench_interpreter.py [--steps 25] [--runs 400] [--no-browser]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_actions.deadline import Deadline
from mcp_actions.workflow.compiled import CompiledWorkflow
from mcp_actions.workflow.interpreter import run_workflow
from mcp_actions.workflow.pacing import Pacer, PacingOptions

SHAPES: dict[str, dict[str, Any]] = {
    "literal args": {"primitive": "locator.text_content", "args": {"locator": {"selector": "#result"}}},
    "one slot": {"primitive": "text.insert", "args": {"text": "{% input.query %}", "mode": "replace"}},
    "slot + when": {"primitive": "text.insert", "args": {"text": "{% input.query %}"}, "when": "{% $exists(input.query) %}"},
}


def workflow(shape: dict[str, Any], steps: int) -> CompiledWorkflow:
    raw = {"version": 1, "expression_language": "jsonata",
           "steps": [{"id": f"s{n}", **shape} for n in range(steps)]}
    return CompiledWorkflow.compile(raw)


async def overhead(steps: int, runs: int) -> None:
    inside = 0.0

    async def call(name: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
        nonlocal inside
        started = time.perf_counter()
        result = {"ok": True, "text": "x"}
        inside += time.perf_counter() - started
        return result

    print(f"interpreter overhead per step ({steps} steps per workflow, {runs} runs, deadline and progress on):")
    print("| step shape | per step (median) | per step (p90) |")
    print("|---|---:|---:|")
    for label, shape in SHAPES.items():
        compiled = workflow(shape, steps)
        samples = []
        for run in range(runs + 20):
            inside = 0.0
            started = time.perf_counter()
            await run_workflow(compiled, {"query": "hello"}, call, deadline=Deadline.after_ms(30_000),
                               progress=lambda p, t, m: None)
            total = time.perf_counter() - started - inside
            if run >= 20:  # warm-up
                samples.append(total / steps * 1000)
        samples.sort()
        print(f"| {label} | {statistics.median(samples):.3f} ms | {samples[int(len(samples) * 0.9)]:.3f} ms |")


async def settle_in_chromium(runs: int) -> None:
    from playwright.async_api import async_playwright  # noqa: F401 - the browser host needs it

    from mcp_actions.bridge.bridge import Bridge
    from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions

    page = Path(tempfile.mkdtemp()) / "quiet.html"
    page.write_text("<!doctype html><title>quiet</title><p>Nothing moves here.</p>")
    bridge = Bridge(allow_file_urls=True)  # the benchmark's own page, a local file, in its own browser
    await bridge.start()
    host = BrowserHost(bridge, BrowserOptions(headless=True, isolated=True))
    await host.ensure_started()
    try:
        runtime_id = await host.new_tab(page.as_uri())
        info = bridge.registry.get(runtime_id)
        has = info is not None and "dom.settle" in info.capabilities

        async def call(name: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
            return await bridge.call(name, arguments, runtime_id=runtime_id, timeout_ms=timeout_ms)

        options = PacingOptions()
        samples = []
        for _ in range(runs):
            pacer = Pacer(call, lambda: None, options)
            if not has:
                pacer.has_dom_settle = False
            started = time.perf_counter()
            await pacer.between_attempts()
            samples.append((time.perf_counter() - started) * 1000)
        samples.sort()
        how = f"dom.settle quiet_ms={options.quiet_ms}" if has else f"fallback delay {options.fallback_delay_ms} ms (the engine has no dom.settle)"
        print(f"\nsettle between attempts on a quiet page, headless Chromium, {how}, {runs} runs:")
        print(f"median {statistics.median(samples):.1f} ms, p90 {samples[int(len(samples) * 0.9)]:.1f} ms, max {samples[-1]:.1f} ms")
    finally:
        await host.stop()
        await bridge.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--settle-runs", type=int, default=20)
    parser.add_argument("--no-browser", action="store_true")
    options = parser.parse_args()
    await overhead(options.steps, options.runs)
    if not options.no_browser:
        await settle_in_chromium(options.settle_runs)


if __name__ == "__main__":
    asyncio.run(main())
