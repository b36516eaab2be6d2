"""Change, told to the MCP peers that may hear of it: tools, maps that failed, resources (docs/sessions.md).

Tools changed: ``tools/list_changed`` to the sessions whose tools changed. A map failed: one
``error`` log message per map to each peer that may see it (a runtime's own map is its agent
session's business alone). A resource changed: ``resources/updated`` to its subscribers that may
see its runtime. The list of resources changed: ``resources/list_changed`` to everyone. Both
protocol generations hear it (``peers.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from ..bridge.scope import visible_to
from ..errors import ActionError
from ..events import MapsFailed, ResourcesListChanged, ResourceUpdated, ToolsChanged
from .logs import failed_map_message, tell_peer
from .peers import Hears, Peer, Peers, sessions_hear

if TYPE_CHECKING:
    from ..actions_app import ActionsApp

__all__ = ["follow_changes", "tell_failed_maps"]


async def tell_failed_maps(peer: Peer, failed: Sequence[dict[str, Any]]) -> None:
    """One ``error`` log message per map that failed to load, naming its file, pointer and problem."""
    for entry in failed:
        await tell_peer(peer, "error", failed_map_message(entry))


def follow_changes(app: ActionsApp, peers: Peers, spawn: Callable[[Coroutine[Any, Any, None]], None]) -> None:
    """Subscribe to the app's change events; each notification is sent from a task of its own (``spawn``)."""

    def on_maps_failed(event: MapsFailed) -> None:
        for peer in peers.peers():
            # A runtime's own map is its agent session's business alone (docs/sessions.md).
            told = [entry for entry in event.maps if peer.sees(app.maps.owner_of_map(entry["file"]))]
            if told:
                spawn(tell_failed_maps(peer, told))

    def resource_audience(event: ResourceUpdated) -> Hears:
        # A runtime's resource is news to the sessions that may see the runtime (docs/sessions.md): a
        # subscription made before the runtime existed, or to another session's, hears nothing of it.
        told = sessions_hear(event.sessions)
        try:
            _, found = app.resources.resolve(event.uri)
        except ActionError:
            return told
        runtime_id = found.get("runtime_id")
        if not runtime_id:
            return told
        runtime = app.bridge.registry.get(runtime_id)
        return lambda key: told(key) and (key is None or (runtime is not None and visible_to(runtime.session, key)))

    app.events.subscribe(ToolsChanged, lambda event: spawn(peers.publish_tools_changed(sessions_hear(event.sessions))))
    app.events.subscribe(MapsFailed, on_maps_failed)
    app.events.subscribe(ResourceUpdated, lambda event: spawn(peers.publish_resource_updated(event.uri, resource_audience(event))))
    app.events.subscribe(ResourcesListChanged, lambda _: spawn(peers.publish_resources_changed()))
