"""What the page engine costs a document, and the first acting call's page work beside a later one's (issue 55).

Measured in the page, on the board of ``bench/board/`` (``/cards/N/``), in headless Chromium:

- the engine's size (``engine_js()``, bytes);
- per navigation: parsing and compiling it (``new Function`` of its text made unique, so that V8's
  compilation cache cannot answer: what a new renderer pays) and its first run (every module's top
  level, then the engine object and its installers), each in a fresh browser context;
- per module (``--modules``): its bytes as shipped, its parse and compile and its first run (its top
  level), each module compiled alone in the engine's order, in a fresh context per load;
- the first acting call's page work after a load beside a later one's: ``refs.resolve`` with the
  change mark, the journal's description and watched texts, and the click point (what ``page_click``
  asks in one round trip, dispatch/builtins/acting/observe_tools.py), on one "Add a card" button and
  then on another, right after the load; ``--warm`` runs the same call on a third button first.

Command: ``.venv/bin/python bench/bench_engine_cost.py --cards 300 --loads 8 [--modules]``.
Results: printed, and ``--out FILE`` (JSON). Times are wall times in the page: on a shared machine
every figure is inflated, and the first and the later call of one load are what to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

__all__ = ["main"]

#: The first and a later acting call's refs.resolve, as page_click asks it, and their change reports.
_CALLS = """async (warm) => {
  const engine = window.__mcpActions, out = {};
  const timed = async (label, name, args) => {
    const start = performance.now();
    const reply = await engine.run(name, args);
    out[label] = performance.now() - start;
    if (!reply.ok) throw new Error(label + ": " + reply.error.code);
    return reply.output;
  };
  const found = await timed("find", "refs.find", {name: "Add a card"});
  const refs = JSON.stringify(found).match(/@e[0-9]+/g) || [];
  const asked = (ref) => ({ref: ref, mark: {describe: true, watch: []}, point: true});
  if (warm) { await timed("warm", "refs.resolve", asked(refs[2])); await timed("warm_report", "refs.change_report", {}); }
  await timed("first", "refs.resolve", asked(refs[0]));
  await timed("first_report", "refs.change_report", {});
  await timed("later", "refs.resolve", asked(refs[1]));
  await timed("later_report", "refs.change_report", {});
  return out;
}"""

#: Parse and compile the engine's text (made unique: no compilation cache), then run it once.
_PARSE = """(source) => {
  const start = performance.now();
  const engine = new Function(source + "\\n//" + Math.random());
  const compiled = performance.now();
  engine.call(window);
  return [compiled - start, performance.now() - compiled];
}"""


#: Each module alone, in the engine's order, on one shared M: its parse and compile, then its first run.
_MODULES = """([modules, injected]) => {
  const M = Object.assign({}, injected), out = [];
  for (const [name, text] of modules) {
    const start = performance.now();
    const body = new Function("M", "root", '"use strict";\\n' + text + "\\n//" + Math.random());
    const compiled = performance.now();
    body(M, window);
    out.push([name, compiled - start, performance.now() - compiled]);
  }
  return out;
}"""

#: Read in a process of its own, from the tree named: the engine, and its modules as it ships them.
_READ_ENGINE = """import json, sys
sys.path.insert(0, sys.argv[1])
from mcp_actions.runtimes import page_script as ps
shipped = getattr(ps, "shipped_source", ps.module_source)  # trees before js_strip.py shipped modules as written
modules = [[name, shipped(name)] for name in ps.ENGINE_MODULES + ps.BOOT_MODULES]
sys.stdout.write(json.dumps({"engine": ps.engine_js(), "modules": modules, "injected": ps.injected()}))
"""


#: Two engines parsed and compiled in turn, ``rounds`` times each in one page (each text made unique).
_PARSE_PAIR = """([a, b, rounds]) => {
  const times = [[], []];
  for (let i = 0; i < rounds; i++) {
    [a, b].forEach((source, k) => {
      const start = performance.now();
      new Function(source + "\\n//" + Math.random());
      times[k].push(performance.now() - start);
    });
  }
  return times;
}"""


async def parse_pair(this: str, other: str, loads: int, rounds: int, browser_path: str) -> dict[str, Any]:
    """This engine's parse and compile beside another's, in turn in the same pages (``--parse-against``): the
    machine's load falls on both alike. Medians over ``loads`` fresh pages of ``rounds`` each."""
    from playwright.async_api import async_playwright

    mine: list[float] = []
    theirs: list[float] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        for _ in range(loads):
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto("about:blank")
            a, b = await page.evaluate(_PARSE_PAIR, [this, other, rounds])
            mine += a
            theirs += b
            await context.close()
        await browser.close()
    return {"this_ms": round(statistics.median(mine), 2), "other_ms": round(statistics.median(theirs), 2), "samples": len(mine), "this_bytes": len(this.encode()), "other_bytes": len(other.encode())}


