"""Projection cost on a 1,000-row page, and the bytes an agent reads for the board task with and without projections.

Parts:
1. projection + diff on 1,000 extracted rows (pure Python: JSONata expression,
   output_schema, JSON Patch and deltas after one row changed);
2. extraction of those rows in headless Chromium through the page engine's
   ``dom.extract`` (skipped, and said so, while the engine lacks it);
3. the board task (read the board, add a card, verify): bytes of what an agent
   reads with projections (summary, then the diff) versus without (the page's
   text snapshot before and after, ``dom.snapshot_text``), in headless Chromium.

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/bench_projection.py``
"""

from __future__ import annotations

import asyncio
import copy
import statistics
import sys
import time
from pathlib import Path

from mcp_actions.jsonutil import json_size
from mcp_actions.manifest.load import load_paths
from mcp_actions.manifest.model import Projection
from mcp_actions.projection.extract import ExtractPlan
from mcp_actions.projection.project import CompiledProjection
from mcp_actions.projection.service import ProjectionService

ROOT = Path(__file__).resolve().parents[1]
ROWS = 1_000
ROW_PROJECTION = Projection(
    name="bench.rows",
    snapshot={
        "version": 1,
        "source": "dom",
        "extract": [{"id": "rows", "selector": "tr.row", "fields": {"id": {"attribute": "data-id"}, "name": {"selector": ".name"}, "qty": {"selector": ".qty"}}}],
        "projection": {"language": "jsonata", "expression": "{% {'rows': [records.rows.{'id': id, 'name': name, 'qty': $number(qty)}]} %}"},
        "output_schema": {"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "items": {"type": "object", "required": ["id", "name", "qty"]}}}},
    },
    summaries=[{"name": "count", "max_bytes": 100, "expression": "{% {'rows': $count(state.rows), 'qty': $sum(state.rows.qty)} %}"}],
)


def timed(fn, repeat: int = 20) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def pure_part() -> None:
    compiled = CompiledProjection(ROW_PROJECTION)
    records = {"rows": [{"id": f"r{i}", "name": f"Item {i}", "qty": str(i % 7)} for i in range(ROWS)]}
    state = compiled.project(records)
    changed = copy.deepcopy(records)
    changed["rows"][500]["qty"] = "99"
    after = compiled.project(changed)
    print(f"1,000 rows: state {json_size(state):,} bytes")
    for label, fn in [
        ("projection (expression + schema + budget)", lambda: compiled.project(records)),
        ("summary", lambda: compiled.summary("count", state)),
        ("diff (JSON Patch + deltas), one row changed", lambda: ProjectionService.compare(compiled, state, after)),
        ("split of a dom.extract answer", lambda: ExtractPlan([("bench.rows", compiled.entries)]).split({"records": {"p0_rows": records["rows"]}})),
    ]:
        median, worst = timed(fn)
        print(f"  {label}: median {median:.2f} ms, max {worst:.2f} ms")


async def browser_part() -> None:
    from playwright.async_api import async_playwright

    from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser
    from mcp_actions.runtimes.page_script import ENGINE_PRIMITIVES, engine_js

    html = "<table>" + "".join(f"<tr class='row' data-id='r{i}'><td class='name'>Item {i}</td><td class='qty'>{i % 7}</td></tr>" for i in range(ROWS)) + "</table>"
    board_url = (ROOT / "tests/fixtures/pages/board/index.html").as_uri()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
        page = await browser.new_page()
        await page.add_init_script(script=engine_js())
        await page.set_content(html)
        run = "([n, a]) => window.__mcpActions.run(n, a)"
        if "dom.extract" in ENGINE_PRIMITIVES:
            request = ExtractPlan([("bench.rows", ROW_PROJECTION.snapshot["extract"])]).request()
            samples = []
            for _ in range(10):
                start = time.perf_counter()
                await page.evaluate(run, ["dom.extract", request])
                samples.append((time.perf_counter() - start) * 1000)
            print(f"  extraction of 1,000 rows in Chromium (dom.extract, page.evaluate round trip): median {statistics.median(samples):.1f} ms")
        else:
            print("  extraction in Chromium: pending (the page engine has no dom.extract yet)")
        # The board task without projections: read the page before and after (text snapshot).
        await page.goto(board_url)
        await page.wait_for_selector("[data-ready='true']")
        before = await page.evaluate(run, ["dom.snapshot_text", {"max_chars": 1_000_000}])
        await page.fill("[data-list-id='doing'] input[name='title']", "Review PR")
        await page.click("[data-list-id='doing'] [data-testid='add-card']")
        await page.wait_for_selector("text=Review PR")
        after = await page.evaluate(run, ["dom.snapshot_text", {"max_chars": 1_000_000}])
        without = json_size(before["output"]) + json_size(after["output"])
        await browser.close()
    # With projections: the summary, then the diff after the action (the same data the page holds).
    board = load_paths([ROOT / "tests/fixtures/pages/board/actions.json"]).manifests[0].model
    compiled = CompiledProjection(board.state_projections[0])
    sys.path.insert(0, str(ROOT))
    from tests.projection.test_projection_memory import BoardPage

    page_model = BoardPage()
    plan = ExtractPlan([(compiled.name, compiled.entries)])
    state = compiled.project(plan.split(page_model.extract(plan.request()))[compiled.name].records)
    summary, summary_bytes, _ = compiled.summary("agent_context", state)
    page_model.lists[1]["cards"].append({"id": "c6", "title": "Review PR", "labels": []})
    new_state = compiled.project(plan.split(page_model.extract(plan.request()))[compiled.name].records)
    diff = ProjectionService.compare(compiled, state, new_state)
    with_projection = summary_bytes + json_size({"patch": diff["patch"], "deltas": diff["deltas"]})
    print(f"board task bytes read: without projections {without:,} (page text before + after), "
          f"with projections {with_projection:,} (summary {summary_bytes} + diff {with_projection - summary_bytes}); "
          f"full state read would be {json_size(state):,}")


if __name__ == "__main__":
    pure_part()
    asyncio.run(browser_part())
