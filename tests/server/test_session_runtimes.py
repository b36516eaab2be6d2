"""Runtimes that connect with a session's own credential are that session's; the operator's are no session's (docs/sessions.md).

A real HTTP server (``--browser none``), two SDK clients, and real WebSocket runtimes
(``tests/bridge/wsclient.py``): one connected with session A's credential from A's
``actions://bridge/launch``, one with the start token (the operator's).
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
import warnings

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from websockets.exceptions import InvalidStatus

from tests.bridge.wsclient import WsRuntime, eventually

from .session_servers import http_serve

TOKEN = "session-runtimes-token"


async def _runtimes(client: Client) -> list[str]:
    listed = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)
    return [r["runtime_id"] for r in listed["runtimes"]]


async def _launch(client: Client) -> dict:
    return json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)


async def test_a_sessions_credential_makes_its_runtime_and_no_one_elses(tmp_path):
    with http_serve(tmp_path, "--browser", "none", "--bridge-token", TOKEN) as served:
        async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
            launch = await _launch(a)
            bridge = launch["bridge"]["websocket_url"]
            credential = launch["session"]["bridge_credential"]
            assert launch["session"]["websocket_url"] == f"{bridge}?token={credential}"
            assert TOKEN not in json.dumps(launch) and TOKEN not in json.dumps(await _launch(b))
            mine = await WsRuntime(bridge, "a-rt", token=credential, url="https://shop.test/?secret=alice").open()
            operator = await WsRuntime(bridge, "op-rt", token=TOKEN, url="https://shop.test/operator").open()
            mine.serve()
            operator.serve()
            try:
                assert await _runtimes(a) == ["a-rt"]  # its own, not the operator's
                assert await _runtimes(b) == []
                # B cannot route to A's runtime; A can.
                refused = await b.call_tool("page_observe", {"target": {"runtime_id": "a-rt"}})
                assert refused.is_error and refused.meta["mcp-actions/error"]["code"] == "runtime_not_found"
                # (The server's own background reads, such as a site's WAB document, may call it: only observations count.)
                assert [c for c in mine.calls if "observe" in c["name"]] == []
                await a.call_tool("page_observe", {"target": {"runtime_id": "a-rt"}})
                assert [c["runtime_id"] for c in mine.calls if "observe" in c["name"]] == ["a-rt"]
                # Nor subscribe to news of it (resources/updated would tell B when A's page changes).
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # resources/subscribe: deprecated at 2026-07-28, still a 2025-11-25 client's way
                    with pytest.raises(MCPError):
                        await b.subscribe_resource("actions://runtimes/a-rt/events")
                    await a.subscribe_resource("actions://runtimes/a-rt/events")
                # The status page (the operator's: start token) names each session and the session of each runtime.
                status_url = launch["bridge"]["status_page"] + f"?token={TOKEN}"
                status = await asyncio.to_thread(lambda: urllib.request.urlopen(status_url, timeout=5).read().decode())
                assert launch["session"]["id"] in status and (await _launch(b))["session"]["id"] in status
                assert f"session {launch['session']['id']}" in status  # a-rt's row
                # A's credential cannot take the operator's runtime id either.
                squatter = await WsRuntime(bridge, "op-rt", token=credential, url="https://shop.test/").open()
                assert squatter.config is not None and squatter.config.get("renamed") and squatter.config.get("runtime_id") != "op-rt", squatter.config
                await squatter.close()
                # A credential for a session id with a forged MAC is no credential.
                forged = credential.rsplit(".", 1)[0] + "." + "0" * 32
                with pytest.raises(InvalidStatus):
                    await WsRuntime(bridge, "forged", token=forged).open()
            finally:
                await operator.close()
        # A's session ended (its client deleted it): its runtime was disconnected by the bridge.
        await eventually(lambda: mine.ws is not None and mine.ws.close_code is not None, timeout=10)
        await mine.close()


async def test_each_sse_connection_is_a_session_of_its_own(tmp_path):
    from mcp.client.sse import sse_client

    with http_serve(tmp_path, "--browser", "none", "--bridge-token", TOKEN, "--transport", "sse") as served:
        sse = served.url.removesuffix("/mcp") + "/sse"
        async with Client(sse_client(sse), mode="legacy") as a, Client(sse_client(sse), mode="legacy") as b:
            launch_a, launch_b = await _launch(a), await _launch(b)
            assert launch_a["session"]["kind"] == "sse" and launch_a["session"]["id"] != launch_b["session"]["id"]
            mine = await WsRuntime(launch_a["bridge"]["websocket_url"], "sse-a", token=launch_a["session"]["bridge_credential"]).open()
            mine.serve()
            assert await _runtimes(a) == ["sse-a"] and await _runtimes(b) == []
        # A's connection closed: its session ended, and its runtime with it.
        await eventually(lambda: mine.ws is not None and mine.ws.close_code is not None, timeout=10)
        await mine.close()
