"""The MCP surface as users run it: a subprocess over stdio, SSE and streamable HTTP, both generations.

Each transport serves a directory of maps; the tests edit a map on disk and
hear ``tools/list_changed`` and the launch report's ``resources/updated``,
read every template, answer an elicitation both ways, and see the HTTP
transports refuse a foreign Host, a foreign Origin and a missing token.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client

from .test_transports import _env, _free_port, _wait_for_port

NOTES = Path(__file__).resolve().parents[1] / "fixtures" / "server" / "notes" / "notes.actions.json"
LAUNCH = "actions://bridge/launch"


def _live(*names: str) -> str:
    tools = [
        {"name": n, "description": n, "input_schema": {"type": "object", "properties": {}, "additionalProperties": False}, "x_actions": {"handler": "app.go"}}
        for n in names
    ]
    return json.dumps({"protocol": "actions.json", "version": 1, "surface": {"origin": "memory://live"}, "tools": tools})


@pytest.fixture
def maps(tmp_path) -> Path:
    folder = tmp_path / "maps"
    folder.mkdir()
    shutil.copy(NOTES, folder / "notes.actions.json")
    (folder / "live.actions.json").write_text(_live("live.ping"))
    return folder


def _serve_args(maps: Path, *extra: str) -> list[str]:
    return ["-m", "mcp_actions", "serve", "--manifests", str(maps), "--bridge-port", "0", "--browser", "none", *extra]


class _Http:
    """A server subprocess on an HTTP transport."""

    def __init__(self, maps: Path, transport: str, *extra: str) -> None:
        self.port = _free_port()
        self.process = subprocess.Popen(
            [sys.executable, *_serve_args(maps, "--transport", transport, "--port", str(self.port), *extra)],
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.port, self.process)
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture
def http_servers(maps) -> Iterator[Any]:
    started: list[_Http] = []

    def start(transport: str, *extra: str) -> _Http:
        server = _Http(maps, transport, *extra)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def _target(transport: str, maps: Path, http_servers: Any) -> Any:
    if transport == "stdio":
        return StdioServerParameters(command=sys.executable, args=_serve_args(maps), env=_env())
    server = http_servers(transport)
    if transport == "sse":
        return sse_client(f"{server.base}/sse")
    return f"{server.base}/mcp"


class _Heard:
    def __init__(self) -> None:
        self.items: list[Any] = []
        self.changed = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, (types.ToolListChangedNotification, types.ResourceUpdatedNotification)):
            self.items.append(message)
            self.changed.set()

    async def wait(self, kind: type, timeout: float = 15) -> Any:
        async def seen() -> Any:
            while True:
                for item in self.items:
                    if isinstance(item, kind):
                        return item
                self.changed.clear()
                await self.changed.wait()

        return await asyncio.wait_for(seen(), timeout)


def _elicit(answers: list[str]) -> Any:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        answers.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": True}) if len(answers) == 1 else types.ElicitResult(action="decline")

    return elicit


COMBINATIONS = [
    ("stdio", "legacy"),
    ("stdio", "auto"),
    ("sse", "legacy"),
    ("sse", "auto"),
    ("streamable-http", "legacy"),
    ("streamable-http", "auto"),
]


@pytest.mark.parametrize(("transport", "mode"), COMBINATIONS)
async def test_surface_over_each_transport(transport, mode, maps, http_servers):
    heard = _Heard()
    answers: list[str] = []
    target = _target(transport, maps, http_servers)
    async with Client(target, mode=mode, message_handler=heard, elicitation_callback=_elicit(answers), read_timeout_seconds=30) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["notes_read_title"].annotations.read_only_hint is True and tools["notes_rename"].title == "Rename the note"
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert {"actions://runtimes/{runtime_id}/states", "actions://runtimes/{runtime_id}/projections/{projection}/diff", "actions://manifests/{namespace}"} <= templates
        for resource in (await client.list_resources()).resources:
            assert json.loads((await client.read_resource(str(resource.uri))).contents[0].text) is not None

        # Confirmation: accepted, the call goes on (and fails only for want of a page); declined, it is refused.
        accepted = await client.call_tool("notes_archive", {})
        assert accepted.structured_content["error"]["code"] == "runtime_not_found"
        declined = await client.call_tool("notes_archive", {})
        assert declined.structured_content["error"]["code"] == "permission_denied"
        assert answers == ["Archive this note? It leaves the list.", "Archive this note? It leaves the list."]

        # A manifest edit on disk: the new tool, the tool list change, and the launch report's update.
        if mode == "legacy":
            await client.subscribe_resource(LAUNCH)
            (maps / "live.actions.json").write_text(_live("live.ping", "live.pong"))
            await heard.wait(types.ToolListChangedNotification)
            updated = await heard.wait(types.ResourceUpdatedNotification)
            assert str(updated.params.uri) == LAUNCH
        else:
            async with client.listen(tools_list_changed=True, resource_subscriptions=[LAUNCH]) as events:
                (maps / "live.actions.json").write_text(_live("live.ping", "live.pong"))
                kinds: set[str] = set()
                async for event in events:
                    kinds.add(type(event).__name__)
                    if {"ToolsListChanged", "ResourceUpdated"} <= kinds:
                        break
        assert "live_pong" in {t.name for t in (await client.list_tools()).tools}


@pytest.mark.parametrize(("transport", "path", "method"), [("sse", "/sse", "GET"), ("streamable-http", "/mcp", "POST")])
async def test_http_transports_refuse_foreign_host_and_origin(transport, path, method, http_servers):
    server = http_servers(transport)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        # DNS rebinding: a page on evil.example resolved to 127.0.0.1.
        foreign = await http.request(method, path, headers={**headers, "Host": "evil.example:8931"}, json=initialize if method == "POST" else None)
        assert foreign.status_code == 421
        origin = await http.request(method, path, headers={**headers, "Origin": "https://evil.example"}, json=initialize if method == "POST" else None)
        assert origin.status_code == 403
        # A page on another loopback port is a web page too: refused unless its origin is listed.
        loopback = await http.request(method, path, headers={**headers, "Origin": "http://localhost:6274"}, json=initialize if method == "POST" else None)
        assert loopback.status_code == 403
        # A rebound name whose Origin matches its Host is still a foreign Host.
        rebound = await http.request(method, path, headers={**headers, "Host": "evil.example:8931", "Origin": "http://evil.example:8931"}, json=initialize if method == "POST" else None)
        assert rebound.status_code == 421
        if method == "POST":
            # The server's own origin (the scheme, host and port it is reached at) is accepted: the port serves no page.
            own = await http.post(path, headers={**headers, "Origin": server.base}, json=initialize)
            assert own.status_code == 200 and own.headers["access-control-allow-origin"] == server.base
    listed = http_servers(transport, "--http-allowed-origins", "http://localhost:6274")
    async with httpx.AsyncClient(base_url=listed.base, timeout=10) as http:
        # A listed browser page (the MCP Inspector) may ask (CORS preflight), and sees the session header.
        preflight = await http.options(path, headers={"Origin": "http://localhost:6274", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type, mcp-session-id"})
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == "http://localhost:6274"
        assert "mcp-session-id" in preflight.headers["access-control-expose-headers"]
        if method == "POST":
            answered = await http.post(path, headers={**headers, "Origin": "http://localhost:6274"}, json=initialize)
            assert answered.status_code == 200 and answered.headers["access-control-allow-origin"] == "http://localhost:6274"


async def test_http_token_is_required_when_set(http_servers):
    server = http_servers("sse", "--http-token", "s3cret")
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        assert (await http.get("/sse")).status_code == 401
        assert (await http.get("/sse", headers={"Authorization": "Bearer wrong"})).status_code == 401
    async with Client(sse_client(f"{server.base}/sse", headers={"Authorization": "Bearer s3cret"}), mode="legacy") as client:
        assert "actions_site" in {t.name for t in (await client.list_tools()).tools}


async def test_an_allowed_name_is_served(http_servers):
    server = http_servers("streamable-http", "--http-allowed-hosts", "mcp.internal:*", "--http-allowed-origins", "https://ide.example")
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        named = await http.post("/mcp", headers={**headers, "Host": f"mcp.internal:{server.port}", "Origin": "https://ide.example"}, json=initialize)
        assert named.status_code == 200
