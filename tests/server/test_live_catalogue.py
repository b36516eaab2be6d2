"""A live catalogue: manifest edits on disk reach clients of both generations without a restart."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server


def tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The {name} action.",
        "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
        "x_actions": {"handler": f"app.{name.rsplit('.', 1)[-1]}"},
    }


def manifest(*names: str) -> str:
    return json.dumps({"protocol": "actions.json", "version": 1, "surface": {"origin": "memory://live"}, "tools": [tool(n) for n in names]})


class Heard:
    """Notifications a handshake-era client received, by method."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self.event = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(message, types.ServerNotification) or method:
            self.methods.append(method or type(message).__name__)
            self.event.set()

    async def wait_for(self, method: str, timeout: float = 10) -> None:
        async def seen() -> None:
            while method not in self.methods:
                self.event.clear()
                await self.event.wait()

        await asyncio.wait_for(seen(), timeout)
        self.methods.clear()


@contextlib.asynccontextmanager
async def live_env(tmp_path: Path, mode: str, heard: Heard | None = None):
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "live.actions.json").write_text(manifest("live.ping"))
    app = ActionsApp(AppOptions(manifests=[str(maps)], browser="none", serve_bridge=False, watch_debounce_ms=50))
    async with Client(build_server(app), mode=mode, message_handler=heard) as client:
        yield app, client, maps


async def _names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


async def test_edit_invalid_fix_on_disk_reaches_a_handshake_client(tmp_path, capfd):
    heard = Heard()
    async with live_env(tmp_path, "legacy", heard) as (app, client, maps):
        assert "live_ping" in await _names(client)
        (maps / "live.actions.json").write_text(manifest("live.ping", "live.pong"))
        await heard.wait_for("notifications/tools/list_changed")
        assert {"live_ping", "live_pong"} <= await _names(client)
        # An edit that breaks the map keeps its last good version serving (test_broken_map.py) and says
        # why, on stderr and in the launch report.
        reloads = app.watcher.reloads
        (maps / "live.actions.json").write_text(manifest("live.ping").replace('"version": 1', '"version": 9'))
        for _ in range(200):
            if app.watcher.reloads > reloads:
                break
            await asyncio.sleep(0.05)
        assert {"live_ping", "live_pong"} <= await _names(client)
        launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
        report = [m for m in launch["manifests"] if m["file"].endswith("live.actions.json")][0]
        assert report["valid"] is False and report["errors"][0]["path"] == "/version"
        heard.methods.clear()
        assert "/version" in capfd.readouterr().err
        # Fixing it brings them back; a new file in the directory counts too.
        (maps / "live.actions.json").write_text(manifest("live.ping"))
        (maps / "more.actions.json").write_text(manifest("more.hello"))
        await heard.wait_for("notifications/tools/list_changed")
        for _ in range(50):  # the two files may land in two reloads
            if {"live_ping", "more_hello"} <= await _names(client):
                break
            await asyncio.sleep(0.05)
        assert {"live_ping", "more_hello"} <= await _names(client)


async def test_edit_on_disk_reaches_a_listen_client(tmp_path):
    async with live_env(tmp_path, "auto") as (app, client, maps):
        async with client.listen(tools_list_changed=True, resources_list_changed=True) as events:
            (maps / "live.actions.json").write_text(manifest("live.ping", "live.pong"))
            event = await asyncio.wait_for(anext(aiter(events)), 10)
            assert type(event).__name__ == "ToolsListChanged"
        assert "live_pong" in await _names(client)


async def test_a_new_manifest_is_a_new_resource(tmp_path):
    heard = Heard()
    async with live_env(tmp_path, "legacy", heard) as (app, client, maps):
        (maps / "other.actions.json").write_text(manifest("other.go"))
        await heard.wait_for("notifications/resources/list_changed")
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "actions://manifests/other" in listed


