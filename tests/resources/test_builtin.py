"""The built-in ``actions://`` resources over a real catalog, bridge and memory runtimes: what is listed, what each reads, what is not there."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import pytest

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.bridge import Bridge
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.context import DOCUMENTATION_NOTE
from mcp_actions.dispatch.builtins.registry import builtin_bindings
from mcp_actions.errors import ActionError
from mcp_actions.resources.builtin import CONTEXT, EVENTS, LAUNCH_URI, MANIFEST, RUNTIMES_URI, STATES, register_builtin_resources, runtime_resource_uris
from mcp_actions.resources.registry import ResourceRegistry
from mcp_actions.runtimes.memory import MemoryRuntime

from ..catalog.maps import handler_tool, loaded, manifest, step, workflow_tool

SHOP = manifest(
    handler_tool("shop.pay"),
    workflow_tool("shop.total", step("locator.text_content", locator={"selector": "#total"})),
    states=[{"name": "browsing", "description": "Looking around."}, {"name": "paying", "description": "At the till."}],
    signals=[{"name": "cart.changed", "event": "cart:changed", "ingestion": "enabled", "payload": {"type": "object"}}],
    context=[
        {"id": "shop.everywhere", "title": "The shop", "body": "Prices include tax."},
        {"id": "shop.paying_help", "body": "Do not reload while paying.", "load_when": {"states": ["paying"]}, "available_tools": ["shop.pay"]},
    ],
)
BLOG = manifest(handler_tool("blog.post"), origin="https://blog.test", states=[{"name": "writing"}])


@dataclass
class Served:
    registry: ResourceRegistry
    catalog: Catalog
    shop: MemoryRuntime  # tab-1, on the shop's cart (the active runtime: it came first)
    blog: MemoryRuntime  # tab-2, on the blog
    launches: list[int]


@contextlib.asynccontextmanager
async def served() -> AsyncIterator[Served]:
    """The built-in resources of a catalog with two sites' maps and a bridge with a runtime on each site."""
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests([loaded(SHOP, source="maps/shop.actions.json", namespace="shop"), loaded(BLOG, source="maps/blog.actions.json", namespace="blog")])
    bridge = Bridge(signal_source=catalog.signals_for)
    await bridge.start()
    launches: list[int] = []

    def launch_report() -> dict[str, Any]:
        launches.append(len(launches) + 1)
        return {"reads": len(launches)}

    registry = ResourceRegistry()
    register_builtin_resources(registry, catalog=catalog, runtimes=bridge.registry, launch_report=launch_report)
    shop = MemoryRuntime(bridge, runtime_id="tab-1", url="https://shop.test/cart", title="Cart")
    blog = MemoryRuntime(bridge, runtime_id="tab-2", url="https://blog.test/", title="Blog")
    await shop.start()
    await blog.start()
    try:
        yield Served(registry, catalog, shop, blog, launches)
    finally:
        await shop.stop()
        await blog.stop()
        await bridge.stop()


async def _not_found(registry: ResourceRegistry, uri: str) -> None:
    with pytest.raises(ActionError) as caught:
        await registry.read(uri)
    assert (caught.value.code, caught.value.evidence) == ("resource_not_found", {"uri": uri})


async def test_the_templates_and_what_is_listed_now():
    async with served() as s:
        assert {p.template for p in s.registry.providers() if p.is_template} == {MANIFEST, STATES, EVENTS, CONTEXT}
        entries = {e.uri: e for e in s.registry.entries()}
        assert list(entries) == [
            LAUNCH_URI,
            RUNTIMES_URI,
            "actions://manifests/blog",  # by namespace
            "actions://manifests/shop",
            "actions://runtimes/tab-1/states",
            "actions://runtimes/tab-2/states",
            "actions://runtimes/tab-1/events",
            "actions://runtimes/tab-2/events",
            "actions://runtimes/tab-1/context/shop.everywhere",  # paying_help waits for its state
        ]
        assert entries["actions://runtimes/tab-1/context/shop.everywhere"].meta == {"mcp-actions/kind": "documentation"}
        assert DOCUMENTATION_NOTE in entries["actions://runtimes/tab-1/context/shop.everywhere"].description
        assert all(e.mime_type == "application/json" for e in entries.values())
        await s.shop.report(states=["paying"])
        assert "actions://runtimes/tab-1/context/shop.paying_help" in {e.uri for e in s.registry.entries()}