def engine_parts(root: Path) -> dict[str, Any]:
    """``engine_js()`` of the tree at ``root``, its modules as shipped and what its header sets, read in a process of its own.

    Not imported here: bench_peers puts this tree first on ``sys.path`` when imported, so an import in
    this process gives this tree's engine whatever ``--root`` says (before this, ``--root`` measured
    this tree's engine every time).
    """
    done = subprocess.run([sys.executable, "-c", _READ_ENGINE, str(root.resolve())], capture_output=True, text=True, check=True)
    parts: dict[str, Any] = json.loads(done.stdout)
    return parts


async def measure(cards: int, loads: int, warm: bool, browser_path: str, pause_ms: int = 0, root: Path = ROOT, modules: bool = False) -> dict[str, Any]:
    import bench_peers as bp
    from playwright.async_api import async_playwright

    from mcp_actions.demo.static import StaticSite

    parts = engine_parts(root)
    engine = parts["engine"]
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as folder, StaticSite(bp.board_site(Path(folder), [cards])) as site:
        url = bp.board_url(site.url, cards)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
            parse: list[list[float]] = []
            for _ in range(loads):
                context = await browser.new_context()
                page = await context.new_page()
                await page.goto(url)
                parse.append(await page.evaluate(_PARSE, engine))
                await context.close()
            per_module: list[list[list[Any]]] = []
            for _ in range(loads if modules else 0):
                context = await browser.new_context()
                page = await context.new_page()
                await page.goto(url)
                per_module.append(await page.evaluate(_MODULES, [parts["modules"], parts["injected"]]))
                await context.close()
            context = await browser.new_context()
            await context.add_init_script(script=engine)
            page = await context.new_page()
            calls: list[dict[str, float]] = []
            for _ in range(loads):
                await page.goto(url)
                await asyncio.sleep(pause_ms / 1000)  # the page idle a moment, as between an agent's calls
                calls.append(await page.evaluate(_CALLS, warm))
            await browser.close()
    median = statistics.median
    module_medians = [
        {
            "module": name,
            "bytes": len(text.encode()),
            "parse_compile_ms": round(median(load[i][1] for load in per_module), 2),
            "first_run_ms": round(median(load[i][2] for load in per_module), 2),
        }
        for i, (name, text) in enumerate(parts["modules"])
    ] if per_module else []
    return {
        "cards": cards,
        "engine_bytes": len(engine.encode()),
        "modules": module_medians,
        "parse_compile_ms": round(median(p[0] for p in parse), 1),
        "first_run_ms": round(median(p[1] for p in parse), 1),
        "warm": warm,
        "medians_ms": {key: round(median(c[key] for c in calls), 1) for key in calls[0]},
        "loads": calls,
        "parses": parse,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=300)
    parser.add_argument("--loads", type=int, default=8)
    parser.add_argument("--warm", action="store_true", help="run the same call on another button first (what an idle-time warm-up would do)")
    parser.add_argument("--browser-path", default="/usr/bin/chromium")
    parser.add_argument("--pause-ms", type=int, default=0, help="wait this long after each load before the calls (an agent's turn)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the mcp-actions tree whose engine to measure (e.g. the commit before)")
    parser.add_argument("--modules", action="store_true", help="also each module's bytes, parse and compile, and first run (the ten costliest printed)")
    parser.add_argument("--parse-against", type=Path, metavar="TREE", help="only: parse and compile --root's engine and TREE's in turn, in the same pages (--loads pages, 10 rounds each)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.parse_against is not None:
        pair = asyncio.run(parse_pair(engine_parts(args.root)["engine"], engine_parts(args.parse_against)["engine"], args.loads, 10, args.browser_path))
        pair["root"], pair["against"] = str(args.root), str(args.parse_against)
        print(f"parse and compile, in turn in the same pages (median of {pair['samples']}): {args.root} {pair['this_bytes']:,} B {pair['this_ms']} ms; {args.parse_against} {pair['other_bytes']:,} B {pair['other_ms']} ms")
        if args.out is not None:
            args.out.write_text(json.dumps(pair) + "\n")
        return 0
    found = asyncio.run(measure(args.cards, args.loads, args.warm, args.browser_path, args.pause_ms, args.root, args.modules))
    found["pause_ms"], found["root"] = args.pause_ms, str(args.root)
    print(f"engine_js(): {found['engine_bytes']:,} bytes; per navigation: parse and compile {found['parse_compile_ms']} ms, first run {found['first_run_ms']} ms (medians of {args.loads})")
    medians = found["medians_ms"]
    print(f"{args.cards} cards{' (warmed)' if args.warm else ''}: first refs.resolve {medians['first']} ms, later {medians['later']} ms; reports {medians['first_report']} / {medians['later_report']} ms")
    for row in sorted(found["modules"], key=lambda row: -(row["parse_compile_ms"] + row["first_run_ms"]))[:10]:
        print(f"  {row['module']:<24} {row['bytes']:>7,} B  parse+compile {row['parse_compile_ms']:5.2f} ms  first run {row['first_run_ms']:5.2f} ms")
    if found["modules"]:
        total = {key: round(sum(row[key] for row in found["modules"]), 1) for key in ("parse_compile_ms", "first_run_ms")}
        print(f"  all modules alone: parse+compile {total['parse_compile_ms']} ms, first run {total['first_run_ms']} ms (sums of medians)")
    if args.out is not None:
        args.out.write_text(json.dumps(found) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
