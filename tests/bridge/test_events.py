"""The event hub, and the runtime events the bridge publishes on it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.events import PageEvent, RuntimeActive, RuntimeArrived, RuntimeEvent, RuntimeGone, RuntimeUpdated
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.events import Event, EventHub, ResourceUpdated, ToolsChanged
from mcp_actions.runtimes.memory import MemoryRuntime


@dataclass(frozen=True)
class _Base(Event):
    n: int


@dataclass(frozen=True)
class _Child(_Base):
    pass


def test_handlers_hear_their_class_and_its_subclasses_in_subscription_order() -> None:
    hub = EventHub()
    heard: list[tuple[str, Event]] = []
    hub.subscribe(_Child, lambda event: heard.append(("child", event)))
    hub.subscribe(_Base, lambda event: heard.append(("base", event)))
    hub.subscribe(Event, lambda event: heard.append(("any", event)))
    hub.subscribe(ToolsChanged, lambda event: heard.append(("tools", event)))
    hub.publish(_Child(1))
    hub.publish(_Base(2))
    assert heard == [("child", _Child(1)), ("base", _Child(1)), ("any", _Child(1)), ("base", _Base(2)), ("any", _Base(2))]


def test_a_failing_handler_is_logged_and_the_others_still_hear(caplog: pytest.LogCaptureFixture) -> None:
    hub = EventHub()
    heard: list[str] = []

    def broken(event: ResourceUpdated) -> None:
        raise RuntimeError("observer bug")

    hub.subscribe(ResourceUpdated, broken)
    hub.subscribe(ResourceUpdated, lambda event: heard.append(event.uri))
    with caplog.at_level(logging.ERROR, logger="mcp_actions.events"):
        hub.publish(ResourceUpdated("actions://runtimes"))  # does not raise
    assert heard == ["actions://runtimes"]
    assert "event handler failed on ResourceUpdated" in caplog.text


def test_unsubscribing_stops_one_subscription_only() -> None:
    hub = EventHub()
    heard: list[str] = []

    def handler(event: ToolsChanged) -> None:
        heard.append("x")

    stop_first = hub.subscribe(ToolsChanged, handler)
    hub.subscribe(ToolsChanged, handler)
    stop_first()
    stop_first()  # a second call is harmless
    hub.publish(ToolsChanged())
    assert heard == ["x"]


def _signals(info: Any) -> dict[str, SignalSpec]:
    return {"cart.item_added": SignalSpec(name="cart.item_added", event="shop:item-added", enabled=True)}


async def test_the_bridge_publishes_each_runtime_change_on_its_hub() -> None:
    hub = EventHub()
    bridge = Bridge(events=hub, signal_source=_signals)
    assert bridge.events is hub
    heard: list[RuntimeEvent] = []
    hub.subscribe(RuntimeEvent, heard.append)
    first = MemoryRuntime(bridge, runtime_id="r1", url="https://shop.test/")
    second = MemoryRuntime(bridge, runtime_id="r2", url="https://docs.test/")
    await first.start()
    await second.start()
    await first.report(url="https://shop.test/cart")
    bridge.registry.set_active("r2")
    await first.emit({"type": "dom_event", "event_id": "e-1", "runtime_id": "r1", "name": "cart.item_added", "event": "shop:item-added", "payload": {}})
    await first.stop("closed by the test")
    kinds = [(type(event), event.runtime.runtime_id) for event in heard]
    assert kinds == [
        (RuntimeArrived, "r1"),  # the first runtime also becomes the active one, without an event of its own
        (RuntimeArrived, "r2"),
        (RuntimeUpdated, "r1"),
        (RuntimeActive, "r2"),
        (PageEvent, "r1"),
        (RuntimeGone, "r1"),
    ]
    page_event = heard[4]
    assert isinstance(page_event, PageEvent) and page_event.record["name"] == "cart.item_added"
    gone = heard[5]
    assert isinstance(gone, RuntimeGone) and gone.reason == "closed by the test"
    await second.stop()
    await bridge.stop()
