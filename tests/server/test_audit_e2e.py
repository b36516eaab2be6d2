"""Issue 22 end to end: the MCP client drives headless Chromium under a policy, and every call is on the record.

A mailbox page (``tests/fixtures/pages/mailbox``) counts what reaches it. The
agent searches, tries an archive the policy denies (it never reaches the
page), a move the user declines, a move the user accepts, and a move with bad
arguments; the audit log, ``actions://audit/recent`` and the bridge's status
page (loaded in its own headless Chromium) each show them, and a secret typed
into a tool appears in none of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from playwright.async_api import async_playwright

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser
from mcp_actions.server.mcp_server import build_server

from ..dispatch.test_chromium_e2e import failed, ok

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
SECRET = "correct-horse-battery-staple-4711"


async def test_search_denied_archive_declined_and_accepted_moves_bad_arguments_all_on_the_record(tmp_path, pages_url):
    document = json.loads((PAGES / "mailbox" / "actions.json").read_text())
    document["surface"]["origin"] = pages_url
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "mailbox.actions.json").write_text(json.dumps(document))
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "mail.archive", "decision": "deny"}, {"tools": "mail.move", "decision": "confirm"}]}))
    log_file = tmp_path / "audit.jsonl"
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if len(asked) == 1:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"allow": True})

    app = ActionsApp(
        AppOptions(
            manifests=[str(tmp_path / "maps")], headless=True, isolated=True, bridge_port=0, watch=False, audit_log=str(log_file), policy=str(policy)
        )
    )
    async with Client(build_server(app), mode="legacy", elicitation_callback=elicit) as client:
        ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/mailbox/index.html"}))
        found = ok(await client.call_tool("mail_search", {"query": "invoice"}))
        assert [m["id"] for m in found["results"]] == ["m1", "m3"]
        assert ok(await client.call_tool("mail_search", {"query": SECRET}))["results"] == []
        denied = failed(await client.call_tool("mail_archive", {"id": "m1"}))
        assert denied["code"] == "permission_denied" and denied["evidence"]["reason"] == "policy" and denied["evidence"]["rule"]["index"] == 0
        declined = failed(await client.call_tool("mail_move", {"id": "m2", "folder": "work"}))
        assert declined["code"] == "permission_denied" and declined["evidence"]["reason"] == "declined"
        moved = ok(await client.call_tool("mail_move", {"id": "m3", "folder": "personal"}))
        assert moved["folder"] == "personal"
        bad = failed(await client.call_tool("mail_move", {"id": "m2", "folder": "bin"}))
        assert bad["code"] == "invalid_input"
        after = ok(await client.call_tool("mail_search", {"query": "invoice"}))
        assert after["archived"] == 0 and after["moved"] == 1  # the denied archive and the declined move never reached the page
        assert len(asked) == 2 and "mail.move" in asked[0] and "/mailbox/index.html" in asked[0] and '"folder": "work"' in asked[0]
        recent = json.loads((await client.read_resource("actions://audit/recent")).contents[0].text)["entries"]
        assert app.endpoint is not None
        status_url = app.endpoint.status_url()
        async with async_playwright() as pw:
            viewer = await pw.chromium.launch(executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
            try:
                page = await viewer.new_page()
                await page.goto(status_url)
                calls_text = await page.inner_text("#recent-calls")
                tools_text = await page.inner_text("#runtime-tools")
                whole = await page.content()
            finally:
                await viewer.close()

    expected = [
        ("browser.navigate", "allowed", "ok", None),
        ("mail.search", "allowed", "ok", None),
        ("mail.search", "allowed", "ok", None),
        ("mail.archive", "denied", "error", "permission_denied"),
        ("mail.move", "declined", "error", "permission_denied"),
        ("mail.move", "confirmed", "ok", None),
        ("mail.move", "allowed", "error", "invalid_input"),
        ("mail.search", "allowed", "ok", None),
    ]
    lines = [json.loads(line) for line in log_file.read_text(encoding="utf-8").splitlines()]
    assert [(e["tool"], e["decision"], e["status"], e.get("code")) for e in lines] == expected
    assert [(e["tool"], e["decision"], e["status"], e.get("code")) for e in recent] == expected
    move = lines[5]
    assert move["origin"] == pages_url and move["runtime_id"] and move["namespace"] and move["argument_names"] == ["folder", "id"]
    assert SECRET not in log_file.read_text(encoding="utf-8") and SECRET not in json.dumps(recent) and SECRET not in whole
    for tool, decision in [("mail.archive", "denied"), ("mail.move", "declined"), ("mail.move", "confirmed"), ("mail.search", "allowed")]:
        assert tool in calls_text and decision in calls_text
    assert "invalid_input" in calls_text and "permission_denied" in calls_text
    assert "mail.search" in tools_text and "mail.move" in tools_text


async def test_the_policy_and_the_log_cover_a_pages_own_webmcp_tools(tmp_path, pages_url):
    from ..protocols.conftest import Session

    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "*.add_todo", "origins": "http://127.0.0.1:*", "decision": "deny"}]}))
    app = ActionsApp(AppOptions(browser="launch", headless=True, isolated=True, serve_bridge=False, policy=str(policy)))
    async with Client(build_server(app), mode="legacy") as client:
        s = Session(app, client, [])
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        add = await s.page_tool("webmcp", "add_todo")
        listing = await s.page_tool("webmcp", "list_todos")
        denied = failed(await client.call_tool(add.name, {"title": SECRET}))
        assert denied["code"] == "permission_denied" and denied["evidence"]["reason"] == "policy" and denied["evidence"]["origin"] == pages_url
        assert await s.tab().page.evaluate("() => todosForTest().length") == 0  # it never reached the page
        assert not (await client.call_tool(listing.name, {})).is_error
    entries = app.audit.recent()
    assert [(e["tool"].rsplit(".", 1)[-1], e["protocol"], e["decision"], e["status"]) for e in entries[-2:]] == [
        ("add_todo", "webmcp", "denied", "error"),
        ("list_todos", "webmcp", "allowed", "ok"),
    ]
    assert entries[-2]["trust"] == "website" and entries[-2]["origin"] == pages_url and SECRET not in json.dumps(entries)


async def test_an_origins_rule_denies_before_the_browser_opens_the_site(tmp_path, pages_url):
    document = json.loads((PAGES / "mailbox" / "actions.json").read_text())
    document["surface"]["origin"] = pages_url
    (tmp_path / "mailbox.actions.json").write_text(json.dumps(document))
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "mail.*", "origins": "http://127.0.0.1:*", "decision": "deny"}]}))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path / "mailbox.actions.json")], headless=True, isolated=True, serve_bridge=False, watch=False, policy=str(policy)))
    async with Client(build_server(app), mode="legacy") as client:
        denied = failed(await client.call_tool("mail_archive", {"id": "m1"}))
        assert denied["evidence"]["reason"] == "policy" and denied["evidence"]["origin"] == pages_url
        assert app.browser is not None and not app.browser.started  # nothing was launched, no page opened
    assert app.audit.recent()[-1]["origin"] == pages_url and app.audit.recent()[-1]["decision"] == "denied"
