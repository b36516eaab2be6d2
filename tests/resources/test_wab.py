"""A runtime's WAB discovery document as a resource: listed only where one was found, read as the site's own (untrusted) text, live."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.errors import ActionError
from mcp_actions.resources.registry import ResourceRegistry
from mcp_actions.resources.wab import WAB, register_wab_resource

DOCUMENT = {"wab_version": "1.2.0", "site": {"name": "TechStore"}, "commands": [{"name": "add_to_cart", "permission": "cart.write"}]}


def _registry(documents: dict[str, dict[str, Any]]) -> ResourceRegistry:
    registry = ResourceRegistry()
    register_wab_resource(registry, documents)
    return registry


def test_it_is_a_template_listed_only_for_runtimes_with_a_document():
    registry = _registry({"tab-1": {"url": "https://store.test/.well-known/wab.json", "document": DOCUMENT}})
    assert [(p.template, p.is_template) for p in registry.providers()] == [(WAB, True)]
    assert [(e.uri, e.name) for e in registry.entries()] == [("actions://runtimes/tab-1/wab", "wab-tab-1")]
    assert "untrusted page data" in registry.entries()[0].description


async def test_reading_it_gives_the_document_as_the_sites_own_text():
    registry = _registry({"tab-1": {"url": "https://store.test/.well-known/wab.json", "document": DOCUMENT}})
    assert await registry.read("actions://runtimes/tab-1/wab") == {
        "runtime_id": "tab-1",
        "url": "https://store.test/.well-known/wab.json",
        "trust": "untrusted_page_data",
        "document": DOCUMENT,
    }


async def test_it_follows_the_live_mapping_it_was_given():
    documents: dict[str, dict[str, Any]] = {}
    registry = _registry(documents)
    assert registry.entries() == []
    with pytest.raises(ActionError) as caught:
        await registry.read("actions://runtimes/tab-1/wab")
    assert (caught.value.code, caught.value.evidence) == ("resource_not_found", {"uri": "actions://runtimes/tab-1/wab"})
    # The composition root finds a document: the resource exists from then on ...
    documents["tab-1"] = {"url": "https://store.test/wab.json", "document": DOCUMENT}
    assert [e.uri for e in registry.entries()] == ["actions://runtimes/tab-1/wab"]
    assert (await registry.read("actions://runtimes/tab-1/wab"))["url"] == "https://store.test/wab.json"
    # ... until the runtime leaves.
    del documents["tab-1"]
    assert registry.entries() == []
    with pytest.raises(ActionError):
        await registry.read("actions://runtimes/tab-1/wab")
