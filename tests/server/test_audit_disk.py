"""Issue 28: no call runs unrecorded, and no argument value reaches a log. The server as users run it.

Each test runs ``mcp-actions serve`` as a subprocess over stdio, driven by the
SDK's ``Client``, on a page in the server's own headless Chromium whose
counter (``tests/fixtures/pages/audit-counter``) shows which calls reached it.

- The audit file stops growing while a call runs: through a file size limit set
  on the running server (``prlimit``, real ``EFBIG``), or on a tiny tmpfs that a
  filler fills (real ``ENOSPC``; skipped where this user cannot mount). The line
  of the call that ran waits and is written once there is room; calls meanwhile
  are refused with ``audit_unavailable`` before the page counts them, the host
  hears it as a log message, and the status page says so.
- SIGTERM while a call waits on the page: its line is written, ``cancelled``.
- A password given to tools appears in no log notification and not on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_actions.audit_log import AUDIT_MIN_FREE_BYTES

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prlimit and /proc are Linux's")]

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
SECRET = "hunter2-Correct-Horse-4711"
LONG = {"timeout_ms": 30000}


class Server:
    """A running ``serve`` subprocess: its client, pid, stderr file and the log messages its client heard."""

    def __init__(self, client: Client, pid: int, stderr: Path, heard: list[dict[str, Any]], started: asyncio.Queue[str]) -> None:
        self.client = client
        self.pid = pid
        self.stderr = stderr
        self.heard = heard
        self.started = started

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return await self.client.call_tool(name, {**(arguments or {}), **LONG})

    async def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.call(name, arguments)
        assert not result.is_error, result
        assert result.structured_content is not None
        return result.structured_content

    async def refused(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.call(name, arguments)
        assert result.is_error and result.structured_content is not None, result
        error: dict[str, Any] = result.structured_content["error"]
        return error

    async def wait_started(self, tool: str) -> None:
        """Until the server says (a ``call_started`` log message) that a call of ``tool`` passed its checks."""
        while (await asyncio.wait_for(self.started.get(), 30)) != tool:
            pass


def _child_pid(marker: str) -> int:
    """The pid of this process's child whose command line holds ``marker`` (the SDK does not expose it)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == os.getpid() and marker in cmdline:
                return int(entry.name)
        time.sleep(0.05)
    raise AssertionError(f"no child server with {marker} in its command line")


@contextlib.asynccontextmanager
async def serve(tmp_path: Path, pages_url: str, audit_file: Path) -> AsyncIterator[Server]:
    document = json.loads((PAGES / "audit-counter" / "actions.json").read_text())
    document["surface"]["origin"] = pages_url
    map_file = tmp_path / "counter.actions.json"
    map_file.write_text(json.dumps(document))
    env = {**os.environ, "MCP_ACTIONS_HEADLESS": "1", "MCP_ACTIONS_LOG_LEVEL": "DEBUG", "PYTHONUNBUFFERED": "1"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_actions", "serve", "--manifests", str(map_file), "--bridge-port", "0", "--audit-log", str(audit_file), "--no-watch"],
        env=env,
    )
    heard: list[dict[str, Any]] = []
    started: asyncio.Queue[str] = asyncio.Queue()

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        heard.append({"level": params.level, "logger": params.logger, "data": params.data})
        if isinstance(params.data, dict) and params.data.get("event") == "call_started":
            started.put_nowait(str(params.data["tool"]))

    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60, logging_callback=on_log, mode="legacy") as client:
            await client.set_logging_level("debug")
            yield Server(client, _child_pid(str(map_file)), stderr, heard, started)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _status_page(stderr: Path) -> str:
    found = re.search(r"status page (\S+)", stderr.read_text())
    assert found is not None
    with urllib.request.urlopen(found.group(1), timeout=10) as response:
        return str(response.read().decode())


# -- ways to stop the audit file from growing, and to give it room again --------------------------


class FileSizeLimit:
    """``RLIMIT_FSIZE`` of the running server at its audit file's size: its next write fails with EFBIG."""

    reason = "file_size_limit"
    #: Lines that wait in memory while squeezed: the running call's, which found the file full.
    waiting = 1

    def __init__(self, tmp_path: Path) -> None:
        self.audit_file = tmp_path / "audit.jsonl"
        self.pid = 0

    def squeeze(self) -> None:
        # Only the soft limit: raising it back needs no privilege. Set on the server alone, after its
        # browser started (a limit inherited by Chromium would break its profile's files).
        resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (self.audit_file.stat().st_size, resource.RLIM_INFINITY))

    def release(self) -> None:
        resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    def close(self) -> None:
        pass


