"""``actions_save_tool`` as users run it: an agent's session saved as tools, run by a new server on a fresh load.

Each server is ``mcp-actions serve`` as a subprocess over stdio, driven by the
SDK's ``Client``, with its own headless Chromium and one learned-maps folder
(``--learned-maps``) shared by both. The page
(``tests/fixtures/pages/learn-todos``) follows TodoMVC's vanilla markup,
re-renders its whole list on every change, renders its first rows late and
has look-alike rows ("Walk the dog", "Walk the dog twice") and an apostrophe
("Don't forget"); a line shows the list's state, so a test reads the
effect of a call with ``page_read``.

- The agent adds "Buy milk" (page_fill + page_press) and toggles "Don't forget"
  by its row; it saves ``todos.add(title)`` and ``todos.toggle(title)``; the
  tools are listed at once. A second server (a new process, a fresh load)
  runs them with "Café 'crème'" and "Walk the dog": the page shows it, and the
  look-alike row is left alone.
- A click on an element with nothing to find it by is refused with the reason.
- Saving the same name twice replaces the tool and keeps the old one in the map's history.
- A click that removes its row is saved with a probe that waits until the row is gone, and runs at once;
  a chosen option (page_select) becomes an argument; a hover menu's item is reached by hovering first.
- A learned map does not withdraw the page tools on its pages (with other maps loaded).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_actions.learning.store import learned_namespace

pytestmark = [pytest.mark.browser]

LONG = {"timeout_ms": 30000}
NO_FIND = "this click has no name, role or text to find it by"
#: One element of page_observe's answer: ``@e12 checkbox "name"? … in: todos › Don't forget``.
ELEMENT_LINE = re.compile(r'^\s*(?P<ref>@e\d+)\s+(?P<role>\S+)(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*)$')


class Agent:
    """One running server and its client, with the calls a test makes."""

    def __init__(self, client: Client, heard: list[str]) -> None:
        self.client = client
        self.heard = heard

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return await self.client.call_tool(name, {**(arguments or {}), **LONG})

    async def ok(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        result = await self.call(name, arguments)
        assert not result.is_error, result
        if result.structured_content is not None:
            return result.structured_content
        text = result.content[0].text if result.content and isinstance(result.content[0], types.TextContent) else ""
        try:
            return json.loads(text)
        except ValueError:
            return text

    async def refused(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.call(name, arguments)
        assert result.is_error and result.structured_content is not None, result
        error: dict[str, Any] = result.structured_content["error"]
        return error

    async def tools(self) -> set[str]:
        return {tool.name for tool in (await self.client.list_tools()).tools}

    async def elements(self) -> list[dict[str, Any]]:
        """page_observe's elements as ``{ref, role, name, rest}`` (its answer is compact text, one element a line)."""
        observed = await self.ok("page_observe", {"max_bytes": 100000})
        if isinstance(observed, dict):
            return [{**e, "rest": json.dumps(e, ensure_ascii=False)} for e in observed["elements"]]
        out = []
        for line in str(observed).splitlines():
            found = ELEMENT_LINE.match(line)
            if found:
                out.append({"ref": found["ref"], "role": found["role"], "name": json.loads(f'"{found["name"]}"') if found["name"] is not None else None, "rest": found["rest"]})
        return out

    async def page_shows(self, *parts: str, timeout: float = 10) -> str:
        """The page's state line (``p.state``) once it shows every part, as page_read reads the page."""
        deadline = time.monotonic() + timeout
        while True:
            read = await self.ok("page_read", {"max_bytes": 100000})
            title = read if isinstance(read, str) else json.dumps(read, ensure_ascii=False)
            if all(part in title for part in parts):
                return title
            assert time.monotonic() < deadline, f"the page never showed {parts}: {title}"
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def serve(tmp_path: Path, learned: Path, *extra: str, name: str = "a") -> AsyncIterator[Agent]:
    env = {**os.environ, "MCP_ACTIONS_HEADLESS": "1", "PYTHONUNBUFFERED": "1"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_actions", "serve", "--bridge-port", "0", "--audit-log", "off", "--no-watch", "--isolated", "--learned-maps", str(learned), *extra],
        env=env,
    )
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification) or getattr(message, "method", None) == "notifications/tools/list_changed":
            heard.append("tools/list_changed")

    with (tmp_path / f"stderr-{name}.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60, message_handler=on_message, mode="legacy") as client:
            yield Agent(client, heard)


def _the(elements: list[dict[str, Any]], role: str, name: str | None = None) -> list[dict[str, Any]]:
    return [e for e in elements if e["role"] == role and (name is None or e.get("name") == name)]


async def test_a_saved_session_runs_in_a_new_server_on_a_fresh_load_with_other_values(tmp_path: Path, pages_url: str) -> None:
    learned = tmp_path / "learned"
    url = f"{pages_url}/learn-todos/index.html"
    async with serve(tmp_path, learned, name="first") as agent:
        await agent.ok("browser_navigate", {"url": url})
        await agent.page_shows("Don't forget")  # the rows render late
        # The field named by its placeholder (the page tools' text targeting), the key pressed on its ref.
        await agent.ok("page_fill", {"text": "What needs to be done?", "value": "Buy milk"})
        field = _the(await agent.elements(), "textbox", "What needs to be done?")[0]
        await agent.ok("page_press", {"ref": field["ref"], "key": "Enter"})
        await agent.page_shows("[ ] Buy milk")

        saved = await agent.ok("actions_save_tool", {"name": "todos.add", "description": "Add a todo.", "parameters": {"title": "Buy milk"}})
        # Named under its origin's namespace (the same at every start), which no other origin has.
        assert saved["namespace"] == learned_namespace(pages_url) and saved["tool"] == f"{saved['namespace']}_todos_add"
        assert Path(saved["map"]).parent == learned
        assert saved["tool"] in await agent.tools()  # listed at once
        assert "tools/list_changed" in agent.heard

        # The checkbox of the row "Don't forget" (its row's text names it, or is its context).
        listed = await agent.elements()
        box = next((e for e in _the(listed, "checkbox") if e.get("name") == "Don't forget" or "› Don't forget" in e["rest"]), None)
        assert box is not None, [e for e in listed if e["role"] == "checkbox"]
        await agent.ok("page_click", {"ref": box["ref"]})
        await agent.page_shows("[x] Don't forget")
        saved = await agent.ok("actions_save_tool", {"name": "todos.toggle", "description": "Toggle a todo by its title.", "steps": 1, "parameters": {"title": "Don't forget"}})
        assert saved["tool"] == f"{saved['namespace']}_todos_toggle" and saved["replaced"] is False

        document = json.loads(Path(saved["map"]).read_text())
        written = json.dumps(document["tools"], ensure_ascii=False)
        assert "@e" not in written and '"x"' not in written  # never a ref, never coordinates
        toggle = next(t for t in document["tools"] if t["name"] == "todos.toggle")
        click = next(s for s in toggle["workflow"]["steps"] if s["primitive"] == "pointer.click")
        assert click["args"]["target"] == {"role": "checkbox", "within": {"selector": "li", "text_equals": "{% input.title %}"}}
        add = next(t for t in document["tools"] if t["name"] == "todos.add")
        fill, press = (next(s for s in add["workflow"]["steps"] if s["primitive"] == p) for p in ("text.insert", "keyboard.press"))
        assert fill["args"] == {"target": {"role": "textbox", "name": "What needs to be done?"}, "text": "{% input.title %}", "mode": "replace"}
        # What the page did is learned: the new row's text appears after Enter.
        assert press["settle_after"]["locator"] == {"text_equals": "{% input.title %}"}
        assert add["input_schema"]["required"] == ["title"]

    # A new server process, a fresh load of the page, other values.
    other_map = tmp_path / "other.actions.json"
    other_map.write_text(json.dumps({"protocol": "actions.json", "version": 1, "surface": {"origin": "https://elsewhere.example"}, "tools": []}))
    async with serve(tmp_path, learned, "--manifests", str(other_map), name="second") as agent:
        add, toggle = (f"{learned_namespace(pages_url)}_{name}" for name in ("todos_add", "todos_toggle"))
        assert not {add, toggle} & await agent.tools()  # listed only on their origin's pages
        await agent.ok("browser_navigate", {"url": url})
        assert {add, toggle} <= await agent.tools()  # the same names as in the first server
        # Right away: the rows are not there yet, and the tool waits for its row.
        await agent.ok(toggle, {"title": "Walk the dog"})
        await agent.ok(add, {"title": "Café 'crème'"})
        await agent.ok(toggle, {"title": "Café 'crème'"})
        title = await agent.page_shows("[x] Walk the dog;", "[x] Café 'crème'")
        assert "[ ] Walk the dog twice" in title and "[ ] Don't forget" in title  # the look-alike row left alone
        # A learned map never withdraws the page tools on its pages.
        assert {"page_observe", "page_click", "actions_save_tool"} <= await agent.tools()


async def test_a_step_with_nothing_to_find_it_by_is_refused_and_saving_twice_keeps_history(tmp_path: Path, pages_url: str) -> None:
    learned = tmp_path / "learned"
    async with serve(tmp_path, learned) as agent:
        await agent.ok("browser_navigate", {"url": f"{pages_url}/learn-todos/index.html"})
        await agent.page_shows("Don't forget")
        # Before the last navigation: not part of what is saved by default (it could not be saved at all).
        await agent.ok("page_click", {"ref": next(e for e in await agent.elements() if e["role"] == "div")["ref"]})
        await agent.ok("browser_navigate", {"url": f"{pages_url}/learn-todos/index.html"})
        await agent.page_shows("Don't forget")
        error = await agent.refused("actions_save_tool", {"name": "todos.sparkle", "description": "x"})
        assert error["code"] == "invalid_input" and error["evidence"]["path"] == "/steps"  # nothing since the navigation
        boxes = [e for e in _the(await agent.elements(), "checkbox") if e.get("name") != "Mark all as complete"]
        await agent.ok("page_click", {"ref": boxes[0]["ref"]})
        first = await agent.ok("actions_save_tool", {"name": "todos.toggle", "description": "Toggle a todo.", "parameters": {"title": "Walk the dog"}})
        boxes = [e for e in _the(await agent.elements(), "checkbox") if e.get("name") != "Mark all as complete"]
        await agent.ok("page_click", {"ref": boxes[0]["ref"]})  # the same row's box again (the list was rendered anew)
        # A value that appears in no step names its parameter, and nothing is written.
        error = await agent.refused("actions_save_tool", {"name": "todos.other", "description": "x", "steps": 1, "parameters": {"title": "Nowhere"}})
        assert error["code"] == "invalid_input" and error["evidence"]["path"] == "/parameters/title"
        second = await agent.ok("actions_save_tool", {"name": "todos.toggle", "description": "Toggle a todo (again).", "steps": 1, "parameters": {"title": "Walk the dog"}})
        assert second["map"] == first["map"] and second["replaced"] is True
        document = json.loads(Path(second["map"]).read_text())
        assert [t["description"] for t in document["tools"]] == ["Toggle a todo (again)."]
        assert [h["tool"]["description"] for h in document["x_actions"]["history"]] == ["Toggle a todo."]

        # The row that went: a destroy click saved as todos.remove(title) waits until the row is gone,
        # and runs at once in this session on another row.
        listed = await agent.elements()
        destroy = next(e for e in _the(listed, "button") if e.get("name") == "Walk the dog twice" or e["rest"].endswith("› Walk the dog twice"))
        await agent.ok("page_click", {"ref": destroy["ref"]})
        removed = await agent.ok("actions_save_tool", {"name": "todos.remove", "description": "Remove a todo.", "steps": 1, "parameters": {"title": "Walk the dog twice"}})
        remove = next(t for t in json.loads(Path(removed["map"]).read_text())["tools"] if t["name"] == "todos.remove")
        assert remove["workflow"]["steps"][-2]["primitive"] == "locator.probe"  # before the report (the tool's answer)
        await agent.ok(removed["tool"], {"title": "Don't forget"})
        state = await agent.page_shows("todos: [ ] Walk the dog")  # toggled twice above
        assert "Don't forget" not in state.split("todos:", 1)[1] and "twice" not in state.split("todos:", 1)[1]

        # A chosen option becomes the argument: todos.sort(order), run at once with another option.
        await agent.ok("page_select", {"text": "Sort by", "values": ["Title"]})
        await agent.page_shows("sorted by Title")
        sort = await agent.ok("actions_save_tool", {"name": "todos.sort", "description": "Sort the list.", "steps": 1, "parameters": {"order": "Title"}})
        await agent.ok(sort["tool"], {"order": "Café order"})
        await agent.page_shows("sorted by Café order")

        # A hover menu: the pointer goes over "More", then its item is clicked; saved and run on a fresh load.
        await agent.ok("page_hover", {"text": "More"})
        await agent.ok("page_click", {"text": "Mark all done"})
        await agent.page_shows("todos: [x] Walk the dog")
        marked = await agent.ok("actions_save_tool", {"name": "todos.mark_all", "description": "Mark every todo done.", "steps": 2})
        await agent.ok("browser_navigate", {"url": f"{pages_url}/learn-todos/index.html"})
        await agent.page_shows("Don't forget")  # the rows it marks render late
        await agent.ok(marked["tool"], {})
        await agent.page_shows("todos: [x] Walk the dog; [x] Walk the dog twice; [x] Don't forget")

        # Across a navigation: toggle, reload, toggle another row; the tool opens the page again between them.
        await agent.ok("page_click", {"text": "Walk the dog"})
        await agent.ok("browser_navigate", {"url": f"{pages_url}/learn-todos/index.html"})
        await agent.page_shows("Don't forget")
        await agent.ok("page_click", {"text": "Don't forget"})
        both = await agent.ok("actions_save_tool", {"name": "todos.fresh", "description": "x", "steps": 2, "parameters": {"first": "Walk the dog", "second": "Don't forget"}})
        fresh = next(t for t in json.loads(Path(both["map"]).read_text())["tools"] if t["name"] == "todos.fresh")
        # The tool's answer brackets the actions after the navigation: the change mark before the click, the report last.
        assert [s["primitive"] for s in fresh["workflow"]["steps"]] == ["locator.wait_for", "pointer.click", "browser.navigate", "locator.wait_for", "refs.change_mark", "pointer.click", "refs.change_report"]
        await agent.ok(both["tool"], {"first": "Walk the dog twice", "second": "Walk the dog"})
        await agent.page_shows("todos: [x] Walk the dog; [ ] Walk the dog twice; [ ] Don't forget")

        sparkle = next(e for e in await agent.elements() if e["role"] == "div")
        await agent.ok("page_click", {"ref": sparkle["ref"]})
        error = await agent.refused("actions_save_tool", {"name": "todos.sparkle", "description": "Sparkle.", "steps": 1})
        assert error["code"] == "invalid_input" and NO_FIND in error["message"]
        assert error["evidence"]["path"] == "/steps"
        assert {t["name"] for t in json.loads(Path(second["map"]).read_text())["tools"]} == {"todos.toggle", "todos.remove", "todos.sort", "todos.mark_all", "todos.fresh"}  # nothing more written
