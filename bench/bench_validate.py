"""Benchmark: validating a big manifest (1,000 tools, each with a 3-5 step workflow).

Every tool is distinct (its own input schema, step arguments and expressions
mention the tool's own fields), so memoisation by identical text only helps
where real maps repeat themselves too (``{"type": "string"}``, common step
shapes). Measures:

* cold: the first ``check_manifest`` in a fresh process, including compiling
  every JSONata expression and building the metaschema validators;
* warm: later runs over the same document (the steady state of a server that
  re-validates on every file change).

Usage: ``.venv/bin/python bench/bench_validate.py [--tools 1000] [--runs 20]``
"""

from __future__ import annotations

import argparse
import statistics
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


def main() -> None:
    """Run the benchmark and print cold, warm median and warm p95 in milliseconds."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=20)
    arguments = parser.parse_args()
    document = build_manifest(arguments.tools)
    started = time.perf_counter()
    report = check_manifest(document)
    cold = time.perf_counter() - started
    if not report.valid:
        raise SystemExit(f"bench manifest is invalid: {report.errors[:3]}")
    timings = []
    for _ in range(arguments.runs):
        started = time.perf_counter()
        check_manifest(document)
        timings.append(time.perf_counter() - started)
    timings.sort()
    p95 = timings[min(len(timings) - 1, round(0.95 * (len(timings) - 1)))]
    slots = sum(len(tool["workflow"]["steps"]) for tool in document["tools"])
    print(f"tools={arguments.tools} steps={slots} runs={arguments.runs}")
    print(f"cold (first run, compiles included): {_ms(cold)} ms")
    print(f"warm median: {_ms(statistics.median(timings))} ms  p95: {_ms(p95)} ms  min: {_ms(timings[0])} ms")


if __name__ == "__main__":
    main()
