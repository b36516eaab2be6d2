"""One task through our BAP door and through our MCP door of the same server: calls, bytes on the wire, time.

The task, on bench/pages/todo-vanilla.html (TodoMVC's markup): open the page, add three to-dos
(milk, eggs, bread), mark them all complete, and read what the page says is left ("0 items
left"). Each door does it the way its clients do:

- BAP (the released Python client, PyPI ``browser-agent-protocol`` 0.9.0): ``page/create``, one
  ``agent/act`` (fill and press Enter three times, check "Mark all as complete"), ``observe/content``.
- MCP (the ``mcp`` SDK's ``Client`` over streamable HTTP): ``browser_navigate``, one ``page_act``
  (``page_fill {submit}`` three times, ``page_click``), ``page_read``.

One ``serve --transport streamable-http --bap-port`` process serves both; each door reaches it
through a TCP relay that counts the bytes both ways (HTTP requests and responses with their
headers; WebSocket frames), so "bytes" is what crossed the wire. Connecting (the BAP handshake and
``events/subscribe``; MCP's ``initialize`` and ``tools/list``) is counted apart from the task.
Times are the task's wall time from the client (the connection open), median of the runs, and each of
its three calls' (``calls_s``: open, act, read); the doors take turns run by run. ``core_calls`` counts
the server's audit lines during a task: one per call of the core (``ActionService.handle``), the
page_act's or agent/act's steps each their own; ``core_tools`` names them (the first counted run) and
``core_ms`` gives each one's time in the server (the audit line's ``elapsed_ms``; a page_act's includes its steps').

Command: ``PYTHONPATH=$PWD .venv/bin/python bench/bench_bap.py [--runs 3] [--no-save]``; writes
``bench/results/bap-<date>-<commit>.json``, summarised in bench/README.md. ``--locator-ab ROUNDS`` instead
fills the to-do box by ref, by locator, and by ``page_find {locator}`` then the ref, taking turns in one MCP
session (``bap-locator-ab-<date>-<commit>.json``): the cost of each way apart from the machine's load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from browseragentprotocol import BAPClient
from mcp import Client

from mcp_actions.demo.static import StaticSite

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "bench" / "pages"
RESULTS_DIR = ROOT / "bench" / "results"
TOKEN = "bench-bap"
TODOS = ("milk", "eggs", "bread")
NEW_TODO = "What needs to be done?"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"port {port} never opened")


@contextlib.contextmanager
def _server(tmp: Path) -> Iterator[tuple[int, int]]:
    """``serve --transport streamable-http --bap-port``; yields its MCP and BAP ports."""
    mcp_port, bap_port = _free_port(), _free_port()
    env = {**os.environ, "HOME": str(tmp), "MCP_ACTIONS_HEADLESS": "1"}
    command = [sys.executable, "-m", "mcp_actions", "serve", "--transport", "streamable-http", "--port", str(mcp_port), "--bridge-port", "0"]
    command += ["--bap-port", str(bap_port), "--bap-token", TOKEN, "--audit-log", str(tmp / "audit.jsonl")]
    with (tmp / "server.err").open("wb") as err:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        _wait_for(mcp_port)
        _wait_for(bap_port)
        yield mcp_port, bap_port
    finally:
        process.terminate()
        process.wait(15)


class Relay:
    """A TCP relay to a port on loopback that counts the bytes each way."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.up = 0
        self.down = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    def reset(self) -> tuple[int, int]:
        counted = (self.up, self.down)
        self.up = self.down = 0
        return counted

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, upward: bool) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while data := await reader.read(65536):
                if upward:
                    self.up += len(data)
                else:
                    self.down += len(data)
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(OSError, ConnectionError):
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        target_reader, target_writer = await asyncio.open_connection("127.0.0.1", self.target)
        with contextlib.suppress(asyncio.CancelledError):  # the run is over: the loop ends the connections still open
            await asyncio.gather(self._pipe(reader, target_writer, True), self._pipe(target_reader, writer, False))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Relay]:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            self._server.close()


def _field() -> dict[str, Any]:
    return {"type": "placeholder", "value": NEW_TODO}


