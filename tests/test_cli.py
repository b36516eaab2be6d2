"""The command line as users run it: `python -m mcp_actions`, exit codes and streams."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]
BENCH_BOARD = ROOT / "bench" / "board" / "actions.json"
DEMO_MAP = ROOT / "manifests" / "demo" / "actions.json"


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


def test_validate_says_nothing_about_what_our_runtimes_run():
    """The bench board clicks by locator (pointer.click's target): our runtimes take it, so no warning by default."""
    done = run("validate", str(BENCH_BOARD), str(DEMO_MAP))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{BENCH_BOARD}: valid\n{DEMO_MAP}: valid\nchecked 2 manifests: 2 valid, 0 invalid (0 errors, 0 warnings)\n"


def test_validate_reference_only_warns_about_what_reference_runtimes_refuse():
    done = run("validate", "--reference-only", str(BENCH_BOARD), str(DEMO_MAP))
    assert done.returncode == 0  # a warning: the map stays valid
    assert done.stdout == (
        f"{BENCH_BOARD}:/tools/0/workflow/steps/0/args/target non_reference_argument warning: step 'open': pointer.click's 'target' "
        "is an addition to the reference dictionary; runtimes that do not announce pointer.click.target refuse this step "
        "(mcp-actions' own runtimes announce it)\n"
        f"{BENCH_BOARD}: valid (0 errors, 1 warning)\n{DEMO_MAP}: valid\n"
        "checked 2 manifests: 2 valid, 0 invalid (0 errors, 1 warning)\n"
    )
    assert done.stderr == ""
    as_json = json.loads(run("validate", "--json", "--reference-only", str(BENCH_BOARD)).stdout)
    assert [(r["valid"], [(w["code"], w["path"]) for w in r["warnings"]]) for r in as_json] == [
        (True, [("non_reference_argument", "/tools/0/workflow/steps/0/args/target")])
    ]


def test_validate_messages_say_how_to_fix(tmp_path):
    broken = tmp_path / "actions.json"
    tool = {"name": "go", "description": "Go.", "inputSchema": {"type": "object"}, "x_actions": {"handler": "go"}}
    broken.write_text(json.dumps({"protocol": "actions.json", "version": 1, "tools": [tool]}))
    done = run("validate", str(broken))
    assert done.returncode == 1
    assert done.stdout == (
        f"{broken}:/tools/0/inputSchema field_not_allowed tool 'go': rename 'inputSchema' to 'input_schema' (actions.json spells its keys in snake_case)\n"
        "checked 1 manifest: 0 valid, 1 invalid (1 error, 0 warnings)\n"
    )


def test_version():
    done = run("--version")
    assert done.returncode == 0 and done.stdout.startswith("mcp-actions ")


def _commands() -> list[str]:
    from mcp_actions.cli import build_parser

    parser = build_parser()
    [sub] = [action for action in parser._actions if action.dest == "command"]
    return list(sub.choices)


def test_each_command_names_itself_in_its_usage():
    # Not "usage: mcp-actions [serve options] | mcp-actions COMMAND ... init": the command's own line.
    for command in _commands():
        done = run(command, "--help")
        assert done.returncode == 0 and done.stdout.startswith(f"usage: mcp-actions {command} "), done.stdout[:200]


def test_the_docs_count_and_link_every_command():
    words = {6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}
    commands = _commands()
    opening = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("\n\n")[1]
    assert opening.startswith(f"`mcp-actions` has {words[len(commands)]} commands:"), opening[:80]
    for command in commands:
        assert f"[`{command}`](#mcp-actions-{command})" in opening, command


@pytest.mark.browser
def test_check_on_a_page_that_will_not_load_is_one_line_naming_the_cause():
    import socket

    with socket.socket() as sock:  # a loopback port nobody listens on: the connection is refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = run("check", str(ROOT / "docs" / "examples" / "first-map" / "actions.json"), "--url", f"http://127.0.0.1:{port}/")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mcp-actions check: io_error: could not load http://127.0.0.1:{port}/: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:{port}/"], done.stderr
