"""State projections as ``actions://`` resources: the state, its declared summaries, and its diff.

Registered over the placeholders of ``builtin.py`` (same templates), backed by
the ``ProjectionService``. Subscribing to any of a projection's resources
watches the projection: it is re-read after each call on its runtime and an
``updated`` goes out when its value changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..bridge.registry import RuntimeRegistry
from ..events import ProjectionChanged
from ..projection.service import ProjectionService
from .builtin import DIFF, PROJECTION, SUMMARY
from .registry import ResourceEntry, ResourceProvider, ResourceRegistry, expand, not_found

__all__ = ["projection_resource_uris", "register_projection_resources"]


def projection_resource_uris(runtime_id: str, projection: str, summaries: Any = ()) -> list[str]:
    """The state, diff and summary URIs of one projection on one runtime."""
    return [
        expand(PROJECTION, runtime_id=runtime_id, projection=projection),
        expand(DIFF, runtime_id=runtime_id, projection=projection),
        *(expand(SUMMARY, runtime_id=runtime_id, projection=projection, summary=name) for name in summaries),
    ]


def register_projection_resources(registry: ResourceRegistry, *, projections: ProjectionService, runtimes: RuntimeRegistry) -> None:
    """Put the projection, summary and diff providers on ``registry`` and route projection changes to it."""

    def known(params: Mapping[str, str], template: str) -> str:
        """The runtime id, when the runtime exists and has this projection; else ``resource_not_found``."""
        runtime_id = params["runtime_id"]
        if runtimes.get_visible(runtime_id) is None or params["projection"] not in projections.projections(runtime_id):
            raise not_found(expand(template, **params))
        return runtime_id

    async def read_state(params: Mapping[str, str]) -> Any:
        return await projections.read(known(params, PROJECTION), params["projection"])

    async def read_summary(params: Mapping[str, str]) -> Any:
        runtime_id = known(params, SUMMARY)
        if params["summary"] not in projections.projections(runtime_id)[params["projection"]].summaries:
            raise not_found(expand(SUMMARY, **params))  # a URI that names nothing, not a bad argument
        return await projections.summary(runtime_id, params["projection"], params["summary"])

    async def read_diff(params: Mapping[str, str]) -> Any:
        return await projections.diff(known(params, DIFF), params["projection"])

    def entries(kind: str) -> list[ResourceEntry]:
        found: list[ResourceEntry] = []
        for runtime in runtimes.visible():
            for name, compiled in projections.projections(runtime.runtime_id).items():
                ids = {"runtime_id": runtime.runtime_id, "projection": name}
                if kind == "state":
                    found.append(ResourceEntry(expand(PROJECTION, **ids), f"projection-{runtime.runtime_id}-{name}", f"State projection {name} of {runtime.url}."))
                elif kind == "diff":
                    found.append(ResourceEntry(expand(DIFF, **ids), f"projection-diff-{runtime.runtime_id}-{name}", f"Changes of {name} since it was last read."))
                else:
                    for summary in compiled.summaries:
                        found.append(ResourceEntry(expand(SUMMARY, **ids, summary=summary), f"projection-summary-{runtime.runtime_id}-{name}-{summary}", f"Summary {summary} of {name}."))
        return found

    def watch(params: Mapping[str, str]) -> None:
        projections.watch(params["runtime_id"], params["projection"])

    def unwatch(params: Mapping[str, str]) -> None:
        projections.unwatch(params["runtime_id"], params["projection"])

    for provider in (
        ResourceProvider(PROJECTION, "projection", "A state projection of a runtime's page: state, diagnostics.selector_counts, observed_at.", read_state, lambda: entries("state"), watch=watch, unwatch=unwatch),
        ResourceProvider(SUMMARY, "projection-summary", "A declared summary of a state projection, within its max_bytes.", read_summary, lambda: entries("summary"), watch=watch, unwatch=unwatch),
        ResourceProvider(DIFF, "projection-diff", "JSON Patch and record deltas of a state projection since it was last read.", read_diff, lambda: entries("diff"), watch=watch, unwatch=unwatch),
    ):
        registry.register(provider)

    def changed(event: ProjectionChanged) -> None:
        compiled = projections.projections(event.runtime_id).get(event.projection)
        for uri in projection_resource_uris(event.runtime_id, event.projection, compiled.summaries if compiled else ()):
            registry.updated(uri)

    projections.events.subscribe(ProjectionChanged, changed)
