"""The locator extension filters in a tab shared through the shipped extension (its copy of the page engine).

Real headless Chromium with the extension, the real server with the TodoMVC-like
map (its row tools find "the checkbox of the row whose text is the title":
``within`` + ``has_text`` from the argument), the SDK's ``Client``: titles with
an apostrophe, quotes and non-ASCII text toggle their own rows, and a title
that no row has is ``target_not_found`` naming what is there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from .harness import PAGES, chromium_with_extension, eventually, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser

TITLE = "TodoMVC-like (test fixture)"


def todos_map(tmp_path: Path, origin: str) -> Path:
    document = json.loads((PAGES / "todomvc" / "actions.json").read_text())
    document["surface"]["origin"] = origin
    folder = tmp_path / "maps"
    folder.mkdir(exist_ok=True)
    (folder / "todos.actions.json").write_text(json.dumps(document))
    return folder


async def tool_named(client: Client, dotted: str) -> str | None:
    return next((t.name for t in (await client.list_tools()).tools if (t.meta or {}).get("mcp-actions/tool") == dotted), None)


async def call(client: Client, dotted: str, arguments: dict[str, Any]) -> Any:
    name = await eventually(lambda: tool_named(client, dotted), dotted)
    return await client.call_tool(name, {**arguments, "timeout_ms": 10_000})


async def test_row_tools_run_in_a_shared_tab(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    titles = ["Buy milk", "Don't forget", 'Say "hi"', "Straße über Köln"]
    async with chromium_with_extension(tmp_path / "profile") as context:
        todo = context.pages[0] if context.pages else await context.new_page()
        await todo.goto(f"{pages_url}/todomvc/index.html")
        async with server(todos_map(tmp_path, pages_url), free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_role("checkbox", name=f"Share {TITLE}").check()

            async def shared() -> bool:
                return any(r.get("title") == TITLE and str(r.get("runtime_key", "")).startswith("chrome-tab:") for r in await runtimes(client))

            await eventually(shared, "the shared tab's runtime")
            for title in titles:
                result = await call(client, "todos.add", {"title": title})
                assert not result.is_error, result
            for title in ("Don't forget", 'Say "hi"', "Straße über Köln"):
                result = await call(client, "todos.toggle", {"title": title})
                assert not result.is_error, result
            done = await todo.evaluate("[...document.querySelectorAll('ul.todo-list li.completed label')].map(l => l.textContent)")
            assert done == ["Don't forget", 'Say "hi"', "Straße über Köln"]

            missing = await call(client, "todos.toggle", {"title": "nope"})
            assert missing.is_error
            text = " ".join(getattr(block, "text", "") for block in missing.content)
            assert "no ul.todo-list li with the text 'nope'; there are: 'Buy milk" in text, text
