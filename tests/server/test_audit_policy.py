"""Issue 22 through the SDK's in-process Client: every call on the record, and a policy that decides before the page.

The notes fixture (``tests/fixtures/server/notes``) runs on a memory runtime;
``runtime.calls`` shows whether anything reached the page.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from mcp_actions import cli
from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.audit_log import AuditLog, arguments_digest, load_audit_key
from mcp_actions.bridge.status_page import render_status_page
from mcp_actions.dispatch.call.policy import Policy, PolicyError

from .test_surface import GENERATIONS, notes_env

SECRET = "hunter2-very-secret"
FIELDS = {"ts", "call_id", "client", "tool", "protocol", "runtime_id", "origin", "namespace", "trust", "argument_names", "arguments_sha256", "decision", "status", "elapsed_ms"}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _policy(tmp_path: Path, *rules: dict[str, Any]) -> str:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"rules": list(rules)}), encoding="utf-8")
    return str(path)


def _error(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error and result.structured_content is not None
    error: dict[str, Any] = result.structured_content["error"]
    return error


async def _resource(client: Any) -> dict[str, Any]:
    read = await client.read_resource("actions://audit/recent")
    found: dict[str, Any] = json.loads(read.contents[0].text)
    return found


def _status_page(app: Any) -> str:
    return render_status_page(app.bridge.registry.list(), pending_calls=0, bridge_url="ws://x/bridge", script_url="http://x/runtime.js?token=t", **app.status_extras())


@GENERATIONS
async def test_every_call_is_one_line_with_names_and_digest_never_values(mode, tmp_path):
    log_file = tmp_path / "audit.jsonl"
    async with notes_env(mode, options={"audit_log": str(log_file)}) as (app, client, runtime, notes):
        ok = await client.call_tool("notes_rename", {"title": SECRET})
        assert not ok.is_error
        bad = await client.call_tool("notes_rename", {"title": 42})
        assert _error(bad)["code"] == "invalid_input"
        failed = await client.call_tool("notes_read_title", {"target_runtime_id": "nope"})
        assert failed.is_error
        recent = await _resource(client)
        page = _status_page(app)
    lines = _lines(log_file)
    assert [(e["tool"], e["status"], e.get("code")) for e in lines] == [
        ("notes.rename", "ok", None),
        ("notes.rename", "error", "invalid_input"),
        ("notes.read_title", "error", "runtime_not_found"),
    ]
    first = lines[0]
    assert FIELDS <= set(first)
    assert first["client"] == "mcp" or first["client"]  # the SDK client's name
    assert first["protocol"] == "actions.json" and first["namespace"] == "notes" and first["trust"] == "local"
    assert first["runtime_id"] == "notes-1" and first["origin"] == "memory://notes" and first["decision"] == "allowed"
    assert first["argument_names"] == ["title"] and first["arguments_sha256"] == arguments_digest(load_audit_key(log_file), {"title": SECRET})
    assert first["ts"].endswith("Z") and isinstance(first["elapsed_ms"], float)
    assert SECRET not in log_file.read_text(encoding="utf-8")
    assert SECRET not in json.dumps(recent) and SECRET not in page
    assert [e["tool"] for e in recent["entries"]] == ["notes.rename", "notes.rename", "notes.read_title"]
    assert recent["log_file"] == str(log_file)
    assert 'id="recent-calls"' in page and "notes.rename" in page and "invalid_input" in page


async def test_concurrent_calls_never_interleave_lines(tmp_path):
    log_file = tmp_path / "audit.jsonl"
    async with notes_env(options={"audit_log": str(log_file)}) as (app, client, runtime, notes):
        results = await asyncio.gather(*(client.call_tool("notes_rename", {"title": "t" * 2000 + str(i)}) for i in range(40)))
        assert not any(r.is_error for r in results)
    lines = _lines(log_file)
    assert len(lines) == 40 and {e["arguments_sha256"] for e in lines} == {arguments_digest(load_audit_key(log_file), {"title": "t" * 2000 + str(i)}) for i in range(40)}


def test_lines_from_many_threads_stay_whole(tmp_path):
    audit = AuditLog(tmp_path / "audit.jsonl", max_bytes=0)
    audit.open()

    def write(n: int) -> None:
        for i in range(50):
            audit.record({"tool": f"t{n}", "i": i, "pad": "x" * 5000})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    audit.close()
    assert len(_lines(tmp_path / "audit.jsonl")) == 400


async def test_a_restart_appends_to_the_same_file(tmp_path):
    log_file = tmp_path / "state" / "audit.jsonl"
    for _ in range(2):
        async with notes_env(options={"audit_log": str(log_file)}) as (app, client, runtime, notes):
            assert not (await client.call_tool("notes_rename", {"title": "a"})).is_error
    assert len(_lines(log_file)) == 2


def test_the_log_rotates_by_size(tmp_path):
    audit = AuditLog(tmp_path / "audit.jsonl", max_bytes=2000, backup_count=2)
    audit.open()
    for i in range(40):
        audit.record({"tool": "t", "i": i, "pad": "x" * 200})
    audit.close()
    assert (tmp_path / "audit.jsonl.1").exists() and (tmp_path / "audit.jsonl").stat().st_size <= 2000


@GENERATIONS
async def test_a_denied_call_never_reaches_the_page_and_names_the_rule(mode, tmp_path):
    log_file = tmp_path / "audit.jsonl"
    policy = _policy(tmp_path, {"tools": "notes.read_*", "decision": "allow"}, {"tools": "notes.*", "decision": "deny"})
    async with notes_env(mode, options={"audit_log": str(log_file), "policy": policy}) as (app, client, runtime, notes):
        error = _error(await client.call_tool("notes_rename", {"title": SECRET}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"
        assert error["evidence"]["rule"] == {"index": 1, "tools": "notes.*", "decision": "deny"}
        assert runtime.calls == []
        assert not (await client.call_tool("notes_read_title", {})).is_error
    assert [(e["tool"], e["decision"], e["status"]) for e in _lines(log_file)] == [("notes.rename", "denied", "error"), ("notes.read_title", "allowed", "ok")]


async def test_an_origins_rule_is_decided_on_the_runtime_before_any_runtime_guard(tmp_path):
    policy = _policy(tmp_path, {"tools": "notes.*", "origins": "memory://elsewhere", "decision": "allow"}, {"tools": "notes.*", "origins": "memory://notes", "decision": "deny"})
    async with notes_env(options={"policy": policy}) as (app, client, runtime, notes):
        assert app.service.guards.names.index("policy_origins") < app.service.guards.names.index("page")
        error = _error(await client.call_tool("notes_rename", {"title": "x"}))
        assert error["evidence"]["reason"] == "policy" and error["evidence"]["origin"] == "memory://notes" and error["evidence"]["rule"]["index"] == 1
        assert runtime.calls == [] and notes.archived == 0


async def test_the_policy_applies_to_builtins(tmp_path):
    policy = _policy(tmp_path, {"tools": "actions.site", "decision": "deny"})
    async with notes_env(options={"policy": policy}) as (app, client, runtime, notes):
        error = _error(await client.call_tool("actions_site", {"mode": "list"}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"


@GENERATIONS
async def test_confirm_asks_with_the_tool_page_and_arguments_and_records_the_answer(mode, tmp_path):
    log_file = tmp_path / "audit.jsonl"
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if len(asked) == 1:
            return types.ElicitResult(action="accept", content={"allow": True})
        return types.ElicitResult(action="decline")

    policy = _policy(tmp_path, {"tools": "notes.rename", "decision": "confirm"})
    async with notes_env(mode, options={"audit_log": str(log_file), "policy": policy}, elicitation_callback=elicit) as (app, client, runtime, notes):
        assert not (await client.call_tool("notes_rename", {"title": SECRET})).is_error
        declined = _error(await client.call_tool("notes_rename", {"title": "other"}))
        assert declined["code"] == "permission_denied" and declined["evidence"]["reason"] == "declined"
        assert len(runtime.calls) == 1
    assert "notes.rename" in asked[0] and "memory://notes/edit/1" in asked[0] and SECRET in asked[0]
    decisions = [(e["decision"], e["status"]) for e in _lines(log_file)]
    assert decisions == [("confirmed", "ok"), ("declined", "error")]
    assert SECRET not in log_file.read_text(encoding="utf-8")


@GENERATIONS
async def test_confirm_without_elicitation_says_how_to_allow(mode, tmp_path):
    policy = _policy(tmp_path, {"tools": "notes.rename", "decision": "confirm"})
    async with notes_env(mode, options={"policy": policy}) as (app, client, runtime, notes):
        error = _error(await client.call_tool("notes_rename", {"title": "x"}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "no_elicitation"
        assert '"decision": "allow"' in error["message"] and runtime.calls == []
        assert app.audit.recent()[-1]["decision"] == "denied"


async def test_the_resource_changes_after_each_call(tmp_path):
    async with notes_env() as (app, client, runtime, notes):
        heard: list[str] = []
        from mcp_actions.events import ResourceUpdated

        app.events.subscribe(ResourceUpdated, lambda event: heard.append(event.uri))
        await client.call_tool("notes_rename", {"title": "x"})
        assert "actions://audit/recent" in heard
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "actions://audit/recent" in listed


async def test_a_policy_edit_is_reloaded_and_a_bad_one_keeps_the_previous(tmp_path):
    policy = _policy(tmp_path, {"tools": "notes.rename", "decision": "deny"})
    async with notes_env(options={"policy": policy}) as (app, client, runtime, notes):
        assert _error(await client.call_tool("notes_rename", {"title": "x"}))["evidence"]["reason"] == "policy"
        Path(policy).write_text(json.dumps({"rules": [{"tools": "notes.rename", "decision": "allow"}]}), encoding="utf-8")
        assert await app.reload_policy()
        assert not (await client.call_tool("notes_rename", {"title": "x"})).is_error
        Path(policy).write_text(json.dumps({"rules": [{"tools": "notes.rename", "decision": "maybe"}]}), encoding="utf-8")
        assert not await app.reload_policy()
        assert app.policy.error is not None and "rule 0" in app.policy.error
        assert not (await client.call_tool("notes_rename", {"title": "x"})).is_error  # the previous policy holds
        launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
        assert launch["policy"]["reload_error"] == app.policy.error
        assert "Its last edit was refused" in _status_page(app) and "rule 0" in _status_page(app)


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ({"rules": [{"tools": "a.*", "decision": "allow"}, {"tools": "b", "decision": "nope"}]}, "rule 1: 'decision' must be one of allow, deny, confirm"),
        ({"rules": [{"decision": "deny"}]}, "rule 0: 'tools' must be"),
        ({"rules": [{"tools": "x", "origin": "y", "decision": "deny"}]}, "rule 0: unknown member 'origin'"),
        ({"rule": []}, "unknown member 'rule'"),
    ],
)
def test_a_bad_policy_names_the_rule_and_the_problem(tmp_path, document, says):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(PolicyError) as caught:
        Policy.load(path)
    assert str(caught.value).startswith(str(path)) and says in str(caught.value)


def test_a_bad_policy_refuses_to_start_with_one_line(tmp_path, capsys):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"rules": [{"tools": "x", "decision": "perhaps"}]}), encoding="utf-8")
    assert cli.main(["serve", "--policy", str(path), "--browser", "none"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "rule 0" in err[0]


def test_audit_log_off_and_default(monkeypatch):
    assert cli._audit_log("off") is None
    monkeypatch.setenv("XDG_STATE_HOME", "/tmp/state-here")
    default = cli._audit_log(None)
    assert default is not None and default.endswith("audit.jsonl") and "mcp-actions" in default


async def test_the_policy_file_is_watched_like_the_maps(tmp_path):
    from .test_surface import FIXTURES

    policy = _policy(tmp_path, {"tools": "notes.rename", "decision": "deny"})
    app = ActionsApp(AppOptions(manifests=[str(FIXTURES / "notes")], browser="none", serve_bridge=False, watch_debounce_ms=20, policy=policy))
    await app.start()
    try:
        assert app.policy.policy.rules[0].decision == "deny"
        await asyncio.sleep(0.3)  # the watch is set up
        Path(policy).write_text(json.dumps({"rules": [{"tools": "notes.rename", "decision": "allow"}]}), encoding="utf-8")
        for _ in range(100):
            if app.policy.policy.rules[0].decision == "allow":
                break
            await asyncio.sleep(0.05)
        assert app.policy.policy.rules[0].decision == "allow"
    finally:
        await app.stop()
