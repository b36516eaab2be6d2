"""The page protocol registry: each protocol is one object with every piece, and its tools' plans say so at load.

A protocol is found by its name, and its object holds discovery, exposure,
naming, running and conversion (``protocols/page_protocol.py``); the wire's
list of protocols (``bridge/page_tools.py``) and the naming module's agree
with the registry. A page's tool gets the plan kind ``page_tool`` with its
protocol and the page's own name when its runtime's map is set, so dispatch
reads the plan instead of asking where the tool came from.
"""

from __future__ import annotations

import pytest

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.deadline import Deadline
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.manifest.execution import ToolKind
from mcp_actions.manifest.load import LoadedManifest, load_document
from mcp_actions.primitive_dictionary import host_dictionary
from mcp_actions.protocols.exposure import PageToolExposure
from mcp_actions.protocols.registry import PAGE_PROTOCOLS, PAGE_TOOL_KEYS, PROTOCOLS, page_protocol
from mcp_actions.protocols.runner import PageToolRunner

URL = "https://shop.test/cart"
#: One page tool as each protocol's page engine reports it (``page_tools[protocol]``).
REPORTED = {
    "webmcp": [{"name": "search", "description": "Find products.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}],
    "abp": [{"name": "cart.add", "description": "Add to cart.", "inputSchema": {"type": "object", "properties": {"sku": {"type": "string"}}}}],
    "wab": [{"name": "addToCart", "description": "Add to cart.", "params": {}, "bridge": "AICommands"}],
}
#: A published document of each protocol that has them (what ``mcp-actions convert`` reads).
DOCUMENTS = {
    "abp": {"abp": "0.1", "app": {"id": "shop", "name": "Shop"}, "capabilities": [{"name": "cart.add", "description": "Add."}]},
    "wab": {"wab_version": "1.0", "site": {"name": "Shop", "domain": "shop.test"}, "actions": [{"name": "addToCart", "description": "Add."}]},
}


def test_every_protocol_is_found_by_its_name_and_nothing_else_is():
    assert list(PAGE_PROTOCOLS) == ["webmcp", "abp", "wab"]
    for name, protocol in PAGE_PROTOCOLS.items():
        assert page_protocol(name) is protocol and protocol.name == name
    assert page_protocol("actions.json") is None and page_protocol(None) is None and page_protocol("bap") is None


def test_the_wire_and_the_naming_rule_know_the_same_protocols():
    # Discovery: a runtime may report page tools under exactly the registry's names (the app hands them to the bridge).
    assert set(PAGE_TOOL_KEYS) == {name for name, p in PAGE_PROTOCOLS.items() if p.discovery.page_tools} == {"webmcp", "abp", "wab"}
    assert ActionsApp(AppOptions(browser="none", serve_bridge=False)).bridge.page_tool_protocols == PAGE_TOOL_KEYS
    assert PROTOCOLS == ("actions.json", "webmcp", "abp", "wab")


@pytest.mark.parametrize("name", list(PAGE_PROTOCOLS))
def test_each_protocol_has_every_piece(name):
    protocol = PAGE_PROTOCOLS[name]
    # Running: its page primitive is one of the host's, and its runner is made per bridge.
    assert protocol.primitive in host_dictionary()
    runner = protocol.make_runner(Bridge())
    assert callable(runner.run)
    # Exposure: a valid map of what the page reported, each tool bound to the page's own name by name_key.
    (document,) = protocol.maps(REPORTED[name], url=URL)[:1]
    loaded = load_document(document, source=protocol.source("tab-1"), trust="website")
    assert isinstance(loaded, LoadedManifest), [p.to_dict() for p in loaded.errors]
    (tool,) = loaded.model.tools
    page_name = REPORTED[name][0]["name"]
    assert tool.x_actions.handler == protocol.primitive and tool.x_actions.bound_arguments[protocol.name_key] == page_name
    # Naming: the one rule, and the runtime's map's namespace and source.
    assert tool.name == protocol.tool_name(URL, page_name) and tool.name.startswith("shop_test.")
    assert (protocol.namespace("tab-1"), protocol.source("tab-1")) == (f"runtime-tab-1-{name}", f"runtime:tab-1#{name}")
    assert protocol.maps(None, url=URL) == []  # nothing reported, nothing exposed
    # Conversion: a published document becomes a valid map (WebMCP has none).
    if name in DOCUMENTS:
        assert protocol.convert is not None
        converted = load_document(protocol.convert(DOCUMENTS[name]), source="converted", trust="website")
        assert isinstance(converted, LoadedManifest), [p.to_dict() for p in converted.errors]
    else:
        assert protocol.convert is None


@pytest.mark.parametrize("name", list(PAGE_PROTOCOLS))
def test_a_page_tools_plan_is_a_page_tool_of_its_protocol_from_the_moment_it_is_exposed(name):
    protocol = PAGE_PROTOCOLS[name]
    catalog = Catalog()
    exposure = PageToolExposure(catalog, fetcher=None, changed=lambda _: None)
    runtime = RuntimeInfo(runtime_id="tab-1", url=URL, transport="test", page_tools={name: REPORTED[name]})
    if protocol.discovery.site_document:
        exposure.site_found(runtime, None, REPORTED[name], protocol=name)
    else:
        exposure.page_reported(runtime)
    (binding,) = [b for b in catalog.tools.values() if b.runtime_id == "tab-1"]
    plan = binding.execution
    assert (plan.kind, plan.protocol, plan.primitive) == (ToolKind.PAGE_TOOL, name, protocol.primitive)
    assert protocol.page_name(binding) == REPORTED[name][0]["name"]
    assert binding.page_tool and binding.protocol == name and binding.meta()["mcp-actions/protocol"] == name
    assert binding.provenance()["kind"] == "handler"  # the published vocabulary is unchanged


def test_a_maps_tool_naming_a_page_primitive_is_the_maps_not_a_page_tool():
    # The kind comes from where the tool came from, not from its handler's name.
    document = PAGE_PROTOCOLS["webmcp"].maps(REPORTED["webmcp"], url=URL)[0]
    document["tools"][0]["description"] = "A map's own tool."
    catalog = Catalog()
    loaded = load_document(document, source="shop.actions.json")
    assert isinstance(loaded, LoadedManifest)
    catalog.set_manifests([loaded])
    (binding,) = [b for b in catalog.tools.values() if b.namespace == loaded.namespace]
    assert binding.kind is ToolKind.PRIMITIVE_HANDLER and not binding.page_tool and binding.protocol == "actions.json"


def test_a_page_map_that_cannot_load_is_reported_until_the_page_fixes_it():
    catalog, changes = Catalog(), []
    exposure = PageToolExposure(catalog, fetcher=None, changed=lambda _: changes.append(1))
    broken = [{"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "nonsense"}}}}]
    runtime = RuntimeInfo(runtime_id="tab-1", url=URL, transport="test", page_tools={"webmcp": broken})
    exposure.page_reported(runtime)
    assert list(exposure.reports) == ["runtime:tab-1#webmcp"] and not exposure.reports["runtime:tab-1#webmcp"].valid
    assert not [b for b in catalog.tools.values() if b.runtime_id] and changes == []
    runtime.page_tools = {"webmcp": REPORTED["webmcp"]}
    exposure.page_reported(runtime)
    assert exposure.reports == {} and changes == [1]
    assert [b.name for b in catalog.tools.values() if b.runtime_id] == ["shop_test.search"]


async def test_a_page_tool_of_a_protocol_the_runner_lacks_is_capability_unavailable():
    catalog = Catalog()
    exposure = PageToolExposure(catalog, fetcher=None, changed=lambda _: None)
    runtime = RuntimeInfo(runtime_id="tab-1", url=URL, transport="test", page_tools={"abp": REPORTED["abp"]})
    exposure.page_reported(runtime)
    (binding,) = [b for b in catalog.tools.values() if b.runtime_id == "tab-1"]
    runner = PageToolRunner(Bridge(), protocols={"webmcp": PAGE_PROTOCOLS["webmcp"]})
    with pytest.raises(ActionError) as caught:
        await runner.run(binding, {"sku": "x"}, runtime, Deadline.after_ms(1000))
    assert caught.value.code == ErrorCode.CAPABILITY_UNAVAILABLE and caught.value.evidence["capability"] == "abp"


def test_the_bridge_takes_page_tools_only_under_the_names_it_was_given():
    from mcp_actions.bridge.page_tools import parse_page_tools

    tool = {"name": "search", "description": "Search.", "inputSchema": {"type": "object"}}
    assert parse_page_tools({"webmcp": [tool]}, PAGE_TOOL_KEYS) == {"webmcp": [tool]}
    with pytest.raises(ActionError) as caught:
        parse_page_tools({"bap": [tool]}, PAGE_TOOL_KEYS)  # no protocol of the registry: refused at its path
    assert caught.value.code == ErrorCode.INVALID_ITEM and caught.value.evidence["path"] == "/page_tools/bap"
    # A bridge given no list takes a well-formed name, never an arbitrary string.
    assert parse_page_tools({"bap": [tool]}) == {"bap": [tool]}
    with pytest.raises(ActionError):
        parse_page_tools({"Not A Name!": [tool]})
