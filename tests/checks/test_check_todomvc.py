"""``mcp-actions check`` treats every tool target and workflow locator as a check (issue 31), through the real CLI.

A TodoMVC-like page (tests/fixtures/pages/todomvc: ``.new-todo``, ``ul.todo-list li``,
``.toggle``, ``.destroy``, ``.clear-completed``, filters) whose list starts
empty, and its map, whose row tools find "the checkbox of the row whose text
is the title" (``within``/``has_text``) and whose check has a ``setup`` that
adds two todos and completes one. Drifted copies: every class renamed
(``todomvc-drifted``), and only the row controls renamed (``todomvc-rows-drifted``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "tests" / "fixtures" / "pages" / "todomvc" / "actions.json"


def check(manifest: Path, url: str, *args: str) -> tuple[int, dict[str, Any]]:
    """``python -m mcp_actions check MANIFEST --url URL --json``: (exit status, report)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mcp_actions", "check", str(manifest), "--url", url, "--json", *args],
                          capture_output=True, text=True, timeout=180, env=env, cwd=ROOT)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def items(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(item["kind"], item["id"]): item for item in report["items"]}


def failing_tools(report: dict[str, Any]) -> set[str]:
    """The tools named by a failing tool or tool_step item."""
    return {item["id"].split("#")[0] for item in report["items"] if item["kind"] in ("tool", "tool_step") and item["status"] in ("fail", "error")}


def without_setup(tmp_path: Path, *, may_be_empty: bool = True, tools: tuple[str, ...] = ("todos.add", "todos.toggle", "todos.delete", "todos.count")) -> Path:
    """The map with no checks (so no setup) and only ``tools``, the projection's entry declared empty-able or not."""
    document = json.loads(MAP.read_text())
    document.pop("checks")
    document["tools"] = [tool for tool in document["tools"] if tool["name"] in tools]
    if not may_be_empty:
        del document["state_projections"][0]["snapshot"]["extract"][0]["x_actions"]
    path = tmp_path / "todos.actions.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_unchanged_site_passes_after_its_setup_reveals_the_rows(pages_url: str) -> None:
    status, report = check(MAP, f"{pages_url}/todomvc/index.html")
    assert status == 0 and report["ok"] is True, json.dumps(report["items"], indent=1)[:3000]
    found = items(report)
    # The setup ran through the tools' own workflows: two todos, one completed (an apostrophe in the title).
    assert [found[("setup", f"with_todos/setup/{i}")]["status"] for i in range(3)] == ["pass", "pass", "pass"]
    assert found[("setup", "with_todos/setup/2")]["evidence"]["arguments"] == {"title": "Don't forget"}
    # Row controls, found by their structure once rows exist; "Clear completed" and the filters once shown.
    for step in ("todos.toggle#click", "todos.delete#click", "todos.clear_completed#click", "todos.show_active#click"):
        item = found[("tool_step", step)]
        assert (item["status"], item["severity"], item.get("after_setup")) == ("pass", "major", True), item
    assert found[("tool_step", "todos.toggle#click")]["evidence"]["probed_by"] == "structure"
    assert found[("tool_step", "todos.toggle#click")]["evidence"]["target"] == {"selector": ".toggle", "within": {"selector": "ul.todo-list li"}}
    # The check with the setup is judged on the page its setup left.
    assert found[("check", "with_todos")]["status"] == "pass" and found[("check", "with_todos")]["after_setup"] is True
    # A read-only tool's steps are at minor.
    assert found[("tool_step", "todos.count#read")]["severity"] == "minor"