async def test_unchanged_tools_send_no_tools_list_changed(tmp_path):
    heard = Heard()
    async with live_env(tmp_path, "legacy", heard) as (app, client, maps):
        await client.list_tools()
        reloads = app.watcher.reloads
        # Same tools, a cosmetic whitespace change: the file is reloaded, the tool list is not announced.
        (maps / "live.actions.json").write_text(manifest("live.ping") + "\n\n")
        for _ in range(100):
            if app.watcher.reloads > reloads:
                break
            await asyncio.sleep(0.05)
        assert app.watcher.reloads > reloads
        await asyncio.sleep(0.1)
        assert "notifications/tools/list_changed" not in heard.methods


async def test_an_edit_that_changes_which_builtins_a_map_needs_is_a_list_change(tmp_path):
    heard = Heard()
    maps = tmp_path / "maps"
    maps.mkdir()
    named = json.loads(manifest("live.ping"))
    named["surface"]["origin"] = "https://live.example"
    (maps / "live.actions.json").write_text(json.dumps(named))
    # browser="auto": the server could open that site, but no call asks it to, so nothing is launched.
    app = ActionsApp(AppOptions(manifests=[str(maps)], browser="auto", serve_bridge=False, watch_debounce_ms=50))
    async with Client(build_server(app), mode="legacy", message_handler=heard) as client:
        # The origin is not the page the tools work on: navigation is listed beside them.
        assert await _names(client) == {"live_ping", "browser_navigate"}
        named["context"] = [{"id": "help", "text": "How the live site works."}]  # only actions_site reads it
        (maps / "live.actions.json").write_text(json.dumps(named))
        await heard.wait_for("notifications/tools/list_changed")
        assert await _names(client) == {"live_ping", "browser_navigate", "actions_site"}


async def test_a_map_that_fails_to_load_is_told_to_the_host_at_start_and_after_an_edit(tmp_path):
    # Inside a desktop host the user sees neither stderr nor a missing tool: each failed map is an
    # error log message naming its file, the JSON Pointer and the problem, and actions_site lists it.
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "live.actions.json").write_text(manifest("live.ping"))
    (maps / "broken.actions.json").write_text(manifest("broken.ping").replace('"version": 1', '"version": 9'))
    logged: list[tuple[str, Any]] = []
    arrived = asyncio.Event()

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append((params.level, params.data))
        arrived.set()

    async def next_failure() -> dict[str, Any]:
        while not any(isinstance(d, dict) and d.get("event") == "map_invalid" for _, d in logged):
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 10)
        level, data = next((level, d) for level, d in logged if isinstance(d, dict) and d.get("event") == "map_invalid")
        logged.clear()
        assert level == "error"
        return data

    app = ActionsApp(AppOptions(manifests=[str(maps)], browser="none", serve_bridge=False, watch_debounce_ms=50))
    async with Client(build_server(app), mode="legacy", logging_callback=on_log) as client:
        await client.list_tools()  # the map failed before this client connected: it hears of it on arrival
        told = await next_failure()
        assert told["file"].endswith("broken.actions.json")
        assert told["errors"][0]["path"] == "/version" and told["errors"][0]["code"] == "unsupported_version"
        assert told["message"].startswith("map ") and "/version unsupported_version" in told["message"]
        listing = (await client.call_tool("actions_site", {"mode": "list"})).structured_content
        assert [m["file"].endswith("broken.actions.json") for m in listing["failed_maps"]] == [True]
        assert "live.ping" in {t["name"] for t in listing["tools"]}
        # An edit that breaks the other map: told once, for that file only.
        (maps / "live.actions.json").write_text('{"protocol": "actions.json", "version": 1, "tools": [{"name": 7}]}')
        told = await next_failure()
        assert told["file"].endswith("live.actions.json") and told["errors"][0]["path"].startswith("/tools/0")
        await asyncio.sleep(0.2)
        assert not [d for _, d in logged if isinstance(d, dict) and d.get("event") == "map_invalid"]
        # Fixed, both: actions_site lists no failed map.
        (maps / "live.actions.json").write_text(manifest("live.ping"))
        (maps / "broken.actions.json").write_text(manifest("broken.ping"))
        for _ in range(100):
            listing = (await client.call_tool("actions_site", {"mode": "list"})).structured_content
            if "failed_maps" not in listing:
                break
            await asyncio.sleep(0.05)
        assert "failed_maps" not in listing
