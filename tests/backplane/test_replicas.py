"""Replicas on a real NATS backplane act as one server (issue #33, docs/deploying.md).

Every part is real: a ``nats-server`` with JetStream, two or three ``serve
--transport streamable-http --backplane …`` processes, a round-robin TCP
balancer in front of their bridge ports and of their MCP ports (WebSocket
upgrades pass through it), WebSocket runtimes (``tests/bridge/wsclient.py``)
and the SDK's streamable-HTTP client. A replica is killed with SIGKILL
mid-call, and NATS is stopped mid-run and started again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client

from tests.backplane.cluster import BRIDGE_TOKEN, Balancer, NatsServer, Replica, mcp_client, shop_map
from tests.bridge.wsclient import WsRuntime

pytestmark = pytest.mark.slow


@dataclass
class Cluster:
    nats: NatsServer
    replicas: list[Replica]
    http: Balancer
    ws: Balancer
    clients: dict[str, Client] = field(default_factory=dict)

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http.port}/mcp"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.ws.port}/bridge"


@contextlib.asynccontextmanager
async def cluster(tmp_path: Path, count: int, *extra: str) -> AsyncIterator[Cluster]:
    """NATS, ``count`` replicas serving the shop map, and a balancer in front of each kind of port."""
    nats = NatsServer(tmp_path / "jetstream")
    nats.start()
    maps = tmp_path / "maps"
    if not (maps / "shop.actions.json").exists():  # a test may have written its own map first
        shop_map(maps)
    replicas = [Replica(chr(ord("a") + i), nats.url, maps, tmp_path, *extra).start() for i in range(count)]
    http = ws = None
    try:
        for replica in replicas:
            await asyncio.to_thread(replica.wait_ready)
        http = await Balancer([r.port for r in replicas]).start()
        ws = await Balancer([r.bridge_port for r in replicas]).start()
        yield Cluster(nats, replicas, http, ws)
    except BaseException:
        for replica in replicas:
            sys.stderr.write(f"--- replica {replica.name} stderr ---\n{replica.stderr()[-4000:]}\n")
        raise
    finally:
        for balancer in (http, ws):
            if balancer is not None:
                await balancer.stop()
        for replica in replicas:
            replica.stop()
        nats.stop()


def runtime_answer(runtime_id: str) -> Any:
    """A runtime's answer: who it is and what it was given (``wait_ms``: answer that much later; ``-1``: never)."""

    async def answer(call: dict[str, Any]) -> Any:
        arguments = call.get("arguments") or {}
        wait = arguments.get("wait_ms") or 0
        if wait < 0:
            return None
        if wait:
            await asyncio.sleep(wait / 1000)
        return {"runtime": runtime_id, "n": arguments.get("n"), "handler": call.get("handler")}

    return answer


async def open_runtime(url: str, runtime_id: str, **fields: Any) -> WsRuntime:
    runtime = await WsRuntime(url, runtime_id, url="https://shop.test/", token=BRIDGE_TOKEN, **fields).open()
    runtime.serve(runtime_answer(runtime_id), concurrent=True)
    return runtime


async def resource(client: Client, uri: str) -> Any:
    contents = (await client.read_resource(uri)).contents[0]
    assert isinstance(contents, types.TextResourceContents)
    return json.loads(contents.text)


async def listed(client: Client) -> set[str]:
    return {r["runtime_id"] for r in (await resource(client, "actions://runtimes"))["runtimes"]}


async def until(predicate: Any, timeout: float = 10.0, interval: float = 0.1) -> float:
    """Wait until the async ``predicate()`` holds; the seconds it took."""
    started = time.monotonic()
    async with asyncio.timeout(timeout):
        while not await predicate():
            await asyncio.sleep(interval)
    return time.monotonic() - started


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error, result
    content = result.structured_content or {}
    error = content.get("error") if isinstance(content.get("error"), dict) else None
    if error is None:
        text = result.content[0]
        assert isinstance(text, types.TextContent)
        error = json.loads(text.text).get("error", {})
    return error


