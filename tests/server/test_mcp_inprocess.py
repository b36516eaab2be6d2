"""The MCP surface through the SDK's in-process Client, with memory runtimes as pages."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.memory import MemoryRuntime, sleep_forever
from mcp_actions.server.mcp_server import build_server

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "server"
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Cart:
    """The simulated page state behind the shop handlers."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add_item(self, args: dict[str, Any]) -> dict[str, Any]:
        self.items.append(args)
        return {"ok": True, "cart_size": len(self.items)}


@contextlib.asynccontextmanager
async def shop_env():
    """A server over the good and bad fixture maps, a client, and a memory runtime as the shop page.

    An async context manager rather than a fixture: the client's task group must
    be entered and left in the same task.
    """
    app = ActionsApp(AppOptions(manifests=[str(FIXTURES / "good"), str(FIXTURES / "bad")], browser="none", serve_bridge=False))
    cart = Cart()
    async with Client(build_server(app)) as client:
        runtime = MemoryRuntime(
            app.bridge,
            runtime_id="shop-1",
            url="memory://shop/cart",
            title="Cart",
            handlers={"shop.addItem": cart.add_item, "shop.checkout": lambda a: {"ok": "yes"}},
            primitives={"locator.text_content": lambda a: {"text": "42.50"}, "slow": sleep_forever},
        )
        await runtime.start()
        try:
            yield app, client, runtime, cart
        finally:
            await runtime.stop()


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


async def test_tools_list_names_meta_and_schemas():
    async with shop_env() as (app, client, runtime, cart):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"shop_add_item", "shop_checkout", "shop_read_total", "browser_navigate"} <= set(tools)
        # The shop map declares no projections or context: actions_site would only repeat its
        # tools, so it is not listed; it still answers (test_actions_site_lists_and_calls).
        assert "actions_site" not in tools and "actions_site" in (client.instructions or "")
        for tool in tools.values():
            assert NAME_RE.match(tool.name)
            assert tool.meta and "mcp-actions/tool" in tool.meta
        add = tools["shop_add_item"]
        # _meta is the dotted name and protocol; provenance and kind are in actions://manifests/shop.
        assert add.meta == {"mcp-actions/tool": "shop.add_item", "mcp-actions/protocol": "actions.json"}
        # Routing is advertised compactly: one target object and the time limit, typed and no more
        # (issue 42: 81 B a tool). The flat target_* fields are accepted
        # (test_routing_fields_choose_among_several_runtimes) and all of them described once, in the server's instructions.
        assert set(add.input_schema["properties"]) == {"sku", "quantity", "target", "timeout_ms"}
        assert add.input_schema["properties"]["target"] == {"type": "object"}
        assert "target_url_contains" in (client.instructions or "") and "target:" in (client.instructions or "")
        # A manifest's own property of a routing name stays the tool's.
        assert tools["shop_deliver"].input_schema["properties"]["target"] == {"type": "string"}
        assert add.output_schema["required"] == ["ok", "cart_size"]
        # The invalid manifest exposes nothing.
        assert not any(t.meta["mcp-actions/tool"].startswith("broken") for t in tools.values())


async def test_handler_call_returns_structured_content():
    async with shop_env() as (app, client, runtime, cart):
        result = await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 2})
        assert not result.is_error
        assert structured(result) == {"ok": True, "cart_size": 1}
        assert runtime.calls == [("shop.add_item", {"sku": "ABC-1", "quantity": 2}, "shop.addItem")]


