"""The first time against every later time (issue 31): page tools and actions_save_tool, then the saved tool.

For each task on a page written by others (``bench/pages/``: TodoMVC in React, Vue,
AngularJS and plain JS; Chrome Labs' WebMCP bistro booking form; MiniWoB++'s login form;
DataTables' table), with no map:

- **first time**, one cold mcp-actions process: the agent reads and acts with the page
  tools (refs taken from the answers' text), answers the task, and saves what it did with
  ``actions_save_tool`` (each typed value or row text named as a parameter);
- **later time**, a new cold process on the same learned-maps folder (the saved map is
  loaded at start): ``browser_navigate``, the saved tool(s) with other values where the task
  allows, and a read of the page only when the tools' answers do not hold what the task asks
  (a learned tool answers what its call changed, as the acting page tools do: the lines that
  appeared and went).

Success is the answer being right in both. Figures per session: calls, bytes to the model
(every text item plus ``structuredContent``, as ``bench_peers.result_bytes`` counts them),
time; the first time is also given without its ``actions_save_tool`` calls (what reading
and clicking alone cost). Results: ``bench/results/learned-<date>-<commit>.json``.

Command: ``.venv/bin/python bench/bench_learned.py`` (``--runs 3``, ``--only todo-react``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_open_web
from open_web_kit import Agent, TaskFailed, build_site, install_peers, open_session, ref_in

from mcp_actions.demo.static import StaticSite

__all__ = ["LEARN_TASKS", "main"]

First = Callable[[Agent, str], Awaitable[str]]
Later = Callable[[Agent, str, dict[str, str]], Awaitable[str]]


@dataclass
class LearnTask:
    """A task done once with the page tools and saved, then again with the saved tools."""

    name: str
    page: str
    goal: str
    first: First
    later: Later
    expect_first: str
    expect_later: str


def _need(ref: str | None, what: str) -> str:
    if ref is None:
        raise TaskFailed(f"no {what}")
    return ref


async def _save(a: Agent, name: str, description: str, parameters: dict[str, str], steps: int | None = None) -> str:
    """actions_save_tool; the MCP name of the saved tool."""
    arguments: dict[str, Any] = {"name": name, "description": description, "parameters": parameters}
    if steps is not None:
        arguments["steps"] = steps
    return str(json.loads(await a.call("actions_save_tool", arguments))["tool"])


# To-do apps: add a todo, complete it, say how many are left. Saved as todos.add(title), todos.toggle(title).


async def todo_first(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    box = _need(ref_in(await a.call("page_read", {}), r'textbox "What needs to be done'), "new todo box")
    await a.call("page_fill", {"ref": box, "text": "Buy milk"})
    await a.call("page_press", {"ref": box, "key": "Enter"})
    await _save(a, "todos.add", "Add a todo with this title.", {"title": "Buy milk"})
    checkbox = _need(ref_in(await a.call("page_find", {"text": "Buy milk", "role": "checkbox"}), r"checkbox"), "checkbox")
    answer = await a.call("page_click", {"ref": checkbox})
    await _save(a, "todos.toggle", "Mark the todo with this title done (or not done).", {"title": "Buy milk"}, steps=1)
    return answer


async def answered(a: Agent, answers: list[str], wanted: str) -> str:
    """The tools' answers when they say what the task asks (``wanted``), else the page read once: what an agent does."""
    joined = "\n".join(answers)
    if re.search(wanted, joined):
        return joined
    return await a.call("page_read", {})


async def todo_later(a: Agent, url: str, tools: dict[str, str]) -> str:
    await a.call("browser_navigate", {"url": url})
    added = await a.call(tools["todos.add"], {"title": "Walk the dog"})
    toggled = await a.call(tools["todos.toggle"], {"title": "Walk the dog"})
    return await answered(a, [added, toggled], r"Walk the dog[\s\S]*\d+ items? left")


# A form (Chrome Labs' WebMCP bistro): book a table; saved as bistro.book(name, phone, date, time, guests).

BOOK_FIRST = {"name": "Ada Lovelace", "phone": "0123456789", "date": "2026-12-24", "time": "19:30", "guests": "4"}
BOOK_LATER = {"name": "Grace Hopper", "phone": "0987654321", "date": "2027-01-15", "time": "20:00", "guests": "2"}