async def test_three_replicas_act_as_one_server(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "shop.secret", "decision": "deny"}]}))
    shop_map(tmp_path / "maps")
    document = json.loads((tmp_path / "maps" / "shop.actions.json").read_text())
    document["tools"].append({"name": "shop.secret", "description": "Denied by the policy.", "input_schema": {"type": "object"}, "x_actions": {"handler": "shop.secret"}})
    (tmp_path / "maps" / "shop.actions.json").write_text(json.dumps(document))
    notes: list[str] = []

    async def note(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            notes.append(message.method if hasattr(message, "method") else type(message).__name__)

    async with cluster(tmp_path, 3, "--policy", str(policy)) as c:
        a, b, third = c.replicas
        async with mcp_client(third.mcp_url, keepalive=True, message_handler=note) as watcher:
            await watcher.list_tools()  # known to replica c before any runtime arrives
            runtimes = [await open_runtime(c.ws_url, f"rt-{i}") for i in range(3)]
            try:
                # The balancer gave each replica one runtime's socket.
                assert sorted(c.ws.connections) == sorted(r.bridge_port for r in c.replicas)
                async with mcp_client(a.mcp_url, keepalive=True) as on_a, mcp_client(b.mcp_url, keepalive=True) as on_b:
                    everyone = {"rt-0", "rt-1", "rt-2"}
                    for client in (on_a, on_b, watcher):
                        await until(lambda client=client: _listed_is(client, everyone))
                    # Runtimes arriving on other replicas reached replica c's client as change notifications.
                    await until(lambda: _true(bool(notes)), timeout=5)
                    launch = [await resource(client, "actions://bridge/launch") for client in (on_a, on_b, watcher)]
                    ids = [report["backplane"]["replica"] for report in launch]
                    assert len(set(ids)) == 3 and all(report["backplane"]["connected"] for report in launch)

                # No sticky sessions: a 2025-11-25 client without keep-alive, each request through the balancer.
                async with mcp_client(c.http_url) as client:
                    for n in range(9):
                        target = f"rt-{n % 3}"
                        result = await client.call_tool("shop_ping", {"n": n, "target_runtime_id": target})
                        assert not result.is_error, result
                        # The runtime holding that socket ran it, and this call's answer came back to this call.
                        assert result.structured_content == {"runtime": target, "n": n, "handler": "shop.ping"}
                    denied = await client.call_tool("shop_secret", {"target_runtime_id": "rt-1"})
                    error = error_of(denied)
                    assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"
                assert {p for p in c.http.connections} == {r.port for r in c.replicas}  # the requests were spread over every replica
                assert all(call.get("handler") != "shop.secret" for rt in runtimes for call in rt.calls)
                assert sorted(call["arguments"]["n"] for rt in runtimes for call in rt.calls if call.get("handler") == "shop.ping") == list(range(9))  # each call ran once

                # Audit lines carry the replica that took the MCP request.
                lines = []
                for replica, replica_id in zip(c.replicas, ids, strict=True):
                    own = [json.loads(line) for line in replica.audit.read_text().splitlines()] if replica.audit.exists() else []
                    assert all(line["replica"] == replica_id for line in own), own
                    lines += own
                assert sorted(line["status"] for line in lines if line["tool"] == "shop.ping") == ["ok"] * 9
                assert [line["decision"] for line in lines if line["tool"] == "shop.secret"] == ["denied"]

                # The status page of any replica shows every replica's runtimes, each with its replica.
                async with httpx2.AsyncClient() as http:
                    page = (await http.get(f"http://127.0.0.1:{b.bridge_port}/?token={BRIDGE_TOKEN}")).text
                assert 'id="backplane"' in page and all(f"on replica {replica_id}" in page for replica_id in ids)
            finally:
                for runtime in runtimes:
                    await runtime.close()


async def _listed_is(client: Client, expected: set[str]) -> bool:
    return await listed(client) == expected


async def _true(value: bool) -> bool:
    return value
