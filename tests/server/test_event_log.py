"""``--event-log-size`` / ``MCP_ACTIONS_EVENT_LOG_SIZE``: how many page events each runtime keeps.

Parsed as ``serve`` parses it, then observed through the SDK Client: a runtime
sends more accepted events than the log holds, and the events resource keeps
only the newest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions import cli
from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.registry import EVENT_LOG_SIZE
from mcp_actions.errors import UsageError
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server

SHOP = Path(__file__).resolve().parents[1] / "fixtures" / "server" / "good"


def serve_options(argv: list[str]) -> AppOptions:
    options, *_ = cli._serve_options(cli.build_parser().parse_args(["serve", *argv]))
    return options


def test_event_log_size_from_flag_env_and_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_ACTIONS_EVENT_LOG_SIZE", raising=False)
    assert serve_options([]).event_log_size == EVENT_LOG_SIZE == 200
    monkeypatch.setenv("MCP_ACTIONS_EVENT_LOG_SIZE", "7")
    assert serve_options([]).event_log_size == 7
    assert serve_options(["--event-log-size", "3"]).event_log_size == 3  # the flag wins over the environment
    with pytest.raises(UsageError):
        serve_options(["--event-log-size", "0"])
    monkeypatch.setenv("MCP_ACTIONS_EVENT_LOG_SIZE", "many")
    with pytest.raises(UsageError):
        serve_options([])


async def test_runtime_keeps_the_newest_events_up_to_the_size() -> None:
    app = ActionsApp(AppOptions(manifests=[str(SHOP)], browser="none", serve_bridge=False, watch=False, event_log_size=3))
    async with Client(build_server(app)) as client:
        runtime = MemoryRuntime(app.bridge, runtime_id="shop-1", url="memory://shop/cart")
        await runtime.start()
        try:
            for number in range(5):
                await runtime.emit({"type": "dom_event", "event_id": f"e{number}", "runtime_id": "shop-1", "name": "shop.item_added", "payload": {"sku": f"sku-{number}"}})
            read = await client.read_resource("actions://runtimes/shop-1/events")
            events = json.loads(read.contents[0].text)["events"]
            assert [e["event_id"] for e in events] == ["e2", "e3", "e4"]
        finally:
            await runtime.stop()
