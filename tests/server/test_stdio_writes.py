"""An answer over stdio goes out at once, not after the process's other work in threads (issue 55).

Every message used to be written from a worker of the event loop's thread pool: each answer
waited for a free worker, then for the hand-over back (15.7 ms for browser_navigate's answer
on a busy 2-core machine, a write of 0.1 ms). The pool is shared: while the MCP SDK is
imported (in a worker, as the first answers are given) or anything else runs there, an
answer waited behind it. Here the pool has a single worker and the SDK's import, held back
by a gate this test opens, keeps it: the handshake must still be answered.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

from mcp_actions.server.early_answers import HANDSHAKE_VERSIONS
from tests.server.test_early_answers import HOLD_THE_SDK, RUN_THE_SERVER

ROOT = Path(__file__).resolve().parents[2]

#: The server with one worker in the loop's pool, and every import of the MCP SDK waiting for the gate file.
_ONE_WORKER_SERVER = (
    HOLD_THE_SDK
    + """
import concurrent.futures
_init = concurrent.futures.ThreadPoolExecutor.__init__
def one_worker(self, max_workers=None, *args, **kwargs):
    _init(self, 1, *args, **kwargs)
concurrent.futures.ThreadPoolExecutor.__init__ = one_worker
"""
    + RUN_THE_SERVER
)


def test_the_handshake_is_answered_while_the_only_worker_is_busy(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    args = ["serve", "--headless", "--bridge-port", "0", "--audit-log", "off", "--learned-maps", "off"]
    process = subprocess.Popen([sys.executable, "-c", _ONE_WORKER_SERVER, str(gate), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    assert process.stdin is not None and process.stdout is not None
    try:
        hello = {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
        process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}) + "\n").encode())
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 20.0)
        assert ready, "no answer to initialize while the SDK's import held the pool's only worker"
        answer = json.loads(process.stdout.readline())
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "mcp-actions"
        assert not gate.exists()
    finally:
        gate.touch()
        process.stdin.close()
        process.wait(timeout=30)
