"""What the model reads when a map's tool misses, and when a call opens or moves to another tab (issue 34 items 2 and 3).

Real headless Chromium through the SDK's ``Client``, with the TodoMVC-like fixture served at the root
of its own origin (so the tab is on the site's front page, where the old hint said "open that page
with browser_navigate first" whatever the miss):

- a row that does not exist (``todos_toggle {"title": "nope"}``): no element matched that value, and
  what is there; no navigate hint;
- a stale map (the page after a redesign: no state of the map holds): the page matches none of the map's
  states, ``mcp-actions check`` names the drift; no navigate hint;
- the navigate hint only where the tab is on another page than the tool's;
- a call that opens a new tab (the tab on ``localhost``, the map on ``127.0.0.1``) or runs in
  another tab than the active one says so in one short line.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.demo.static import StaticSite
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture()
def todos_site() -> Iterator[str]:
    """The TodoMVC-like page at the root of its own origin (no trailing slash)."""
    with StaticSite(PAGES / "todomvc") as site:
        yield site.url.rstrip("/")


@pytest.fixture()
def drifted_site(tmp_path: Path) -> Iterator[str]:
    """The same page after a redesign renamed its input's class: the map's selectors went stale."""
    drifted = tmp_path / "drifted"
    drifted.mkdir()
    for name in ("index.html", "app.js"):
        (drifted / name).write_text((PAGES / "todomvc" / name).read_text().replace("new-todo", "todo-input"))
    with StaticSite(drifted) as site:
        yield site.url.rstrip("/")


_TITLE = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string", "minLength": 1}}, "additionalProperties": False}


def todos_map(origin: str) -> dict[str, Any]:
    """A map of the TodoMVC-like page for ``origin``: adding needs its input there (a state); toggling finds the row by its title."""
    add_steps = [
        {"id": "type", "primitive": "text.insert", "args": {"target": {"selector": ".new-todo"}, "text": "{% input.title %}", "mode": "replace"}},
        {
            "id": "enter",
            "primitive": "keyboard.press",
            "args": {"key": "Enter"},
            "settle_after": {"locator": {"selector": "ul.todo-list li", "has_text": "{% input.title %}"}, "state": "attached", "timeout_ms": 3000},
        },
    ]
    toggle_target = {"selector": ".toggle", "within": {"selector": "ul.todo-list li", "has_text": "{% input.title %}"}}
    return {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin, "name": "Todos"},
        "states": [{"name": "list_ready", "description": "The new-todo input is there.", "diagnostics": [{"name": "input", "target": {"selector": ".new-todo"}}]}],
        "tools": [
            {
                "name": "todos.add",
                "description": "Add a todo with a title.",
                "input_schema": _TITLE,
                "target": {"selector": ".new-todo", "state": "list_ready"},
                "workflow": {"version": 1, "expression_language": "jsonata", "steps": add_steps, "output": "{% {'added': input.title} %}"},
            },
            {
                "name": "todos.toggle",
                "description": "Mark the todo with this title done (or not done again).",
                "input_schema": _TITLE,
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [{"id": "click", "primitive": "pointer.click", "args": {"target": toggle_target}, "settle_after": {"delay_ms": 50}}],
                    "output": "{% {'toggled': input.title} %}",
                },
            },
        ],
    }


@contextlib.asynccontextmanager
async def agent(tmp_path: Path, *documents: dict[str, Any]) -> AsyncIterator[tuple[ActionsApp, Client, list[Path]]]:
    files = []
    for number, document in enumerate(documents):
        path = tmp_path / f"map{number}.actions.json"
        path.write_text(json.dumps(document))
        files.append(path)
    app = ActionsApp(AppOptions(manifests=[str(p) for p in files], headless=True, isolated=True, serve_bridge=False, watch=False))
    async with Client(build_server(app), mode="legacy") as client:
        yield app, client, files


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


def failed(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error and result.structured_content is not None, result
    error: dict[str, Any] = result.structured_content["error"]
    return error


def texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def test_a_value_that_matches_no_row_says_so_and_lists_the_rows(tmp_path, todos_site):
    async with agent(tmp_path, todos_map(todos_site)) as (app, client, files):
        ok(await client.call_tool("browser_navigate", {"url": f"{todos_site}/"}))
        ok(await client.call_tool("todos_add", {"title": "Buy milk"}))
        ok(await client.call_tool("todos_add", {"title": "Walk the dog"}))
        error = failed(await client.call_tool("todos_toggle", {"title": "nope"}))
        assert error["code"] == "target_not_found"
        assert "no element matched that value" in error["message"] and "todos_toggle again" in error["message"]
        assert "Buy milk" in error["message"] and "Walk the dog" in error["message"]
        # The tab is on the tool's own page (the site's front page, opened by the model): no navigate hint.
        assert "browser_navigate" not in error["message"] and error["evidence"]["next"] == "retry_with_other_value"
        assert "front_page" not in error["evidence"]
        assert len(error["message"].encode()) < 600, error["message"]


async def test_a_stale_map_says_the_page_no_longer_matches_its_states(tmp_path, drifted_site):
    async with agent(tmp_path, todos_map(drifted_site)) as (app, client, files):
        ok(await client.call_tool("browser_navigate", {"url": f"{drifted_site}/"}))
        error = failed(await client.call_tool("todos_add", {"title": "Buy milk"}))
        assert error["code"] == "state_mismatch" and error["evidence"]["current_states"] == []
        assert "matches none of the map's states" in error["message"]
        assert f"mcp-actions check {files[0]} --url {drifted_site}/" in error["message"]
        assert "browser_navigate" not in error["message"] and error["evidence"]["next"] == "check_map"


async def test_a_call_that_opens_a_new_tab_says_so(tmp_path, todos_site):
    # The model opened the page on localhost; the map names 127.0.0.1 (the same server, another origin).
    localhost = todos_site.replace("127.0.0.1", "localhost")
    async with agent(tmp_path, todos_map(todos_site)) as (app, client, files):
        opened = ok(await client.call_tool("browser_navigate", {"url": f"{localhost}/"}))
        first_tab = opened["runtime_id"]
        result = await client.call_tool("todos_add", {"title": "Buy milk"})
        assert ok(result) == {"added": "Buy milk"}
        tab = (result.meta or {})["mcp-actions/tab"]
        assert tab["change"] == "opened" and tab["url"] == f"{todos_site}/" and tab["runtime_id"] != first_tab
        assert f"Note: opened a new tab on {todos_site}/ ({tab['runtime_id']})." in texts(result)
        # The next call runs in that tab, now the active one: nothing to say.
        again = await client.call_tool("todos_add", {"title": "Walk the dog"})
        ok(again)
        assert "mcp-actions/tab" not in (again.meta or {}) and len(texts(again)) == 1


async def test_a_call_that_runs_in_another_tab_than_the_active_one_says_so(tmp_path, todos_site, pages_url):
    async with agent(tmp_path, todos_map(todos_site)) as (app, client, files):
        todos_tab = ok(await client.call_tool("browser_navigate", {"url": f"{todos_site}/"}))["runtime_id"]
        # The model opens another site in a new tab, which becomes the active one.
        ok(await client.call_tool("browser_open_tab", {"url": f"{pages_url}/simple-form/index.html"}))
        result = await client.call_tool("todos_add", {"title": "Buy milk"})
        ok(result)
        tab = (result.meta or {})["mcp-actions/tab"]
        assert tab["change"] == "switched" and tab["runtime_id"] == todos_tab and tab["previous"] != todos_tab
        assert any(text.startswith(f"Note: ran in tab {todos_tab} on {todos_site}/ instead of the active tab ") for text in texts(result))


async def test_the_navigate_hint_stays_where_the_tab_is_on_another_page(tmp_path, todos_site):
    # A first call with no tab on the site: the server opens its front page for it; the tool may work
    # on another page of the site, so the model hears both that a tab was opened and to navigate.
    document = todos_map(todos_site)
    for tool in document["tools"]:
        if tool["name"] == "todos.toggle":
            tool["target"] = {"selector": ".toggle", "url_contains": "/active"}
    async with agent(tmp_path, document) as (app, client, files):
        result = await client.call_tool("todos_toggle", {"title": "nope"})
        error = failed(result)
        assert "browser_navigate" in error["message"] and error["evidence"]["next"] == "browser_navigate"
        assert error["evidence"]["tab"]["change"] in ("opened", "navigated")
        assert "/active" in error["message"]