async def bistro_first(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    await a.call("page_fill", {"text": "Full name", "value": BOOK_FIRST["name"]})
    await a.call("page_fill", {"text": "Phone", "value": BOOK_FIRST["phone"]})
    await a.call("page_fill", {"text": "Date", "value": BOOK_FIRST["date"]})
    await a.call("page_select", {"text": "Time", "values": [BOOK_FIRST["time"]]})
    await a.call("page_select", {"text": "Guests", "values": [BOOK_FIRST["guests"]]})
    answer = await a.call("page_click", {"text": "Request booking"})
    if "Booked" not in answer:  # the click answered while the page still said "Checking availability…": look again
        answer = await a.call("page_read", {})
    await _save(a, "bistro.book", "Book a table at Le Petit Bistro.", BOOK_FIRST)
    return answer


async def bistro_later(a: Agent, url: str, tools: dict[str, str]) -> str:
    await a.call("browser_navigate", {"url": url})
    answer = await answered(a, [await a.call(tools["bistro.book"], BOOK_LATER)], r"Booked: .*Reference")
    for _attempt in range(5):
        if "Booked" in answer:
            break
        # The saved tool returned before the page's round trip answered ("Checking availability…"):
        # look again a little later (the pause is in the time: it is what a missing wait costs).
        await asyncio.sleep(0.1)
        answer = await a.call("page_read", {})
    return answer


# A login form (MiniWoB++ login-user, plain-text labels): saved as login.sign_in(username, password).


async def login_first(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    await a.call("page_fill", {"text": "Username", "value": "kanye"})
    await a.call("page_fill", {"text": "Password", "value": "Ttgh3"})
    answer = await a.call("page_click", {"text": "Login"})
    await _save(a, "login.sign_in", "Log in with a username and password.", {"username": "kanye", "password": "Ttgh3"})
    return answer


async def login_later(a: Agent, url: str, tools: dict[str, str]) -> str:
    await a.call("browser_navigate", {"url": url})
    signed_in = await a.call(tools["login.sign_in"], {"username": "kanye", "password": "Ttgh3"})
    return await answered(a, [signed_in], r"Last reward: \d")


# A table (DataTables): search an employee, read the row; saved as employees.search(query).


async def table_first(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    await a.call("page_fill", {"text": "Search", "value": "Michael Bruce"})
    answer = await a.call("page_read", {})
    await _save(a, "employees.search", "Show only the employees whose row has this text.", {"query": "Michael Bruce"})
    return answer


async def table_later(a: Agent, url: str, tools: dict[str, str]) -> str:
    await a.call("browser_navigate", {"url": url})
    found = await a.call(tools["employees.search"], {"query": "Cedric Kelly"})
    # The row must read as a row (page_read's "| Cedric Kelly | …"): a row that stayed is no change to report.
    return await answered(a, [found], r"\| Cedric Kelly \|")


LEARN_TASKS = [
    *(
        LearnTask(f"todo-{kind}", f"todo-{kind}.html", f"TodoMVC in {label}: add a todo, complete it, say how many are left", todo_first, todo_later, r"0 items left", r"Walk the dog[\s\S]*0 items left")
        for kind, label in (("react", "React 18"), ("vue", "Vue 3"), ("angularjs", "AngularJS 1.8"), ("vanilla", "plain JS"))
    ),
    LearnTask("form-bistro", "bistro.html", "Le Petit Bistro: book a table, say the reference", bistro_first, bistro_later, r"Booked: a table for 4 .*Reference LPB-\d+", r"Booked: a table for 2 on 2027-01-15 at 20:00, under Grace Hopper"),
    LearnTask("form-login", "login.html", "MiniWoB++ login-user: log in", login_first, login_later, r"Last reward: 1\.00", r"Last reward: 1\.00"),
    LearnTask("table", "table.html", "DataTables: search an employee, read the row", table_first, table_later, r"\| Michael Bruce \| System Architect \| London", r"\| Cedric Kelly \|"),
]


@dataclass
class Session:
    ok: bool = False
    answer: str | None = None
    error: str | None = None
    calls: int = 0
    bytes_to_model: int = 0
    task_ms: float = 0.0
    save_calls: int = 0
    save_bytes: int = 0
    tools_list_bytes: int = 0
    call_log: list[dict[str, Any]] = field(default_factory=list)


async def one_session(agent: Agent, script: Callable[[], Awaitable[str]], expect: str, listing: int) -> Session:
    """Run one scripted session, timing it and keeping its figures whatever happens."""
    session = Session(tools_list_bytes=listing)
    started = time.perf_counter()
    try:
        session.answer = await asyncio.wait_for(script(), timeout=120)
        session.ok = re.search(expect, session.answer) is not None
        if not session.ok:
            session.error = f"wrong answer: {session.answer[:300]!r}"
    except (TaskFailed, TimeoutError, KeyError) as exc:
        session.error = str(exc) or type(exc).__name__
    session.task_ms = (time.perf_counter() - started) * 1000
    session.calls, session.bytes_to_model, session.call_log = agent.calls, agent.bytes_to_model, agent.log
    saves = [c for c in agent.log if c["tool"] == "actions_save_tool"]
    session.save_calls, session.save_bytes = len(saves), sum(c["bytes"] for c in saves)
    return session


async def learn_run(task: LearnTask, base_url: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The first time in one process, the later time in a new one on the same learned-maps folder."""
    learned = work / f"learned-{task.name}-{time.monotonic_ns()}"
    url = base_url + task.page
    async with open_session("mcp-actions", args.peers_dir, args.browser_path, work, learned) as (agent, listing):
        first = await one_session(agent, lambda: task.first(agent, url), task.expect_first, listing)
    tools: dict[str, str] = {}
    for path in learned.glob("*.actions.json"):  # the saved map names the tools; MCP names replace dots
        for tool in json.loads(path.read_text()).get("tools", []):
            tools[tool["name"]] = tool["name"].replace(".", "_")
    async with open_session("mcp-actions", args.peers_dir, args.browser_path, work, learned) as (agent, listing):
        later = await one_session(agent, lambda: task.later(agent, url, tools), task.expect_later, listing)
    return {"task": task.name, "first": first.__dict__, "later": later.__dict__, "saved_tools": sorted(tools)}


def summarise(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per task: successes and medians of the first and the later time, and their ratios."""
    rows = []
    for name in dict.fromkeys(r["task"] for r in runs):
        group = [r for r in runs if r["task"] == name]
        good = [r for r in group if r["first"]["ok"] and r["later"]["ok"]]
        row: dict[str, Any] = {"task": name, "runs": len(group), "ok": len(good), "errors": [r["first"]["error"] or r["later"]["error"] for r in group if r not in good]}
        if good:

            def median(part: str, key: str, rows: list[dict[str, Any]] = good) -> float:
                return float(statistics.median(r[part][key] for r in rows))

            row.update(
                first_calls=median("first", "calls"),
                first_bytes=median("first", "bytes_to_model"),
                first_bytes_without_save=statistics.median(r["first"]["bytes_to_model"] - r["first"]["save_bytes"] for r in good),
                first_calls_without_save=statistics.median(r["first"]["calls"] - r["first"]["save_calls"] for r in good),
                first_ms=round(median("first", "task_ms"), 1),
                later_calls=median("later", "calls"),
                later_bytes=median("later", "bytes_to_model"),
                later_ms=round(median("later", "task_ms"), 1),
                later_tools_list_bytes=good[0]["later"]["tools_list_bytes"],
                first_tools_list_bytes=good[0]["first"]["tools_list_bytes"],
            )
            row["later_vs_first"] = {"bytes": round(row["later_bytes"] / row["first_bytes"], 3), "calls": round(row["later_calls"] / row["first_calls"], 3), "time": round(row["later_ms"] / row["first_ms"], 3)}
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| task | success | first time: calls, bytes (without the saves) | time | later time: calls, bytes | time | later / first: bytes, calls, time |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if "first_calls" not in row:
            lines.append(f"| {row['task']} | {row['ok']}/{row['runs']} | failed: {row['errors'][0][:160] if row['errors'] else ''} | | | | |")
            continue
        ratio = row["later_vs_first"]
        lines.append(
            f"| {row['task']} | {row['ok']}/{row['runs']} | {row['first_calls']:g}, {row['first_bytes']:,.0f} B ({row['first_calls_without_save']:g}, {row['first_bytes_without_save']:,.0f} B) | "
            f"{row['first_ms'] / 1000:.2f} s | {row['later_calls']:g}, {row['later_bytes']:,.0f} B | {row['later_ms'] / 1000:.2f} s | "
            f"{ratio['bytes']:.2f}×, {ratio['calls']:.2f}×, {ratio['time']:.2f}× |"
        )
    return "\n".join(lines)


async def run_all(args: argparse.Namespace) -> int:
    install_peers(args.peers_dir)  # bench_peers' server launch expects the peers' folder
    head = bench_open_web.commit()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-learned-") as tmp:
        work = Path(tmp)
        site_dir, page_versions = build_site(work)
        load_before = os.getloadavg()
        chosen = [t for t in LEARN_TASKS if not args.only or t.name in args.only]
        with StaticSite(site_dir) as site:
            for repeat in range(args.runs):
                for task in chosen:
                    run = await learn_run(task, site.url, args, work)
                    runs.append(run)
                    first, later = run["first"], run["later"]
                    status = "ok" if first["ok"] and later["ok"] else f"FAILED: {first['error'] or later['error']}"
                    print(
                        f"{task.name:16} run={repeat + 1} first: {first['calls']} calls {first['bytes_to_model']:,} B {first['task_ms']:.0f} ms; "
                        f"later: {later['calls']} calls {later['bytes_to_model']:,} B {later['task_ms']:.0f} ms; {status[:300]}",
                        file=sys.stderr,
                    )
    rows = summarise(runs)
    report: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "commit": head,
        "machine": bench_open_web.machine(),
        "load_before": load_before,
        "versions": page_versions,
        "tasks": [{"name": t.name, "page": t.page, "goal": t.goal} for t in chosen],
        "summary": rows,
        "runs": runs,
    }
    bench_open_web.write(report, "learned" + ("-only" if args.only else ""), args.no_save)
    print(markdown(rows))
    return 0 if all(r["first"]["ok"] and r["later"]["ok"] for r in runs) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="+", help="only these task names")
    parser.add_argument("--peers-dir", type=Path, default=Path(tempfile.gettempdir()) / "bench-open-web-peers")
    parser.add_argument("--browser-path", default="/usr/bin/chromium")
    parser.add_argument("--no-save", action="store_true")
    return asyncio.run(run_all(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
