"""The catalog: tools of file maps, inline maps and page-declared tools, set and withdrawn; which maps and signals apply to a runtime; each binding's checks."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.catalog.catalog import Catalog, ToolBinding
from mcp_actions.catalog.routing_fields import with_routing_fields
from mcp_actions.errors import ActionError
from mcp_actions.manifest.load import LoadedManifest, load_document
from mcp_actions.protocols.exposure import page_manifest

from ..manifest.builders import PROJECTION
from .maps import handler_tool, loaded, manifest, step, workflow_tool


def _names(catalog: Catalog) -> dict[str, str | None]:
    """Dotted name → runtime id of every tool (built-ins have none here)."""
    return {b.name: b.runtime_id for b in catalog.tools.values()}


def _page(protocol: str, *tools: dict[str, Any], runtime_id: str = "tab-1") -> LoadedManifest:
    """A runtime's page-declared tools as the composition root loads them."""
    return loaded(page_manifest(protocol, list(tools), url="https://shop.test/"), source=f"runtime:{runtime_id}#{protocol}", namespace=f"runtime-{runtime_id}-{protocol}")


SEARCH = {"name": "search", "description": "Find products.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}


# -- file maps ------------------------------------------------------------------


def test_two_files_of_one_namespace_are_both_kept_under_distinct_namespaces():
    first = loaded(manifest(handler_tool("shop.add")), source="a/shop.actions.json", namespace="shop")
    second = loaded(manifest(handler_tool("shop.remove")), source="b/shop.actions.json", namespace="shop")
    catalog = Catalog()
    catalog.set_manifests([first, second])
    assert list(catalog.manifests) == ["shop", "shop-2"] and (first.namespace, second.namespace) == ("shop", "shop-2")
    assert {b.name: (b.namespace, b.origin.source) for b in catalog.tools.values()} == {
        "shop.add": ("shop", "a/shop.actions.json"),
        "shop.remove": ("shop-2", "b/shop.actions.json"),
    }


def test_setting_the_maps_again_replaces_them():
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add")), namespace="shop"), loaded(manifest(handler_tool("blog.post")), namespace="blog")])
    catalog.set_manifests([loaded(manifest(handler_tool("shop.remove")), namespace="shop")])
    assert list(catalog.manifests) == ["shop"] and set(_names(catalog)) == {"shop.remove"}


@pytest.mark.parametrize(
    ("lookup", "found"),
    [
        ("shop.add_item", "shop.add_item"),  # by dotted name (actions.site call mode)
        ("shop_add_item", "shop.add_item"),  # by MCP name too
        ("shop.nothing", None),  # neither
    ],
)
def test_find_takes_a_dotted_or_an_mcp_name(lookup, found):
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add_item")))])
    binding = catalog.find(lookup)
    assert (binding.name if binding else None) == found


# -- inline maps and page tools ---------------------------------------------------


def test_an_inline_map_is_set_and_withdrawn():
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add")), namespace="shop")])
    inline = loaded(manifest(handler_tool("inline.ping"), origin=None), namespace="runtime-tab-1")
    assert catalog.set_inline("tab-1", inline) is True
    assert _names(catalog) == {"shop.add": None, "inline.ping": "tab-1"}  # its tools run on the runtime that sent it
    assert catalog.get("inline_ping").meta()["mcp-actions/runtime_id"] == "tab-1"
    assert catalog.all_manifests() == {"shop": catalog.manifests["shop"], "runtime-tab-1": inline}
    assert catalog.set_inline("tab-1", None) is True
    assert _names(catalog) == {"shop.add": None} and catalog.all_manifests().keys() == {"shop"}
    assert catalog.set_inline("tab-1", None) is False  # nothing left to withdraw


def test_page_tools_say_whether_what_the_host_sees_changed():
    catalog = Catalog()
    assert catalog.set_page_tools("tab-1", "webmcp", _page("webmcp", SEARCH)) is True  # new tools
    binding = catalog.get("shop_test_search")
    assert (binding.runtime_id, binding.protocol, binding.meta()["mcp-actions/protocol"]) == ("tab-1", "webmcp", "webmcp")
    assert catalog.set_page_tools("tab-1", "webmcp", _page("webmcp", SEARCH)) is False  # the page said the same again
    assert catalog.set_page_tools("tab-1", "webmcp", _page("webmcp", {**SEARCH, "description": "Search."})) is True  # a new description
    assert catalog.set_page_tools("tab-1", "webmcp", _page("webmcp", {**SEARCH, "inputSchema": {"type": "object"}})) is True  # a new schema
    assert catalog.set_page_tools("tab-2", "webmcp", _page("webmcp", SEARCH, runtime_id="tab-2")) is True  # another runtime's own
    assert catalog.set_page_tools("tab-1", "abp", None) is False  # nothing declared through ABP to withdraw
    assert catalog.set_page_tools("tab-1", "webmcp", None) is True
    assert _names(catalog) == {"shop_test.search": "tab-2"}
    assert catalog.set_page_tools("tab-1", "webmcp", None) is False


def test_a_gone_runtime_takes_its_inline_map_and_page_tools_with_it():
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add")), namespace="shop")])
    catalog.set_inline("tab-1", loaded(manifest(handler_tool("inline.ping"), origin=None), namespace="runtime-tab-1"))
    catalog.set_page_tools("tab-1", "webmcp", _page("webmcp", SEARCH))
    catalog.set_page_tools("tab-2", "webmcp", _page("webmcp", SEARCH, runtime_id="tab-2"))
    assert catalog.drop_runtime("tab-1") is True
    assert _names(catalog) == {"shop.add": None, "shop_test.search": "tab-2"}
    assert catalog.drop_runtime("tab-1") is False  # already gone
    assert catalog.drop_runtime("tab-9") is False  # never exposed anything
    assert catalog.drop_runtime("tab-2") is True and _names(catalog) == {"shop.add": None}


# -- what applies to a runtime ---------------------------------------------------


SIGNAL = {"name": "cart.changed", "event": "cart:changed", "ingestion": "enabled", "payload": {"type": "object"}}


def _applying() -> Catalog:
    catalog = Catalog()
    catalog.set_manifests(
        [
            loaded(manifest(handler_tool("shop.add"), origin="https://*.shop.test", signals=[SIGNAL]), namespace="shop"),
            loaded(manifest(handler_tool("shop.pay"), origin="https://pay.shop.test", signals=[{"name": "paid", "event": "pay:done"}]), namespace="pay"),
            loaded(manifest(handler_tool("blog.post"), origin="https://blog.test", signals=[{"name": "posted", "event": "blog:posted", "ingestion": "enabled"}]), namespace="blog"),
            loaded(manifest(handler_tool("any.thing"), origin=None), namespace="anywhere"),
        ]
    )
    catalog.set_inline("tab-1", loaded(manifest(handler_tool("inline.ping"), origin=None, signals=[{"name": "pinged", "event": "ping", "ingestion": "enabled"}]), namespace="runtime-tab-1"))
    return catalog


@pytest.mark.parametrize(
    ("runtime", "namespaces"),
    [
        (RuntimeInfo("tab-2", "https://www.shop.test/cart", "memory"), ["shop"]),  # a wildcard origin
        (RuntimeInfo("tab-2", "https://pay.shop.test/", "memory"), ["shop", "pay"]),  # two maps' surfaces, in load order
        (RuntimeInfo("tab-2", "http://www.shop.test/", "memory"), []),  # the scheme is part of the origin
        (RuntimeInfo("tab-1", "https://blog.test/", "memory"), ["blog", "runtime-tab-1"]),  # the runtime's own inline map last
        (RuntimeInfo("tab-2", "about:blank", "memory"), []),  # a map naming no site is not any page's map
    ],
)
def test_the_maps_that_apply_to_a_runtime(runtime, namespaces):
    assert [m.namespace for m in _applying().manifests_for(runtime)] == namespaces


@pytest.mark.parametrize(
    ("runtime", "signals"),
    [
        (RuntimeInfo("tab-2", "https://www.shop.test/", "memory"), {"cart.changed": SignalSpec("cart.changed", "cart:changed", True, {"type": "object"})}),
        # Declared but not enabled for ingestion: known, and refused when it comes.
        (RuntimeInfo("tab-2", "https://pay.shop.test/", "memory"), {"cart.changed": SignalSpec("cart.changed", "cart:changed", True, {"type": "object"}), "paid": SignalSpec("paid", "pay:done", False)}),
        (RuntimeInfo("tab-1", "https://blog.test/", "memory"), {"posted": SignalSpec("posted", "blog:posted", True), "pinged": SignalSpec("pinged", "ping", True)}),
        (RuntimeInfo("tab-2", "https://elsewhere.test/", "memory"), {}),
    ],
)
def test_the_signals_declared_for_a_runtime(runtime, signals):
    assert _applying().signals_for(runtime) == signals


async def test_maps_that_failed_to_load_are_told_to_the_catalogue_and_forgotten_once_fixed(tmp_path):
    good = json.dumps(manifest(handler_tool("shop.add")))
    (tmp_path / "shop.actions.json").write_text(good)
    (tmp_path / "blog.actions.json").write_text(json.dumps({**manifest(handler_tool("blog.post")), "version": 9}))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="none", serve_bridge=False, watch=False))
    assert app.catalog.failed_maps == []  # nothing loaded yet
    app.load_manifests()
    assert [(m["file"], [e["path"] for e in m["errors"]]) for m in app.catalog.failed_maps] == [(str(tmp_path / "blog.actions.json"), ["/version"])]
    (tmp_path / "blog.actions.json").write_text(json.dumps(manifest(handler_tool("blog.post"))))
    await app.reload_manifests()
    assert app.catalog.failed_maps == []
    assert {"shop.add", "blog.post"} <= set(_names(app.catalog))


