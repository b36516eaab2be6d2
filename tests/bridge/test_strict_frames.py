"""Bridge frames are strict JSON: an inline manifest with a repeated key exposes nothing (issue 28).

A map file with ``"name": "dup.t", "name": "dup.evil"`` exposed ``dup.evil``; the same map
sent inline in ``runtime_ready`` over the bridge is refused the same way, at its pointer.
The whole server runs (``ActionsApp`` with its bridge port), the runtime is a real
WebSocket (``wsclient.py``) and the tools are listed through the SDK's ``Client``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

from .wsclient import TOKEN, WsRuntime

pytestmark = pytest.mark.asyncio

INLINE = {
    "protocol": "actions.json",
    "version": 1,
    "surface": {"origin": "https://inline.test"},
    "tools": [{"name": "dup.t", "description": "A tool", "input_schema": {"type": "object"}, "x_actions": {"handler": "app.run"}}],
}


def _ready(runtime_id: str, manifest_text: str) -> str:
    """A runtime_ready frame whose manifest is written as given (json.dumps cannot repeat a key)."""
    head = json.dumps({"type": "runtime_ready", "runtime_id": runtime_id, "url": "https://inline.test/"})
    return head[:-1] + ', "manifest": ' + manifest_text + "}"


async def _names(client: Client) -> set[str]:
    return {(t.meta or {}).get("mcp-actions/tool", "") for t in (await client.list_tools()).tools}


@pytest.mark.parametrize(
    ("manifest_text", "pointer", "reason"),
    [
        (json.dumps(INLINE).replace('"name": "dup.t"', '"name": "dup.t", "name": "dup.evil"'), "/manifest/tools/0/name", "duplicate_key"),
        (json.dumps(INLINE).replace('"version": 1', '"version": NaN'), "/manifest/version", "non_finite_number"),
        (json.dumps(INLINE).replace('"version": 1', '"version": 1e999'), "/manifest/version", "non_finite_number"),
    ],
    ids=["duplicate_key", "nan", "overflow"],
)
async def test_an_inline_manifest_that_is_not_strict_json_exposes_nothing(manifest_text: str, pointer: str, reason: str) -> None:
    app = ActionsApp(AppOptions(browser="none", bridge_port=0, bridge_token=TOKEN, watch=False))
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-inline", url="https://inline.test/", token=TOKEN).open(ready=False)
        try:
            await runtime.send(_ready("rt-inline", manifest_text))
            answer: dict[str, Any] = await runtime.recv()
            assert answer["type"] == "action_error" and answer["error"]["code"] == "invalid_item", answer
            assert answer["error"]["evidence"]["path"] == pointer and answer["error"]["evidence"]["reason"] == reason
            assert app.bridge.registry.get("rt-inline") is None
            assert not {n for n in await _names(client) if n.startswith("dup.")}
            # The connection stays usable: the same map, strict, is exposed.
            await runtime.send(_ready("rt-inline", json.dumps(INLINE)))
            assert (await runtime.recv())["type"] == "runtime_config"
            for _ in range(100):
                if "dup.t" in await _names(client):
                    break
                await asyncio.sleep(0.05)
            assert "dup.t" in await _names(client) and "dup.evil" not in await _names(client)
        finally:
            await runtime.close()
