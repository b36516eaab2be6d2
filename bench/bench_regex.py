"""Benchmark: what running regular expressions on RE2 costs ordinary work, and what it saves on hostile input.

Regular expressions that meet page data (schema ``pattern``/``patternProperties``,
JSONata regex literals, ``url_matches``) run on RE2 since issue 28
(docs/manifest-language.md, "Regular expressions"). This measures, per
operation, the median of many runs:

1. Ordinary work the server does on every call: checking a tool's arguments
   and answer against schemas with and without patterns, evaluating ordinary
   expressions (no regex) and expressions with a regex literal over short text.
2. With ``--hostile``: the stalls of issue 28 (``^(a+)+$`` over 28 × "a" and
   "!" as a schema pattern and as an expression literal). Only run this against
   a tree with RE2: Python's ``re`` takes seconds to minutes per case.

Run it against two source trees to compare (the tree is what ``PYTHONPATH`` names):
``PYTHONPATH=/path/to/tree .venv/bin/python bench/bench_regex.py [--runs 2000] [--hostile]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from mcp_actions.manifest.expressions import compile_expression
from mcp_actions.schema_check import CompiledSchema

ARGUMENTS = CompiledSchema(
    {
        "type": "object",
        "properties": {"title": {"type": "string", "maxLength": 200}, "list": {"enum": ["To do", "Doing", "Done"]}, "position": {"type": "integer", "minimum": 0}},
        "required": ["title", "list"],
        "additionalProperties": False,
    },
    label="arguments without patterns",
)
PATTERNED = CompiledSchema(
    {
        "type": "object",
        "properties": {
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
            "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"},
            "note": {"type": "string"},
        },
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": False,
    },
    label="answer with patterns",
)
ORDINARY_EXPRESSIONS = {
    "reference": ("steps.read.output.text", {"steps": {"read": {"output": {"text": "Buy ladders"}}}}),
    "object + $count": ("{'added': steps.add.output.title, 'count': $count(steps.list.output.cards)}", {"steps": {"add": {"output": {"title": "Buy ladders"}}, "list": {"output": {"cards": list(range(300))}}}}),
    "$exists + comparison": ("$exists(input.query) and $length(input.query) > 2", {"input": {"query": "ladders"}}),
    "regex literal, short text": ("$match(input.sku, /^([A-Z]{3})-([0-9]+)$/).groups[1]", {"input": {"sku": "ABC-123"}}),
    "$replace with a regex": ("$replace(input.text, /\\s+/, ' ')", {"input": {"text": "Buy   ladders\n for  the   barn"}}),
}
HOSTILE = "a" * 28 + "!"


def median_us(work: Callable[[], Any], runs: int) -> float:
    """The median time of ``work()`` in microseconds, after a short warm-up."""
    for _ in range(min(50, runs)):
        work()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--hostile", action="store_true", help="also time the stalls of issue 28 (only against a tree with RE2)")
    args = parser.parse_args()

    rows: list[tuple[str, float]] = [
        ("arguments, no pattern (valid)", median_us(lambda: ARGUMENTS.failure({"title": "Buy ladders", "list": "Doing", "position": 3}), args.runs)),
        ("arguments, no pattern (2 failures)", median_us(lambda: ARGUMENTS.failure({"title": 5, "list": "Doing", "extra": 1}), args.runs)),
        ("answer with patterns (valid)", median_us(lambda: PATTERNED.failure({"sku": "ABC-123", "email": "a@b.example", "x-trace": "t", "note": "n"}), args.runs)),
        ("answer with patterns (3 failures)", median_us(lambda: PATTERNED.failure({"sku": "abc", "email": "nope", "other": 1}), args.runs)),
    ]
    for name, (source, data) in ORDINARY_EXPRESSIONS.items():
        compiled = compile_expression(source)
        rows.append((f"expression: {name}", median_us(lambda c=compiled, d=data: c.evaluate(d), args.runs)))
    if args.hostile:
        hostile_schema = CompiledSchema({"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}, label="hostile")
        hostile_expression = compile_expression("$match(t, /^(a+)+$/)")
        rows.append(("hostile: schema pattern ^(a+)+$", median_us(lambda: hostile_schema.failure({"code": HOSTILE}), 20)))
        rows.append(("hostile: $match(t, /^(a+)+$/)", median_us(lambda: hostile_expression.evaluate({"t": HOSTILE}), 20)))

    width = max(len(name) for name, _ in rows)
    print(f"{'operation':<{width}}  median")
    for name, micros in rows:
        print(f"{name:<{width}}  {micros:8.1f} µs")


if __name__ == "__main__":
    main()
