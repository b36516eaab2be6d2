"""Benchmark: validating a big manifest (1,000 tools, each with a 3-5 step workflow).

Every tool is distinct (its own input schema, step arguments and expressions
mention the tool's own fields), so memoisation by identical text only helps
where real maps repeat themselves too (``{"type": "string"}``, common step
shapes). Measures:

* cold: the first ``check_manifest`` in a fresh process, including compiling
  every JSONata expression and building the metaschema validators;
* warm: later runs over the same document (the steady state of a server that
  re-validates on every file change).

Each measurement runs in a fresh process; the processes share one temporary
verdict cache (``MCP_ACTIONS_CACHE_DIR``), so the first shows a machine's
first validation ever and the later ones a cold process with the cache
populated. Wall clock and CPU time are both printed: on a shared machine the
CPU time is the steadier figure.

Usage: ``.venv/bin/python bench/bench_validate.py [--tools 1000] [--runs 20] [--processes 4] [--no-cache]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from mcp_actions.manifest.validate import check_manifest

PRIMITIVE_STEPS = [
    ("find", "locator.element_info", lambda i: {"locator": {"selector": f"[data-tool='{i}'] button", "role": "button"}}),
    ("click", "pointer.click", lambda i: {"x": "{% steps.find.output.clickable_center.x %}", "y": "{% steps.find.output.clickable_center.y %}"}),
    ("type", "text.insert", lambda i: {"text": f"{{% input.query_{i} %}}", "mode": "replace"}),
    ("press", "keyboard.press", lambda i: {"key": "Enter"}),
    ("read", "locator.text_content", lambda i: {"locator": {"selector": f"#result-{i}"}}),
]


def build_manifest(tool_count: int) -> dict[str, Any]:
    """A manifest of ``tool_count`` distinct tools, each with a workflow of 3 to 5 steps."""
    tools = []
    for i in range(tool_count):
        step_count = 3 + i % 3
        steps = []
        for position, (step_id, primitive, args) in enumerate(PRIMITIVE_STEPS[:step_count]):
            step: dict[str, Any] = {"id": step_id, "primitive": primitive, "args": args(i)}
            if position == 2:
                step["when"] = f"{{% $exists(input.query_{i}) %}}"
            if position == 3:
                step["settle_after"] = {"locator": {"selector": f"#results-{i}"}, "state": "visible", "timeout_ms": 5000}
            steps.append(step)
        tools.append(
            {
                "name": f"site.section{i // 100}.action_{i}",
                "description": f"Action number {i}.",
                "input_schema": {
                    "type": "object",
                    "required": [f"query_{i}"],
                    "properties": {
                        f"query_{i}": {"type": "string", "minLength": 1},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100 + i},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "additionalProperties": False,
                },
                "x_actions": {"result_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}, f"value_{i}": {}}}},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": steps,
                    "output": f"{{% {{'ok': true, 'tool': {i}, 'found': steps.find.output}} %}}",
                },
            }
        )
    return {"protocol": "actions.json", "version": 1, "surface": {"name": "bench"}, "tools": tools}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def measure(tool_count: int, runs: int) -> dict[str, Any]:
    """Cold (the first check in this process) and warm figures, wall clock and CPU time, in ms."""
    document = build_manifest(tool_count)
    wall, cpu = time.perf_counter(), time.process_time()
    report = check_manifest(document)
    cold_wall, cold_cpu = time.perf_counter() - wall, time.process_time() - cpu
    if not report.valid:
        raise SystemExit(f"bench manifest is invalid: {report.errors[:3]}")
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        check_manifest(document)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    walls.sort()
    p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))] if walls else 0.0
    return {
        "tools": tool_count,
        "steps": sum(len(tool["workflow"]["steps"]) for tool in document["tools"]),
        "cold_ms": _ms(cold_wall),
        "cold_cpu_ms": _ms(cold_cpu),
        "warm_median_ms": _ms(statistics.median(walls)) if walls else None,
        "warm_cpu_median_ms": _ms(statistics.median(cpus)) if cpus else None,
        "warm_p95_ms": _ms(p95),
    }


def main() -> None:
    """Run the benchmark in fresh processes sharing one verdict cache directory; print each one's figures.

    The first process starts with an empty cache (the first validation ever on
    a machine); the later ones are cold processes that find the verdicts the
    first one stored (every later start of a server or of ``mcp-actions validate``).
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--processes", type=int, default=4, help="fresh processes, in sequence, sharing one cache")
    parser.add_argument("--no-cache", action="store_true", help="turn the on-disk verdict cache off (MCP_ACTIONS_NO_CACHE=1)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        print(json.dumps(measure(arguments.tools, arguments.runs)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as cache:
        env = {**os.environ, "MCP_ACTIONS_CACHE_DIR": cache}
        if arguments.no_cache:
            env["MCP_ACTIONS_NO_CACHE"] = "1"
        for position in range(arguments.processes):
            command = [sys.executable, __file__, "--child", "--tools", str(arguments.tools), "--runs", str(arguments.runs)]
            figures = json.loads(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)
            state = "no cache" if arguments.no_cache else ("empty cache" if position == 0 else "cache populated")
            print(
                f"process {position + 1} ({state}): tools={figures['tools']} steps={figures['steps']} "
                f"cold {figures['cold_ms']} ms (cpu {figures['cold_cpu_ms']} ms); "
                f"warm median {figures['warm_median_ms']} ms (cpu {figures['warm_cpu_median_ms']} ms), p95 {figures['warm_p95_ms']} ms"
            )
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
