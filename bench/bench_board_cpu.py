"""CPU time per process over the mapped board task: where a task's work is done, ours and the browser's.

The task is what ``bench_peers.py`` times for mcp-actions (``browser_navigate`` to the board, then
``board_add_card``), played three ways, each in a fresh browser per run:

- ``mcp-actions``: a fresh ``mcp-actions serve`` over stdio, driven by the SDK's ``Client``;
- ``playwright``: plain Playwright doing the same task with its own calls (``goto``, ``click``, ``fill``,
  ``press``, ``wait_for_selector``): the browser's cost of the task with nothing of ours;
- ``playwright+engine``: the same, with our init script (the page engine and its hooks) in every document.

Between the task's first call and its answer, each process's user and system time is read from
``/proc/<pid>/stat`` (Linux only; 10 ms ticks on most kernels, so read the medians of several runs) and
summed by kind: the browser process, renderers, the GPU and utility processes, Playwright's node driver
and our server. Every such process on the machine is counted, so run it with no other browser or server
running (a test suite alongside would be summed in).

    .venv/bin/python bench/bench_board_cpu.py --cards 4 --runs 6

Results: bench/README.md, "Third session on ×0.2 at 4 cards".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

__all__ = ["main", "process_cpu"]

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_CHROMIUM_KINDS = (("--type=renderer", "renderer"), ("--type=gpu-process", "gpu"), ("--type=utility", "utility"), ("--type=zygote", "zygote"))


def _kind(argv: list[str]) -> str | None:
    """Which part of a task a process is, from its command line; None: not one of ours or the browser's.

    By the program first: our server's own arguments name the browser (``--browser-path``).
    """
    if not argv:
        return None
    program = Path(argv[0]).name
    if program in ("chromium", "chrome", "chrome-headless-shell", "headless_shell", "chrome_crashpad_handler"):
        return next((kind for flag, kind in _CHROMIUM_KINDS if flag in argv), "browser")
    if program.startswith("python") and "mcp_actions" in argv:
        return "server"
    if program == "node" and any("playwright" in arg for arg in argv):
        return "playwright driver"
    return None


def process_cpu() -> dict[int, tuple[str, float]]:
    """Every task process now: pid -> (kind, user + system CPU time in ms)."""
    found: dict[int, tuple[str, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # gone meanwhile
            continue
        argv = [arg for arg in argv if arg]
        if len(argv) == 1:  # Chromium's children rewrite their command line as one string
            argv = argv[0].split(" ")
        kind = _kind(argv)
        if kind is None:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        found[int(entry)] = (kind, (int(fields[11]) + int(fields[12])) * 1000 / _TICK)
    return found


def _spent(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> Counter[str]:
    """CPU ms each kind spent between two readings (a process started meanwhile counts from zero)."""
    spent: Counter[str] = Counter()
    for pid, (kind, cpu) in after.items():
        spent[kind] += cpu - (before[pid][1] if pid in before else 0.0)
    return spent


async def _with_mcp_actions(site_url: str, cards: int, work: Path) -> Counter[str]:
    import bench_peers as bp
    from mcp import Client

    params = bp.server_params("mcp-actions", Path("/nonexistent"), bp.shutil.which("chromium") or "/usr/bin/chromium", work, bp.board_map(bp.ROOT, bp.site_origin(site_url), work))
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        await client.list_tools()
        await bp.wait_for_runtime(client)
        await asyncio.sleep(1.0)  # start-up work (the checks' preparation, the process warm-up) is over
        before = process_cpu()
        for name, arguments in (("browser_navigate", {"url": bp.board_url(site_url, cards)}), ("board_add_card", {"list": bp.LIST, "title": bp.TITLE})):
            result = await client.call_tool(name, arguments)
            if result.is_error:
                raise RuntimeError(f"{name} failed: {result.structured_content}")
        return _spent(before, process_cpu())


async def _with_playwright(site_url: str, cards: int, *, engine: bool) -> Counter[str]:
    import bench_peers as bp
    from playwright.async_api import async_playwright

    from mcp_actions.runtimes.chromium import chromium_args
    from mcp_actions.runtimes.document import ATTACHMENT_HOOK
    from mcp_actions.runtimes.outbox import outbox_hook
    from mcp_actions.runtimes.page_script import engine_js

    in_list = f'section.list[data-list="{bp.LIST}"]'
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=bp.shutil.which("chromium") or "/usr/bin/chromium", headless=True, args=list(chromium_args()))
        try:
            context = await browser.new_context()
            if engine:
                await context.add_init_script(script=engine_js() + outbox_hook("bench", "bench-frames") + ATTACHMENT_HOOK)
            page = await context.new_page()
            await page.set_content("<textarea></textarea>")
            await asyncio.sleep(1.0)
            before = process_cpu()
            await page.goto(bp.board_url(site_url, cards))
            await page.title()
            await page.click(f"{in_list} > button.open-composer")
            await page.fill(f"{in_list} textarea[name=title]", bp.TITLE)
            await page.keyboard.press("Enter")
            await page.wait_for_selector(f"{in_list} li.card:last-child .card-title >> text={bp.TITLE}")
            return _spent(before, process_cpu())
        finally:
            await browser.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import bench_peers as bp

    from mcp_actions.demo.static import StaticSite

    spent: dict[str, dict[str, list[float]]] = {way: defaultdict(list) for way in args.ways}
    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as folder, StaticSite(bp.board_site(Path(folder), [args.cards])) as site:
        for _ in range(args.runs):
            for way in args.ways:  # interleaved, so a change in the machine's load falls on every way alike
                if way == "mcp-actions":
                    one = await _with_mcp_actions(site.url, args.cards, Path(folder))
                else:
                    one = await _with_playwright(site.url, args.cards, engine=way == "playwright+engine")
                for kind, ms in one.items():
                    spent[way][kind].append(ms)
    report: dict[str, Any] = {"cards": args.cards, "runs": args.runs, "load_1m": os.getloadavg()[0], "medians_ms": {}, "runs_ms": {}}
    for way, kinds in spent.items():
        report["medians_ms"][way] = {kind: statistics.median(values) for kind, values in sorted(kinds.items())}
        report["runs_ms"][way] = {kind: values for kind, values in sorted(kinds.items())}
        print(f"{way}: " + ", ".join(f"{kind} {median:.0f} ms" for kind, median in report["medians_ms"][way].items()))
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=4)
    parser.add_argument("--runs", type=int, default=6, help="fresh browsers per way")
    parser.add_argument("--ways", nargs="+", default=["mcp-actions", "playwright", "playwright+engine"], choices=["mcp-actions", "playwright", "playwright+engine"])
    parser.add_argument("--out", type=Path, help="write the medians and every run here (JSON)")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.out is not None:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