def test_an_empty_list_declared_so_is_no_failure_and_row_locators_are_not_probed(pages_url: str, tmp_path: Path) -> None:
    status, report = check(without_setup(tmp_path), f"{pages_url}/todomvc/index.html")
    assert status == 0, json.dumps(report["items"], indent=1)[:3000]
    found = items(report)
    projection = found[("projection", "todos.items")]
    assert (projection["status"], projection["note"]) == ("pass", "empty")
    toggle = found[("tool_step", "todos.toggle#click")]
    assert (toggle["status"], toggle["note"], toggle["severity"]) == ("pass", "not_probed", "info")
    assert "depends on the arguments" in toggle["message"]
    # Undeclared, the same empty list is the minor finding it always was.
    status, report = check(without_setup(tmp_path, may_be_empty=False), f"{pages_url}/todomvc/index.html", "--fail-on", "minor")
    assert status == 1
    assert (items(report)[("projection", "todos.items")]["status"], items(report)[("projection", "todos.items")]["severity"]) == ("fail", "minor")


def test_without_a_setup_controls_hidden_until_there_is_data_only_warn(pages_url: str, tmp_path: Path) -> None:
    every_tool = tuple(tool["name"] for tool in json.loads(MAP.read_text())["tools"])
    status, report = check(without_setup(tmp_path, tools=every_tool), f"{pages_url}/todomvc/index.html")
    assert status == 0, json.dumps(report["items"], indent=1)[:3000]
    found = items(report)
    for step in ("todos.clear_completed#click", "todos.show_active#click"):
        assert (found[("tool_step", step)]["status"], found[("tool_step", step)]["note"]) == ("warn", "hidden_now")
    # Renamed, they are gone, not hidden: drift.
    status, report = check(without_setup(tmp_path, tools=every_tool), f"{pages_url}/todomvc-drifted/index.html")
    assert status == 1
    assert failing_tools(report) == {"todos.add", "todos.clear_completed", "todos.show_active"}


def test_rows_on_load_are_probed_by_structure_without_a_setup(pages_url: str, tmp_path: Path) -> None:
    seeded = "/index.html?seed=" + quote("Buy milk|Walk the dog")
    status, report = check(without_setup(tmp_path), f"{pages_url}/todomvc{seeded}")
    assert status == 0 and items(report)[("tool_step", "todos.toggle#click")]["status"] == "pass"
    status, report = check(without_setup(tmp_path), f"{pages_url}/todomvc-rows-drifted{seeded}")
    assert status == 1
    toggle = items(report)[("tool_step", "todos.toggle#click")]
    assert (toggle["status"], toggle["severity"]) == ("fail", "major")
    assert "though its scope matches 2" in toggle["message"]
    assert failing_tools(report) == {"todos.toggle", "todos.delete"}


def test_a_site_whose_classes_were_renamed_fails_naming_its_stale_tools(pages_url: str) -> None:
    status, report = check(MAP, f"{pages_url}/todomvc-drifted/index.html")
    assert status == 1 and report["ok"] is False
    found = items(report)
    assert failing_tools(report) == {"todos.add", "todos.clear_completed", "todos.show_active"}
    # The setup could not add a todo: its first entry fails at the tool's severity, the rest are not run.
    first = found[("setup", "with_todos/setup/0")]
    assert (first["status"], first["severity"]) == ("fail", "major") and "todos.add failed: target_not_found" in first["message"]
    assert found[("setup", "with_todos/setup/1")]["note"] == "not_run"
    # With no row ever added, the row tools could not be judged: said so, not claimed either way.
    assert found[("tool_step", "todos.toggle#click")]["note"] == "not_probed"


def test_a_site_whose_row_controls_were_renamed_fails_naming_the_row_tools(pages_url: str) -> None:
    status, report = check(MAP, f"{pages_url}/todomvc-rows-drifted/index.html")
    assert status == 1
    found = items(report)
    assert {"todos.toggle", "todos.delete"} <= failing_tools(report)
    assert found[("tool_step", "todos.add#type")]["status"] == "pass"
    toggle = found[("setup", "with_todos/setup/2")]
    assert toggle["status"] == "fail" and toggle["evidence"]["error"]["code"] == "target_not_found"
    step = found[("tool_step", "todos.toggle#click")]
    assert step["status"] == "fail" and "though its scope matches 2" in step["message"]
