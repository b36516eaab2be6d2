"""A map broken mid-session (issue 34 item 4), through the SDK's in-process Client and the real file watcher.

- An edit that breaks a map that loaded keeps its last good version serving (as the policy file
  does), tells the host (an ``error`` log message, ``failed_maps`` in ``actions://bridge/launch``)
  and changes no tool.
- A tool whose map failed on its first load answers the map's first problem as an ``isError``
  result with its code and path, not the protocol error "unknown tool".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server

from .test_live_catalogue import manifest


class Logged:
    """The log messages a handshake-era client heard."""

    def __init__(self) -> None:
        self.data: list[tuple[str, Any]] = []
        self.arrived = asyncio.Event()

    async def __call__(self, params: types.LoggingMessageNotificationParams) -> None:
        self.data.append((params.level, params.data))
        self.arrived.set()

    async def map_invalid(self, file_end: str, timeout: float = 10) -> tuple[str, dict[str, Any]]:
        """The next ``map_invalid`` message about a file ending in ``file_end`` (level and data)."""

        async def wait() -> tuple[str, dict[str, Any]]:
            while True:
                for level, data in self.data:
                    if isinstance(data, dict) and data.get("event") == "map_invalid" and str(data.get("file", "")).endswith(file_end):
                        self.data.clear()
                        return level, data
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(wait(), timeout)


@contextlib.asynccontextmanager
async def env(maps: Path):
    app = ActionsApp(AppOptions(manifests=[str(maps)], browser="none", serve_bridge=False, watch_debounce_ms=50))
    logged = Logged()
    pings: list[str] = []
    async with Client(build_server(app), mode="legacy", logging_callback=logged) as client:
        runtime = MemoryRuntime(
            app.bridge,
            runtime_id="live-1",
            url="memory://live/",
            title="Live",
            handlers={"app.ping": lambda a: pings.append("ping") or {"ok": True}, "app.pong": lambda a: {"ok": True}},
        )
        await runtime.start()
        try:
            yield app, client, logged, pings
        finally:
            await runtime.stop()


async def _names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


async def _launch(client: Client) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
    return found


async def test_an_edit_that_breaks_a_map_keeps_its_last_good_version_and_tells_the_host(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    live = maps / "live.actions.json"
    live.write_text(manifest("live.ping", "live.pong"))
    async with env(maps) as (app, client, logged, pings):
        assert {"live_ping", "live_pong"} <= await _names(client)
        live.write_text(manifest("live.ping").replace('"version": 1', '"version": 9'))
        level, told = await logged.map_invalid("live.actions.json")
        assert level == "error" and told["last_good_served"] is True
        assert "last good version still serves" in told["message"] and "/version unsupported_version" in told["message"]
        # Its tools stay, as they were before the edit, and still run.
        assert {"live_ping", "live_pong"} <= await _names(client)
        ran = await client.call_tool("live_ping", {})
        assert not ran.is_error, ran.structured_content
        assert pings == ["ping"]
        launch = await _launch(client)
        assert [(Path(m["file"]).name, m["last_good_served"], m["errors"][0]["path"]) for m in launch["failed_maps"]] == [("live.actions.json", True, "/version")]
        assert {"live_ping", "live_pong"} <= set(launch["tools"])
        # Fixed (with one tool fewer): the fix serves, and nothing is failed any more.
        live.write_text(manifest("live.ping"))
        for _ in range(100):
            if "live_pong" not in await _names(client):
                break
            await asyncio.sleep(0.05)
        assert "live_ping" in await _names(client) and "live_pong" not in await _names(client)
        assert (await _launch(client))["failed_maps"] == []


async def test_a_tool_whose_map_failed_to_load_answers_the_first_problem(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    broken = maps / "broken.actions.json"
    broken.write_text(manifest("broken.ping").replace('"version": 1', '"version": 9'))
    async with env(maps) as (app, client, logged, pings):
        assert "broken_ping" not in await _names(client)
        level, told = await logged.map_invalid("broken.actions.json")
        assert "last_good_served" not in told and "exposes no tools" in told["message"]
        result = await client.call_tool("broken_ping", {})
        assert result.is_error and result.structured_content is not None
        error = result.structured_content["error"]
        assert error["code"] == "unsupported_version"
        assert error["evidence"]["path"] == "/version" and error["evidence"]["file"] == str(broken)
        assert str(broken) in error["message"] and "failed to load" in error["message"]
        assert [Path(m["file"]).name for m in (await _launch(client))["failed_maps"]] == ["broken.actions.json"]
        # A name no map has is still a protocol error.
        with pytest.raises(MCPError):
            await client.call_tool("nobody_has_this", {})
        # Fixed: the tool serves.
        broken.write_text(manifest("broken.ping"))
        for _ in range(100):
            if "broken_ping" in await _names(client):
                break
            await asyncio.sleep(0.05)
        assert "broken_ping" in await _names(client)
