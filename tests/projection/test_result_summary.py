"""``x_actions.result_summary``: a tool's result carries the projection summary its map asks for.

Validated statically (shape, declared projection); end to end on the board
fixture in real headless Chromium through the SDK Client: after ``add_card``
the result's ``_meta["mcp-actions/state_summary"]`` holds the summary read
after the call, a second text block shows it to the model, the output still
matches its ``outputSchema`` (the client checks), and the agent's diff
baseline did not move.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.manifest.validate import check_manifest
from mcp_actions.server.mcp_server import build_server
from mcp_actions.server.tools import META_STATE_SUMMARY

from .scenario import structured
from .test_projection_memory import BOARD_DIR

ADDED_SCHEMA = {
    "type": "object",
    "required": ["added", "list_id", "title"],
    "properties": {"added": {"type": "boolean"}, "list_id": {"type": "string"}, "title": {"type": "string"}},
    "additionalProperties": False,
}


def board_map(**result_summaries: dict[str, Any]) -> dict[str, Any]:
    """The board fixture's map with ``x_actions.result_summary`` set on the named tools, plus a read-only probe."""
    document = json.loads((BOARD_DIR / "actions.json").read_text())
    document["tools"].append(
        {
            "name": "board.where",
            "description": "Where the board page is.",
            "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
            "workflow": {
                "version": 1,
                "expression_language": "jsonata",
                "steps": [{"id": "info", "primitive": "page.info", "args": {}}],
                "output": "{% {'url': steps.info.output.url} %}",
            },
        }
    )
    for tool in document["tools"]:
        if tool["name"] in result_summaries:
            tool.setdefault("x_actions", {})["result_summary"] = result_summaries[tool["name"]]
        if tool["name"] == "board.add_card":
            tool["result_schema"] = ADDED_SCHEMA  # no room for anything but the output itself
    return document


def problems(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p.path, p.code) for p in check_manifest(document).errors]


def test_validator_knows_result_summary() -> None:
    good = board_map(**{"board.add_card": {"projection": "board.state", "summary": "agent_context"}})
    assert problems(good) == []
    unknown = board_map(**{"board.add_card": {"projection": "board.nope", "summary": "agent_context"}})
    assert ("/tools/0/x_actions/result_summary/projection", "unknown_projection") in problems(unknown)
    missing = board_map(**{"board.add_card": {"projection": "board.state"}})
    assert ("/tools/0/x_actions/result_summary/summary", "missing_field") in problems(missing)
    extra = board_map(**{"board.add_card": {"projection": "board.state", "summary": "agent_context", "when": "always"}})
    assert ("/tools/0/x_actions/result_summary/when", "field_not_allowed") in problems(extra)  # ours: closed
    wrong = board_map(**{"board.add_card": "board.state"})
    assert ("/tools/0/x_actions/result_summary", "invalid_type") in problems(wrong)


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


@pytest.mark.browser
async def test_add_card_result_carries_the_board_summary(pages_url: str, tmp_path: Path) -> None:
    document = board_map(
        **{
            "board.add_card": {"projection": "board.state", "summary": "agent_context"},
            "board.where": {"projection": "board.state", "summary": "nope"},
        }
    )
    (tmp_path / "board.actions.json").write_text(json.dumps(document))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="launch", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["board_add_card"].output_schema == ADDED_SCHEMA  # untouched by the summary
        opened = structured(await client.call_tool("browser_navigate", {"url": f"{pages_url}/board/index.html"}))
        route = {"target_runtime_id": opened["tab"]["runtime_id"]}
        for _ in range(50):  # the board renders after load, as real apps do
            read = await client.call_tool("actions_site", {"mode": "state_read", "projection_name": "board.state", **route})
            if not read.is_error:
                break
            await asyncio.sleep(0.1)
        assert not read.is_error, read

        added = await client.call_tool("board_add_card", {"list_id": "doing", "title": "Buy ladders", **route})
        assert not added.is_error, added
        assert added.structured_content == {"added": True, "list_id": "doing", "title": "Buy ladders"}
        summary = added.meta[META_STATE_SUMMARY]
        assert summary["projection"] == "board.state" and summary["summary"] == "agent_context"
        assert summary["value"] == {"lists": 3, "cards": 6, "by_list": {"To do": 2, "Doing": 2, "Done": 2}}
        assert summary["bytes"] <= summary["max_bytes"] == 300
        assert summary["runtime_id"] == route["target_runtime_id"]
        # The model reads it too, in its own text block.
        assert any(t.startswith("State summary board.state/agent_context after the call: ") and '"Doing": 2' in t for t in texts(added))

        # The summary did not move the agent's baseline: the diff still names exactly the added card.
        diff = structured(await client.call_tool("actions_site", {"mode": "state_diff", "projection_name": "board.state", **route}))
        assert diff["changed"] is True and [(d["op"], d["record"]["title"]) for d in diff["deltas"]] == [("added", "Buy ladders")]

        # A summary that cannot be read does not fail the call that ran: it says why, beside the output.
        where = await client.call_tool("board_where", route)
        assert not where.is_error and where.structured_content["url"].endswith("/board/index.html")
        failed = where.meta[META_STATE_SUMMARY]
        assert failed["error"]["code"] == "invalid_input" and failed["error"]["evidence"]["available"] == ["agent_context"]
        assert any(t.startswith("State summary board.state/nope unavailable: invalid_input") for t in texts(where))

        # A tool without result_summary has no such _meta.
        plain = await client.call_tool("actions_site", {"mode": "list"})
        assert not plain.is_error and META_STATE_SUMMARY not in (plain.meta or {})
