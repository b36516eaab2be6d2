"""Observe on a 2,000-element page: bytes and time of ``refs.observe`` beside an accessibility snapshot.

The peer figure is Playwright's ARIA snapshot of the same page
(``locator("body").aria_snapshot()``), the text that snapshot-based browser
MCP servers (such as @playwright/mcp) hand to a model. Both run in one
headless Chromium on tests/fixtures/pages/observe/big.html, served locally.

Command: ``PYTHONPATH=$PWD .venv/bin/python bench/bench_observe.py [--runs 10]``
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import statistics
import threading
import time
from pathlib import Path

from playwright.async_api import async_playwright

from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser
from mcp_actions.runtimes.page_script import engine_js

PAGES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pages"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


async def main(runs: int) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(PAGES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/observe/big.html"
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
        page = await browser.new_page()
        await page.add_init_script(script=engine_js())
        await page.goto(url)
        rows = []
        for budget in (16000, 1000000):
            times, size, total, returned = [], 0, 0, 0
            for _ in range(runs):
                start = time.perf_counter()
                env = await page.evaluate("(b) => window.__mcpActions.run('refs.observe', {max_bytes: b})", budget)
                times.append((time.perf_counter() - start) * 1000)
                out = env["output"]
                size = len(json.dumps(out, separators=(",", ":"), ensure_ascii=False).encode())
                total, returned = out["total"], out["returned"]
            rows.append((f"refs.observe max_bytes={budget}", size, statistics.median(times), f"{returned}/{total} elements"))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            snapshot = await page.locator("body").aria_snapshot()
            times.append((time.perf_counter() - start) * 1000)
        rows.append(("ARIA snapshot (body)", len(snapshot.encode()), statistics.median(times), f"{snapshot.count(chr(10)) + 1} lines"))
        await browser.close()
    server.shutdown()
    print("| what | bytes | median ms | covers |\n|---|---:|---:|---|")
    for name, size, ms, covers in rows:
        print(f"| {name} | {size:,} | {ms:.1f} | {covers} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    asyncio.run(main(parser.parse_args().runs))