class FullTmpfs:
    """A 2 MiB tmpfs holding the audit file; a filler takes every free byte (ENOSPC), removing it frees them."""

    reason = "disk_full"
    #: None may wait: the last page of the file may still have room for the running call's line.
    waiting = 0

    def __init__(self, tmp_path: Path) -> None:
        self.mount = tmp_path / "disk"
        self.mount.mkdir()
        size = 2 * AUDIT_MIN_FREE_BYTES
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(self.mount)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}); the file size limit test covers a full file")
        self.audit_file = self.mount / "audit.jsonl"
        self.filler = self.mount / "filler"
        self.pid = 0

    def squeeze(self) -> None:
        with self.filler.open("wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC

    def release(self) -> None:
        self.filler.unlink()

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.mount)], check=False)


@pytest.mark.parametrize("disk", [FileSizeLimit, FullTmpfs], ids=["file-size-limit", "full-tmpfs"])
async def test_a_full_audit_log_refuses_calls_before_the_page_and_loses_no_line(tmp_path, pages_url, disk: Callable[[Path], Any]):
    squeezed = disk(tmp_path)
    try:
        async with serve(tmp_path, pages_url, squeezed.audit_file) as server:
            squeezed.pid = server.pid
            await server.ok("browser_navigate", {"url": f"{pages_url}/audit-counter/index.html"})
            assert (await server.ok("counter_bump"))["count"] == 1
            # The file stops growing while a call waits on the page: the call passed the pre-flight
            # and runs to its end, but its line cannot be written then.
            holding = asyncio.create_task(server.ok("counter_hold", {"ms": 1500}))
            await server.wait_started("counter.hold")
            squeezed.squeeze()
            assert (await holding)["count"] == 2
            refused = await server.refused("counter_bump")
            assert refused["code"] == "audit_unavailable" and refused["evidence"]["reason"] == squeezed.reason
            assert (await server.refused("counter_read"))["code"] == "audit_unavailable"
            launch = json.loads((await server.client.read_resource("actions://bridge/launch")).contents[0].text)
            assert launch["audit_health"]["ok"] is False and launch["audit_health"]["waiting_lines"] >= squeezed.waiting
            recent = json.loads((await server.client.read_resource("actions://audit/recent")).contents[0].text)
            assert recent["health"]["ok"] is False
            page = _status_page(server.stderr)
            assert 'id="audit-health"' in page and "calls are refused" in page
            # Room again: the waiting lines are written first, then calls run; the refused ones never reached the page.
            squeezed.release()
            assert (await server.ok("counter_read"))["count"] == 2
            assert (await server.ok("counter_bump"))["count"] == 3
            assert 'id="audit-health"' not in _status_page(server.stderr)
            heard = list(server.heard)
        lines = _lines(squeezed.audit_file)  # every line whole: a part-written one was cut back off
    finally:
        squeezed.close()
    assert [(e["tool"], e["status"], e.get("code")) for e in lines] == [
        ("browser.navigate", "ok", None),
        ("counter.bump", "ok", None),
        ("counter.hold", "ok", None),
        ("counter.bump", "error", "audit_unavailable"),
        ("counter.read", "error", "audit_unavailable"),
        ("counter.read", "ok", None),
        ("counter.bump", "ok", None),
    ]
    # The host was told: the log's own error once, and each refusal with its code.
    told = [h for h in heard if h["level"] == "error" and "cannot take more lines" in json.dumps(h["data"])]
    assert len(told) == 1 and "audit_unavailable" in json.dumps(told[0]["data"])
    refusals = [h["data"] for h in heard if isinstance(h["data"], dict) and h["data"].get("event") == "call_refused"]
    assert [(r["tool"], r["code"]) for r in refusals] == [("counter.bump", "audit_unavailable"), ("counter.read", "audit_unavailable")]


async def test_a_call_pending_at_sigterm_is_recorded_as_cancelled(tmp_path, pages_url):
    audit_file = tmp_path / "audit.jsonl"
    async with serve(tmp_path, pages_url, audit_file) as server:
        await server.ok("browser_navigate", {"url": f"{pages_url}/audit-counter/index.html"})
        holding = asyncio.create_task(server.call("counter_hold", {"ms": 10000}))
        await server.wait_started("counter.hold")
        sent = time.monotonic()
        os.kill(server.pid, signal.SIGTERM)
        deadline = time.monotonic() + 9
        while time.monotonic() < deadline and not (audit_file.exists() and "counter.hold" in audit_file.read_text()):
            await asyncio.sleep(0.05)
        recorded_after = time.monotonic() - sent
        holding.cancel()
        with contextlib.suppress(BaseException):
            await holding
    lines = _lines(audit_file)
    assert [(e["tool"], e["status"], e.get("code")) for e in lines] == [("browser.navigate", "ok", None), ("counter.hold", "error", "cancelled")]
    assert recorded_after < 9  # recorded at shutdown, not when the page's 10 s wait ended


