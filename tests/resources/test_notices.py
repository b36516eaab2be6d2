"""Which resources a runtime's change or a load of maps says changed (resources/notices.py), on a real hub and registry."""

from __future__ import annotations

from mcp_actions.bridge.events import PageEvent, RuntimeActive, RuntimeArrived, RuntimeGone, RuntimeUpdated
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.catalog.maps import MapsChange
from mcp_actions.events import Event, EventHub, ResourcesListChanged, ResourceUpdated
from mcp_actions.resources import ResourceRegistry
from mcp_actions.resources.notices import follow_runtimes, maps_changed

RUNTIME = RuntimeInfo(runtime_id="rt-1", url="https://shop.example/cart", transport="memory")
CHANGED = ["actions://runtimes", "actions://bridge/launch", "actions://runtimes/rt-1/states", "list"]


def _heard(hub: EventHub) -> list[str]:
    heard: list[str] = []

    def note(event: Event) -> None:
        heard.append(event.uri if isinstance(event, ResourceUpdated) else "list")

    hub.subscribe(ResourceUpdated, note)
    hub.subscribe(ResourcesListChanged, note)
    return heard


def test_a_runtime_that_comes_changes_or_goes_changes_its_resources_and_their_list() -> None:
    hub = EventHub()
    follow_runtimes(ResourceRegistry(hub), hub)
    heard = _heard(hub)
    for event in (RuntimeArrived(RUNTIME), RuntimeUpdated(RUNTIME), RuntimeGone(RUNTIME, reason="closed")):
        heard.clear()
        hub.publish(event)
        assert heard == CHANGED, type(event).__name__


def test_a_page_event_changes_only_that_runtimes_events_and_a_move_of_the_active_runtime_nothing() -> None:
    hub = EventHub()
    follow_runtimes(ResourceRegistry(hub), hub)
    heard = _heard(hub)
    hub.publish(PageEvent(RUNTIME, record={"name": "cart_changed"}))
    assert heard == ["actions://runtimes/rt-1/events"]
    heard.clear()
    hub.publish(RuntimeActive(RUNTIME))
    assert heard == []


def test_a_load_of_maps_changes_the_launch_report_the_changed_documents_and_the_list_when_maps_came_or_went() -> None:
    hub = EventHub()
    resources = ResourceRegistry(hub)
    heard = _heard(hub)
    maps_changed(resources, MapsChange(tools=True, documents=frozenset({"shop"})))
    assert heard == ["actions://bridge/launch", "actions://manifests/shop"]
    heard.clear()
    maps_changed(resources, MapsChange(tools=False, maps_came_or_went=True))
    assert heard == ["actions://bridge/launch", "list"]
