"""page_act through the MCP SDK's Client in headless Chromium: listed, each step its own call (issue 44).

Contract §6: several acting steps in one call, each judged by the policy and recorded as its own call.
A policy that denies page_click denies the click step (the fill before it ran, the answer says which step
was refused); the audit log has one line per step and one for page_act; actions_save_tool learns the
steps made through page_act as it learns direct calls. Fixture: tests/fixtures/pages/acting/todomvc.html
(TodoMVC's lit example).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser


def _text(result) -> str:  # type: ignore[no-untyped-def]  # an SDK CallToolResult
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_page_act_is_listed_and_each_step_is_a_call_of_its_own(tmp_path: Path, pages_url: str) -> None:
    log_file = tmp_path / "audit.jsonl"
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "page.click", "decision": "deny"}]}))
    app = ActionsApp(AppOptions(headless=True, isolated=True, bridge_port=0, watch=False, audit_log=str(log_file), policy=str(policy), learned_maps=str(tmp_path / "learned")))
    async with Client(build_server(app), mode="legacy") as client:
        navigated = await client.call_tool("browser_navigate", {"url": f"{pages_url}/acting/todomvc.html"})
        assert not navigated.is_error
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "page_act" in listed and listed["page_act"].input_schema["required"] == ["steps"]
        box = {"text": "What needs to be done?"}
        steps = [
            {"tool": "page_fill", "arguments": {**box, "value": "Buy milk", "submit": True}},
            {"tool": "page_fill", "arguments": {**box, "value": "Walk the dog", "submit": True}},
            {"tool": "page_click", "arguments": {"text": "Buy milk"}},
        ]
        result = await client.call_tool("page_act", {"steps": steps})
        answer = _text(result)
        # The fills ran; the click was refused by the policy, as a direct click is; what changed is said once.
        assert not result.is_error and result.structured_content is None, answer
        lines = answer.splitlines()
        assert lines[0].endswith(", pressed Enter") and lines[1].endswith(", pressed Enter"), answer
        assert lines[2].startswith("step 3 (page_click) failed: permission_denied"), answer
        assert '+ "Walk the dog"' in lines and '+ "2 items left"' in lines, answer
        saved = await client.call_tool("actions_save_tool", {"name": "add_todo", "description": "Add a todo", "steps": 2, "parameters": {"title": "Walk the dog"}})
        assert not saved.is_error, _text(saved)
    audit = [json.loads(line) for line in log_file.read_text().splitlines()]
    calls = [(entry["tool"], entry["status"], entry.get("code")) for entry in audit]
    assert calls[1:] == [
        ("page.fill", "ok", None),
        ("page.fill", "ok", None),
        ("page.click", "error", "permission_denied"),
        ("page.act", "ok", None),
        ("actions.save_tool", "ok", None),
    ], calls