async def test_no_argument_value_reaches_a_log_notification_or_stderr(tmp_path, pages_url):
    audit_file = tmp_path / "audit.jsonl"
    async with serve(tmp_path, pages_url, audit_file) as server:
        await server.ok("browser_navigate", {"url": f"{pages_url}/audit-counter/index.html"})
        # The page's error echoes the password: the model reads it in the result, no log carries it.
        failed = await server.refused("counter_login", {"user": "ada", "password": SECRET})
        assert failed["code"] == "handler_failed" and SECRET in failed["message"]
        # A schema error quotes the value given: the same.
        invalid = await server.refused("counter_login", {"user": SECRET, "password": "x"})
        assert invalid["code"] == "invalid_input" and invalid["evidence"]["path"] == "/user" and SECRET in invalid["message"]
        assert (await server.refused("counter_hold", {"ms": SECRET}))["code"] == "invalid_input"
        assert (await server.ok("counter_read"))["count"] == 1
        heard = list(server.heard)
        await asyncio.sleep(0.2)  # stderr caught up
        stderr = server.stderr.read_text()
    events = [(h["data"]["event"], h["data"]["tool"], h["data"].get("code")) for h in heard if isinstance(h["data"], dict) and "event" in h["data"]]
    assert ("call_failed", "counter.login", "handler_failed") in events and ("call_refused", "counter.login", "invalid_input") in events
    assert [h["data"].get("path") for h in heard if isinstance(h["data"], dict) and h["data"].get("code") == "invalid_input"] == ["/user", "/ms"]
    assert SECRET not in json.dumps(heard)
    assert "DEBUG mcp" in stderr  # the server's own logs, at their most talkative, are in this file
    assert SECRET not in stderr
    assert SECRET not in audit_file.read_text()


async def test_a_call_pending_when_the_client_closes_stdin_is_recorded(tmp_path, pages_url):
    audit_file = tmp_path / "audit.jsonl"
    started = time.monotonic()
    async with serve(tmp_path, pages_url, audit_file) as server:
        await server.ok("browser_navigate", {"url": f"{pages_url}/audit-counter/index.html"})
        holding = asyncio.create_task(server.call("counter_hold", {"ms": 10000}))
        await server.wait_started("counter.hold")
        # The host goes away without cancelling: leaving the client closes the server's stdin.
    with contextlib.suppress(BaseException):
        await holding
    lines = _lines(audit_file)
    assert [(e["tool"], e["status"], e.get("code")) for e in lines] == [("browser.navigate", "ok", None), ("counter.hold", "error", "cancelled")]
    assert time.monotonic() - started < 20


async def test_a_call_pending_at_sigterm_over_streamable_http_is_recorded_as_cancelled(tmp_path, pages_url):
    """The same over the HTTP transport: SIGTERM to a ``serve --transport streamable-http`` process while a
    client's call waits on the page; its line is written at shutdown, and the process ends within the
    transport's grace, not when the page's wait would end."""
    from .session_servers import http_serve

    document = json.loads((PAGES / "audit-counter" / "actions.json").read_text())
    document["surface"]["origin"] = pages_url
    map_file = tmp_path / "counter.actions.json"
    map_file.write_text(json.dumps(document))
    with http_serve(tmp_path / "served", "--manifests", str(map_file), "--no-watch", "--shared-browser-context") as served:
        started: asyncio.Queue[str] = asyncio.Queue()

        async def on_log(params: types.LoggingMessageNotificationParams) -> None:
            if isinstance(params.data, dict) and params.data.get("event") == "call_started":
                started.put_nowait(str(params.data["tool"]))

        async with Client(served.url, read_timeout_seconds=60, logging_callback=on_log, mode="legacy") as client:
            await client.set_logging_level("debug")
            opened = await client.call_tool("browser_navigate", {"url": f"{pages_url}/audit-counter/index.html"})
            assert not opened.is_error, opened.content
            holding = asyncio.create_task(client.call_tool("counter_hold", {"ms": 10000}))
            while (await asyncio.wait_for(started.get(), 30)) != "counter.hold":
                pass
            sent = time.monotonic()
            served.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 9
            while time.monotonic() < deadline and not (served.audit_log.exists() and "counter.hold" in served.audit_log.read_text()):
                await asyncio.sleep(0.05)
            recorded_after = time.monotonic() - sent
            exited = await asyncio.to_thread(served.process.wait, 15)
            exited_after = time.monotonic() - sent
            holding.cancel()
            with contextlib.suppress(BaseException):
                await holding
    assert exited_after < 8, (exited, exited_after)  # the open call was cancelled, not waited out
    lines = _lines(served.audit_log)
    assert [(e["tool"], e["status"], e.get("code")) for e in lines] == [("browser.navigate", "ok", None), ("counter.hold", "error", "cancelled")]
    assert recorded_after < 9  # recorded at shutdown, not when the page's 10 s wait ended