@pytest.mark.parametrize(
    ("arguments", "pointer"),
    [
        ({"sku": "ABC-1", "quantity": 0}, "/quantity"),  # below minimum
        ({"sku": "abc", "quantity": 1}, "/sku"),  # breaks the pattern
        ({"sku": "ABC-1"}, "/quantity"),  # required field missing: its own path, not the object's
        ({"sku": "ABC-1", "quantity": 1, "extra": True}, "/extra"),  # additionalProperties false: the argument to drop
        ({"sku": "ABC-1", "quantity": 1, "timeout_ms": "soon"}, "/timeout_ms"),  # routing field of the wrong type
        ({"sku": "ABC-1", "quantity": 1, "target": "shop-2"}, "/target"),  # target must be an object
        ({"sku": "ABC-1", "quantity": 1, "target": {"tab": 2}}, "/target/tab"),  # not a routing key
        ({"sku": "ABC-1", "quantity": 1, "target": {"url_contains": 3}}, "/target/url_contains"),  # a selector is a string
        ({"sku": "ABC-1", "quantity": 1, "target": {"runtime_id": "a"}, "target_runtime_id": "b"}, "/target/runtime_id"),  # two answers
    ],
)
async def test_bad_arguments_are_refused_before_reaching_the_page(arguments, pointer):
    # A tool execution error (MCP 2025-11-25, SEP-1303), not a JSON-RPC error: hosts show it to the
    # model, which corrects itself from the path.
    async with shop_env() as (app, client, runtime, cart):
        result = await client.call_tool("shop_add_item", arguments)
        assert result.is_error
        error = structured(result)["error"]
        assert error["code"] == "invalid_input" and error["evidence"]["path"] == pointer
        assert pointer in result.content[0].text and result.content[0].text.startswith("invalid_input: ")
        assert runtime.calls == [] and cart.items == []


async def test_unknown_tool_is_a_protocol_error():
    async with shop_env() as (app, client, runtime, cart):
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
        assert caught.value.data["code"] == "unknown_action"


async def test_failures_are_error_results_with_stable_codes():
    async with shop_env() as (app, client, runtime, cart):
        runtime.handlers.pop("shop.addItem")
        missing = await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 1})
        assert missing.is_error and structured(missing)["error"]["code"] == "missing_handler"
        wrong = await client.call_tool("shop_checkout", {})
        assert wrong.is_error is False  # no result_schema: anything goes
        runtime.handlers["shop.addItem"] = lambda a: {"ok": "yes"}
        invalid = await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 1})
        assert invalid.is_error and structured(invalid)["error"]["code"] == "invalid_result"


async def test_workflow_tool_runs_primitives_on_the_runtime():
    async with shop_env() as (app, client, runtime, cart):
        result = await client.call_tool("shop_read_total", {})
        assert structured(result) == {"total": 42.5}
        assert runtime.calls == [("locator.text_content", {"locator": {"selector": "#total"}}, None)]


async def test_timeout_ends_the_call_with_handler_timeout():
    async with shop_env() as (app, client, runtime, cart):
        runtime.handlers["shop.checkout"] = sleep_forever
        result = await client.call_tool("shop_checkout", {"timeout_ms": 150})
        error = structured(result)["error"]
        assert error["code"] == "handler_timeout" and error["evidence"]["elapsed_ms"] >= 140
        assert app.bridge.pending_count == 0


async def test_routing_fields_choose_among_several_runtimes():
    async with shop_env() as (app, client, runtime, cart):
        other_cart = Cart()
        other = MemoryRuntime(app.bridge, runtime_id="shop-2", url="memory://shop/wishlist", title="Wishlist", runtime_key="tab:2", handlers={"shop.addItem": other_cart.add_item})
        await other.start()
        try:
            # No selector: the active runtime (the first to connect) takes it.
            await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 1})
            assert len(cart.items) == 1 and not other_cart.items
            flat = ({"target_runtime_id": "shop-2"}, {"target_runtime_key": "tab:2"}, {"target_url_contains": "wishlist"}, {"target_title_contains": "Wish"})
            nested = ({"target": {"runtime_id": "shop-2"}}, {"target": {"runtime_key": "tab:2"}}, {"target": {"url_contains": "wishlist"}}, {"target": {"title_contains": "Wish"}})
            for routing in (*flat, *nested, {"target": {"runtime_id": "shop-2"}, "target_runtime_id": "shop-2"}):
                result = await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 1, **routing})
                assert not result.is_error, routing
            assert len(other_cart.items) == 9 and len(cart.items) == 1
            ambiguous = await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 1, "target_url_contains": "memory://shop"})
            error = structured(ambiguous)["error"]
            assert error["code"] == "ambiguous_runtime"
            assert {c["runtime_id"] for c in error["evidence"]["candidates"]} == {"shop-1", "shop-2"}
            missing = await client.call_tool("shop_add_item", {"sku": "ABC-1", "quantity": 1, "target_runtime_id": "nope"})
            assert structured(missing)["error"]["code"] == "runtime_not_found"
            assert structured(missing)["error"]["evidence"]["asked"]["runtime_id"] == "nope"
        finally:
            await other.stop()


