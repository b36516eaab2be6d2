"""The open web with no map: mcp-actions's page tools side by side with snapshot servers (issue 30).

Two parts, each a fresh server process per run over stdio (the MCP SDK's ``Client``),
every server driving Debian's Chromium headless with a throwaway profile; mcp-actions
runs with **no map** (no ``--manifests``) and an empty learned-maps folder of its own.

``--part board``: the board of ``bench/board/`` (``/cards/N/``, N = 4, 300, 3,000), task
"add a card 'Buy ladders' to Doing, then say which Doing cards mention ladders":

- @playwright/mcp and chrome-devtools-mcp: ``bench_peers.py``'s own drivers (navigate,
  snapshot, click the Doing list's "+ Add a card" by the ref read from the snapshot text,
  type and submit, snapshot until the card shows), then the answer is read from the last
  snapshot: the cards of the Doing list whose text mentions "ladders";
- mcp-actions: ``browser_navigate``, ``page_read`` (the outline), ``page_find`` the Doing
  list's "Add a card", ``page_click`` it, ``page_find`` the Doing list's text box,
  ``page_fill``, ``page_press`` Enter, and ``page_find {text: "Doing", name: "ladders"}``
  for the answer. Each ref is taken from the previous answer's text.

``--part tasks``: eleven tasks on pages of ``bench/pages/`` that follow pages written by
others (each page's comment names what it follows), and issue 44's fifteen more
(``open_web_tasks_docs.py``: ten questions on Debian's Python 3.11 and PostgreSQL 15 HTML
manuals, the Python docs' own search page, TodoMVC in Knockout, Backbone and Preact,
Bootstrap's checkout form with selects), side by side with @playwright/mcp.
Every scripted agent reads the page once first (a snapshot; ``page_read``), finds each ref
in the text its server returned, acts, and answers from what the tools said; success is
that answer being right (``TASKS`` says what each expects).

``--part miniwob`` (``open_web_miniwob.py``): our pages following 14 public MiniWoB++ tasks
(``bench/pages/miniwob/``), 3 seeds each, both servers; success per episode, bytes per success.

Figures per run: calls, bytes to the model (``bench_peers.result_bytes``: every text item
plus the compact JSON of ``structuredContent``), task time (first task call sent to the
last answer read; the browser is up before, untimed), ``tools/list`` bytes. Results go to
``bench/results/open-web-<part>-<date>-<commit>.json`` and Markdown tables are printed.

Command: ``.venv/bin/python bench/bench_open_web.py --part board --part tasks --part miniwob``
(``--runs 3``; ``--cards 4 300 3000``; ``--only todo-react`` for one task).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_peers
from open_web_kit import ROOT, Agent, Task, TaskFailed, build_site, install_peers, open_session, parse_snapshot, ref_in, scope_of
from open_web_miniwob import miniwob_markdown, run_miniwob, summarise_miniwob
from open_web_tasks_docs import DOC_TASKS, FORM_TASKS

from mcp_actions.demo.static import StaticSite

__all__ = ["TASKS", "main"]

RESULTS = ROOT / "bench" / "results"
PEERS = ("playwright-mcp", "chrome-devtools-mcp")


# -- the board with no map --------------------------------------------------------------


class _Recording(bench_peers.Driver):
    """bench_peers' driver, keeping the text of the last answer (the agent answers from it)."""

    last = ""

    async def call(self, name: str, arguments: dict[str, Any]) -> Any:
        result = await super().call(name, arguments)
        self.last = bench_peers.result_text(result)
        return result


def _doing_cards_mentioning(snapshot: str, word: str) -> list[str]:
    """The titles of the Doing list's cards, in a peer's snapshot, whose line mentions ``word``."""
    scope = bench_peers.list_scope(parse_snapshot(snapshot), bench_peers.LIST)
    if scope is None:
        raise TaskFailed("the last snapshot has no Doing list")
    titles = []
    for node in scope.walk():
        found = re.search(r'link "([^"]+)"', node.line)
        if found and word.lower() in found.group(1).lower():
            titles.append(found.group(1))
    return titles