async def test_the_launch_resource_is_the_launch_report_as_of_each_read():
    async with served() as s:
        assert await s.registry.read(LAUNCH_URI) == {"reads": 1}
        assert await s.registry.read(LAUNCH_URI) == {"reads": 2}  # read again, not cached


async def test_the_runtimes_resource_lists_each_runtime_and_the_active_one():
    async with served() as s:
        read = await s.registry.read(RUNTIMES_URI)
        assert read["active_runtime_id"] == "tab-1"
        assert [(r["runtime_id"], r["url"], r["title"], r["transport"]) for r in read["runtimes"]] == [
            ("tab-1", "https://shop.test/cart", "Cart", "memory"),
            ("tab-2", "https://blog.test/", "Blog", "memory"),
        ]
        json.dumps(read)  # JSON as it is


async def test_a_manifest_resource_holds_the_map_and_its_tools_provenance_and_kind():
    async with served() as s:
        read = await s.registry.read("actions://manifests/shop")
        assert (read["namespace"], read["source"]) == ("shop", "maps/shop.actions.json")
        assert read["manifest"]["context"][0]["id"] == "shop.everywhere"  # the map itself
        # Its tools only: not the blog's, not the built-ins.
        assert read["tools"] == [
            {"name": "shop.pay", "mcp_name": "shop_pay", "manifest": "shop", "source": "maps/shop.actions.json", "trust": "local", "kind": "handler"},
            {"name": "shop.total", "mcp_name": "shop_total", "manifest": "shop", "source": "maps/shop.actions.json", "trust": "local", "kind": "workflow"},
        ]
        await _not_found(s.registry, "actions://manifests/nope")


async def test_a_map_published_as_builtin_lists_its_own_tools_not_mcp_actions_built_ins():
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests([loaded(manifest(handler_tool("builtin.ping")), source="maps/builtin.actions.json", namespace="builtin")])
    registry = ResourceRegistry()
    register_builtin_resources(registry, catalog=catalog, runtimes=Bridge().registry, launch_report=dict)
    assert [t["name"] for t in (await registry.read("actions://manifests/builtin"))["tools"]] == ["builtin.ping"]


async def test_an_inline_map_is_a_manifest_resource_while_its_runtime_serves_it():
    async with served() as s:
        s.catalog.set_inline("tab-1", loaded(manifest(handler_tool("inline.ping"), origin=None), source="runtime:tab-1", namespace="runtime-tab-1"))
        assert "actions://manifests/runtime-tab-1" in {e.uri for e in s.registry.entries()}
        read = await s.registry.read("actions://manifests/runtime-tab-1")
        assert [(t["name"], t["kind"]) for t in read["tools"]] == [("inline.ping", "handler")]
        s.catalog.set_inline("tab-1", None)
        await _not_found(s.registry, "actions://manifests/runtime-tab-1")


async def test_a_states_resource_holds_the_declared_states_of_the_runtimes_maps_and_the_current_ones():
    async with served() as s:
        await s.shop.report(states=["paying"])
        assert await s.registry.read("actions://runtimes/tab-1/states") == {
            "runtime_id": "tab-1",
            "url": "https://shop.test/cart",
            "current": ["paying"],
            "declared": [
                {"name": "browsing", "description": "Looking around.", "manifest": "shop", "current": False},
                {"name": "paying", "description": "At the till.", "manifest": "shop", "current": True},
            ],
        }
        blog = await s.registry.read("actions://runtimes/tab-2/states")
        assert (blog["current"], [d["name"] for d in blog["declared"]]) == ([], ["writing"])  # the blog's map, not the shop's
        assert runtime_resource_uris("tab-1") == ["actions://runtimes/tab-1/states"]  # the one that follows url and states
        await s.shop.stop()
        await _not_found(s.registry, "actions://runtimes/tab-1/states")  # a gone runtime has no states


