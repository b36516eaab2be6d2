"""Routing arguments: which of a call's arguments choose its runtime and which belong to the tool, and what every schema advertises of them."""

from __future__ import annotations

import pytest

from mcp_actions.catalog.routing_fields import ADVERTISED_ROUTING, is_routing_object, split_routing, with_routing_fields
from mcp_actions.errors import ActionError

LOCATOR = {"selector": "#first_name"}


@pytest.mark.parametrize(
    ("arguments", "own_properties", "admits_other", "own", "routing"),
    [
        # A closed schema: target can only be routing, and is unfolded into the flat fields.
        ({"x": 1, "target": {"url_contains": "shop"}}, {"x"}, False, {"x": 1}, {"target_url_contains": "shop"}),
        # An open schema, a locator under target: the tool's own argument (its workflow reads input.target).
        ({"target": LOCATOR}, set(), True, {"target": LOCATOR}, {}),
        # ... with routing beside it through the flat fields.
        ({"target": LOCATOR, "target_runtime_id": "tab-2"}, set(), True, {"target": LOCATOR}, {"target_runtime_id": "tab-2"}),
        # An open schema, a routing object (only routing keys): routing.
        ({"target": {"title_contains": "Cart"}}, set(), True, {}, {"target_title_contains": "Cart"}),
        # A locator with a routing-looking key among others is not a routing object.
        ({"target": {"selector": "a", "url_contains": "b"}}, set(), True, {"target": {"selector": "a", "url_contains": "b"}}, {}),
        # A schema that declares target: always the tool's, whatever its value.
        ({"target": {"url_contains": "shop"}}, {"target"}, False, {"target": {"url_contains": "shop"}}, {}),
        # timeout_ms is routing unless declared.
        ({"timeout_ms": 5}, set(), True, {}, {"timeout_ms": 5}),
        ({"timeout_ms": 5}, {"timeout_ms"}, False, {"timeout_ms": 5}, {}),
    ],
)
def test_arguments_split_into_the_tools_own_and_routing(arguments, own_properties, admits_other, own, routing):
    assert split_routing(arguments, own_properties, admits_other=admits_other) == (own, routing)


@pytest.mark.parametrize(
    ("target", "path"),
    [
        (LOCATOR, "/target/selector"),  # a closed schema takes no locator: the error says to route with the flat fields
        ("tab-2", "/target"),
        ({"url_contains": 3}, "/target/url_contains"),
    ],
)
def test_a_target_that_is_neither_the_tools_nor_routing_is_refused_with_the_way_out(target, path):
    with pytest.raises(ActionError) as caught:
        split_routing({"target": target}, {"x"}, admits_other=False)
    assert caught.value.code == "invalid_input" and caught.value.evidence["path"] == path
    if path != "/target/url_contains":
        assert "target_url_contains" in caught.value.message  # the flat routing fields, named


@pytest.mark.parametrize(
    ("value", "routing"),
    [({"runtime_id": "a"}, True), ({"runtime_key": "k", "url_contains": "u"}, True), ({}, False), (LOCATOR, False), ("a", False)],
)
def test_a_routing_object_has_routing_keys_only(value, routing):
    assert is_routing_object(value) is routing


@pytest.mark.parametrize(
    "arguments",
    [
        {"target": {"url_contains": "shop"}, "target_url_contains": "shop"},  # the flat field first: they agree
        {"target_url_contains": "shop", "target": {"url_contains": "shop"}},  # ... or the nested one first
    ],
)
def test_a_flat_field_and_the_target_object_may_say_the_same(arguments):
    assert split_routing(arguments, {"x"}) == ({}, {"target_url_contains": "shop"})


@pytest.mark.parametrize(
    "arguments",
    [
        {"target": {"url_contains": "shop"}, "target_url_contains": "blog"},  # the flat field first
        {"target_url_contains": "blog", "target": {"url_contains": "shop"}},  # ... or the nested one first
    ],
)
def test_a_flat_field_and_the_target_object_that_disagree_are_refused(arguments):
    with pytest.raises(ActionError) as caught:
        split_routing(arguments, {"x"})
    assert caught.value.code == "invalid_input"
    assert caught.value.evidence == {"path": "/target/url_contains", "conflicts_with": "/target_url_contains"}


@pytest.mark.parametrize(
    ("schema", "properties"),
    [
        # Nothing declared: an object with the two advertised fields.
        ({}, dict(ADVERTISED_ROUTING)),
        # The tool's own properties are kept, the advertised ones added beside them.
        ({"type": "object", "properties": {"q": {"type": "string"}}}, {"q": {"type": "string"}, **ADVERTISED_ROUTING}),
        # A tool that declares target (a locator) keeps its own definition.
        ({"type": "object", "properties": {"target": {"type": "string"}}}, {"target": {"type": "string"}, "timeout_ms": ADVERTISED_ROUTING["timeout_ms"]}),
    ],
)
def test_every_input_schema_advertises_target_and_timeout_ms(schema, properties):
    merged = with_routing_fields(schema)
    assert merged["type"] == "object" and merged["properties"] == properties


def test_advertising_routing_copies_instead_of_sharing():
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    merged = with_routing_fields(schema)
    merged["properties"]["target"]["properties"] = {"x": {}}
    merged["required"].append("target")
    # Neither the map's schema nor the advertised fields (shared by every tool) changed.
    assert schema == {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    assert ADVERTISED_ROUTING["target"] == {"type": "object"}
