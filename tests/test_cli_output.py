"""What the command line prints, and where, as a user meets it (issue 34, item 8).

Real subprocesses: ``validate``'s report survives ``> out.txt``, ``--help`` says that the
bare command takes ``serve``'s options (every host configuration relies on it), and the
notice that the default bridge port gave way comes before the lines that show the new port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.defaults import DEFAULT_BRIDGE_PORT

ROOT = Path(__file__).resolve().parents[1]
DEMO_MAP = ROOT / "manifests" / "demo" / "actions.json"


def test_validate_report_goes_to_a_redirected_stdout(tmp_path: Path) -> None:
    report = tmp_path / "out.txt"
    with report.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "mcp_actions", "validate", str(DEMO_MAP)], stdout=out, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert report.read_text() == "checked 1 manifest: 1 valid, 0 invalid (0 errors, 0 warnings)\n"


def test_help_says_the_bare_command_takes_serve_options() -> None:
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())  # argparse wraps at the terminal's width
    assert "With no command, mcp-actions is 'mcp-actions serve' over stdio and takes serve's options" in text
    assert "mcp-actions serve --help" in text


def test_the_default_bridge_port_notice_comes_before_the_new_port_is_shown(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        try:
            holder.bind(("127.0.0.1", DEFAULT_BRIDGE_PORT))
            holder.listen()
        except OSError:
            pass  # held by something else on this machine: taken all the same
        env = {k: v for k, v in os.environ.items() if k not in ("MCP_ACTIONS_BRIDGE_PORT", "MCP_ACTIONS_TRANSPORT")}
        args = [sys.executable, "-m", "mcp_actions", "--browser", "none", "--manifests", str(maps), "--no-watch", "--audit-log", "off"]
        # stdin at end of file: the stdio server starts, says its lines and stops.
        done = subprocess.run(args, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    finally:
        holder.close()
    lines = done.stderr.splitlines()
    if f"ws://127.0.0.1:{DEFAULT_BRIDGE_PORT}/" in done.stderr:
        pytest.skip(f"port {DEFAULT_BRIDGE_PORT} was let go by another program before the server started")
    notice = next(i for i, line in enumerate(lines) if f"default bridge port {DEFAULT_BRIDGE_PORT} is in use" in line)
    shows_port = [i for i, line in enumerate(lines) if "ws://127.0.0.1:" in line or "bridge=http" in line]
    assert shows_port and notice < min(shows_port), done.stderr
    assert sum("is in use" in line for line in lines) == 1, done.stderr  # said once
