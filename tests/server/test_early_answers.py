"""The stdio server answers ``initialize`` and ``tools/list`` before the MCP SDK is loaded (issue 55).

The server runs as a host runs it (a subprocess over stdio), with the MCP SDK's import
held back by a gate this test opens: the first answers must come while the gate is shut.
Once it opens, the SDK's server reads the same messages from the start; its own answers
to them must equal the early ones (the server logs a warning for an ``initialize`` that
differs and sends ``tools/list_changed`` for a tool list that does), and it answers
what comes next.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.server.early_answers import HANDSHAKE_VERSIONS

ROOT = Path(__file__).resolve().parents[2]

#: Held imports: every import of the MCP SDK waits until the gate file (``sys.argv[1]``) exists.
HOLD_THE_SDK = """
import os, sys, time
gate = sys.argv[1]
class HoldTheSdk:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mcp", "mcp_types"):
            while not os.path.exists(gate):
                time.sleep(0.02)
        return None
sys.meta_path.insert(0, HoldTheSdk())
"""
#: The command line's ``main`` after what the script before it set up (its arguments from ``sys.argv[2:]``).
RUN_THE_SERVER = """
from mcp_actions.cli import main
sys.exit(main(sys.argv[2:]))
"""
#: The server, with every import of the MCP SDK waiting until the gate file exists.
_GATED_SERVER = HOLD_THE_SDK + RUN_THE_SERVER


class Wire:
    """The client's end of a stdio server: send a message, read the next one (with a timeout)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.messages.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self.process.stdin.flush()

    def next(self, timeout: float = 30.0) -> dict[str, Any]:
        return self.messages.get(timeout=timeout)


def _start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    gate = tmp_path / "gate"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    args = ["serve", "--headless", "--bridge-port", "0", "--audit-log", "off", "--learned-maps", "off"]
    process = subprocess.Popen([sys.executable, "-c", _GATED_SERVER, str(gate), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    return process, gate


@pytest.mark.parametrize("version", [HANDSHAKE_VERSIONS[0], HANDSHAKE_VERSIONS[-1]])
def test_first_answers_come_before_the_sdk_and_match_its_own(tmp_path, version):
    process, gate = _start(tmp_path)
    wire = Wire(process)
    try:
        wire.send({"id": 1, "method": "initialize", "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
        initialized = wire.next()
        wire.send({"method": "notifications/initialized"})
        wire.send({"id": 2, "method": "tools/list"})
        listed = wire.next()
        assert not gate.exists()  # answered while the SDK could not be imported
        assert initialized["id"] == 1 and initialized["result"]["protocolVersion"] == version
        assert initialized["result"]["serverInfo"]["name"] == "mcp-actions"
        assert listed["id"] == 2 and "browser_navigate" in {tool["name"] for tool in listed["result"]["tools"]}

        gate.touch()  # the SDK loads, reads every message from the start, and serves on
        wire.send({"id": 3, "method": "tools/list"})
        again = wire.next()
        assert again == {"jsonrpc": "2.0", "id": 3, "result": listed["result"]}  # no tools/list_changed before it: the lists are equal
        wire.send({"id": 4, "method": "resources/list"})
        assert wire.next()["id"] == 4
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)
        assert process.stderr is not None
        stderr = process.stderr.read().decode()
    assert "differs from the MCP SDK's" not in stderr, stderr


def test_a_request_it_cannot_answer_waits_for_the_sdk_and_keeps_its_place(tmp_path):
    """After a message the early side does not answer, every answer is the SDK's, in order."""
    process, gate = _start(tmp_path)
    wire = Wire(process)
    try:
        wire.send({"id": 1, "method": "initialize", "params": {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
        assert wire.next()["id"] == 1
        wire.send({"method": "notifications/initialized"})
        wire.send({"id": 2, "method": "resources/list"})
        wire.send({"id": 3, "method": "tools/list"})
        with pytest.raises(queue.Empty):
            wire.next(timeout=1.0)  # resources/list needs the SDK, and tools/list comes after it
        gate.touch()
        assert [wire.next()["id"], wire.next()["id"]] == [2, 3]
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)


def test_the_handshake_versions_are_the_sdks():
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_the_command_line_loads_no_heavy_library_at_import():
    """Importing the command line (every command starts there) loads none of what a first answer does not need."""
    heavy = ("mcp", "mcp_types", "playwright", "PIL", "jsonata", "httpx", "starlette", "uvicorn", "prometheus_client", "joserfc")
    code = f"import sys, mcp_actions.cli, mcp_actions.actions_app, mcp_actions.server.transports; print([m for m in {heavy!r} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ, PYTHONPATH=str(ROOT))).stdout.strip()
    assert loaded == "[]"


def test_a_second_initialize_is_the_sdks_to_answer(tmp_path):
    """The handshake is answered early once: a second initialize, and what follows it, wait for the SDK."""
    process, gate = _start(tmp_path)
    wire = Wire(process)
    hello = {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    try:
        wire.send({"id": 1, "method": "initialize", "params": hello})
        assert wire.next()["id"] == 1
        wire.send({"method": "notifications/initialized"})
        wire.send({"id": 2, "method": "initialize", "params": hello})
        wire.send({"id": 3, "method": "tools/list"})
        with pytest.raises(queue.Empty):
            wire.next(timeout=1.0)
        gate.touch()
        assert [wire.next()["id"], wire.next()["id"]] == [2, 3]
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)