async def board_actions(agent: Agent, url: str) -> list[str]:
    """The board task through the page tools, each ref read from the previous answer."""
    await agent.call("browser_navigate", {"url": url})
    await agent.call("page_read", {})
    opener = ref_in(await agent.call("page_find", {"text": "Doing", "name": "Add a card"}), r"Add a card.*in: Doing")
    if opener is None:
        raise TaskFailed("page_find gave no Add a card button in Doing")
    clicked = await agent.call("page_click", {"ref": opener})
    # The click's answer names a text box it revealed (issue 44); else it is found.
    box = ref_in(clicked, r"^\+ @e\d+ textbox") or ref_in(await agent.call("page_find", {"text": "Doing", "role": "textbox"}), r"textbox")
    if box is None:
        raise TaskFailed("page_find gave no text box in Doing")
    await agent.call("page_fill", {"ref": box, "value": bench_peers.TITLE, "submit": True})
    found = await agent.call("page_find", {"text": "Doing", "name": "ladders"})
    return [m.group(1) for m in re.finditer(r'link "([^"]+)"[^\n]*in: Doing', found)]


async def board_run(server: str, cards: int, base_url: str, args: argparse.Namespace, work: Path) -> bench_peers.Run:
    """One cold run of the board task on one server."""
    run = bench_peers.Run(server=server, cards=cards)
    url = bench_peers.board_url(base_url, cards)
    async with open_session(server, args.peers_dir, args.browser_path, work, work / f"learned-{time.monotonic_ns()}") as (agent, listing):
        run.tools_list_bytes = listing
        tools = await agent.client.list_tools()
        run.tools = len(tools.tools)
        page_id = 1
        if server == "chrome-devtools-mcp":
            pages = bench_peers.result_text(await agent.client.call_tool("list_pages", {}))
            selected = re.search(r"^(\d+):.*\[selected\]", pages, re.MULTILINE)
            page_id = int(selected.group(1)) if selected else 1
        driver = _Recording(agent.client, run)
        started = time.perf_counter()
        try:
            if server == "playwright-mcp":
                await bench_peers.task_playwright(driver, url)
                answer = _doing_cards_mentioning(driver.last, "ladders")
            elif server == "chrome-devtools-mcp":
                await bench_peers.task_devtools(driver, url, page_id)
                answer = _doing_cards_mentioning(driver.last, "ladders")
            else:
                answer = await board_actions(agent, url)
                run.calls, run.bytes_to_model, run.call_log = agent.calls, agent.bytes_to_model, agent.log
            run.task_ms = (time.perf_counter() - started) * 1000
            run.ok = answer == [bench_peers.TITLE]
            if not run.ok:
                run.error = f"answered {answer}"
        except TaskFailed as exc:
            run.task_ms = (time.perf_counter() - started) * 1000
            if server == "mcp-actions":
                run.calls, run.bytes_to_model, run.call_log = agent.calls, agent.bytes_to_model, agent.log
            run.error = str(exc)
    return run


# -- eleven tasks on pages written by others -----------------------------------------


