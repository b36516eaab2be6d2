"""The command line as users run it: `python -m mcp_actions`, exit codes and streams."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_actions", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["validate", str(FIXTURES / "server" / "good")], 0),  # every manifest valid
        (["validate", str(FIXTURES / "server")], 1),  # one of them invalid
        (["validate", str(FIXTURES / "missing")], 2),  # I/O error: no such path
        (["validate"], 2),  # usage error: no path
        (["serve", "--transport", "carrier-pigeon"], 2),  # usage error: unknown transport
    ],
)
def test_exit_status(args, status):
    assert run(*args).returncode == status


def test_validate_json_goes_to_stdout_and_the_summary_to_stderr():
    done = run("validate", "--json", str(FIXTURES / "server" / "bad"))
    report = json.loads(done.stdout)
    assert [(r["valid"], [p["path"] for p in r["errors"]]) for r in report] == [(False, ["/tools/0/name", "/version"])]
    assert "invalid" in done.stderr


def test_version():
    done = run("--version")
    assert done.returncode == 0 and done.stdout.startswith("mcp-actions ")