async def test_an_events_resource_holds_the_accepted_page_events_as_untrusted_data():
    async with served() as s:
        assert await s.registry.read("actions://runtimes/tab-1/events") == {"runtime_id": "tab-1", "trust": "untrusted_page_data", "events": []}
        await s.shop.emit({"type": "dom_event", "event_id": "e1", "runtime_id": "tab-1", "name": "cart.changed", "event": "cart:changed", "payload": {"items": 2}})
        read = await s.registry.read("actions://runtimes/tab-1/events")
        assert [(e["event_id"], e["name"], e["payload"], e["trust"]) for e in read["events"]] == [("e1", "cart.changed", {"items": 2}, "untrusted_page_data")]
        assert (await s.registry.read("actions://runtimes/tab-2/events"))["events"] == []  # each runtime its own
        await _not_found(s.registry, "actions://runtimes/gone/events")


async def test_a_context_resource_holds_a_block_that_applies_now_and_only_then():
    async with served() as s:
        uri = "actions://runtimes/tab-1/context/shop.paying_help"
        await _not_found(s.registry, uri)  # not in the paying state yet
        await s.shop.report(states=["paying"])
        assert await s.registry.read(uri) == {
            "runtime_id": "tab-1",
            "id": "shop.paying_help",
            "title": None,
            "manifest": "shop",
            "kind": "documentation",
            "note": DOCUMENTATION_NOTE,
            "body": "Do not reload while paying.",
            "load_when": {"states": ["paying"]},
            "available_tools": ["shop.pay"],
            "next_states": [],
        }
        await _not_found(s.registry, "actions://runtimes/tab-2/context/shop.everywhere")  # the shop's block on the blog's page
        await _not_found(s.registry, "actions://runtimes/tab-1/context/shop.nothing")
        await _not_found(s.registry, "actions://runtimes/gone/context/shop.everywhere")


async def test_the_launch_report_says_how_to_connect_what_loaded_and_what_failed(tmp_path, capsys):
    (tmp_path / "shop.actions.json").write_text(json.dumps(SHOP))
    (tmp_path / "blog.actions.json").write_text(json.dumps({**BLOG, "version": 9}))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="none", bridge_port=0, watch=False))
    await app.start()
    runtime = MemoryRuntime(app.bridge, runtime_id="tab-1", url="https://shop.test/", title="Shop")
    await runtime.start()
    try:
        report = await app.resources.read(LAUNCH_URI)
    finally:
        await runtime.stop()
        await app.stop()
    assert set(report) == {"bridge", "mcp", "bap", "browser", "manifests", "tools", "failed_maps", "runtimes", "policy", "audit_log", "audit_health"}
    assert report["bap"] is None  # BAP is off unless --bap-port is given
    bridge = report["bridge"]
    assert bridge["websocket_url"].startswith("ws://127.0.0.1:") and bridge["websocket_url"].endswith("/bridge")
    assert app.endpoint is not None and bridge["status_page"].startswith("http://127.0.0.1:")
    # What goes into pages carries the page credential, never the start token (only the extension's connect link has that).
    assert bridge["runtime_js"].endswith(f"/runtime.js?token={app.endpoint.page_credential}")
    assert app.token not in bridge["runtime_js"] + unquote(bridge["bookmarklet"])
    assert bridge["bookmarklet"].startswith("javascript:") and bridge["port_note"] is None  # port 0 asked for any port: nothing to note
    assert app.token not in bridge["token_hint"]  # the token itself is printed on stderr, never put in a resource
    assert report["mcp"] is None  # stdio: no MCP URL
    assert report["browser"] == {"mode": "none", "started": False, "cdp_endpoint": None}
    assert sorted((m["file"].rsplit("/", 1)[-1], m["valid"], [e["path"] for e in m["errors"]]) for m in report["manifests"]) == [
        ("blog.actions.json", False, ["/version"]),
        ("shop.actions.json", True, []),
    ]
    assert all(set(m) == {"file", "valid", "errors", "warnings"} for m in report["manifests"])
    assert report["tools"] == sorted(report["tools"]) and {"shop_pay", "shop_total", "browser_navigate"} <= set(report["tools"])
    assert "blog_post" not in report["tools"]  # the broken map exposes nothing
    assert [(m["file"].rsplit("/", 1)[-1], [e["path"] for e in m["errors"]]) for m in report["failed_maps"]] == [("blog.actions.json", ["/version"])]
    assert report["runtimes"] == [{"runtime_id": "tab-1", "runtime_key": None, "url": "https://shop.test/", "title": "Shop"}]
