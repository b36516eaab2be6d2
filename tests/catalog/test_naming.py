"""MCP tool names from dotted names: host-safe, a function of the dotted name alone, and clashes settled the same way whatever the load order."""

from __future__ import annotations

import pytest

from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.naming import MCP_NAME_PATTERN, disambiguated_name, mcp_tool_name
from mcp_actions.dispatch.builtins.registry import builtin_bindings

from .maps import handler_tool, loaded, manifest

LONG = "inventory.restock_the_warehouse_shelves_for_the_next_quarter_in_every_region"  # 76 characters


@pytest.mark.parametrize(
    ("dotted", "expected"),
    [
        ("contact.submit_name", "contact_submit_name"),  # the dot becomes an underscore
        ("a.b.c", "a_b_c"),  # every dot, not only the first
        ("shop.add-item", "shop_add-item"),  # hyphens and underscores are allowed as they are
        ("Shop.Add", "Shop_Add"),  # case is kept
        ("shop.caf\u00e9 au lait", "shop_caf__au_lait"),  # anything else outside [a-zA-Z0-9_-] becomes an underscore
        ("", "tool"),  # nothing to keep: a placeholder, never an empty name
        ("x" * 64, "x" * 64),  # exactly 64 characters fit as they are
        ("x" * 65, "x" * 55 + "_9537c5fd"),  # one more: 55 characters and a hash of the whole
        (LONG, "inventory_restock_the_warehouse_shelves_for_the_next_qu_9d834453"),  # pinned: the name a host saw yesterday is today's
    ],
)
def test_dotted_names_become_host_safe_names(dotted, expected):
    name = mcp_tool_name(dotted)
    assert name == expected
    assert MCP_NAME_PATTERN.match(name) and len(name) <= 64


def test_long_names_that_share_their_first_55_characters_stay_apart():
    first, second = f"{LONG}_north", f"{LONG}_south"
    assert mcp_tool_name(first)[:55] == mcp_tool_name(second)[:55]
    assert mcp_tool_name(first) != mcp_tool_name(second)


@pytest.mark.parametrize(
    ("dotted", "expected"),
    [
        ("contact.submit_name", "contact_submit_name_c3d911"),  # the plain name and a 6-digit hash, pinned
        ("a_b.c", "a_b_c_a37152"),  # the second of a clash with a.b_c
        (LONG, "inventory_restock_the_warehouse_shelves_for_the_next_qu_9_9d8344"),  # a long name still fits in 64
    ],
)
def test_the_second_name_is_deterministic_valid_and_not_the_plain_one(dotted, expected):
    name = disambiguated_name(dotted)
    assert name == expected
    assert MCP_NAME_PATTERN.match(name) and len(name) <= 64
    assert name != mcp_tool_name(dotted)


def _exposed(catalog: Catalog) -> dict[str, str]:
    """MCP name → dotted name of the map tools (built-ins left out)."""
    return {mcp: b.name for mcp, b in catalog.tools.items() if b.kind != "builtin"}


@pytest.mark.parametrize(
    "order",
    [
        ("first", "second"),  # the map with a.b_c loads first
        ("second", "first"),  # ... or last: the names do not change
    ],
)
def test_a_clash_between_two_maps_is_settled_by_dotted_name_not_load_order(order):
    maps = {
        "first": loaded(manifest(handler_tool("a.b_c")), source="first.actions.json"),
        "second": loaded(manifest(handler_tool("a_b.c")), source="second.actions.json"),
    }
    catalog = Catalog()
    catalog.set_manifests([maps[key] for key in order])
    # "a.b_c" sorts before "a_b.c" ('.' < '_'): it keeps the plain name.
    assert _exposed(catalog) == {"a_b_c": "a.b_c", disambiguated_name("a_b.c"): "a_b.c"}


def test_a_clash_inside_one_map_is_settled_the_same_way_whatever_the_order_of_its_tools():
    forward, backward = Catalog(), Catalog()
    forward.set_manifests([loaded(manifest(handler_tool("a.b_c"), handler_tool("a_b.c")))])
    backward.set_manifests([loaded(manifest(handler_tool("a_b.c"), handler_tool("a.b_c")))])
    assert _exposed(forward) == _exposed(backward) == {"a_b_c": "a.b_c", "a_b_c_a37152": "a_b.c"}


def test_a_builtin_keeps_its_name_against_a_map_tool_that_takes_it():
    catalog = Catalog(builtin_bindings())
    catalog.set_manifests([loaded(manifest(handler_tool("browser.navigate")))])
    assert catalog.tools["browser_navigate"].kind == "builtin"
    assert catalog.tools[disambiguated_name("browser.navigate")].origin.source == "test.actions.json"  # the map's tool, renamed


@pytest.mark.parametrize(
    "runtimes",
    [
        ("tab-1", "tab-2"),  # tab-1's map arrives first
        ("tab-2", "tab-1"),  # ... or second: the same names
    ],
)
def test_two_runtimes_inline_maps_with_one_tool_name_each_get_a_name_by_runtime(runtimes):
    catalog = Catalog()
    for runtime_id in runtimes:
        catalog.set_inline(runtime_id, loaded(manifest(handler_tool("inline.ping")), namespace=f"runtime-{runtime_id}"))
    named = {mcp: b.runtime_id for mcp, b in catalog.tools.items()}
    assert named == {"inline_ping": "tab-1", disambiguated_name("inline.ping@tab-2"): "tab-2"}


def test_three_maps_of_one_namespace_with_one_tool_name_expose_three_tools():
    # The second name was given without checking that it was free: the third replaced the second.
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("shop.add"), surface={"surface_id": "shop"}), source=f"copy{i}.actions.json") for i in range(3)])
    assert sorted(b.namespace for b in catalog.tools.values()) == ["shop", "shop-2", "shop-3"]
    assert all(MCP_NAME_PATTERN.match(name) for name in catalog.tools)
