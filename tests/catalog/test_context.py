"""Context blocks: which of a map's blocks apply to a runtime now (``load_when``), and what is shown of them."""

from __future__ import annotations

import logging

import pytest

from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.catalog.context import DOCUMENTATION_NOTE, applies, context_for
from mcp_actions.manifest.model import ContextBlock

from .maps import handler_tool, loaded, manifest

CART = "https://shop.test/cart?step=2"


@pytest.mark.parametrize(
    ("load_when", "states", "applied"),
    [
        (None, (), True),  # no load_when: always
        ({}, (), True),  # an empty one: always
        ({"url_contains": "/cart"}, (), True),  # a substring of the URL
        ({"url_contains": "/checkout"}, (), False),  # ... that is not there
        ({"url_contains": "/CART"}, (), False),  # ... case-sensitive
        ({"url_matches": r"/cart\?step=\d"}, (), True),  # a regular expression searched in the URL
        ({"url_matches": r"^/cart"}, (), False),  # ... searched in the whole URL, not the path
        ({"url_matches": "(unclosed"}, (), False),  # a pattern that does not compile never applies
        ({"states": ["editing", "viewing"]}, ("viewing",), True),  # one of the states is current
        ({"states": ["editing"]}, ("viewing",), False),  # none is
        ({"states": ["editing"]}, (), False),  # ... no state is current at all
        ({"states": []}, (), True),  # an empty list asks nothing
        ({"url_contains": "/cart", "states": ["editing"]}, ("editing",), True),  # every predicate holds
        ({"url_contains": "/cart", "states": ["editing"]}, ("viewing",), False),  # one fails: the block does not apply
        ({"url_contains": "/cart", "url_matches": "checkout"}, (), False),  # ... whichever it is
        ({"targets": ["#nowhere"]}, (), True),  # targets need the live page and are not evaluated here
    ],
)
def test_a_block_applies_when_every_predicate_it_states_holds(load_when, states, applied):
    block = ContextBlock.model_validate({"id": "help", "load_when": load_when})
    assert applies(block, CART, states) is applied


def test_a_pattern_that_does_not_compile_is_logged(caplog):
    caplog.set_level(logging.WARNING, logger="mcp_actions")
    applies(ContextBlock.model_validate({"id": "broken", "load_when": {"url_matches": "(unclosed"}}), CART, ())
    assert any("broken" in r.getMessage() and "(unclosed" in r.getMessage() for r in caplog.records)


def _catalog() -> Catalog:
    shop = manifest(
        handler_tool("shop.pay"),
        states=[{"name": "paying"}],
        context=[
            {"id": "shop.everywhere", "title": "The shop", "body": "All prices include tax."},
            {"id": "shop.cart_help", "title": "The cart", "body": "Remove items before paying.", "load_when": {"url_contains": "/cart"}, "available_tools": ["shop.pay"]},
            {"id": "shop.paying", "body": "Do not reload.", "load_when": {"states": ["paying"]}, "next_states": ["paying"]},
        ],
    )
    blog = manifest(handler_tool("blog.post"), origin="https://blog.test", context=[{"id": "blog.everywhere", "body": "Posts are public."}])
    catalog = Catalog()
    catalog.set_manifests([loaded(shop, namespace="shop"), loaded(blog, namespace="blog")])
    catalog.set_inline("tab-1", loaded(manifest(handler_tool("inline.ping"), origin=None, context=[{"id": "inline.note", "body": "From the page."}]), namespace="runtime-tab-1"))
    return catalog


@pytest.mark.parametrize(
    ("runtime", "ids"),
    [
        # The shop's front page: only the block without load_when.
        (RuntimeInfo("tab-2", "https://shop.test/", "memory"), ["shop.everywhere"]),
        # Its cart: the URL predicate holds too.
        (RuntimeInfo("tab-2", CART, "memory"), ["shop.everywhere", "shop.cart_help"]),
        # A current state brings its block.
        (RuntimeInfo("tab-2", "https://shop.test/", "memory", states=("paying",)), ["shop.everywhere", "shop.paying"]),
        # Another site's page: that site's blocks only.
        (RuntimeInfo("tab-2", "https://blog.test/cart", "memory"), ["blog.everywhere"]),
        # A runtime with an inline map: its blocks come after those of the site it is on.
        (RuntimeInfo("tab-1", "https://shop.test/", "memory"), ["shop.everywhere", "inline.note"]),
        # A page no map covers: nothing.
        (RuntimeInfo("tab-2", "https://elsewhere.test/cart", "memory", states=("paying",)), []),
    ],
)
def test_context_for_a_runtime_is_its_maps_blocks_that_apply(runtime, ids):
    assert [applied.block.id for applied in context_for(_catalog(), runtime)] == ids


def test_an_applied_block_is_documentation_in_short_and_in_full():
    (applied,) = [a for a in context_for(_catalog(), RuntimeInfo("tab-2", CART, "memory")) if a.block.id == "shop.cart_help"]
    summary = {"id": "shop.cart_help", "title": "The cart", "manifest": "shop", "kind": "documentation", "note": DOCUMENTATION_NOTE}
    assert applied.summary() == summary
    assert applied.full() == {
        **summary,
        "body": "Remove items before paying.",
        "load_when": {"url_contains": "/cart"},
        "available_tools": ["shop.pay"],
        "next_states": [],
    }
    assert "grants no permission" in DOCUMENTATION_NOTE
