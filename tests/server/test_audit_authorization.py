"""The audit log's ``authorization_id`` comes only from a proved pairing (issue 28).

On the old bridge a runtime that wrote ``authorization_id`` in its ``runtime_ready``
had it recorded with every call it ran, though no pairing proved it. Here the whole
server runs (``ActionsApp`` with its bridge port and an audit file), runtimes connect
over real WebSockets (``tests/bridge/wsclient.py``) and the SDK's ``Client`` calls a
map's tool on each: a page's connection (its ``Origin``) claiming a pairing, and a
connection that presents a real pairing's secret and claims another.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.pairings import STATE_DIR_ENV, PairingStore
from mcp_actions.server.mcp_server import build_server
from tests.bridge.wsclient import TOKEN, WsRuntime

pytestmark = pytest.mark.asyncio

SITE = "https://shop.test"


def _map(root: Path) -> None:
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": SITE, "name": "Shop"},
        "tools": [{"name": "shop.ping", "description": "Answer at once.", "input_schema": {"type": "object", "properties": {}}, "x_actions": {"handler": "shop.ping"}}],
    }
    (root / "shop.actions.json").write_text(json.dumps(document), encoding="utf-8")


async def _pong(call: dict[str, Any]) -> Any:
    return {"pong": True}


async def test_a_claimed_authorization_id_never_reaches_the_audit_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))  # the server's pairings, of this test alone
    store = PairingStore()
    real = store.create("chrome at home")
    (tmp_path / "maps").mkdir()
    _map(tmp_path / "maps")
    audit = tmp_path / "audit.jsonl"
    app = ActionsApp(AppOptions(manifests=[str(tmp_path / "maps")], browser="none", bridge_port=0, bridge_token=TOKEN, audit_log=str(audit), watch=False))
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        # A web page's socket (the start token, but a browser Origin): trust page, whatever it claims.
        page = WsRuntime(app.endpoint.url, "rt-page", url=f"{SITE}/cart", authorization_id=real.authorization_id)
        await page.open(headers={"Origin": SITE})
        # The paired browser (its pairing's secret) claiming another pairing: its own is recorded.
        paired = await WsRuntime(app.endpoint.url, "chrome-tab:7", token=real.secret, runtime_key="chrome-tab:7", url=f"{SITE}/", authorization_id="auth-someone-else").open()
        page.serve(_pong)
        paired.serve(_pong)
        try:
            for runtime_id in ("rt-page", "chrome-tab:7"):
                answered = await client.call_tool("shop_ping", {"target_runtime_id": runtime_id})
                assert not answered.is_error, answered
        finally:
            await page.close()
            await paired.close()
    lines = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    assert [(line["runtime_id"], line["status"]) for line in lines] == [("rt-page", "ok"), ("chrome-tab:7", "ok")]
    assert "authorization_id" not in lines[0]
    assert lines[1]["authorization_id"] == real.authorization_id
