"""``mcp-actions check`` through ``python -m``: exit codes, drifted items named, --json shape, fallback warnings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.errors import ErrorCode

MAP = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "board" / "actions.json"
ROOT = Path(__file__).resolve().parents[2]


def check(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mcp_actions", "check", *args], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def items(report: dict) -> dict[tuple[str, str], dict]:
    return {(item["kind"], item["id"]): item for item in report["items"]}


def test_matching_page_exits_0(pages_url):
    done = check(str(MAP), "--url", f"{pages_url}/board/index.html")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   projection board.state" in done.stdout


def test_drifted_page_exits_1_naming_each_drifted_item(pages_url):
    done = check(str(MAP), "--url", f"{pages_url}/board-drifted/index.html", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    found = items(report)
    # The missing ready marker: the check that asserts it fails, at major.
    assert found[("check", "board_visible")]["status"] == "fail"
    result = found[("check", "board_visible")]["evidence"]
    assert result["drift_detected"] is True and result["error"]["code"] == "drift_detected" and result["severity"] == "major"
    assert result["check_id"] == "board_visible" and result["url"].endswith("/board-drifted/index.html") and result["observed_at"]
    assert result["evidence"]["url"] == result["url"]  # on_fail.store_evidence: url ...
    assert "Sprint board" in result["evidence"]["dom_snapshot"]["text"]  # ... and a bounded DOM snapshot
    # The state a tool needs is not current there: information (the check above is what caught the drift).
    state = found[("state", "board_ready")]
    assert (state["status"], state["note"], state["current"], state["severity"]) == ("pass", "not_current", False, "major")
    # What still matches passes.
    assert found[("check", "todo_add_button")]["status"] == "pass"
    assert found[("tool", "board.add_card")]["status"] == "pass"
    # The renamed card-title selector: required titles are missing.
    assert found[("projection", "board.state")]["status"] == "fail"
    assert "lists.cards.title" in found[("projection", "board.state")]["message"]
    assert report["ok"] is False and report["fail_on"] == "major"


def test_fallback_only_match_is_a_warning_naming_the_fallback(pages_url):
    done = check(str(MAP), "--url", f"{pages_url}/board/index.html", "--json")
    tool = items(json.loads(done.stdout))[("tool", "board.clear_done")]
    assert tool["status"] == "warn"
    assert tool["warnings"] and "fallback_selectors[0]" in tool["warnings"][0] and "[data-testid='clear-done']" in tool["warnings"][0]


def test_threshold_critical_passes_what_major_fails(pages_url):
    done = check(str(MAP), "--url", f"{pages_url}/board-drifted/index.html", "--fail-on", "critical")
    assert done.returncode == 0, done.stdout
    assert "FAIL check      board_visible" in done.stdout  # still reported, just not fatal


INVALID_MAP = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "invalid"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("missing.json", "--url", "http://127.0.0.1:9/"), "path_not_found"),  # no such manifest
        ((str(MAP),), None),  # --url is required (argparse's own usage message)
        ((str(MAP), "--url", "http://127.0.0.1:9/", "--fail-on", "info"), None),  # not a threshold (argparse's choices)
        ((str(MAP), "--url", "http://127.0.0.1:9/"), "io_error"),  # the URL does not load (one line, as init says it)
        ((str(INVALID_MAP / "protocol_missing.json"), "--url", "http://127.0.0.1:9/"), "manifest_invalid"),  # the map is not valid
    ],
)
def test_usage_and_io_errors_exit_2_naming_their_code(args, code):
    done = check(*args)
    assert done.returncode == 2
    if code is not None:  # our own error lines name an ErrorCode member
        assert ErrorCode(code) and f"mcp-actions check: {code}: " in done.stderr, done.stderr