async def test_a_manifest_property_named_like_routing_belongs_to_the_tool():
    async with shop_env() as (app, client, runtime, cart):
        runtime.handlers["shop.deliver"] = lambda a: {"to": a["target"]}
        result = await client.call_tool("shop_deliver", {"target": "front door", "target_runtime_id": "shop-1"})
        assert structured(result) == {"to": "front door"}
        assert runtime.calls[-1] == ("shop.deliver", {"target": "front door"}, "shop.deliver")


async def test_manifest_resource_carries_tool_provenance():
    async with shop_env() as (app, client, runtime, cart):
        body = json.loads((await client.read_resource("actions://manifests/shop")).contents[0].text)
        tools = {t["name"]: t for t in body["tools"]}
        assert tools["shop.add_item"] == {
            "name": "shop.add_item",
            "mcp_name": "shop_add_item",
            "manifest": "shop",
            "source": str(FIXTURES / "good" / "shop.actions.json"),
            "trust": "local",
            "kind": "handler",
        }
        assert body["manifest"]["surface"]["surface_id"] == "shop"


async def test_dropped_runtime_fails_its_calls_at_once():
    async with shop_env() as (app, client, runtime, cart):
        runtime.handlers["shop.checkout"] = sleep_forever
        call = asyncio.create_task(client.call_tool("shop_checkout", {"timeout_ms": 20000}))
        await asyncio.sleep(0.1)
        started = asyncio.get_running_loop().time()
        await runtime.stop("tab closed")
        result = await asyncio.wait_for(call, 2)
        assert structured(result)["error"]["code"] == "transport_failed"
        assert asyncio.get_running_loop().time() - started < 1


async def test_launch_resource_reports_invalid_manifests():
    async with shop_env() as (app, client, runtime, cart):
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"actions://bridge/launch", "actions://runtimes", "actions://manifests/shop", "actions://runtimes/shop-1/events"} <= listed
        launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
        bad = [m for m in launch["manifests"] if m["file"].endswith("broken.actions.json")]
        assert bad and bad[0]["valid"] is False
        assert {p["path"] for p in bad[0]["errors"]} >= {"/version"}
        runtimes = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)
        assert runtimes["runtimes"][0]["runtime_id"] == "shop-1"
        with pytest.raises(MCPError):
            await client.read_resource("actions://manifests/nope")


async def test_declared_events_are_kept_as_untrusted_data():
    async with shop_env() as (app, client, runtime, cart):
        await runtime.emit({"type": "dom_event", "event_id": "e1", "runtime_id": "shop-1", "name": "shop.item_added", "event": "shop:item-added", "payload": {"sku": "ABC-1"}})
        await runtime.emit({"type": "dom_event", "event_id": "e2", "runtime_id": "shop-1", "name": "shop.undeclared", "payload": {}})
        events = json.loads((await client.read_resource("actions://runtimes/shop-1/events")).contents[0].text)
        assert [e["event_id"] for e in events["events"]] == ["e1"]
        assert events["events"][0]["trust"] == "untrusted_page_data"
        refused = [item for item in runtime.received if item["type"] == "action_error"]
        assert refused[-1]["error"]["code"] == "unknown_signal"
        config = [item for item in runtime.received if item["type"] == "runtime_config"][0]
        assert config["listen"] == [{"name": "shop.item_added", "event": "shop:item-added"}]


INLINE = {
    "protocol": "actions.json",
    "version": 1,
    "surface": {"origin": "memory://inline"},
    "tools": [
        {
            "name": "inline.ping",
            "description": "Ping the page.",
            "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
            "x_actions": {"handler": "app.ping"},
        }
    ],
}