async def bap_task(relay: Relay, url: str) -> dict[str, Any]:
    started = time.perf_counter()
    async with BAPClient(f"ws://127.0.0.1:{relay.port}/", token=TOKEN, name="bench", timeout=60) as client:
        connect = relay.reset()
        began = time.perf_counter()
        await client.create_page(url=url)
        opened = time.perf_counter()
        steps: list[Any] = []
        for todo in TODOS:
            steps.append(BAPClient.step("action/fill", {"selector": _field(), "value": todo}))
            steps.append(BAPClient.step("action/press", {"selector": _field(), "key": "Enter"}))
        steps.append(BAPClient.step("action/check", {"selector": {"type": "label", "value": "Mark all as complete"}}))
        done = await client.act(steps)
        assert done.success, done
        acted = time.perf_counter()
        text = (await client.content()).content
        elapsed = time.perf_counter() - began
        task = relay.reset()
    assert "0 items left" in text, text[-400:]
    calls_s = {"open": opened - began, "act": acted - opened, "read": began + elapsed - acted}
    return {"calls": 3, "connect_bytes": sum(connect), "task_bytes_up": task[0], "task_bytes_down": task[1], "task_bytes": sum(task), "task_s": elapsed, "calls_s": calls_s, "total_s": time.perf_counter() - started}


async def mcp_task(relay: Relay, url: str) -> dict[str, Any]:
    started = time.perf_counter()
    async with Client(f"http://127.0.0.1:{relay.port}/mcp", mode="legacy") as client:
        await client.list_tools()
        connect = relay.reset()
        began = time.perf_counter()
        navigated = await client.call_tool("browser_navigate", {"url": url})
        assert not navigated.is_error, navigated.content
        opened = time.perf_counter()
        steps: list[dict[str, Any]] = [{"tool": "page_fill", "arguments": {"text": NEW_TODO, "value": todo, "submit": True}} for todo in TODOS]
        steps.append({"tool": "page_click", "arguments": {"text": "Mark all as complete"}})
        answered = await client.call_tool("page_act", {"steps": steps})
        assert not answered.is_error, answered.content
        acted = time.perf_counter()
        read = await client.call_tool("page_read", {})
        elapsed = time.perf_counter() - began
        task = relay.reset()
    text = "".join(getattr(c, "text", "") for c in read.content)
    assert "0 items left" in text, text[-400:]
    calls_s = {"open": opened - began, "act": acted - opened, "read": began + elapsed - acted}
    return {"calls": 3, "connect_bytes": sum(connect), "task_bytes_up": task[0], "task_bytes_down": task[1], "task_bytes": sum(task), "task_s": elapsed, "calls_s": calls_s, "total_s": time.perf_counter() - started}


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "mcp_actions"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return out + ("-dirty" if dirty else "")


