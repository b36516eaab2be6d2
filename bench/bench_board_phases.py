"""Where the mapped board task's time goes: wall-clock spans around each phase of a call, per call.

Each session is a fresh ``mcp-actions serve`` over stdio, started as ``bench_peers.py`` starts it,
but through this script's ``serve`` mode: it wraps the phases of a call in spans (``ActionService.handle``,
the guards, ``settle_target``, the tab's turn, ``run_workflow``, ``Pacer.settle_after``, ``Bridge.call``,
the in-process runtime's ``_run_call``, ``TabRuntime.perform``, ``MainWorld.call`` (each CDP
``Runtime.evaluate``), Playwright's ``goto``/``mouse.click``/``keyboard.*``, the result check,
``success_result`` and a page event's handling, ``Bridge._on_event``; after ``load``, ``wait_for_load_state``
and ``SocketDraw.drawn``; on the answer's way out, the call's log messages, its rendering and the write to
stdout, in a thread or not) and writes one JSON line per span.
The client's own send and receive times frame each call on the same monotonic clock, so a call
splits into: MCP in (sent → ``handle`` starts), MCP out (``handle`` ends → answer read), our Python
inside ``handle``, the bridge's round trips, and the page's time per primitive. The driver makes the
calls ``bench_peers.task_actions`` makes (``browser_navigate``, then ``board_add_card``).

    .venv/bin/python bench/bench_board_phases.py --cards 4 300 3000 --sessions 5
    .venv/bin/python bench/bench_board_phases.py --unmapped --cards 300 --sessions 5   # first action beside a later one

Results: bench/README.md, "Issue 42: where the mapped task's time goes". Spans are wall time: on a
shared machine every figure is inflated, and the shares are what to read.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

__all__ = ["main"]

_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("depth", default=0)


def _wrap(owner: Any, attr: str, label: Any) -> None:
    """Record a span (name, start, end, depth) around every call of ``owner.attr``; nothing when it is missing."""
    original = getattr(owner, attr, None)
    if original is None:
        return
    out = _wrap.out  # type: ignore[attr-defined]

    def emit(name: str, t0: float, t1: float, depth: int) -> None:
        out.write(json.dumps({"name": name, "t0": round(t0 * 1000, 3), "t1": round(t1 * 1000, 3), "depth": depth}) + "\n")

    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            name = label(*args, **kwargs) if callable(label) else label
            depth = _DEPTH.get()
            token = _DEPTH.set(depth + 1)
            t0 = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                emit(name, t0, time.perf_counter(), depth)
                _DEPTH.reset(token)

    else:

        @functools.wraps(original)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            name = label(*args, **kwargs) if callable(label) else label
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                emit(name, t0, time.perf_counter(), _DEPTH.get())

    setattr(owner, attr, wrapped)


def serve(argv: list[str]) -> int:
    """``mcp-actions serve`` with spans written to $PHASES_OUT."""
    from playwright.async_api import Keyboard, Mouse, Page

    from mcp_actions import schema_check
    from mcp_actions.bridge import bridge
    from mcp_actions.cli import main as cli_main
    from mcp_actions.dispatch.call import execution, guards, service, tab_turns
    from mcp_actions.runtimes import authority, document, inprocess, main_world, socket_draw, tab
    from mcp_actions.server import calls as server_calls
    from mcp_actions.server import early_answers, mcp_server
    from mcp_actions.workflow import pacing

    _wrap.out = open(os.environ["PHASES_OUT"], "a", buffering=1)  # type: ignore[attr-defined]
    _wrap(service.ActionService, "handle", lambda self, name, *a, **k: f"handle {name}")
    _wrap(guards.GuardChain, "run", lambda self, stage, call: f"guards {stage}")
    _wrap(service.ActionService, "settle_target", "settle_target")
    _wrap(service, "check_result", "check_result")
    _wrap(tab_turns.TabTurns, "turn", "turn")
    _wrap(execution, "run_workflow", "run_workflow")
    _wrap(pacing.Pacer, "settle_after", "settle_after")
    _wrap(bridge.Bridge, "call", lambda self, name, *a, **k: f"bridge.call {name}")
    _wrap(bridge.Bridge, "_on_event", "page event")
    _wrap(inprocess.InProcessRuntime, "_run_call", lambda self, item: f"runtime {item.get('name')}")
    _wrap(tab.TabRuntime, "perform", lambda self, name, *a, **k: f"perform {name}")
    _wrap(main_world.MainWorld, "call", lambda self, source, *a: "evaluate " + (json.dumps(a[0])[:40] if a else source[:30]))
    _wrap(authority, "navigate", "goto until loaded")
    _wrap(document.DocumentRuntime, "page_state", "title read")
    _wrap(mcp_server, "success_result", "success_result")
    _wrap(schema_check, "check_bounded", "check_bounded")
    _wrap(Mouse, "click", "input: mouse.click")
    _wrap(Keyboard, "insert_text", "input: insert_text")
    _wrap(Keyboard, "press", "input: keyboard.press")
    _wrap(Page, "goto", "page.goto")
    _wrap(Page, "wait_for_load_state", "nav: wait_for_load_state")
    _wrap(socket_draw.SocketDraw, "drawn", "nav: sockets drawn")
    # The answer's way out (MCP out): the call's log messages, rendering, and the write to stdout.
    _wrap(server_calls, "tell", lambda ctx, peer, level, data: f"out: tell {data.get('event') if isinstance(data, dict) else ''}")
    _wrap(server_calls, "success_result", "out: success_result")
    _wrap(server_calls, "mark_page_content", "out: mark_page_content")
    _wrap(early_answers.EarlyStdio, "write", "out: stdout write")
    _wrap(early_answers.EarlyStdio, "_write", "out: os.write (thread)")
    _wrap(early_answers.EarlyStdio, "_put", "out: put")  # da5a8e8 on: written at once when the wire has room
    return cli_main(["serve", *argv])


# -- driving and reading ----------------------------------------------------------------


def _within(spans: list[dict[str, Any]], t0: float, t1: float) -> list[dict[str, Any]]:
    return [s for s in spans if s["t0"] >= t0 - 0.01 and s["t1"] <= t1 + 0.01]


def phases(call: dict[str, Any], spans: list[dict[str, Any]]) -> dict[str, float]:
    """One call's time split into phases (ms), from its client times and the server's spans."""
    inside = _within(spans, call["t0"], call["t1"])
    handle = next(s for s in inside if s["name"].startswith("handle "))
    h = _within(inside, handle["t0"], handle["t1"])

    def total(*prefixes: str) -> float:
        return sum(s["t1"] - s["t0"] for s in h if s["name"].startswith(prefixes))

    bridge_calls = total("bridge.call")
    workflow = total("run_workflow")
    out = {
        "client": call["ms"],
        "MCP in": handle["t0"] - call["t0"],
        "MCP out": call["t1"] - handle["t1"],
        "guards, target, turn, result check": total("guards", "settle_target", "turn", "check_result"),
        "workflow interpretation": workflow - bridge_calls if workflow else 0.0,
        "bridge round trips": bridge_calls - total("runtime "),
        "page (runtime)": total("runtime "),
    }
    out["rest of handle"] = (handle["t1"] - handle["t0"]) - out["guards, target, turn, result check"] - out["workflow interpretation"] - bridge_calls
    for span in h:
        if span["name"].startswith(("perform ", "goto until loaded", "input: ", "nav: ")):
            key = "  " + span["name"]
            out[key] = out.get(key, 0.0) + span["t1"] - span["t0"]
    for span in inside:
        if span["name"].startswith("out: "):
            key = "  " + span["name"]
            out[key] = out.get(key, 0.0) + span["t1"] - span["t0"]
    return out


async def _unmapped_calls(client: Any, url: str) -> list[dict[str, Any]]:
    """The board with no map (issue 55): navigate, find the lists' "Add a card" buttons, click one, then another.

    The first ``page_click`` after the navigation and a later one side by side: the same click on
    another list, so that what the first action after a load prepares shows as their difference.
    """
    import re

    calls = []

    async def call(label: str, name: str, arguments: dict[str, Any]) -> str:
        t0 = time.perf_counter()
        result = await client.call_tool(name, arguments)
        t1 = time.perf_counter()
        calls.append({"tool": label, "t0": t0 * 1000, "t1": t1 * 1000, "ms": (t1 - t0) * 1000, "error": bool(result.is_error)})
        return "\n".join(getattr(c, "text", "") for c in result.content)

    await call("browser_navigate", "browser_navigate", {"url": url})
    refs = re.findall(r"@e\d+", await call("page_find", "page_find", {"name": "Add a card"}))
    await call("page_click (first after the load)", "page_click", {"ref": refs[0]})
    await call("page_click (a later one)", "page_click", {"ref": refs[1]})
    return calls


async def session(root: Path, site_url: str, cards: int, work: Path, spans: Path, *, unmapped: bool = False) -> dict[str, Any]:
    """One fresh traced server: navigate to the board, add a card (``unmapped``: two clicks by ref); the calls' client times."""
    import bench_peers as bp
    from mcp import Client

    url = bp.board_url(site_url, cards)
    params = bp.server_params("mcp-actions", Path("/nonexistent"), bp.shutil.which("chromium") or "/usr/bin/chromium", work, bp.board_map(root, bp.site_origin(site_url), work), source=root)
    env = {**(params.env or {}), "PHASES_OUT": str(spans)}
    params = params.model_copy(update={"args": [str(Path(__file__).resolve()), "serve", *params.args[3:]], "env": env})
    await bp.wait_for_quiet(params.args[params.args.index("--browser-path") + 1])
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        await client.list_tools()
        await bp.wait_for_runtime(client)
        calls = []
        if unmapped:
            calls = await _unmapped_calls(client, url)
        for name, arguments in () if unmapped else (("browser_navigate", {"url": url}), ("board_add_card", {"list": bp.LIST, "title": bp.TITLE})):
            t0 = time.perf_counter()
            result = await client.call_tool(name, arguments)
            t1 = time.perf_counter()
            calls.append({"tool": name, "t0": t0 * 1000, "t1": t1 * 1000, "ms": (t1 - t0) * 1000, "error": bool(result.is_error)})
        await asyncio.sleep(0.3)  # the spans of what the answer set off
    return {"cards": cards, "load_1m": os.getloadavg()[0], "calls": calls}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import bench_peers as bp

    from mcp_actions.demo.static import StaticSite

    report: dict[str, Any] = {"sizes": {}}
    with tempfile.TemporaryDirectory(prefix="bench-phases-") as folder, StaticSite(bp.board_site(Path(folder), args.cards)) as site:
        work = Path(folder)
        for cards in args.cards:
            sessions, by_tool = [], defaultdict(lambda: defaultdict(list))  # type: ignore[var-annotated]
            for n in range(args.sessions):
                spans_file = work / f"spans-{cards}-{n}.jsonl"
                done = await session(args.root, site.url, cards, work, spans_file, unmapped=args.unmapped)
                spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
                for call in done["calls"]:
                    for key, value in phases(call, spans).items():
                        by_tool[call["tool"]][key].append(value)
                sessions.append({**done, "spans": spans})
                print(f"cards={cards} session={n + 1} " + " ".join(f"{c['tool']}={c['ms']:.0f} ms" for c in done["calls"]) + f" load={done['load_1m']:.1f}", file=sys.stderr)
            medians = {tool: {k: round(statistics.median(v), 1) for k, v in figures.items()} for tool, figures in by_tool.items()}
            report["sizes"][str(cards)] = {"medians_ms": medians, "sessions": sessions}
            print(f"\n{cards} cards, medians of {args.sessions} sessions (ms):")
            for tool, figures in medians.items():
                print(f"  {tool}")
                for key, value in figures.items():
                    print(f"    {key:42} {value:8.1f}")
    return report


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        return serve(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, nargs="+", default=[4, 300, 3000])
    parser.add_argument("--sessions", type=int, default=5, help="fresh traced servers per card count")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="the mcp-actions tree to trace")
    parser.add_argument("--out", type=Path, help="write every span and the medians here (JSON)")
    parser.add_argument("--unmapped", action="store_true", help="no map: the first page_click after the load beside a later one (issue 55)")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.out is not None:
        args.out.write_text(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
