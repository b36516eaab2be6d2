"""A map's ``x_actions.confirm`` called from a host that cannot ask its user: the refusal says how to go on (issue 34 item 5).

The notes fixture runs on a memory runtime; ``runtime.calls`` shows whether anything reached the page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types

from .test_surface import FIXTURES, GENERATIONS, notes_env

NOTES_MAP = str(FIXTURES / "notes" / "notes.actions.json")


def _error(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error and result.structured_content is not None
    error: dict[str, Any] = result.structured_content["error"]
    return error


@GENERATIONS
async def test_the_refusal_names_the_policy_rule_and_the_map_field(mode):
    async with notes_env(mode) as (app, client, runtime, notes):
        error = _error(await client.call_tool("notes_archive", {}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "no_elicitation"
        rule = {"tools": "notes.archive", "decision": "allow"}
        assert json.dumps(rule) in error["message"] and "--policy" in error["message"]
        assert f"remove x_actions.confirm from tool 'notes.archive' in {NOTES_MAP}" in error["message"]
        assert error["evidence"]["way_on"] == {
            "policy_rule": rule,
            "map": {"file": NOTES_MAP, "tool": "notes.archive", "change": f"remove x_actions.confirm from tool 'notes.archive' in {NOTES_MAP}"},
        }
        # A question from a critical check: the field is x_actions.confirm set to false.
        delete = _error(await client.call_tool("notes_delete", {}))
        assert delete["evidence"]["reason"] == "no_elicitation"
        assert "set x_actions.confirm to false on tool 'notes.delete'" in delete["message"]
        assert runtime.calls == []


@GENERATIONS
async def test_the_policy_rule_it_names_lets_the_call_run_without_asking(mode, tmp_path: Path):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "notes.archive", "decision": "allow"}]}), encoding="utf-8")
    async with notes_env(mode, options={"policy": str(policy)}) as (app, client, runtime, notes):
        ran = await client.call_tool("notes_archive", {})
        assert not ran.is_error, ran.structured_content
        assert notes.archived == 1 and app.audit.recent()[-1]["decision"] == "allowed"
        # A tool the rule does not name still asks, and so is refused here.
        assert _error(await client.call_tool("notes_delete", {}))["evidence"]["reason"] == "no_elicitation"


@GENERATIONS
async def test_a_glob_allow_rule_never_answers_the_maps_question(mode, tmp_path: Path):
    # "*" allows broadly (it is the default anyway); only a rule written for the tool by name is the
    # user's yes to the question the map asks.
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "notes.*", "decision": "allow"}]}), encoding="utf-8")
    async with notes_env(mode, options={"policy": str(policy)}) as (_app, client, runtime, notes):
        refused = _error(await client.call_tool("notes_archive", {}))
        assert refused["evidence"]["reason"] == "no_elicitation"
        assert notes.archived == 0 and runtime.calls == []
