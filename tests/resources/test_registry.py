"""The resource registry: URI templates, which provider a URI reaches, unknown URIs, listing, subscriptions."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest

from mcp_actions.errors import ActionError
from mcp_actions.events import Event, EventHub, ResourcesListChanged, ResourceUpdated
from mcp_actions.resources.registry import ResourceEntry, ResourceProvider, ResourceRegistry, expand


def provider(template: str, *, listed: tuple[str, ...] = (), **options: Any) -> ResourceProvider:
    """A provider whose read answers which template served it, with the parameters it got."""

    async def read(params: Mapping[str, str]) -> Any:
        return {"template": template, "params": dict(params)}

    return ResourceProvider(template, template, f"Resources of {template}.", read, lambda: [ResourceEntry(uri, uri, "listed") for uri in listed], **options)


@pytest.mark.parametrize(
    ("template", "is_template"),
    [
        ("actions://bridge/launch", False),  # a fixed URI: listed, not offered as a template
        ("actions://manifests/{namespace}", True),
        ("actions://runtimes/{runtime_id}/projections/{projection}/diff", True),
    ],
)
def test_a_uri_with_parameters_is_a_template(template, is_template):
    assert provider(template).is_template is is_template


@pytest.mark.parametrize(
    ("template", "uri", "params"),
    [
        ("actions://manifests/{namespace}", "actions://manifests/shop", {"namespace": "shop"}),
        ("actions://runtimes/{runtime_id}/context/{block}", "actions://runtimes/tab-1/context/shop.help", {"runtime_id": "tab-1", "block": "shop.help"}),
        ("actions://manifests/{namespace}", "actions://manifests/a%2Fb", {"namespace": "a/b"}),  # percent-encoding is undone
        ("actions://manifests/{namespace}", "actions://manifests/a/b", None),  # a parameter is one path segment
        ("actions://manifests/{namespace}", "actions://manifests/", None),  # ... and never empty
        ("actions://manifests/{namespace}", "actions://manifests/shop/extra", None),  # the whole URI must match
        ("actions://bridge/launch", "actions://bridge/launch", {}),  # a fixed URI matches itself, without parameters
        ("actions://bridge/launch", "actions://bridge/launchpad", None),
        ("actions://a.b/{x}", "actions://aXb/1", None),  # the template's own text is literal, not a pattern
    ],
)
def test_a_template_matches_its_uris_and_gives_their_parameters(template, uri, params):
    assert provider(template).match(uri) == params


@pytest.mark.parametrize(
    ("template", "values", "uri"),
    [
        ("actions://runtimes/{runtime_id}/states", {"runtime_id": "tab-1"}, "actions://runtimes/tab-1/states"),
        ("actions://runtimes/{runtime_id}/context/{block}", {"runtime_id": "tab-1", "block": "shop.help"}, "actions://runtimes/tab-1/context/shop.help"),
        ("actions://manifests/{namespace}", {"namespace": "a/b"}, "actions://manifests/a%2Fb"),  # a slash cannot split the segment
        ("actions://bridge/launch", {}, "actions://bridge/launch"),
    ],
)
def test_expand_fills_a_template_and_its_uri_resolves_back(template, values, uri):
    assert expand(template, **values) == uri
    registry = ResourceRegistry()
    registry.register(provider(template))
    assert registry.resolve(uri)[1] == values


def test_an_unknown_uri_is_resource_not_found_naming_it():
    registry = ResourceRegistry()
    registry.register(provider("actions://manifests/{namespace}"))
    for uri in ("actions://nothing/here", "actions://manifests/a/b", "https://manifests/shop"):
        with pytest.raises(ActionError) as caught:
            registry.resolve(uri)
        assert (caught.value.code, caught.value.evidence) == ("resource_not_found", {"uri": uri})


@pytest.mark.parametrize(
    ("templates", "uri", "served_by"),
    [
        # A fixed URI wins over a template that also matches it, whichever was registered first.
        (("actions://bridge/{part}", "actions://bridge/launch"), "actions://bridge/launch", "actions://bridge/launch"),
        (("actions://bridge/launch", "actions://bridge/{part}"), "actions://bridge/launch", "actions://bridge/launch"),
        (("actions://bridge/launch", "actions://bridge/{part}"), "actions://bridge/status", "actions://bridge/{part}"),
        # Of two templates, the longer (the more specific) wins, whichever was registered first.
        (("actions://files/{name}", "actions://files/{name}.json"), "actions://files/shop.json", "actions://files/{name}.json"),
        (("actions://files/{name}.json", "actions://files/{name}"), "actions://files/shop.json", "actions://files/{name}.json"),
        (("actions://files/{name}.json", "actions://files/{name}"), "actions://files/shop.txt", "actions://files/{name}"),
    ],
)
async def test_the_most_specific_provider_serves_a_uri(templates, uri, served_by):
    registry = ResourceRegistry()
    for template in templates:
        registry.register(provider(template))
    assert (await registry.read(uri))["template"] == served_by


async def test_registering_a_template_again_replaces_its_provider_in_place():
    registry = ResourceRegistry()
    registry.register(provider("actions://manifests/{namespace}"))
    registry.register(provider("actions://runtimes"))

    async def real(params: Mapping[str, str]) -> Any:
        return {"real": params["namespace"]}

    registry.register(ResourceProvider("actions://manifests/{namespace}", "manifest", "The real thing.", real))
    assert [p.template for p in registry.providers()] == ["actions://manifests/{namespace}", "actions://runtimes"]
    assert await registry.read("actions://manifests/shop") == {"real": "shop"}


def test_entries_are_every_providers_listing_and_a_broken_one_hides_nothing_else(caplog):
    caplog.set_level(logging.ERROR, logger="mcp_actions")

    def broken() -> list[ResourceEntry]:
        raise RuntimeError("the runtime went away while listing")

    registry = ResourceRegistry()
    registry.register(provider("actions://bridge/launch", listed=("actions://bridge/launch",)))
    registry.register(ResourceProvider("actions://runtimes/{runtime_id}/states", "states", "States.", provider("x").read, broken))
    registry.register(provider("actions://manifests/{namespace}", listed=("actions://manifests/shop", "actions://manifests/blog")))
    assert [e.uri for e in registry.entries()] == ["actions://bridge/launch", "actions://manifests/shop", "actions://manifests/blog"]
    assert any("actions://runtimes/{runtime_id}/states" in r.getMessage() for r in caplog.records)


def test_subscribable_follows_the_provider_and_an_unknown_uri_is_not():
    registry = ResourceRegistry()
    registry.register(provider("actions://runtimes/{runtime_id}/states"))
    registry.register(provider("actions://bridge/help", subscribable=False))
    assert registry.subscribable("actions://runtimes/tab-1/states") is True
    assert registry.subscribable("actions://bridge/help") is False
    assert registry.subscribable("actions://nothing/here") is False


def test_watch_and_unwatch_reach_the_provider_with_the_uris_parameters():
    heard: list[tuple[str, dict[str, str]]] = []
    registry = ResourceRegistry()
    registry.register(
        provider(
            "actions://runtimes/{runtime_id}/projections/{projection}",
            watch=lambda params: heard.append(("watch", dict(params))),
            unwatch=lambda params: heard.append(("unwatch", dict(params))),
        )
    )
    registry.register(provider("actions://runtimes"))  # no watch of its own: subscribing is still fine
    registry.watch("actions://runtimes/tab-1/projections/board.state")
    registry.watch("actions://runtimes")
    registry.unwatch("actions://runtimes/tab-1/projections/board.state")
    assert heard == [("watch", {"runtime_id": "tab-1", "projection": "board.state"}), ("unwatch", {"runtime_id": "tab-1", "projection": "board.state"})]
    # Watching what does not exist is refused; unwatching it is a no-op (it may be gone already).
    with pytest.raises(ActionError) as caught:
        registry.watch("actions://nothing/here")
    assert caught.value.code == "resource_not_found"
    registry.unwatch("actions://nothing/here")
    assert len(heard) == 2


def test_change_is_published_on_the_registrys_hub_in_the_order_it_is_said():
    heard: list[tuple[str, str | None]] = []
    registry = ResourceRegistry()
    registry.events.subscribe(ResourceUpdated, lambda event: heard.append(("updated", event.uri)))
    registry.events.subscribe(ResourcesListChanged, lambda event: heard.append(("list_changed", None)))
    registry.updated("actions://runtimes/tab-1/states")
    registry.list_changed()
    registry.updated("actions://runtimes")
    assert heard == [("updated", "actions://runtimes/tab-1/states"), ("list_changed", None), ("updated", "actions://runtimes")]


def test_a_registry_publishes_on_the_hub_it_is_given_and_a_failing_subscriber_breaks_no_one(caplog):
    caplog.set_level(logging.ERROR, logger="mcp_actions")
    hub = EventHub()
    heard: list[Event] = []

    def broken(event: Event) -> None:
        raise RuntimeError("the client went away")

    hub.subscribe(Event, broken)
    hub.subscribe(Event, heard.append)
    registry = ResourceRegistry(hub)
    assert registry.events is hub
    registry.updated("actions://bridge/launch")  # does not raise into the part that said it
    registry.list_changed()
    assert heard == [ResourceUpdated("actions://bridge/launch"), ResourcesListChanged()]
    assert len([r for r in caplog.records if "event handler failed" in r.getMessage()]) == 2
