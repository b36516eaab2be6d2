"""The learned-maps folder: one map per origin, history on replace, validation before writing, always loaded.

``LearnedMaps`` writes real files in a temporary folder and validates them
with the project's own loader; ``ActionsApp`` loads the folder the way
``serve`` does (``--learned-maps``), beside ``--manifests``, and its tools are
listed through the MCP SDK's in-process ``Client``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.errors import ActionError
from mcp_actions.learning.store import HISTORY_CAP, LearnedMaps, learned_namespace, origin_of
from mcp_actions.server.mcp_server import build_server

ORIGIN = "http://127.0.0.1:8765"


def tool(name: str, description: str = "Add a todo.") -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"], "additionalProperties": False},
        "workflow": {"version": 1, "expression_language": "jsonata", "steps": [
            {"id": "s1", "primitive": "text.insert", "args": {"target": {"role": "textbox", "name": "What needs to be done?"}, "text": "{% input.title %}", "mode": "replace"}},
        ]},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("url", "origin", "namespace"),
    [
        ("http://127.0.0.1:8765/learn-todos/index.html?x=1#y", "http://127.0.0.1:8765", "site-127-0-0-1-8765-"),  # loopback with a port: digest
        ("https://todo.example.com/app", "https://todo.example.com", "todo-example-com"),  # a host, default port: its words give it back
        ("https://todo.example.com:443/app", "https://todo.example.com", "todo-example-com"),  # the default port said is no other origin
        ("https://Bücher.example/", "https://bücher.example", "b-cher-example-"),  # non-ASCII host: safe identifier, and a digest
    ],
)
def test_an_origin_names_one_map_and_its_namespace(url: str, origin: str, namespace: str) -> None:
    assert origin_of(url) == origin
    assert learned_namespace(origin) == namespace or (namespace.endswith("-") and re.fullmatch(re.escape(namespace) + "[0-9a-f]{6}", learned_namespace(origin)))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("http://todo.example.com", "https://todo.example.com"),  # the scheme
        ("https://x-y.example.com", "https://x.y-example.com"),  # the same words, another separator
        ("http://127.0.0.1:8000", "http://127.0.0.1:8001"),  # the port
    ],
)
def test_no_origin_takes_anothers_namespace(one: str, other: str) -> None:
    assert learned_namespace(one) != learned_namespace(other)
    assert learned_namespace(one) == learned_namespace(one)  # a function of the origin alone: the same at every start


def test_only_web_pages_have_an_origin_to_learn_on() -> None:
    assert origin_of("about:blank") is None and origin_of("file:///tmp/x.html") is None


async def test_saving_twice_replaces_and_keeps_history_and_an_invalid_map_is_never_written(tmp_path: Path) -> None:
    store = LearnedMaps(tmp_path / "learned")
    first = await store.save(ORIGIN, tool("todos.add"))
    assert first.path == tmp_path / "learned" / "http_127.0.0.1_8765.actions.json" and not first.replaced
    again = await store.save(ORIGIN, tool("todos.add", "Add a todo (again)."))
    assert again.replaced
    document = json.loads(first.path.read_text())
    assert document["surface"] == {"origin": ORIGIN, "name": f"Learned on {ORIGIN}", "surface_id": learned_namespace(ORIGIN)}
    assert document["x_actions"]["learned"] is True
    assert [t["description"] for t in document["tools"]] == ["Add a todo (again)."]
    assert [h["tool"]["description"] for h in document["x_actions"]["history"]] == ["Add a todo."]
    for n in range(HISTORY_CAP + 5):
        await store.save(ORIGIN, tool("todos.add", f"version {n}"))
    assert len(json.loads(first.path.read_text())["x_actions"]["history"]) == HISTORY_CAP

    before = first.path.read_text()
    broken = tool("todos.broken")
    broken["workflow"]["steps"][0]["primitive"] = "no.such_primitive"
    with pytest.raises(ActionError) as refused:
        await store.save(ORIGIN, broken)
    assert refused.value.code == "manifest_invalid" and refused.value.evidence["problems"][0]["code"] == "unknown_primitive"
    assert first.path.read_text() == before  # nothing written


async def test_a_file_that_is_not_a_learned_map_is_refused_not_overwritten(tmp_path: Path) -> None:
    store = LearnedMaps(tmp_path)
    mine = store.path_for(ORIGIN)
    mine.write_text(json.dumps({"protocol": "actions.json", "version": 1, "tools": []}))
    with pytest.raises(ActionError, match="not a learned map"):
        await store.save(ORIGIN, tool("todos.add"))
    assert json.loads(mine.read_text()) == {"protocol": "actions.json", "version": 1, "tools": []}


async def test_the_folder_is_made_and_always_loaded_beside_the_given_maps(tmp_path: Path) -> None:
    learned = tmp_path / "data" / "learned"
    other = tmp_path / "other.actions.json"
    other.write_text(json.dumps({"protocol": "actions.json", "version": 1, "surface": {"origin": "https://elsewhere.example"}, "tools": []}))
    app = ActionsApp(AppOptions(manifests=[str(other)], learned_maps=str(learned), serve_bridge=False, browser="none", watch=False))
    assert learned.is_dir() and str(learned) in app.manifest_paths
    await LearnedMaps(learned).save(ORIGIN, tool("todos.add"))  # a map a session saved earlier
    async with Client(build_server(app), mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        served = [b for b in app.catalog.tools.values() if b.tool is not None and b.tool.name == "todos.add"]
        assert [b.home for b in served] == [ORIGIN]  # loaded, at home on its origin
        assert served[0].mcp_name not in names  # and listed only while a page of it is the active one
    # Without a folder (--learned-maps off) nothing is loaded from it.
    bare = ActionsApp(AppOptions(manifests=[str(other)], learned_maps=None, serve_bridge=False, browser="none", watch=False))
    assert bare.learned is None and bare.manifest_paths == [str(other)]