async def _pw_open(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    return await a.call("browser_snapshot", {})


async def _pw_ref(a: Agent, text: str, pattern: str, scope: str | None = None) -> tuple[str, str]:
    """A ref from the answer in hand, else from a fresh snapshot (the click's answer may not show it)."""
    for attempt in range(2):
        node = scope_of(text, scope) if scope else None
        ref = ref_in(node if scope else text, pattern)
        if ref:
            return ref, text
        if attempt == 0:
            text = await a.call("browser_snapshot", {})
    raise TaskFailed(f"no ref for {pattern!r} in the snapshot")


async def _pw_until(a: Agent, text: str, pattern: str) -> str:
    """The first match of ``pattern`` in the answer in hand or in the next snapshots (the page may answer late)."""
    for _attempt in range(4):
        found = re.search(pattern, text)
        if found:
            return found.group(0)
        text = await a.call("browser_snapshot", {})
    raise TaskFailed(f"{pattern!r} never showed")


async def _ours_until(a: Agent, text: str, pattern: str) -> str:
    """The first match in the acting tool's answer (its change lines), else in page_read's text."""
    for _attempt in range(3):
        found = re.search(pattern, text)
        if found:
            return found.group(0)
        text = await a.call("page_read", {"max_bytes": 20000})
    raise TaskFailed(f"{pattern!r} never showed")


def _need(ref: str | None, what: str) -> str:
    if ref is None:
        raise TaskFailed(f"no {what}")
    return ref


# To-do apps (TodoMVC): add two todos, complete one, say how many are left.

TODOS = ("Buy milk", "Walk the dog")
LEFT = r"\d+\s+items?\s+left"


def _pw_left(text: str) -> str | None:
    """'N items left' from a snapshot, where the count and the words may be separate nodes."""
    flat = re.sub(r"\s+", " ", " ".join(re.sub(r"^- |\[ref=[^\]]+\]|:$|\"", " ", line.strip()) for line in text.splitlines()))
    found = re.search(r"(\d+)\s*(?:strong\s*)?(?:text\s*)?(items? left)", flat.replace(": ", " "))
    return f"{found.group(1)} {found.group(2)}" if found else None


async def todo_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    box, text = await _pw_ref(a, text, r'textbox "What needs to be done\?"')
    for title in TODOS:
        text = await a.call("browser_type", {"element": "new todo box", "target": box, "text": title, "submit": True})
    if not re.search(rf"listitem[\s\S]*{TODOS[1]}", text):  # the answer did not show the list: look
        text = await a.call("browser_snapshot", {})
    # the checkbox of the list item that says the first todo
    node = next((n for n in parse_snapshot(text).walk() if n.line.startswith("- listitem") and any(TODOS[0] in c.line for c in [n, *n.walk()])), None)
    checkbox = _need(ref_in(node, r"checkbox"), f"checkbox of {TODOS[0]!r}")
    text = await a.call("browser_click", {"element": f"checkbox of {TODOS[0]}", "target": checkbox})
    for _attempt in range(3):
        left = _pw_left(text)
        if left:
            return left
        text = await a.call("browser_snapshot", {})
    raise TaskFailed("no 'items left' in the snapshot")


async def todo_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    box = _need(ref_in(await a.call("page_read", {}), r'textbox "What needs to be done'), "new todo box")
    # One call adds both (page_fill submit presses Enter) and ticks the first by its text (issue 44: page_act).
    steps = [{"tool": "page_fill", "arguments": {"ref": box, "value": title, "submit": True}} for title in TODOS]
    acted = await a.call("page_act", {"steps": [*steps, {"tool": "page_click", "arguments": {"text": TODOS[0]}}]})
    if "failed:" in acted:  # the text named no one element: find the row's checkbox
        checkbox = _need(ref_in(await a.call("page_find", {"text": TODOS[0], "role": "checkbox"}), r"checkbox"), "checkbox")
        acted = await a.call("page_click", {"ref": checkbox})
    return await _ours_until(a, acted, LEFT)


# Chrome Labs' WebMCP demo (Le Petit Bistro): book through the form, WebMCP tools unused.

BOOKING = {"Full name": "Ada Lovelace", "Phone": "0123456789", "Date": "2026-12-24"}
BOOKED = r"Booked: a table for 4 on 2026-12-24 at 19:30, under Ada Lovelace\. Reference LPB-\d+"


async def bistro_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    fields = [{"name": label, "type": "textbox", "target": _need(ref_in(text, rf'textbox "{label}"'), label), "value": value} for label, value in BOOKING.items()]
    fields.append({"name": "Time", "type": "combobox", "target": _need(ref_in(text, r'combobox "Time"'), "Time"), "value": "19:30"})
    fields.append({"name": "Guests", "type": "combobox", "target": _need(ref_in(text, r'combobox "Guests"'), "Guests"), "value": "4"})
    await a.call("browser_fill_form", {"fields": fields})
    button = _need(ref_in(text, r'button "Request booking"'), "Request booking")
    return await _pw_until(a, await a.call("browser_click", {"element": "Request booking", "target": button}), BOOKED)


async def bistro_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    # The form read, it is filled and sent in one call (page_act).
    steps = [{"tool": "page_fill", "arguments": {"text": label, "value": value}} for label, value in BOOKING.items()]
    steps += [{"tool": "page_select", "arguments": {"text": label, "values": [value]}} for label, value in (("Time", "19:30"), ("Guests", "4"))]
    steps.append({"tool": "page_click", "arguments": {"text": "Request booking"}})
    return await _ours_until(a, await a.call("page_act", {"steps": steps}), BOOKED)


# A long article (Wikipedia layout): one fact in the middle of the History section.

OPENED = r"opened to traffic on \d+ \w+ \d{4}"


async def article_playwright(a: Agent, url: str) -> str:
    return await _pw_until(a, await _pw_open(a, url), OPENED)


async def article_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    # The agent knows the words it looks for: page_find answers the sentence that holds them (a paragraph
    # named by the words around the match); the article is read page by page only when that finds nothing.
    found = re.search(OPENED, await a.call("page_find", {"text": "opened to traffic"}))
    if found:
        return found.group(0)
    text = await a.call("page_read", {})
    for _page in range(20):
        found = re.search(OPENED, text)
        if found:
            return found.group(0)
        more = re.search(r'page_read (\{"cursor": "[^"]+"\})\]\s*$', text)
        if more is None:
            break
        text = await a.call("page_read", json.loads(more.group(1)))
    raise TaskFailed("read the whole article without finding when it opened")


# A data table (DataTables' zero-configuration example): one employee's office and salary.

EMPLOYEE = "Michael Bruce"


async def table_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    cell = scope_of(text, rf'cell "{EMPLOYEE}"')  # the row is its cells: read the row around the name's cell
    row = cell.parent if cell is not None else None
    return " | ".join(re.sub(r" \[ref=[^\]]+\]", "", n.line) for n in row.walk()) if row else _need(None, f"row of {EMPLOYEE}")


async def table_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    text = await a.call("page_read", {})
    if EMPLOYEE not in text:
        # The table is cut after 20 rows: find the row by its text (page_find matches a row's text
        # with role "row"), and read the rest of the table only when that finds nothing.
        more = re.search(r'more rows: page_read (\{"ref":\s*"@e\d+"\})', text)
        text = await a.call("page_find", {"text": EMPLOYEE, "role": "row"})
        if EMPLOYEE not in text and more is not None:
            text = await a.call("page_read", json.loads(more.group(1)))
    line = next((line for line in text.splitlines() if EMPLOYEE in line), None)
    return _need(line, f"row of {EMPLOYEE}")


# MiniWoB++-style episodes: login-user, click-button behind a START cover, use-autocomplete.

REWARD = r"Last reward: 1\.00[^\n\"]*"


async def login_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    values = {"Username": "kanye", "Password": "Ttgh3"}
    fields = []
    for label, value in values.items():
        # The field has no name: the agent takes the text box in the paragraph that says the label.
        node = scope_of(text, rf"paragraph[^\n]*{label}|- text: {label}")
        ref = ref_in(node, r"textbox") if node is not None else None
        if ref is None and node is not None and node.parent is not None:
            ref = ref_in(node.parent, r"textbox")
        fields.append({"name": label, "type": "textbox", "target": _need(ref, f"{label} box"), "value": value})
    await a.call("browser_fill_form", {"fields": fields})
    button = _need(ref_in(text, r'button "Login"'), "Login")
    return await _pw_until(a, await a.call("browser_click", {"element": "Login", "target": button}), REWARD)


async def login_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    steps = [{"tool": "page_fill", "arguments": {"text": "Username", "value": "kanye"}}, {"tool": "page_fill", "arguments": {"text": "Password", "value": "Ttgh3"}}]
    return await _ours_until(a, await a.call("page_act", {"steps": [*steps, {"tool": "page_click", "arguments": {"text": "Login"}}]}), REWARD)


async def start_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    cover = _need(ref_in(text, r"START"), "START")
    text = await a.call("browser_click", {"element": "START", "target": cover})
    button, text = await _pw_ref(a, text, r'button "Previous"')
    return await _pw_until(a, await a.call("browser_click", {"element": "Previous", "target": button}), REWARD)


async def start_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    # The task names the button: START then it, in one call.
    steps = [{"tool": "page_click", "arguments": {"text": "START"}}, {"tool": "page_click", "arguments": {"text": "Previous"}}]
    return await _ours_until(a, await a.call("page_act", {"steps": steps}), REWARD)


async def autocomplete_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    box = _need(ref_in(text, r'textbox "Tags'), "Tags box")
    text = await a.call("browser_type", {"element": "Tags", "target": box, "text": "Ban", "slowly": True})
    item, text = await _pw_ref(a, text, r"\bBanana\b")
    await a.call("browser_click", {"element": "Banana", "target": item})
    submit = _need(ref_in(text, r'button "Submit"'), "Submit")
    return await _pw_until(a, await a.call("browser_click", {"element": "Submit", "target": submit}), REWARD)


async def autocomplete_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    # Type, pick the suggestion the task names, submit: one call (a step's element is found when it runs).
    steps = [{"tool": "page_fill", "arguments": {"text": "Tags", "value": "Ban"}}, {"tool": "page_click", "arguments": {"text": "Banana"}}, {"tool": "page_click", "arguments": {"text": "Submit"}}]
    return await _ours_until(a, await a.call("page_act", {"steps": steps}), REWARD)


# A modal dialog (WAI-ARIA APG example): add a delivery address through it.

ADDRESS = {"Street": "221B Baker Street", "City": "London", "Zip": "NW1 6XE"}
ADDED = r"221B Baker Street, London NW1 6XE"


async def modal_playwright(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    opener = _need(ref_in(text, r'button "Add Delivery Address"'), "Add Delivery Address")
    text = await a.call("browser_click", {"element": "Add Delivery Address", "target": opener})
    _street, text = await _pw_ref(a, text, r'textbox "Street')
    fields = [{"name": k, "type": "textbox", "target": _need(ref_in(text, rf'textbox "{k}'), k), "value": v} for k, v in ADDRESS.items()]
    await a.call("browser_fill_form", {"fields": fields})
    add = _need(ref_in(text, r'button "Add"'), "Add")
    return await _pw_until(a, await a.call("browser_click", {"element": "Add", "target": add}), ADDED)


async def modal_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    await a.call("page_click", {"text": "Add Delivery Address"})
    # The dialog's fields are known once it opened: filled and added in one call.
    steps = [{"tool": "page_fill", "arguments": {"text": label, "value": value}} for label, value in ADDRESS.items()]
    return await _ours_until(a, await a.call("page_act", {"steps": [*steps, {"tool": "page_click", "arguments": {"text": "Add"}}]}), ADDED)


TASKS = [
    *(
        Task(f"todo-{kind}", f"todo-{kind}.html", f"TodoMVC in {label}: add 'Buy milk' and 'Walk the dog', complete 'Buy milk', say how many are left", ["1 item left"], todo_playwright, todo_actions)
        for kind, label in (("react", "React 18"), ("vue", "Vue 3"), ("angularjs", "AngularJS 1.8"), ("vanilla", "plain JS"), ("knockout", "Knockout 3.5"), ("backbone", "Backbone 1.6"), ("preact", "Preact with htm"))
    ),
    Task("webmcp-bistro", "bistro.html", "Le Petit Bistro (WebMCP demo, tools unused): book a table for 4 on 2026-12-24 at 19:30, say the reference", ["LPB-2226"], bistro_playwright, bistro_actions),
    Task("article", "article.html", "long article: when did the bridge open to traffic?", ["14 May 1889"], article_playwright, article_actions),
    Task("table", "table.html", "data table (57 rows): Michael Bruce's office and salary", ["London", "$947,050"], table_playwright, table_actions),
    Task("login", "login.html", "MiniWoB++ login-user: fields labelled by plain text, log in", ["Last reward: 1.00"], login_playwright, login_actions),
    Task("modal", "modal.html", "APG modal dialog: add a delivery address through the dialog", ["221B Baker Street, London NW1 6XE"], modal_playwright, modal_actions),
    Task("autocomplete", "autocomplete.html", "MiniWoB++ use-autocomplete (jQuery UI): pick 'Banana' after typing 'Ban', submit", ["Last reward: 1.00 (Banana)"], autocomplete_playwright, autocomplete_actions),
    Task("start-cover", "click-start.html", "MiniWoB++ click-button behind a START cover: click 'Previous'", ["Last reward: 1.00"], start_playwright, start_actions),
    *FORM_TASKS,
    *DOC_TASKS,
]


@dataclass
class TaskRun:
    task: str
    server: str
    ok: bool = False
    answer: str | None = None
    error: str | None = None
    calls: int = 0
    bytes_to_model: int = 0
    task_ms: float = 0.0
    tools_list_bytes: int = 0
    call_log: list[dict[str, Any]] = field(default_factory=list)


async def task_run(task: Task, server: str, base_url: str, args: argparse.Namespace, work: Path) -> TaskRun:
    """One cold run of one task on one server."""
    run = TaskRun(task.name, server)
    async with open_session(server, args.peers_dir, args.browser_path, work, work / f"learned-{time.monotonic_ns()}") as (agent, listing):
        run.tools_list_bytes = listing
        script = task.playwright if server == "playwright-mcp" else task.actions
        started = time.perf_counter()
        try:
            run.answer = await asyncio.wait_for(script(agent, base_url + task.page), timeout=120)
            run.ok = all(word in run.answer for word in task.expect)
            if not run.ok:
                run.error = f"wrong answer: {run.answer!r}"
        except (TaskFailed, TimeoutError) as exc:
            run.error = str(exc) or type(exc).__name__
        run.task_ms = (time.perf_counter() - started) * 1000
        run.calls, run.bytes_to_model, run.call_log = agent.calls, agent.bytes_to_model, agent.log
    return run


# -- report ---------------------------------------------------------------------------


def summarise_tasks(runs: list[TaskRun]) -> list[dict[str, Any]]:
    """Per task and server: successes, and the medians of the successful runs; ratios against the peer."""
    rows: list[dict[str, Any]] = []
    for task, server in dict.fromkeys((r.task, r.server) for r in runs):
        group = [r for r in runs if (r.task, r.server) == (task, server)]
        good = [r for r in group if r.ok]
        row: dict[str, Any] = {"task": task, "server": server, "runs": len(group), "ok": len(good), "errors": [r.error for r in group if not r.ok]}
        if good:
            row.update(
                calls=statistics.median(r.calls for r in good),
                bytes_to_model=statistics.median(r.bytes_to_model for r in good),
                task_ms_median=round(statistics.median(r.task_ms for r in good), 1),
                task_ms_min=round(min(r.task_ms for r in good), 1),
                task_ms_max=round(max(r.task_ms for r in good), 1),
            )
        rows.append(row)
    for row in rows:
        peer = next((p for p in rows if p["task"] == row["task"] and p["server"] == "playwright-mcp" and p.get("calls") is not None), None)
        if row["server"] == "mcp-actions" and peer and row.get("calls") is not None:
            row["vs_playwright"] = {"bytes": round(row["bytes_to_model"] / peer["bytes_to_model"], 3), "time": round(row["task_ms_median"] / peer["task_ms_median"], 3)}
    return rows


def tasks_markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| task | server | success | calls | bytes to the model | task time median (min–max) |", "|---|---|---:|---:|---:|---:|"]
    for row in rows:
        if row.get("calls") is None:
            lines.append(f"| {row['task']} | {row['server']} | {row['ok']}/{row['runs']} | | | failed: {row['errors'][0][:120]} |")
            continue
        ratio = row.get("vs_playwright")
        size = f"{row['bytes_to_model'] / 1000:.1f} KB" + (f" = {ratio['bytes']:.2f}×" if ratio else "")
        timing = f"{row['task_ms_median'] / 1000:.2f} s ({row['task_ms_min'] / 1000:.2f}–{row['task_ms_max'] / 1000:.2f})" + (f" = {ratio['time']:.2f}×" if ratio else "")
        lines.append(f"| {row['task']} | {row['server']} | {row['ok']}/{row['runs']} | {row['calls']:g} | {size} | {timing} |")
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """What the figures were measured on, and how busy it was (other engineers' Chromium tests)."""
    chromium = subprocess.run(["chromium", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "node": node, "chromium": chromium, "load_average": os.getloadavg(), "others_running": others_running()}


def others_running() -> dict[str, int]:
    """How many processes of other work share the machine: Chromium, pytest, node (a rough picture of the load)."""
    counts = {"chromium": 0, "pytest": 0, "node": 0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        for name in counts:
            if name in command.split(" ", 2)[0] or (name == "pytest" and " pytest" in command):
                counts[name] += 1
    return counts


def commit() -> str:
    """The commit as the runs start, ``-dirty`` when tracked files differ (other engineers edit the tree)."""
    head = bench_peers._git("rev-parse", "--short", "HEAD")
    return head + ("-dirty" if bench_peers._git("status", "--porcelain", "--untracked-files=no") else "")


def _report(head: str, load_before: Any, versions: dict[str, Any], summary: Any, runs: list[Any], **about: Any) -> dict[str, Any]:
    """A part's saved result: when, which tree, the machine, the versions, the summary and every run (plus ``about``)."""
    return {
        "date": datetime.date.today().isoformat(),
        "commit": head,
        **about,
        "machine": machine(),
        "load_before": load_before,
        "versions": versions,
        "summary": summary,
        "runs": [r.__dict__ for r in runs],
    }


def write(report: dict[str, Any], name: str, no_save: bool) -> None:
    if no_save:
        return
    report["load_after"], report["others_running_after"] = os.getloadavg(), others_running()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}-{report['date']}-{report['commit']}.json"
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)


async def run_parts(args: argparse.Namespace) -> int:
    # The peers are installed only when a part runs one (--servers mcp-actions: our side alone, for bytes).
    versions: dict[str, str] = install_peers(args.peers_dir) if set(args.servers) - {"mcp-actions"} else {}
    head = commit()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="bench-open-web-") as tmp:
        work = Path(tmp)
        if "board" in args.part:
            board_runs: list[bench_peers.Run] = []
            load_before = os.getloadavg()
            with StaticSite(bench_peers.board_site(work, args.cards)) as site:
                for cards in args.cards:
                    for repeat in range(args.runs):
                        for server in args.servers:
                            run = await board_run(server, cards, site.url, args, work)
                            board_runs.append(run)
                            print(f"board {server:20} cards={cards:<5} run={repeat + 1} calls={run.calls} bytes={run.bytes_to_model:>9,} task={run.task_ms:7.0f} ms {'ok' if run.ok else 'FAILED: ' + str(run.error)}", file=sys.stderr)
            rows = bench_peers.summarise(board_runs)
            failures += sum(not r.ok for r in board_runs)
            report = _report(
                head,
                load_before,
                versions,
                rows,
                board_runs,
                task="add a card 'Buy ladders' to Doing, then say which Doing cards mention ladders; mcp-actions with no map (page tools)",
            )
            write(report, "open-web-board", args.no_save)
            print(bench_peers.markdown(rows, versions))
        if "tasks" in args.part:
            site_dir, page_versions = build_site(work)
            task_runs: list[TaskRun] = []
            load_before = os.getloadavg()
            chosen = [t for t in TASKS if not args.only or t.name in args.only]
            with StaticSite(site_dir) as site:
                for repeat in range(args.runs):
                    for task in chosen:
                        for server in [s for s in ("playwright-mcp", "mcp-actions") if s in args.servers]:
                            one = await task_run(task, server, site.url, args, work)
                            task_runs.append(one)
                            print(f"{task.name:14} {server:15} run={repeat + 1} calls={one.calls} bytes={one.bytes_to_model:>8,} task={one.task_ms:6.0f} ms {'ok' if one.ok else 'FAILED: ' + str(one.error)[:200]}", file=sys.stderr)
            rows = summarise_tasks(task_runs)
            failures += sum(not r.ok for r in task_runs)
            report = _report(
                head,
                load_before,
                {**versions, **page_versions},
                rows,
                task_runs,
                tasks=[{"name": t.name, "page": t.page, "goal": t.goal, "expect": t.expect} for t in chosen],
            )
            write(report, "open-web-tasks" + ("-only" if args.only else ""), args.no_save)
            print(tasks_markdown(rows))
        if "miniwob" in args.part:
            site_dir, page_versions = build_site(work)
            load_before = os.getloadavg()
            with StaticSite(site_dir) as site:
                episodes = await run_miniwob(site.url, args, work)
            mini_rows = summarise_miniwob(episodes)
            failures += sum(not e.ok for e in episodes)
            report = _report(head, load_before, {**versions, **page_versions}, mini_rows, episodes)
            write(report, "open-web-miniwob" + ("-only" if args.only else ""), args.no_save)
            print(miniwob_markdown(mini_rows))
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", action="append", choices=["board", "tasks", "miniwob"], help="board, tasks, miniwob (repeatable; default all three)")
    parser.add_argument("--cards", type=int, nargs="+", default=[4, 300, 3000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--servers", nargs="+", default=["playwright-mcp", "chrome-devtools-mcp", "mcp-actions"], help="which servers run (the tasks part runs playwright-mcp and mcp-actions of them)")
    parser.add_argument("--only", nargs="+", help="tasks and miniwob parts: only these task names")
    parser.add_argument("--peers-dir", type=Path, default=Path(tempfile.gettempdir()) / "bench-open-web-peers", help="where the npm peers are installed and kept")
    parser.add_argument("--browser-path", default="/usr/bin/chromium")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    args.part = args.part or ["board", "tasks", "miniwob"]
    return asyncio.run(run_parts(args))


if __name__ == "__main__":
    raise SystemExit(main())
