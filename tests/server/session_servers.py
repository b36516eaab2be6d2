"""Real servers for the many-agents tests (docs/sessions.md): ``serve`` over streamable HTTP in a subprocess.

``http_serve(*args)`` starts ``python -m mcp_actions serve --transport streamable-http`` with the
given options (headless, its own HOME so no profile of the user's is touched, the audit log in
a temporary folder) and yields a ``Served`` with its MCP URL, process and audit-log path.
``chromium_processes(pid)`` lists the Chromium processes below a process, so a test can see
that nothing is left running once sessions end.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Served", "chromium_processes", "free_port", "http_serve", "isolated_env", "wait_until"]


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def isolated_env(home: Path) -> dict[str, str]:
    """The environment of a server whose HOME and XDG folders are ``home``'s (no profile or log of the user's)."""
    env = dict(os.environ)
    # tests/conftest.py makes every browser isolated; these servers run with the defaults a user gets.
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "MCP_ACTIONS_ISOLATED", "MCP_ACTIONS_USER_DATA_DIR"):
        env.pop(name, None)
    env.update({"HOME": str(home), "MCP_ACTIONS_HEADLESS": "1", "MCP_ACTIONS_LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1"})
    return env


@dataclass
class Served:
    """A running HTTP server: its MCP URL, its process, its audit log and its stderr file."""

    url: str
    process: subprocess.Popen[bytes]
    audit_log: Path
    stderr: Path


def _wait_for_port(port: int, process: subprocess.Popen[bytes], stderr: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}: {stderr.read_text()}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"port {port} never opened")


@contextlib.contextmanager
def http_serve(tmp: Path, *args: str) -> Iterator[Served]:
    """``serve --transport streamable-http`` with ``args``, stopped (SIGTERM) afterwards."""
    port = free_port()
    tmp.mkdir(parents=True, exist_ok=True)
    audit, stderr = tmp / "audit.jsonl", tmp / "server.err"
    command = [sys.executable, "-m", "mcp_actions", "serve", "--transport", "streamable-http", "--port", str(port), "--bridge-port", "0", "--audit-log", str(audit), *args]
    with stderr.open("wb") as err:
        process = subprocess.Popen(command, env=isolated_env(tmp), stdout=subprocess.DEVNULL, stderr=err)
    try:
        _wait_for_port(port, process, stderr)
        yield Served(f"http://127.0.0.1:{port}/mcp", process, audit, stderr)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 (after the parenthesised name, which may hold spaces) is the parent's pid.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def chromium_processes(pid: int) -> list[int]:
    """The Chromium processes anywhere below process ``pid`` (Linux /proc)."""
    tree, found, todo = _children(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            todo.append(child)
            with contextlib.suppress(OSError):
                if "chrom" in Path(f"/proc/{child}/comm").read_text():
                    found.append(child)
    return found


def wait_until(predicate: object, timeout: float = 10.0, interval: float = 0.1) -> bool:
    """Poll ``predicate()`` until it is true (True) or ``timeout`` passes (False)."""
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())
