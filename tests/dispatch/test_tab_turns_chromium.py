"""One acting call per tab, at scale and with reads beside it, in real headless Chromium through the SDK's Client.

Issue 29's fourth finding: two parallel sign-ins (type the user, type the
password, press Sign in) both answered "Logged in as user0user1", and at 50 in
parallel a password landed in the user field. Here, on the bank-like sign-in
page of ``tests/fixtures/pages/call-path/`` (the form clears itself once it has
sent):

- 50 sign-ins sent together each answer their own greeting, and the page
  received each user with that user's own password;
- a map's read-only tool (``readOnlyHint``) read over and over during those
  sign-ins never sees a half-typed form: it may run beside other reads, but
  never between a sign-in's first keystroke and its end, so every read finds
  both boxes empty.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

from .test_call_path_chromium import MAP, _ok, _page_logins, site  # noqa: F401  (site: the pages' server fixture)

pytestmark = pytest.mark.browser

#: A read of the form as it is now: the two boxes' values, without acting on the page.
READ_FORM = {
    "name": "bank.form",
    "description": "Read what the sign-in boxes hold now.",
    "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
    "annotations": {"readOnlyHint": True},
    "workflow": {
        "version": 1,
        "expression_language": "jsonata",
        "steps": [
            {
                "id": "read",
                "primitive": "dom.extract",
                "args": {
                    "extract": [
                        {"id": "user", "selector": "#user", "many": False, "fields": {"value": {"property": "value"}}},
                        {"id": "password", "selector": "#password", "many": False, "fields": {"value": {"property": "value"}}},
                    ]
                },
            }
        ],
        "output": "{% {'user': steps.read.output.records.user.value, 'password': steps.read.output.records.password.value} %}",
    },
}


@asynccontextmanager
async def _server(tmp_path: Path, port: int) -> AsyncIterator[tuple[ActionsApp, Client]]:
    document = json.loads(MAP.read_text(encoding="utf-8"))
    document["surface"]["origin"] = f"http://127.0.0.1:{port}"
    document["tools"].append(READ_FORM)
    manifest = tmp_path / "bank.actions.json"
    manifest.write_text(json.dumps(document), encoding="utf-8")
    options = AppOptions(manifests=[str(manifest)], browser="auto", headless=True, isolated=True, serve_bridge=False, watch=False)
    app = ActionsApp(options)
    async with Client(build_server(app)) as client:
        yield app, client


async def test_fifty_sign_ins_at_once_each_get_their_own_result(tmp_path: Path, site: int) -> None:  # noqa: F811
    async with _server(tmp_path, site) as (app, client):
        tab = _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))["runtime_id"]
        users = [f"user{i}" for i in range(50)]
        # Each waits its turn within its own time: 50 sign-ins in a row take a few seconds on a loaded machine.
        results = await asyncio.gather(*(client.call_tool("bank_login", {"user": u, "password": f"secret-{u}", "timeout_ms": 120_000}) for u in users))
        assert [_ok(r)["greeting"] for r in results] == [f"Logged in as {u}" for u in users]
        logins = await _page_logins(app, tab)
        assert sorted(logins, key=lambda login: int(login["user"][4:])) == [{"user": u, "password": f"secret-{u}"} for u in users]


async def test_reads_never_see_a_half_typed_form(tmp_path: Path, site: int) -> None:  # noqa: F811
    async with _server(tmp_path, site) as (_app, client):
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        users = [f"user{i}" for i in range(6)]
        seen: list[dict[str, Any]] = []

        async def sign_in(index: int, user: str) -> Any:
            # One after another, a moment apart, so that reads arrive while a sign-in is typing
            # (sent all at once, the waiting sign-ins would hold every read back until the last one).
            await asyncio.sleep(0.15 * index)
            return await client.call_tool("bank_login", {"user": user, "password": f"secret-{user}", "timeout_ms": 60_000})

        signing_in = asyncio.gather(*(sign_in(i, u) for i, u in enumerate(users)))

        async def read_until_done() -> None:
            while not signing_in.done():
                # Two reads at once: reads share the turn with each other, never with a sign-in.
                for result in await asyncio.gather(*(client.call_tool("bank_form", {"timeout_ms": 60_000}) for _ in range(2))):
                    seen.append(_ok(result))

        await asyncio.gather(read_until_done(), signing_in)
        assert [_ok(r)["greeting"] for r in signing_in.result()] == [f"Logged in as {u}" for u in users]
        assert len(seen) >= 6  # the reads really ran while the sign-ins did
        assert [form for form in seen if form != {"user": "", "password": ""}] == []