# -- bindings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "kind"),
    [
        (handler_tool("shop.add"), "handler"),  # a page handler
        (workflow_tool("shop.read", step("page.info")), "workflow"),  # a workflow
        (handler_tool("shop.go", x_actions={"handler": "browser.navigate"}), "handler"),  # a handler naming a primitive is listed as a handler
        ({"name": "page.info", "description": "Where the page is.", "input_schema": {"type": "object"}}, "steps"),  # host-native: listed with steps
    ],
)
def test_a_binding_says_where_it_comes_from_and_how_it_runs(tool, kind):
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(tool), source="maps/shop.actions.json", namespace="shop")])
    binding = catalog.find(tool["name"])
    assert binding.provenance() == {"manifest": "shop", "source": "maps/shop.actions.json", "trust": "local", "kind": kind}
    # _meta in tools/list stays small: the dotted name and the protocol, nothing of the above.
    assert binding.meta() == {"mcp-actions/tool": tool["name"], "mcp-actions/protocol": "actions.json"}


@pytest.mark.parametrize(
    ("schema", "own", "admits_other"),
    [
        ({"type": "object"}, set(), True),  # nothing declared, nothing closed
        ({"type": "object", "properties": {"q": {}, "target": {}}}, {"q", "target"}, True),  # declared names are the tool's own
        ({"type": "object", "properties": {"q": {}}, "additionalProperties": False}, {"q"}, False),  # closed
        ({"type": "object", "properties": {"q": {}}, "unevaluatedProperties": False}, {"q"}, False),  # closed the 2020-12 way
        ({"type": "object", "additionalProperties": {"type": "string"}}, set(), True),  # open, with a schema for the rest
    ],
)
def test_a_binding_knows_its_own_arguments_and_whether_it_takes_others(schema, own, admits_other):
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.find", input_schema=schema)))])
    binding = catalog.find("shop.find")
    assert (binding.own_properties, binding.admits_other) == (frozenset(own), admits_other)
    assert binding.mcp_input_schema == with_routing_fields(schema)


