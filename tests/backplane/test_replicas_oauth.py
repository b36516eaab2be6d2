"""Replicas behind one balancer with MCP authorization (issue 56, docs/deploying.md "Authorization").

A session a user opened on one replica is served by another (adopted from the backplane) to that
user's token, and to no other user's: every replica checks the token against the issuer's keys and
the session's owner, which travels in its sealed record. Real parts: NATS, two replicas, the joserfc
authorization server of tests/server/oauth_issuer.py, raw HTTP to each replica's MCP port.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.backplane.cluster import BRIDGE_TOKEN, NatsServer, Replica, shop_map
from tests.server.oauth_issuer import Issuer

pytestmark = pytest.mark.slow

AUDIENCE = "https://agents.example.com/mcp"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "mcp-protocol-version": "2025-11-25"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


def _answer(response: httpx.Response) -> dict:
    """The JSON-RPC message of a JSON or an SSE answer."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


async def test_a_session_opened_on_one_replica_is_its_users_on_the_other(tmp_path: Path) -> None:
    nats = NatsServer(tmp_path / "jetstream")
    nats.start()
    maps = tmp_path / "maps"
    shop_map(maps)
    with Issuer() as issuer, contextlib.ExitStack() as stack:
        replicas = []
        for name in "ab":
            replica = Replica(name, nats.url, maps, tmp_path, "--oauth-issuer", issuer.url, "--oauth-audience", AUDIENCE).start()
            stack.callback(replica.stop)
            replicas.append(replica)
        stack.callback(nats.stop)
        for replica in replicas:
            replica.wait_ready()
        a, b = (replica.mcp_url for replica in replicas)
        alice = {**HEADERS, "Authorization": f"Bearer {issuer.token('alice', AUDIENCE)}"}
        bob = {**HEADERS, "Authorization": f"Bearer {issuer.token('bob', AUDIENCE)}"}
        async with httpx.AsyncClient(timeout=30) as http:
            opened = await http.post(a, json=INITIALIZE, headers=alice)
            assert opened.status_code == 200, opened.text
            session = {"mcp-session-id": opened.headers["mcp-session-id"]}
            await http.post(a, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**alice, **session})
            listed = await http.post(b, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers={**alice, **session})
            assert listed.status_code == 200, listed.text
            assert _answer(listed)["result"]["tools"]
            taken = await http.post(b, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers={**bob, **session})
            assert taken.status_code == 404  # as if there were no such session
            # The call on replica b is alice's in its audit log.
            called = await http.post(
                b, json={"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "actions_site", "arguments": {"mode": "list"}}}, headers={**alice, **session}
            )
            assert called.status_code == 200 and "result" in _answer(called)
            # Metrics are per replica: a session only replica a served is not b's, though b hears of it (to keep it alive).
            carol = {**HEADERS, "Authorization": f"Bearer {issuer.token('carol', AUDIENCE)}"}
            assert (await http.post(a, json=INITIALIZE, headers=carol)).status_code == 200
            await asyncio.sleep(2.5)  # the replicas tell each other their active sessions every second

            async def sessions_on(replica: Replica) -> float:
                text = (await http.get(f"http://127.0.0.1:{replica.bridge_port}/metrics", params={"token": BRIDGE_TOKEN})).text
                return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == "mcp_actions_sessions" and s.labels.get("door") == "mcp")

            assert await sessions_on(replicas[0]) == 2
            assert await sessions_on(replicas[1]) == 1
        lines = [json.loads(line) for line in replicas[1].audit.read_text().splitlines()]
        assert [(line["tool"], line.get("user")) for line in lines] == [("actions.site", "alice")]