async def test_inline_manifest_exposes_tools_for_that_runtime_only():
    async with shop_env() as (app, client, runtime, cart):
        page = MemoryRuntime(app.bridge, runtime_id="inline-1", url="memory://inline/", handlers={"app.ping": lambda a: {"pong": True}}, manifest=INLINE)
        await page.start()
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["inline_ping"].meta["mcp-actions/runtime_id"] == "inline-1"
        result = await client.call_tool("inline_ping", {})
        assert structured(result) == {"pong": True}
        await page.stop()
        assert "inline_ping" not in {t.name for t in (await client.list_tools()).tools}


async def test_invalid_inline_manifest_exposes_nothing_and_is_reported():
    async with shop_env() as (app, client, runtime, cart):
        broken = {**INLINE, "version": 7}
        page = MemoryRuntime(app.bridge, runtime_id="inline-2", url="memory://inline/", manifest=broken)
        await page.start()
        try:
            assert "inline_ping" not in {t.name for t in (await client.list_tools()).tools}
            launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
            report = [m for m in launch["manifests"] if m["file"] == "runtime:inline-2"][0]
            assert report["valid"] is False and report["errors"][0]["path"] == "/version"
        finally:
            await page.stop()


async def test_actions_site_lists_and_calls():
    async with shop_env() as (app, client, runtime, cart):
        listed = structured(await client.call_tool("actions_site", {"mode": "list"}))
        assert "shop.add_item" in {t["name"] for t in listed["tools"]}
        called = await client.call_tool("actions_site", {"mode": "call", "action": "shop.add_item", "arguments": {"sku": "ABC-1", "quantity": 3}})
        assert structured(called) == {"ok": True, "cart_size": 1}
        refused = await client.call_tool("actions_site", {"mode": "call", "action": "shop.add_item", "arguments": {"sku": "ABC-1", "quantity": 30}})
        assert refused.is_error and structured(refused)["error"]["code"] == "invalid_input"
        assert len(cart.items) == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # handshake-era session, and 2026-07-28 via subscriptions/listen
async def test_inline_manifest_sends_tools_list_changed(mode):
    app = ActionsApp(AppOptions(manifests=[str(FIXTURES / "good")], browser="none", serve_bridge=False))
    seen: list[str] = []
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None) or getattr(message, "method", None)
        if method:
            seen.append(method)
            if method == "notifications/tools/list_changed":
                changed.set()

    async with Client(build_server(app), mode=mode, message_handler=on_message) as client:
        await client.list_tools()
        page = MemoryRuntime(app.bridge, runtime_id="inline-3", url="memory://inline/", handlers={"app.ping": lambda a: {"pong": True}}, manifest=INLINE)
        if mode == "auto":
            async with client.listen(tools_list_changed=True) as events:
                await page.start()
                event = await asyncio.wait_for(anext(aiter(events)), 5)
                assert type(event).__name__ == "ToolsListChanged"
        else:
            await page.start()
            await asyncio.wait_for(changed.wait(), 5)
        assert "inline_ping" in {t.name for t in (await client.list_tools()).tools}
        await page.stop()


def test_page_originated_tools_are_not_exposed_and_nested_files_are_refused(tmp_path):
    from mcp_actions.manifest.load import load_paths

    page_tool = {
        "name": "shop.cart_changed",
        "description": "The page reports cart changes.",
        "input_schema": {"type": "object"},
        "x_actions": {"direction": "html_to_agent"},
    }
    (tmp_path / "page.actions.json").write_text(json.dumps({**INLINE, "tools": [*INLINE["tools"], page_tool]}))
    (tmp_path / "deep.actions.json").write_text("[" * 100_000 + "]" * 100_000)
    result = load_paths([tmp_path])
    assert [(r.file.rsplit("/", 1)[-1], [p.code for p in r.errors]) for r in result.failures] == [("deep.actions.json", ["invalid_json"])]
    app = ActionsApp(AppOptions(browser="none", serve_bridge=False))
    app.catalog.set_manifests(result.manifests)
    names = {b.name for b in app.catalog.tools.values()}
    assert "inline.ping" in names and "shop.cart_changed" not in names