def test_a_result_summary_the_map_asks_for_is_bound():
    summary = {"projection": "site.board", "summary": "counts"}
    document = manifest(handler_tool("shop.add", x_actions={"handler": "shop.add", "result_summary": summary}), handler_tool("shop.pay"), state_projections=[PROJECTION])
    catalog = Catalog()
    catalog.set_manifests([loaded(document)])
    assert catalog.find("shop.add").result_summary == ("site.board", "counts")
    assert catalog.find("shop.pay").result_summary is None


def test_bad_arguments_are_refused_naming_their_path():
    schema = {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1}}, "required": ["qty"], "additionalProperties": False}
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add", input_schema=schema)))])
    binding = catalog.find("shop.add")
    binding.check_arguments({"qty": 2})
    for arguments, path in (({"qty": 0}, "/qty"), ({}, "/qty"), ({"qty": 1, "colour": "red"}, "/colour")):
        with pytest.raises(ActionError) as caught:
            binding.check_arguments(arguments)
        assert caught.value.code == "invalid_input" and caught.value.evidence["path"] == path, arguments


def _catalog_with(input_schema: dict[str, Any], result_schema: dict[str, Any]) -> Catalog:
    shop = load_document(
        {
            "protocol": "actions.json",
            "version": 1,
            "surface": {"origin": "https://shop.test"},
            "tools": [
                {
                    "name": "shop.lookup",
                    "description": "Look a product up.",
                    "input_schema": input_schema,
                    "x_actions": {"handler": "shop.lookup", "result_schema": result_schema},
                }
            ],
        },
        source="test",
        trust="local",
    )
    assert isinstance(shop, LoadedManifest)  # the validator does not follow $ref: such maps load
    catalog = Catalog()
    catalog.set_manifests([shop])
    return catalog


def test_tool_schemas_that_cannot_be_compiled_refuse_instead_of_passing_everything(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="mcp_actions")
    broken = {"type": "object", "properties": {"sku": {"$ref": "#/$defs/missing"}}}
    binding = _catalog_with(broken, broken).find("shop.lookup")
    assert binding is not None
    for _ in range(2):
        with pytest.raises(ActionError) as caught:
            binding.check_arguments({"sku": "A1"})
        assert caught.value.code == "invalid_schema" and "input_schema of tool shop.lookup" in caught.value.message
        with pytest.raises(ActionError) as caught:
            binding.check_result({"sku": "A1"})
        assert caught.value.code == "invalid_schema" and "result_schema of tool shop.lookup" in caught.value.message
    logged = [r.getMessage() for r in caplog.records if "cannot be compiled" in r.getMessage()]
    assert len(logged) == 2  # once per schema, not once per call


def test_tool_schemas_that_compile_still_check() -> None:
    schema = {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}
    binding = _catalog_with(schema, schema).find("shop.lookup")
    assert binding is not None
    binding.check_arguments({"sku": "A1"})
    binding.check_result({"sku": "A1"})
    with pytest.raises(ActionError) as caught:
        binding.check_result({"sku": 3})
    assert caught.value.code == "invalid_result" and caught.value.evidence["path"] == "/sku"


def test_a_tool_without_a_result_schema_takes_any_result():
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add")))])
    binding: ToolBinding = catalog.find("shop.add")
    binding.check_result({"anything": [1, "two"]})
    binding.check_result(None)