def _audit_lines(path: Path) -> list[dict[str, Any]]:
    """The audit lines so far: one per call of the core, with its tool and its time in the server (elapsed_ms)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines if line.strip()]


async def main_async(runs: int) -> dict[str, Any]:
    results: dict[str, Any] = {"date": datetime.date.today().isoformat(), "commit": _commit(), "runs": runs, "task": "todo-vanilla: add milk, eggs, bread; mark all complete; read what is left", "doors": {}}
    with tempfile.TemporaryDirectory() as tmp, StaticSite(PAGES) as site, _server(Path(tmp)) as (mcp_port, bap_port):
        url = f"{site.url}todo-vanilla.html"
        audit = Path(tmp) / "audit.jsonl"
        doors = {"bap": (bap_port, bap_task), "mcp": (mcp_port, mcp_task)}
        rows: dict[str, list[dict[str, Any]]] = {door: [] for door in doors}
        async with Relay(bap_port).running() as bap_relay, Relay(mcp_port).running() as mcp_relay:
            relays = {"bap": bap_relay, "mcp": mcp_relay}
            for door, (_, task) in doors.items():
                await task(relays[door], url)  # a first run warms the browser for this door's session; not counted
            # The doors take turns, run by run: a busy moment of the machine falls on both alike.
            for _ in range(runs):
                for door, (_, task) in doors.items():
                    before = len(_audit_lines(audit))
                    row = await task(relays[door], url)
                    made = _audit_lines(audit)[before:]  # one audit line per call of the core (the whole task)
                    row["core_tools"] = [str(line.get("tool")) for line in made]
                    row["core_ms"] = [line.get("elapsed_ms") for line in made]  # each call's time in the server, in that order
                    row["core_calls"] = len(made)
                    rows[door].append(row)
        for door, done in rows.items():
            results["doors"][door] = {
                "runs": done,
                "calls": done[0]["calls"],
                "core_calls": statistics.median(r["core_calls"] for r in done),
                "core_tools": done[0]["core_tools"],
                "core_ms_median": [statistics.median(r["core_ms"][i] or 0 for r in done) for i in range(len(done[0]["core_ms"]))] if len({r["core_calls"] for r in done}) == 1 else None,
                "connect_bytes": statistics.median(r["connect_bytes"] for r in done),
                "task_bytes": statistics.median(r["task_bytes"] for r in done),
                "task_bytes_up": statistics.median(r["task_bytes_up"] for r in done),
                "task_bytes_down": statistics.median(r["task_bytes_down"] for r in done),
                "task_s_median": statistics.median(r["task_s"] for r in done),
                "calls_s_median": {call: statistics.median(r["calls_s"][call] for r in done) for call in ("open", "act", "read")},
            }
            print(json.dumps({"door": door, **{k: v for k, v in results["doors"][door].items() if k != "runs"}}), flush=True)
    results["load_average_after"] = os.getloadavg()
    return results


#: The ways of naming the to-do box that --locator-ab compares: the door's way before issue 55 (page_find, then the ref), and now.
_AB_WAYS = ("find+ref", "ref", "locator")


async def locator_ab(rounds: int) -> dict[str, Any]:
    """``page_fill`` of the to-do box by ref, by locator, and by a ``page_find {locator}`` then the ref, taking turns in one
    MCP session: what finding a locator inside the acting call costs, apart from the load on the machine (issue 55)."""
    results: dict[str, Any] = {"date": datetime.date.today().isoformat(), "commit": _commit(), "rounds": rounds, "ways": {}}
    box = {"selector": f"[placeholder={json.dumps(NEW_TODO)}]"}
    with tempfile.TemporaryDirectory() as tmp, StaticSite(PAGES) as site, _server(Path(tmp)) as (mcp_port, _):
        audit = Path(tmp) / "audit.jsonl"
        async with Client(f"http://127.0.0.1:{mcp_port}/mcp", mode="legacy") as client:
            await client.call_tool("browser_navigate", {"url": f"{site.url}todo-vanilla.html"})
            found = await client.call_tool("page_find", {"locator": box})
            ref = "".join(getattr(c, "text", "") for c in found.content).split(" ", 1)[0]
            client_ms: dict[str, list[float]] = {way: [] for way in _AB_WAYS}
            server_ms: dict[str, list[float]] = {way: [] for way in _AB_WAYS}
            for index in range(rounds):
                for way in _AB_WAYS:
                    before = len(_audit_lines(audit))
                    began = time.perf_counter()
                    if way == "find+ref":
                        await client.call_tool("page_find", {"locator": box})
                    where = {"locator": box} if way == "locator" else {"ref": ref}
                    filled = await client.call_tool("page_fill", {**where, "value": f"todo {index}"})
                    client_ms[way].append((time.perf_counter() - began) * 1000)
                    assert not filled.is_error, filled.content
                    server_ms[way].append(sum(float(line.get("elapsed_ms") or 0) for line in _audit_lines(audit)[before:]))
    for way in _AB_WAYS:
        results["ways"][way] = {"client_ms": client_ms[way], "server_ms": server_ms[way], "client_ms_median": statistics.median(client_ms[way]), "server_ms_median": statistics.median(server_ms[way])}
        print(json.dumps({"way": way, "client_ms_median": round(statistics.median(client_ms[way]), 1), "server_ms_median": round(statistics.median(server_ms[way]), 1)}), flush=True)
    results["load_average_after"] = os.getloadavg()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--locator-ab", type=int, metavar="ROUNDS", help="instead: page_fill by ref, by locator and by page_find then ref, ROUNDS turns each")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write bench/results/")
    args = parser.parse_args()
    results = asyncio.run(locator_ab(args.locator_ab) if args.locator_ab else main_async(args.runs))
    if not args.no_save:
        kind = "bap-locator-ab" if args.locator_ab else "bap"
        path = RESULTS_DIR / f"{kind}-{results['date']}-{results['commit']}.json"
        path.write_text(json.dumps(results, indent=2) + "\n")
        print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
