"""The ``--policy`` file's life (dispatch/call/policy_file.py): no file, no guard; a reload, good or refused, is announced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.dispatch.call.policy import PolicyError
from mcp_actions.dispatch.call.policy_file import PolicyFile
from mcp_actions.events import ResourceUpdated


def _app(**options: Any) -> ActionsApp:
    return ActionsApp(AppOptions(browser="none", serve_bridge=False, watch=False, **options))


async def test_without_a_policy_file_no_guard_joins_the_call_path_and_nothing_reloads() -> None:
    app = _app()
    assert not {"policy", "policy_origins"} & set(app.service.guards.names)
    assert app.policy_file.describe() is None and app.status_extras()["policy"] is None
    assert await app.reload_policy() is False
    await app.policy_file.watch(debounce_ms=10)  # nothing to watch
    await app.policy_file.stop()


async def test_a_reload_replaced_or_refused_updates_the_launch_report(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"rules": [{"tools": "*", "decision": "deny"}]}), encoding="utf-8")
    app = _app(policy=str(path))
    assert app.service.guards.names.index("policy") < app.service.guards.names.index("confirmation")
    assert app.service.guards.names.index("policy_origins") < app.service.guards.names.index("page")
    heard: list[str] = []
    app.events.subscribe(ResourceUpdated, lambda event: heard.append(event.uri))
    path.write_text(json.dumps({"rules": [{"tools": "*", "decision": "allow"}]}), encoding="utf-8")
    assert await app.reload_policy() is True
    path.write_text("{not json", encoding="utf-8")
    assert await app.reload_policy() is False
    assert heard == ["actions://bridge/launch", "actions://bridge/launch"]
    described = app.policy_file.describe()
    assert described is not None and described["reload_error"] and described["rules"][0]["decision"] == "allow"


def test_a_bad_policy_file_stops_the_server_being_made(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"rules": [{"tools": "*", "decision": "maybe"}]}), encoding="utf-8")
    with pytest.raises(PolicyError, match="rule 0"):
        PolicyFile(str(path))
