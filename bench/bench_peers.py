"""Side by side: one board task through mcp-actions, @playwright/mcp and chrome-devtools-mcp.

The task is "add card 'Buy ladders' to Doing and confirm it" on the board in
``bench/board/`` (served on loopback at ``/cards/N/``, which seeds N cards),
driven the way an agent drives each server:

- the peers: navigate, take a snapshot, find the refs it needs by reading the
  snapshot text (the "+ Add a card" button of the Doing list, then the card
  title box), click and type by ref, and read a snapshot again until the new
  card shows in the Doing list;
- mcp-actions: ``browser_navigate`` to the board page, then the board map's
  ``board_add_card`` (and ``board_find_cards`` only when add_card's answer
  does not show the card), the tools its ``tools/list`` offers. The map's
  ``surface.origin`` names the served site's origin only (``http://127.0.0.1:PORT``,
  set per run, no path): an origin says which site the tools belong to, not
  the page they work on, so the server lists ``browser_navigate`` beside
  them and the agent reaches the board with it, as on any real site. (The
  server would open the origin's front page by itself for a first call
  that finds no tab on the site; that is not the board, and an agent that
  knows its page goes there first.) ``--map-without-site`` serves the map
  with no ``surface.origin`` at all, a map written for any page: the calls
  and the ``tools/list`` are the same (the server lists ``browser_navigate``
  either way); what differs is inside the server, which routes the map's
  calls to a tab on its origin in the first case and to any tab (the only
  one, or the active one) in the second. A tree given with ``--actions-root`` that does not list
  ``browser_navigate`` (one from before it was always listed) gets the same
  calls: an unlisted built-in still answers by name.

Every run starts a fresh server process (cold) over stdio with the MCP SDK's
``Client``. The browser is up before the clock starts: mcp-actions launches
it at start (``--browser launch``); each peer gets one untimed call that
makes it launch its browser (``browser_tabs list`` / ``list_pages``), and for
mcp-actions the untimed wait is for ``actions://runtimes`` to list the tab. All
three drive Debian's Chromium, headless, with a throwaway profile.

Measured per run: calls, bytes returned to the model (the text of every
content item plus the JSON of ``structuredContent``, for every call of the
task), task time (first task call sent to last answer read), the
``tools/list`` size (compact JSON of the tools array) and the time from
spawning the process to the first ``tools/list`` answer.

The peers are installed from the npm registry into a temporary folder
(``--peers-dir`` keeps and reuses one). Results go to
``bench/results/peers-<date>-<commit>.json`` and a Markdown table is printed.

Command: ``.venv/bin/python bench/bench_peers.py`` (``--cards 4 300 3000 --runs 5``; ``--save-ms 150``:
the board app waits 150 ms before a save shows, a slower backend; the page's default is 40 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_actions.demo.static import StaticSite

__all__ = ["main"]

BOARD_DIR = ROOT / "bench" / "board"
RESULTS_DIR = ROOT / "bench" / "results"
PEER_PACKAGES = {"playwright-mcp": "@playwright/mcp", "chrome-devtools-mcp": "chrome-devtools-mcp"}
LIST, TITLE = "Doing", "Buy ladders"


# -- sizes --------------------------------------------------------------------


def _compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def result_bytes(result: Any) -> int:
    """Bytes a host hands the model for one call result: every text item plus structuredContent."""
    size = 0
    for item in result.content:
        text = getattr(item, "text", None)
        if text is not None:
            size += len(text.encode())
        elif getattr(item, "data", None) is not None:  # images, audio: their base64 payload
            size += len(item.data.encode())
    if result.structured_content is not None:
        size += len(_compact(result.structured_content))
    return size


def result_text(result: Any) -> str:
    return "\n".join(getattr(item, "text", "") or "" for item in result.content)


def tools_list_bytes(listing: Any) -> int:
    """The tools array as compact JSON, the way it crosses the wire."""
    return len(_compact([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listing.tools]))


#: What a host hands its model of each tool (Anthropic's tool format takes these three; title,
#: outputSchema, annotations and _meta stay with the host).
MODEL_FACING = ("name", "description", "inputSchema")


def model_facing_bytes(listing: Any) -> int:
    """The part of the tools array a host hands its model (``MODEL_FACING``), as compact JSON."""
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listing.tools]
    return len(_compact([{key: tool[key] for key in MODEL_FACING if key in tool} for tool in tools]))


# -- reading snapshots like an agent ------------------------------------------------


@dataclass
class Node:
    """One line of an indented accessibility snapshot, with its children."""

    indent: int
    line: str
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)

    def walk(self) -> Any:
        for child in self.children:
            yield child
            yield from child.walk()


def parse_snapshot(text: str) -> Node:
    """Both peers print their snapshot as an indented tree; rebuild it."""
    root = Node(-1, "")
    stack = [root]
    for raw in text.splitlines():
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack[-1].indent >= indent:
            stack.pop()
        node = Node(indent, raw.strip(), parent=stack[-1])
        stack[-1].children.append(node)
        stack.append(node)
    return root


def list_scope(root: Node, name: str) -> Node | None:
    """The subtree of the board list called ``name``: a region of that name, or the parent of its heading."""
    region = re.compile(rf'\bregion "{re.escape(name)}"')
    heading = re.compile(rf'\bheading "{re.escape(name)} \d')
    for node in root.walk():
        if region.search(node.line):
            return node
        if heading.search(node.line) and node.parent is not None:
            return node.parent
    return None


def find_ref(scope: Node | None, pattern: str) -> str | None:
    """The ref (playwright-mcp ``[ref=e12]``) or uid (chrome-devtools-mcp ``uid=1_12``) of the first match."""
    if scope is None:
        return None
    wanted = re.compile(pattern)
    for node in scope.walk():
        if wanted.search(node.line):
            found = re.search(r"\[ref=([^\]]+)\]", node.line) or re.search(r"\buid=(\S+)", node.line)
            if found:
                return found.group(1)
    return None


def shows_card(text: str) -> bool:
    """Whether the Doing list in this snapshot holds the new card."""
    scope = list_scope(parse_snapshot(text), LIST)
    return scope is not None and any(f'"{TITLE}"' in node.line for node in scope.walk())


# -- one run ------------------------------------------------------------------------


class TaskFailed(Exception):
    """The agent could not finish the task (a ref was missing or the card never showed)."""


@dataclass
class Run:
    server: str
    cards: int
    calls: int = 0
    bytes_to_model: int = 0
    task_ms: float = 0.0
    tools_list_bytes: int = 0
    tools: int = 0
    #: The model-facing part of tools/list (``model_facing_bytes``) at start, and after the task (on the
    #: board page, where a server may list more: mcp-actions lists page_read on a mapped page).
    model_facing_bytes: int = 0
    model_facing_bytes_on_page: int = 0
    tools_on_page: int = 0
    #: The machine's 1-minute load average as the run started (2 shared cores: other engineers' runs).
    load_1m: float = 0.0
    start_to_tools_list_ms: float = 0.0
    ok: bool = False
    error: str | None = None
    call_log: list[dict[str, Any]] = field(default_factory=list)


class Driver:
    """Counts every call of the task: its bytes to the model and its time."""

    def __init__(self, client: Client, run: Run) -> None:
        self.client, self.run = client, run

    async def call(self, name: str, arguments: dict[str, Any]) -> Any:
        started = time.perf_counter()
        result = await self.client.call_tool(name, arguments)
        size = result_bytes(result)
        self.run.calls += 1
        self.run.bytes_to_model += size
        self.run.call_log.append({"tool": name, "bytes": size, "ms": round((time.perf_counter() - started) * 1000, 1), "error": bool(result.is_error)})
        if result.is_error:
            raise TaskFailed(f"{name} failed: {result_text(result)[:300]}")
        return result


def _need(ref: str | None, what: str) -> str:
    if ref is None:
        raise TaskFailed(f"no {what} in the snapshot")
    return ref


async def task_playwright(driver: Driver, url: str) -> None:
    """navigate, snapshot, click "+ Add a card" in Doing, type the title and submit, snapshot until it shows."""
    await driver.call("browser_navigate", {"url": url})
    text = result_text(await driver.call("browser_snapshot", {}))
    opener = _need(find_ref(list_scope(parse_snapshot(text), LIST), r'button "\+ Add a card"'), "Add-a-card button")
    text = result_text(await driver.call("browser_click", {"element": "+ Add a card button of the Doing list", "target": opener}))
    box = find_ref(list_scope(parse_snapshot(text), LIST), r'textbox "Card title"')
    if box is None:  # the click's answer did not show the composer: look again
        text = result_text(await driver.call("browser_snapshot", {}))
        box = _need(find_ref(list_scope(parse_snapshot(text), LIST), r'textbox "Card title"'), "card title box")
    text = result_text(await driver.call("browser_type", {"element": "Card title box of the Doing list", "target": box, "text": TITLE, "submit": True}))
    for _attempt in range(5):
        if shows_card(text):
            return
        text = result_text(await driver.call("browser_snapshot", {}))
    raise TaskFailed("the new card never showed in Doing")


async def task_devtools(driver: Driver, url: str, page_id: int) -> None:
    """navigate, snapshot, click "+ Add a card" (with snapshot), fill the title, click "Add card" (with snapshot), confirm."""
    await driver.call("navigate_page", {"pageId": page_id, "type": "url", "url": url})
    text = result_text(await driver.call("take_snapshot", {"pageId": page_id}))
    opener = _need(find_ref(list_scope(parse_snapshot(text), LIST), r'button "\+ Add a card"'), "Add-a-card button")
    text = result_text(await driver.call("click", {"pageId": page_id, "uid": opener, "includeSnapshot": True}))
    scope = list_scope(parse_snapshot(text), LIST)
    box, save = find_ref(scope, r'textbox "Card title"'), find_ref(scope, r'button "Add card"')
    if box is None or save is None:
        text = result_text(await driver.call("take_snapshot", {"pageId": page_id}))
        scope = list_scope(parse_snapshot(text), LIST)
        box, save = _need(find_ref(scope, r'textbox "Card title"'), "card title box"), _need(find_ref(scope, r'button "Add card"'), "Add card button")
    await driver.call("fill", {"pageId": page_id, "uid": box, "value": TITLE})
    text = result_text(await driver.call("click", {"pageId": page_id, "uid": save, "includeSnapshot": True}))
    for _attempt in range(5):
        if shows_card(text):
            return
        text = result_text(await driver.call("take_snapshot", {"pageId": page_id}))
    raise TaskFailed("the new card never showed in Doing")


async def task_actions(driver: Driver, url: str) -> None:
    """browser_navigate to the board, board_add_card; board_find_cards only when add_card's answer does not show the card.

    The map names its site's origin, not the board page, so the agent goes there first,
    as it navigates first with the peers. The same rule as the peers' drivers: an action's
    own answer confirms the task when it
    shows the new card (their click/type answers carry a snapshot; add_card's carries the
    last card of the list, read from the page after the save), and only otherwise is the
    page read again.
    """
    await driver.call("browser_navigate", {"url": url})
    added = (await driver.call("board_add_card", {"list": LIST, "title": TITLE})).structured_content
    if not added.get("added"):
        raise TaskFailed(f"board_add_card did not add the card: {added}")
    if added.get("last_card") == TITLE:
        return
    found = (await driver.call("board_find_cards", {"list": LIST, "query": TITLE})).structured_content
    if not any(card.get("title") == TITLE for card in found.get("cards", [])):
        raise TaskFailed(f"board_find_cards does not show the card: {found}")


# -- servers ----------------------------------------------------------------------


def server_params(name: str, peers_dir: Path, browser: str, workdir: Path, board_map: Path, *, launch: bool = True, source: Path = ROOT) -> StdioServerParameters:
    """How to start each server: headless, isolated, on the same Chromium.

    ``launch=False`` starts mcp-actions as a host would by default (``--browser auto``:
    the browser starts with the first call that needs it); the peers always start theirs lazily.
    """
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "LANG", "USER", "TMPDIR")}
    bin_dir = peers_dir / "node_modules" / ".bin"
    no_sandbox = os.geteuid() == 0
    if name == "playwright-mcp":
        args = ["--headless", "--isolated", "--executable-path", browser] + (["--no-sandbox"] if no_sandbox else [])
        return StdioServerParameters(command=str(bin_dir / "playwright-mcp"), args=args, env=env, cwd=str(workdir))
    if name == "chrome-devtools-mcp":
        env["CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS"] = "1"
        args = ["--headless", "--isolated", "--executablePath", browser, "--no-usage-statistics", "--no-performance-crux"]
        args += ["--chromeArg=--no-sandbox"] if no_sandbox else []
        return StdioServerParameters(command=str(bin_dir / "chrome-devtools-mcp"), args=args, env=env, cwd=str(workdir))
    env["PYTHONPATH"] = str(source)  # the mcp-actions tree to run (another checkout compares before/after)
    args = ["-m", "mcp_actions", "serve", "--manifests", str(board_map), "--browser", "launch" if launch else "auto", "--headless", "--isolated"]
    args += ["--browser-path", browser, "--bridge-port", "0", "--bridge-token", "bench"]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(workdir))


def board_url(base_url: str, cards: int, save_ms: int | None = None) -> str:
    """The board seeded with ``cards`` cards (see ``board_site``); ``save_ms``: its save's delay (the page's default, 40 ms, when None)."""
    return f"{base_url}cards/{cards}/" + (f"?save_ms={save_ms}" if save_ms is not None else "")


def site_origin(url: str) -> str:
    """The origin of ``url`` (``scheme://host[:port]``, no path): what a map's ``surface.origin`` names."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def board_site(workdir: Path, card_counts: list[int]) -> Path:
    """A folder serving the board at ``/cards/N/`` for each count (one site, one origin, a page per count)."""
    root = workdir / "site"
    for cards in card_counts:
        (root / "cards" / str(cards)).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(BOARD_DIR / "index.html", root / "cards" / str(cards) / "index.html")
    return root


def board_map(source: Path, origin: str | None, workdir: Path) -> Path:
    """The board map of the tree at ``source`` (a map may use what its tree's dictionary has), naming ``origin`` as its site.

    ``origin`` is the served site's origin (``site_origin``), never the board page: the
    agent reaches the page with ``browser_navigate``. ``origin=None`` leaves the map
    without a site, as a map written for any page would be.
    """
    if origin is not None and site_origin(origin) != origin:
        raise ValueError(f"surface.origin must be an origin (scheme://host[:port]), got {origin!r}")
    own = source / "bench" / "board" / "actions.json"
    document = json.loads((own if own.is_file() else BOARD_DIR / "actions.json").read_text())
    if origin is not None:
        document["surface"]["origin"] = origin
    folder = workdir / "maps" / f"{abs(hash((str(source), origin))):x}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "actions.json").write_text(json.dumps(document))
    return folder / "actions.json"


async def one_run(
    name: str,
    cards: int,
    base_url: str,
    peers_dir: Path,
    browser: str,
    workdir: Path,
    source: Path = ROOT,
    *,
    settle_s: float = 0.0,
    map_names_site: bool = True,
    save_ms: int | None = None,
) -> Run:
    run = Run(server=name, cards=cards, load_1m=round(os.getloadavg()[0], 2))
    url = board_url(base_url, cards, save_ms)
    origin = site_origin(base_url) if map_names_site else None
    params = server_params(name, peers_dir, browser, workdir, board_map(source, origin, workdir), source=source)
    spawned = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
        listing = await client.list_tools()
        run.start_to_tools_list_ms = (time.perf_counter() - spawned) * 1000
        run.tools, run.tools_list_bytes = len(listing.tools), tools_list_bytes(listing)
        run.model_facing_bytes = model_facing_bytes(listing)
        # Untimed: make the peer launch its browser (mcp-actions launched its own at start).
        page_id = 1
        if name == "playwright-mcp":
            await client.call_tool("browser_tabs", {"action": "list"})
        elif name == "chrome-devtools-mcp":
            pages = result_text(await client.call_tool("list_pages", {}))
            selected = re.search(r"^(\d+):.*\[selected\]", pages, re.MULTILINE)
            page_id = int(selected.group(1)) if selected else 1
        else:
            await wait_for_runtime(client)
        # Untimed, the same for every server: Chromium's first renderer burns ~0.6 s of CPU in its
        # first second; a user's first request does not come within it (--settle-s 0: back to back).
        await asyncio.sleep(settle_s)
        driver = Driver(client, run)
        started = time.perf_counter()
        try:
            if name == "playwright-mcp":
                await task_playwright(driver, url)
            elif name == "chrome-devtools-mcp":
                await task_devtools(driver, url, page_id)
            else:
                await task_actions(driver, url)
            run.ok = True
        except TaskFailed as exc:
            run.error = str(exc)
        run.task_ms = (time.perf_counter() - started) * 1000
        # Untimed: the list as it is on the board page, where the model works next.
        on_page = await client.list_tools()
        run.tools_on_page, run.model_facing_bytes_on_page = len(on_page.tools), model_facing_bytes(on_page)
    return run


async def wait_for_runtime(client: Client, timeout_s: float = 60.0) -> None:
    """Untimed: wait until mcp-actions' browser (launched at start, in the background) has a tab.

    A tree from before the background launch answers at once: its browser was up before the handshake.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        runtimes = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)
        if runtimes.get("runtimes"):
            return
        await asyncio.sleep(0.05)
    raise TaskFailed("the browser never connected a tab")


def _browsers_left(browser: str) -> list[int]:
    """Pids of processes still running ``browser`` (a Chromium an earlier run started)."""
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        if command == browser or command.endswith("/" + Path(browser).name):
            left.append(int(entry.name))
    return left


async def wait_for_quiet(browser: str, limit_s: float = 10.0) -> None:
    """Untimed: wait until the browser of the previous run has exited (at most ``limit_s``).

    Each server closes its Chromium when its process ends, but the browser's shutdown
    (and its profile's removal) can outlast that by a second; the next run would share
    the two cores with it, and that run is always the same server's.
    """
    deadline = time.monotonic() + limit_s
    while _browsers_left(browser) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


def _cpu_ms(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def startup_run(name: str, peers_dir: Path, browser: str, workdir: Path, board_map: Path, source: Path = ROOT) -> tuple[float, float]:
    """Spawn to first ``tools/list`` answer, with the server's default (lazy) browser start.

    Returns the wall time and the CPU time the server process used until then: on a
    shared machine the CPU time says what the server itself costs, whatever the load.
    """
    params = server_params(name, peers_dir, browser, workdir, board_map, launch=False, source=source)
    pid_file = workdir / f"{name}.pid"
    # A shell that writes its pid and execs the server: the server keeps that pid.
    wrapped = params.model_copy(update={"command": "/bin/sh", "args": ["-c", 'echo $$ > "$0"; exec "$@"', str(pid_file), params.command, *params.args]})
    spawned = time.perf_counter()
    async with Client(wrapped, mode="legacy", read_timeout_seconds=120) as client:
        await client.list_tools()
        wall = (time.perf_counter() - spawned) * 1000
        cpu = _cpu_ms(int(pid_file.read_text()))
        return wall, cpu


# -- setup and report -----------------------------------------------------------------


def install_peers(peers_dir: Path) -> dict[str, str]:
    """``npm install`` both peers into ``peers_dir`` (kept when already there); their versions."""
    peers_dir.mkdir(parents=True, exist_ok=True)
    if not all((peers_dir / "node_modules" / pkg / "package.json").exists() for pkg in PEER_PACKAGES.values()):
        print(f"installing {', '.join(PEER_PACKAGES.values())} into {peers_dir} ...", file=sys.stderr)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(peers_dir), *PEER_PACKAGES.values()],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return {name: json.loads((peers_dir / "node_modules" / pkg / "package.json").read_text())["version"] for name, pkg in PEER_PACKAGES.items()}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()


def summarise(runs: list[Run]) -> list[dict[str, Any]]:
    """Per server and card count: calls, bytes, task time (median, min, max), tools/list, start-up."""
    rows = []
    for key in dict.fromkeys((r.server, r.cards) for r in runs):
        group = [r for r in runs if (r.server, r.cards) == key and r.ok]
        if not group:
            rows.append({"server": key[0], "cards": key[1], "ok": False, "errors": [r.error for r in runs if (r.server, r.cards) == key]})
            continue
        times = [r.task_ms for r in group]
        rows.append(
            {
                "server": key[0],
                "cards": key[1],
                "ok": True,
                "runs": len(group),
                "calls": statistics.median(r.calls for r in group),
                "bytes_to_model": statistics.median(r.bytes_to_model for r in group),
                "task_ms_median": round(statistics.median(times), 1),
                "task_ms_min": round(min(times), 1),
                "task_ms_max": round(max(times), 1),
                "tools": group[0].tools,
                "tools_list_bytes": group[0].tools_list_bytes,
                "model_facing_bytes": group[0].model_facing_bytes,
                "tools_on_page": group[0].tools_on_page,
                "model_facing_bytes_on_page": max(r.model_facing_bytes_on_page for r in group),
                "start_to_tools_list_ms_median": round(statistics.median(r.start_to_tools_list_ms for r in group), 1),
                "load_1m": [r.load_1m for r in group],
            }
        )
    # Ratios against the best peer at the same card count (lower is better for each figure).
    for row in rows:
        peers = [r for r in rows if r["cards"] == row["cards"] and r["server"] in PEER_PACKAGES and r.get("ok")]
        if row["server"] not in PEER_PACKAGES and row.get("ok") and peers:
            best = {key: min(p[key] for p in peers) for key in ("task_ms_median", "bytes_to_model", "tools_list_bytes")}
            row["vs_best_peer"] = {
                "task_time": round(row["task_ms_median"] / best["task_ms_median"], 3),
                "bytes_to_model": round(row["bytes_to_model"] / best["bytes_to_model"], 6),
                "tools_list_bytes": round(row["tools_list_bytes"] / best["tools_list_bytes"], 3),
            }
    return rows


def markdown(rows: list[dict[str, Any]], versions: dict[str, str]) -> str:
    label = {name: f"{name} {version}" for name, version in versions.items()}
    lines = [
        "| cards | server | calls | bytes to the model | task time median (min–max) | `tools/list` | name, description, inputSchema on the page |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        name = label.get(row["server"], row["server"])
        if not row.get("ok"):
            lines.append(f"| {row['cards']:,} | {name} | failed: {row['errors'][0]} | | | | |")
            continue
        ratio = row.get("vs_best_peer")
        time_cell = f"{row['task_ms_median'] / 1000:.2f} s ({row['task_ms_min'] / 1000:.2f}–{row['task_ms_max'] / 1000:.2f})"
        bytes_cell = f"{row['bytes_to_model'] / 1000:.1f} KB"
        list_cell = f"{row['tools_list_bytes'] / 1000:.1f} KB ({row['tools']} tools)"
        if ratio:
            time_cell += f" = {ratio['task_time']:.2f}×"
            bytes_cell += f" = 1/{1 / ratio['bytes_to_model']:.0f}"
            list_cell += f" = {ratio['tools_list_bytes']:.2f}×"
        model_cell = f"{row['model_facing_bytes_on_page']:,} B ({row['tools_on_page']} tools)"
        lines.append(f"| {row['cards']:,} | {name} | {row['calls']:g} | {bytes_cell} | {time_cell} | {list_cell} | {model_cell} |")
    return "\n".join(lines)


async def run_all(args: argparse.Namespace, peers_dir: Path, startup: dict[str, dict[str, list[float]]]) -> tuple[list[Run], dict[str, str]]:
    versions = install_peers(peers_dir)
    # The commit as the runs start (the tree may be edited while they run).
    versions["mcp-actions"] = _git("rev-parse", "--short", "HEAD") + ("-dirty" if _git("status", "--porcelain", "--untracked-files=no") else "")
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bench-peers-work-") as work, StaticSite(board_site(Path(work), args.cards)) as site:
        for name in args.servers:
            source = args.actions_roots.get(name, ROOT)
            startup_map = board_map(source, None if args.map_without_site else site_origin(site.url), Path(work))
            pairs = [await startup_run(name, peers_dir, args.browser_path, Path(work), startup_map, source) for _ in range(args.startup_runs)]
            startup[name] = {"wall_ms": [round(w, 1) for w, _ in pairs], "cpu_ms": [round(c, 1) for _, c in pairs]}
            print(f"{name:20} start→tools/list: {', '.join(f'{w:.0f} ms ({c:.0f} ms CPU)' for w, c in pairs)}", file=sys.stderr)
        for cards in args.cards:
            for repeat in range(args.runs):
                for name in args.servers:
                    await wait_for_quiet(args.browser_path)
                    source = args.actions_roots.get(name, ROOT)
                    run = await one_run(
                        name, cards, site.url, peers_dir, args.browser_path, Path(work), source, settle_s=args.settle_s, map_names_site=not args.map_without_site, save_ms=args.save_ms
                    )
                    runs.append(run)
                    status = "ok" if run.ok else f"FAILED: {run.error}"
                    print(
                        f"{name:20} cards={cards:<5} run={repeat + 1} calls={run.calls} bytes={run.bytes_to_model:>8,} "
                        f"task={run.task_ms:7.0f} ms tools/list={run.tools_list_bytes:,} B model-facing on the page={run.model_facing_bytes_on_page:,} B "
                        f"start→list={run.start_to_tools_list_ms:.0f} ms {status}",
                        file=sys.stderr,
                    )
    return runs, versions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, nargs="+", default=[4, 300, 3000])
    parser.add_argument("--runs", type=int, default=5, help="cold runs per server and card count (the table gives their median)")
    parser.add_argument("--save-ms", type=int, help="the board app's delay before a save shows (default: the page's 40 ms); issue 55 measures 150")
    parser.add_argument("--servers", nargs="+", default=["playwright-mcp", "chrome-devtools-mcp", "mcp-actions"])
    parser.add_argument(
        "--actions-root",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="also run the mcp-actions source tree at PATH under LABEL (e.g. before=/tmp/old-checkout), interleaved with the others",
    )
    parser.add_argument("--peers-dir", type=Path, help="install the peers here and keep them (default: a temporary folder)")
    parser.add_argument("--browser-path", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--startup-runs", type=int, default=5, help="cold spawns per server timed to the first tools/list")
    parser.add_argument("--no-save", action="store_true", help="print, but do not write bench/results/")
    parser.add_argument(
        "--settle-s",
        type=float,
        default=0.0,
        help="untimed pause after every server's browser is up, before the task (Chromium's start-up burn; default 0)",
    )
    parser.add_argument(
        "--map-without-site",
        action="store_true",
        help="serve the board map without surface.origin (a map for any page): the same calls and tools/list, routed to any tab rather than one on the origin",
    )
    args = parser.parse_args()
    args.actions_roots = {"mcp-actions": ROOT}
    for spec in args.actions_root:
        label, _, path = spec.partition("=")
        args.actions_roots[label] = Path(path).resolve()  # "mcp-actions=PATH" replaces the working tree
        if label not in args.servers:
            args.servers.append(label)
    temporary = None
    if args.peers_dir is None:
        temporary = tempfile.TemporaryDirectory(prefix="bench-peers-npm-")
        args.peers_dir = Path(temporary.name)
    try:
        startup: dict[str, dict[str, list[float]]] = {}
        runs, versions = asyncio.run(run_all(args, args.peers_dir, startup))
    finally:
        if temporary is not None:
            temporary.cleanup()
    rows = summarise(runs)
    commit = versions["mcp-actions"]
    chromium = subprocess.run([args.browser_path, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    report = {
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "task": f"add card {TITLE!r} to {LIST} and confirm it",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "node": _node_version(), "chromium": chromium, "load_average": os.getloadavg()},
        "versions": versions,
        "sources": {label: str(path) for label, path in args.actions_roots.items()},
        "settle_s": args.settle_s,
        "save_ms": args.save_ms if args.save_ms is not None else 40,
        "map_names_site": not args.map_without_site,
        "summary": rows,
        "start_to_tools_list_ms": startup,
        "runs": [run.__dict__ for run in runs],
    }
    if not args.no_save:
        RESULTS_DIR.mkdir(exist_ok=True)
        # Runs of one commit with other card counts or run counts must not overwrite each other.
        shape = "" if (args.cards, args.runs) == ([4, 300, 3000], 3) else f"-{'-'.join(map(str, args.cards))}x{args.runs}"
        shape += f"-save{args.save_ms}" if args.save_ms is not None else ""
        shape += f"-settle{args.settle_s:g}" if args.settle_s else ""
        shape += "-nosite" if args.map_without_site else ""
        path = RESULTS_DIR / f"peers-{report['date']}-{commit}{shape}.json"
        path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    print(markdown(rows, {k: v for k, v in versions.items() if k != "mcp-actions"}))
    print()
    print("| server | start → first `tools/list`: wall, median (min–max) | CPU time of the server, median |\n|---|---:|---:|")
    for name, figures in startup.items():
        wall, cpu = figures["wall_ms"], figures["cpu_ms"]
        print(f"| {name} | {statistics.median(wall) / 1000:.2f} s ({min(wall) / 1000:.2f}–{max(wall) / 1000:.2f}) | {statistics.median(cpu) / 1000:.2f} s |")
    return 0 if all(r.ok for r in runs) else 1


def _node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()


if __name__ == "__main__":
    raise SystemExit(main())
