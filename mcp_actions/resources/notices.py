"""Which resources change when runtimes or maps change: the registry's ``updated`` and ``list_changed`` notices.

A resource's content is read when it is read; what the registry must be
told is *when* it changed, so that subscribed hosts are notified
(``ResourceUpdated``, ``ResourcesListChanged``). Two kinds of change reach
the resources from outside them:

- a runtime's (``follow_runtimes``): a page event updates that runtime's
  ``events``; a runtime that comes, changes, goes or otherwise moves changes
  the runtime list, the launch report and its states, and which context
  blocks and projections apply, so the set of resources changes with it. A
  change of only the active runtime changes none of them;
- a load of maps (``maps_changed``): the launch report always (what loaded,
  what failed), each manifest whose document changed, and the set of
  resources when maps came or went.
"""

from __future__ import annotations

from ..bridge.events import PageEvent, RuntimeActive, RuntimeEvent
from ..catalog.maps import MapsChange
from ..events import EventHub
from .builtin import EVENTS, LAUNCH_URI, MANIFEST, RUNTIMES_URI, runtime_resource_uris
from .registry import ResourceRegistry, expand

__all__ = ["follow_runtimes", "maps_changed"]


def follow_runtimes(resources: ResourceRegistry, events: EventHub) -> None:
    """Tell ``resources`` what each runtime event changed, from now on (subscribed on ``events``)."""

    def on_runtime_event(event: RuntimeEvent) -> None:
        runtime_id = event.runtime.runtime_id
        if isinstance(event, PageEvent):
            resources.updated(expand(EVENTS, runtime_id=runtime_id))
            return
        if isinstance(event, RuntimeActive):
            return
        for uri in (RUNTIMES_URI, LAUNCH_URI, *runtime_resource_uris(runtime_id)):
            resources.updated(uri)
        resources.list_changed()

    events.subscribe(RuntimeEvent, on_runtime_event)


def maps_changed(resources: ResourceRegistry, change: MapsChange) -> None:
    """Tell ``resources`` what a load of maps changed."""
    resources.updated(LAUNCH_URI)
    for namespace in change.documents:
        resources.updated(expand(MANIFEST, namespace=namespace))
    if change.maps_came_or_went:
        resources.list_changed()
