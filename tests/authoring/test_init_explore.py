"""``mcp-actions init`` explores, as a user runs it: the command in a subprocess, real headless Chromium.

Pages (tests/fixtures/pages):

- ``init-todomvc``: TodoMVC's vanilla example in markup and behaviour: a lone ``.new-todo`` field
  outside any form that Enter submits, the list, toggles, filters and "Clear completed" shown only
  once a todo exists, a destroy button shown only while its row is hovered, handlers bound late;
- ``init-explore``: a shopping list rendered late with look-alike rows ("Buy milk", "Buy milk
  twice"), a "Send a message" field (risk word), a field whose Enter loads another page, an "Options"
  menu, a "New list" dialog with a form, a "Delete account" dialog opener.

The drafted maps validate clean, and their tools run through ``mcp-actions serve`` (the SDK's
``Client`` over stdio) on a fresh load of the page: titles with an apostrophe and non-ASCII text,
the look-alike row left alone.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.learning.test_save_tool_e2e import Agent, serve  # the server over stdio, its SDK Client, page_read

pytestmark = pytest.mark.browser

TODOMVC_TOOLS = ["add", "toggle", "delete", "toggle_mark_all_as_complete", "show_all", "show_active", "show_completed", "click_clear_completed"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_actions", *args], capture_output=True, text=True, timeout=180)


def run_together(*commands: tuple[str, ...]) -> list[subprocess.CompletedProcess[str]]:
    """``run`` each command, all at once (commands that do not depend on each other: most of each one's time is
    its start and its browser's), their results in the order given."""
    with ThreadPoolExecutor(len(commands)) as pool:
        return list(pool.map(lambda args: run(*args), commands))


def init(tmp_path: Path, url: str, *flags: str) -> tuple[dict[str, Any], list[str], Path]:
    """Run init on ``url`` into a file; the map, the review lines on stderr, the file."""
    out = tmp_path / f"draft-{len(list(tmp_path.iterdir()))}.actions.json"
    done = run("init", url, "-o", str(out), *flags)
    assert done.returncode == 0, done.stderr
    draft = json.loads(out.read_text(encoding="utf-8"))
    return draft, done.stderr.splitlines(), out


def validate_clean(path: Path, done: subprocess.CompletedProcess[str] | None = None) -> None:
    """``validate`` (the run of it given as ``done``, or one now) found nothing wrong with ``path``."""
    done = done or run("validate", str(path), "--json")
    [report] = json.loads(done.stdout)
    assert done.returncode == 0 and report["errors"] == [] and report["warnings"] == [], done.stdout


def tools_of(draft: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["name"].split(".", 1)[1]: tool for tool in draft["tools"]}


def step_args(tool: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s["args"] for s in tool["workflow"]["steps"] if s["id"] == step_id)


def test_init_explores_todomvc_and_drafts_what_appears_later(tmp_path: Path, pages_url: str) -> None:
    draft, stderr, out = init(tmp_path, f"{pages_url}/init-todomvc/index.html")
    tools = tools_of(draft)
    assert list(tools) == TODOMVC_TOOLS
    # validate, and check on the page (asserted below), run side by side.
    validated, checked = run_together(("validate", str(out), "--json"), ("check", str(out), "--url", f"{pages_url}/init-todomvc/index.html"))
    validate_clean(out, validated)
    assert stderr[0].startswith(f"mcp-actions init: drafted {len(TODOMVC_TOOLS)} tools from") and "found by exploring" in stderr[0]
    # add(title): the lone field by its placeholder, Enter, then the row whose title is the argument.
    add = tools["add"]
    assert add["input_schema"]["required"] == ["title"]
    assert step_args(add, "type") == {"target": {"role": "textbox", "name": "What needs to be done?"}, "text": "{% input.title %}", "mode": "replace"}
    assert step_args(add, "enter") == {"key": "Enter"}
    row = {"selector": "ul.todo-list li", "has": {"selector": "label", "text_equals": "{% input.title %}"}}
    assert step_args(add, "shown")["locator"] == row and step_args(add, "shown_again")["locator"] == row
    # Row actions: the control within the row that has the title; the destroy button is hovered first.
    assert step_args(tools["toggle"], "at_click") == {"locator": {"role": "checkbox", "within": row}}
    delete = tools["delete"]
    assert [s["primitive"] for s in delete["workflow"]["steps"]][:3] == ["locator.wait_for", "locator.element_info", "pointer.move"]
    assert step_args(delete, "at_click")["locator"]["within"] == row
    assert delete["x_actions"]["annotations"] == {"destructiveHint": True} and "Go ahead?" in delete["x_actions"]["confirm"]
    # Filters are the fragment links, "Clear completed" the button that shows once a todo is done.
    assert step_args(tools["show_active"], "at_click") == {"locator": {"role": "link", "name": "Active"}}
    assert step_args(tools["click_clear_completed"], "at_click") == {"locator": {"role": "button", "name": "Clear completed"}}
    # Its check redoes what exploring did (add a row, toggle it): `check` judges every tool on a page where it shows.
    [check] = draft["checks"]
    assert [entry["tool"] for entry in check["setup"]] == ["x127_0_0_1.add", "x127_0_0_1.toggle"]
    assert checked.returncode == 0 and " 0 warnings, 0 failed, 0 errors: OK" in checked.stdout, checked.stdout
    # The review names what init did and what it did not press, and why; stderr has it too.
    review = [item["message"] for item in draft["x_init_review"]]
    assert any(m.startswith("init explored on its own throwaway tab: typed into the field 'What needs to be done?' and pressed Enter") for m in review)
    assert "did not press the row's button 'destroy' while exploring: its words say 'destroy' (it may destroy something)" in review
    assert any("did not press the row's button 'destroy'" in line for line in stderr)
    assert any(item.get("tool") == "x127_0_0_1.click_clear_completed" and "appears only once a row was added" in item["message"] for item in draft["x_init_review"])


def test_without_exploring_the_review_names_the_field_it_skipped(tmp_path: Path, pages_url: str) -> None:
    draft, stderr, _ = init(tmp_path, f"{pages_url}/init-todomvc/index.html", "--no-explore")
    assert draft["tools"] == []
    review = [item["message"] for item in draft["x_init_review"]]
    assert any(m.startswith("nothing on the page became a tool (skipped the field 'What needs to be done?'") for m in review), review
    assert any(m.startswith("skipped the field 'What needs to be done?': it is outside any form") and "--no-explore" in m for m in review)
    assert stderr[0].startswith(f"mcp-actions init: drafted 0 tools from {pages_url}/init-todomvc/index.html, written to")
    assert any(line.startswith("  - nothing on the page became a tool (skipped the field 'What needs to be done?'") for line in stderr)


def test_a_zero_budget_is_no_exploring_and_a_bad_one_is_a_usage_error(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/init-todomvc/index.html"
    zero, spent = tmp_path / "zero.actions.json", tmp_path / "spent.actions.json"
    bad_budgets = ("-1", "soon", "nan")
    # Every run at once: none depends on another.
    done_zero, done_spent, *refused = run_together(
        ("init", page, "-o", str(zero), "--explore-budget", "0"),
        ("init", page, "-o", str(spent), "--explore-budget", "0.000001"),
        *(("init", page, "--explore-budget", bad) for bad in bad_budgets),
        ("init", page, "--no-explore", "--explore-budget", "5"),
    )
    assert done_zero.returncode == 0, done_zero.stderr
    assert json.loads(zero.read_text(encoding="utf-8"))["tools"] == []
    # A budget spent before the first action: the field is named as skipped for want of time, and how to give more.
    assert done_spent.returncode == 0, done_spent.stderr
    review = [item["message"] for item in json.loads(spent.read_text(encoding="utf-8"))["x_init_review"]]
    assert "skipped the field 'What needs to be done?': the exploring time was up" in review
    assert "the exploring time was up before init tried everything: give it more with --explore-budget SECONDS" in review
    for done in refused[: len(bad_budgets)]:
        assert done.returncode == 2 and "--explore-budget" in done.stderr and done.stdout == ""
    assert refused[-1].returncode == 2


def test_exploring_never_submits_what_risk_words_mark(tmp_path: Path, pages_url: str) -> None:
    draft, _, out = init(tmp_path, f"{pages_url}/init-explore/index.html")
    validate_clean(out)
    tools = tools_of(draft)
    review = [item["message"] for item in draft["x_init_review"]]
    # "Send a message to the team" was not typed into: a submission would have shown a row and drafted a tool.
    assert "skipped the field 'Send a message to the team' while exploring: its words say 'send' (it may send something), so init did not submit it" in review
    assert not any("Send a message" in json.dumps(tool, ensure_ascii=False) for tool in draft["tools"])
    # "Delete account" was not opened (its dialog's button is nowhere), the row's "Remove" not pressed.
    assert "did not open 'Delete account' while exploring: its words say 'delete' (it may delete something)" in review
    assert not any("Yes, delete it" in json.dumps(tool, ensure_ascii=False) for tool in draft["tools"])
    assert "did not press the row's button 'Remove' while exploring: its words say 'remove' (it may remove something)" in review
    # Enter in "Jump to a list" loaded another page: init went back, and drafted nothing from that page.
    assert any(m.startswith("pressing Enter in the field 'Jump to a list' loaded another page (") and m.endswith("init went back and drafted nothing from it") for m in review)
    assert not any("Jump to a list" in json.dumps(tool, ensure_ascii=False) or "contact" in tool["name"] for tool in draft["tools"])
    # The harmless "Options" menu was opened: its items are tools that open it first; "Delete all" asks first.
    assert {"add", "toggle", "delete", "options_export_list", "options_delete_all"} <= set(tools)
    assert "confirm" in tools["options_delete_all"]["x_actions"] and "x_actions" not in tools["options_export_list"]
    # The "New list" dialog's form is a tool that opens the dialog first.
    new_list = tools["new_list_form"]
    assert [s["id"] for s in new_list["workflow"]["steps"]][:4] == ["open_ready", "at_open", "open", "ready"]
    assert new_list["target"] == {"role": "button", "name": "New list"} and list(new_list["input_schema"]["properties"]) == ["list_name"]
    assert step_args(tools["toggle"], "at_click")["locator"] == {
        "role": "checkbox",
        "name": "Got it",
        "within": {"selector": "ul.items li", "has": {"selector": "span", "text_equals": "{% input.title %}"}},
    }


# -- the drafted tools, run by the server on a fresh load --------------------------------------


async def run_tool(agent: Agent, suffix: str, arguments: dict[str, Any] | None = None) -> Any:
    """Call the drafted tool ``x127_0_0_1.<suffix>`` (listed as ``x127_0_0_1_<suffix>``)."""
    names = [name for name in await agent.tools() if name.startswith("x127_0_0_1") and name.endswith(f"_{suffix}")]
    assert len(names) == 1, names
    return await agent.ok(names[0], arguments)


async def test_drafted_tools_run_on_a_fresh_load(tmp_path: Path, pages_url: str) -> None:
    todo_map = tmp_path / "todomvc"
    list_map = tmp_path / "shopping"
    todo_map.mkdir()
    list_map.mkdir()
    # One server per map: both pages are on one origin, and init names both maps' tools alike (add, toggle).
    # The two maps are drafted and served side by side (each init and each server its own process and browser).
    learned = tmp_path / "learned"

    async def todomvc() -> None:
        _, _, todo = await asyncio.to_thread(init, todo_map, f"{pages_url}/init-todomvc/index.html")
        async with serve(tmp_path, learned, "--manifests", str(todo), name="todomvc") as agent:
            await agent.ok("browser_navigate", {"url": f"{pages_url}/init-todomvc/index.html"})
            # Right after the load: the app binds its handlers late, and add waits for its row.
            assert await run_tool(agent, "add", {"title": "Café 'crème'"}) == {"added": "Café 'crème'"}
            await run_tool(agent, "add", {"title": "Café 'crème' au lait"})  # a look-alike row
            toggled = await run_tool(agent, "toggle", {"title": "Café 'crème'"})
            assert toggled == {"toggled": "Café 'crème'", "checked": True}
            await agent.page_shows("todos: [x] Café 'crème'; [ ] Café 'crème' au lait (filter all)")
            await run_tool(agent, "show_active")
            await agent.page_shows("(filter active)")
            await run_tool(agent, "show_all")
            await run_tool(agent, "click_clear_completed")
            await agent.page_shows("todos: [ ] Café 'crème' au lait (filter all)")

    async def shopping() -> None:
        _, _, shopping = await asyncio.to_thread(init, list_map, f"{pages_url}/init-explore/index.html")
        async with serve(tmp_path, learned, "--manifests", str(shopping), name="shopping") as agent:
            # Rows that render 600 ms after load, look-alikes, a menu item behind its opener.
            await agent.ok("browser_navigate", {"url": f"{pages_url}/init-explore/index.html"})
            assert (await run_tool(agent, "toggle", {"title": "Buy milk"}))["checked"] is True
            await agent.page_shows("list: [x] Buy milk; [ ] Buy milk twice | sent 0 | exported 0")
            await run_tool(agent, "options_export_list")
            await agent.page_shows("| exported 1")
            await run_tool(agent, "new_list_form", {"list_name": "Épicerie d'été"})
            await agent.page_shows("| lists: Épicerie d'été")

    async with asyncio.TaskGroup() as both:
        both.create_task(todomvc())
        both.create_task(shopping())
