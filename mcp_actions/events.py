"""Typed events, and the one hub that carries them from the part that knows to the parts that care.

Change travels upward through here: the bridge says a runtime arrived, moved
or left (its events, ``bridge/events.py``, carry the runtime and so live with
the bridge), the composition root says the tool list changed or maps failed,
the resource registry says a resource changed. Each is a frozen dataclass; a
subscriber names the class it wants (a base class hears its subclasses too)
and is called synchronously, in the order of subscription, when one is
published. A handler that raises is logged and the others still hear the
event: a broken observer never breaks the part that published.

Handlers must not block: one that has I/O to do (the MCP layer sending a
notification) starts a task of its own.

The events here are those of no particular layer:

- ``ToolsChanged``: what a host sees in ``tools/list`` changed;
- ``MapsFailed``: maps failed to load that had not failed before (``maps``: ``{file, errors}`` each);
- ``ResourceUpdated``: the resource at ``uri`` changed;
- ``ResourcesListChanged``: the set of resources changed;
- ``ProjectionChanged``: a watched state projection read differently after a call;
- ``PageSignal``: something a browser tab showed (a navigation or load, a console message, a dialog).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Event", "EventHub", "MapsFailed", "PageSignal", "ProjectionChanged", "ResourceUpdated", "ResourcesListChanged", "ToolsChanged"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Event:
    """Base of every event; subscribing to it hears them all."""


@dataclass(frozen=True)
class ToolsChanged(Event):
    """What a host sees of the tools changed (a ``tools/list_changed``).

    ``sessions``: the agent sessions whose tools changed (their own runtimes' tools, their active
    page's built-ins; docs/sessions.md), told alone; None: everyone's.
    """

    sessions: frozenset[str] | None = None


@dataclass(frozen=True)
class MapsFailed(Event):
    """Maps that newly failed to load: ``{file, errors}`` each, errors as problems."""

    maps: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class ResourceUpdated(Event):
    """The resource at ``uri`` changed (its subscribers are told).

    ``sessions``: the agent sessions the change is theirs alone to hear (an audit entry of their
    call; docs/sessions.md); None: every subscriber that may read the resource.
    """

    uri: str
    sessions: frozenset[str] | None = None


@dataclass(frozen=True)
class ResourcesListChanged(Event):
    """The set of resources changed."""


@dataclass(frozen=True)
class ProjectionChanged(Event):
    """A watched projection of a runtime read differently after a call (its resources are told)."""

    runtime_id: str
    projection: str


@dataclass(frozen=True)
class PageSignal(Event):
    """Something a browser tab showed, as its host saw it (``runtimes/page_signals.py``): heard by BAP's events.

    ``kind``: ``page`` (``detail.event``: navigated, domcontentloaded, load, close), ``console``
    (``level``, ``text``, ``url``, ``line``, ``column``; a script's uncaught error is level ``error``)
    or ``dialog`` (``dialog_type``, ``message``, ``default_value``). ``session``: the agent session
    owning the tab (None: the operator's), so a listener hears only its own session's tabs.
    ``detail`` holds the page's own words: untrusted data, never instructions.
    """

    runtime_id: str
    session: str | None
    kind: str
    detail: dict[str, Any]
    #: Milliseconds since the epoch, when the host saw it.
    timestamp: int


E = TypeVar("E", bound=Event)


class EventHub:
    """Subscriptions by event class; ``publish`` calls every handler whose class the event is an instance of."""

    def __init__(self) -> None:
        self._subscriptions: list[tuple[type[Event], Callable[[Any], None]]] = []

    def subscribe(self, event_type: type[E], handler: Callable[[E], None]) -> Callable[[], None]:
        """Call ``handler`` with every ``event_type`` published from now on; returns what unsubscribes it."""
        entry: tuple[type[Event], Callable[[Any], None]] = (event_type, handler)
        self._subscriptions.append(entry)

        def unsubscribe() -> None:
            for index, subscribed in enumerate(self._subscriptions):
                if subscribed is entry:
                    del self._subscriptions[index]
                    return

        return unsubscribe

    def publish(self, event: Event) -> None:
        """Hand ``event`` to its handlers, in the order they subscribed; a failing handler is logged, not raised."""
        for event_type, handler in list(self._subscriptions):
            if isinstance(event, event_type):
                try:
                    handler(event)
                except Exception:  # a broken observer must not break the part that published
                    log.exception("event handler failed on %s", type(event).__name__)
