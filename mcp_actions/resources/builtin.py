"""The ``actions://`` resources of docs/mcp-surface.md (Resources), as providers of a ``ResourceRegistry``.

    actions://bridge/launch                                   how runtimes connect; what loaded, what failed
    actions://runtimes                                        connected runtimes
    actions://manifests/{namespace}                           a loaded (or inline) actions.json
    actions://runtimes/{runtime_id}/states                    declared states and the current ones
    actions://runtimes/{runtime_id}/projections/{projection}  a state projection
        .../summaries/{summary}, .../diff                      its declared summaries and its diff
    actions://runtimes/{runtime_id}/events                    recent declared page events (untrusted data)
    actions://runtimes/{runtime_id}/context/{block}           a context block that applies (documentation)
    actions://runtimes/{runtime_id}/wab                       a WAB discovery document (registered by wab.py)

The projection templates are defined here and served by
``projections.register_projection_resources`` (backed by the projection service).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..bridge.registry import RuntimeInfo, RuntimeRegistry
from ..catalog.catalog import Catalog
from ..catalog.context import DOCUMENTATION_NOTE, context_for
from ..manifest.execution import ToolKind
from .registry import ResourceEntry, ResourceProvider, ResourceRegistry, expand, not_found

__all__ = [
    "CONTEXT",
    "DIFF",
    "EVENTS",
    "LAUNCH_URI",
    "MANIFEST",
    "PROJECTION",
    "RUNTIMES_URI",
    "STATES",
    "SUMMARY",
    "register_builtin_resources",
    "runtime_resource_uris",
]

LAUNCH_URI = "actions://bridge/launch"
RUNTIMES_URI = "actions://runtimes"
MANIFEST = "actions://manifests/{namespace}"
STATES = "actions://runtimes/{runtime_id}/states"
PROJECTION = "actions://runtimes/{runtime_id}/projections/{projection}"
SUMMARY = "actions://runtimes/{runtime_id}/projections/{projection}/summaries/{summary}"
DIFF = "actions://runtimes/{runtime_id}/projections/{projection}/diff"
EVENTS = "actions://runtimes/{runtime_id}/events"
CONTEXT = "actions://runtimes/{runtime_id}/context/{block}"


def runtime_resource_uris(runtime_id: str) -> list[str]:
    """The per-runtime resources whose content follows the runtime's URL and states."""
    return [expand(STATES, runtime_id=runtime_id)]


LAUNCH_TEXT = "How runtimes connect, which manifests loaded, and every problem of those that did not."
RUNTIMES_TEXT = "Connected runtimes: id, key, url, title, capabilities, states."


def register_builtin_resources(
    registry: ResourceRegistry,
    *,
    catalog: Catalog,
    runtimes: RuntimeRegistry,
    launch_report: Callable[[], dict[str, Any]],
) -> None:
    """Register every resource docs/mcp-surface.md lists on ``registry``."""

    def runtime(params: Mapping[str, str], uri_template: str) -> RuntimeInfo:
        found = runtimes.get_visible(params["runtime_id"])  # another session's runtime is not found (bridge/scope.py)
        if found is None:
            raise not_found(expand(uri_template, **params))
        return found

    async def read_launch(_: Mapping[str, str]) -> Any:
        return launch_report()

    async def read_runtimes(_: Mapping[str, str]) -> Any:
        return {"active_runtime_id": runtimes.active_id, "runtimes": [r.snapshot() for r in runtimes.visible()]}

    async def read_manifest(params: Mapping[str, str]) -> Any:
        manifest = catalog.all_manifests().get(params["namespace"])
        if manifest is None:
            raise not_found(expand(MANIFEST, **params))
        # Tool provenance lives here rather than in every tool's _meta (which tools/list repeats).
        tools = [{"name": b.name, "mcp_name": b.mcp_name, **b.provenance()} for b in catalog.tools.values() if b.kind is not ToolKind.BUILTIN and b.namespace == manifest.namespace]
        return {"namespace": manifest.namespace, "source": manifest.source, "tools": tools, "manifest": manifest.document}

    def list_manifests() -> list[ResourceEntry]:
        return [
            ResourceEntry(expand(MANIFEST, namespace=ns), f"manifest-{ns}", f"The loaded actions.json of {ns} ({m.source}).")
            for ns, m in sorted(catalog.all_manifests().items())
        ]

    async def read_states(params: Mapping[str, str]) -> Any:
        info = runtime(params, STATES)
        declared = [
            {"name": state.name, "description": state.description, "manifest": manifest.namespace, "current": state.name in info.states}
            for manifest in catalog.manifests_for(info)
            for state in manifest.model.states
        ]
        return {"runtime_id": info.runtime_id, "url": info.url, "current": list(info.states), "declared": declared}

    async def read_events(params: Mapping[str, str]) -> Any:
        info = runtime(params, EVENTS)
        return {"runtime_id": info.runtime_id, "trust": "untrusted_page_data", "events": list(info.events)}

    async def read_context(params: Mapping[str, str]) -> Any:
        info = runtime(params, CONTEXT)
        for applied in context_for(catalog, info):
            if applied.block.id == params["block"]:
                return {"runtime_id": info.runtime_id, **applied.full()}
        raise not_found(expand(CONTEXT, **params))

    def per_runtime(template: str, name: str, describe: Callable[[RuntimeInfo], str]) -> Callable[[], list[ResourceEntry]]:
        def entries() -> list[ResourceEntry]:
            return [ResourceEntry(expand(template, runtime_id=r.runtime_id), f"{name}-{r.runtime_id}", describe(r)) for r in runtimes.visible()]

        return entries

    def list_context() -> list[ResourceEntry]:
        return [
            ResourceEntry(
                expand(CONTEXT, runtime_id=r.runtime_id, block=applied.block.id),
                f"context-{r.runtime_id}-{applied.block.id}",
                f"{applied.block.title or applied.block.id}: {DOCUMENTATION_NOTE}.",
                meta={"mcp-actions/kind": "documentation"},
            )
            for r in runtimes.visible()
            for applied in context_for(catalog, r)
        ]

    for provider in (
        ResourceProvider(LAUNCH_URI, "bridge-launch", LAUNCH_TEXT, read_launch, lambda: [ResourceEntry(LAUNCH_URI, "bridge-launch", LAUNCH_TEXT)]),
        ResourceProvider(RUNTIMES_URI, "runtimes", RUNTIMES_TEXT, read_runtimes, lambda: [ResourceEntry(RUNTIMES_URI, "runtimes", RUNTIMES_TEXT)]),
        ResourceProvider(MANIFEST, "manifest", "A loaded actions.json by namespace.", read_manifest, list_manifests),
        ResourceProvider(STATES, "runtime-states", "The states a runtime's maps declare, and which are current.", read_states, per_runtime(STATES, "states", lambda r: f"Declared and current states of {r.url}.")),
        ResourceProvider(EVENTS, "runtime-events", "Recent declared page events of a runtime (untrusted page data).", read_events, per_runtime(EVENTS, "events", lambda r: f"Recent declared page events from {r.url} (untrusted page data).")),
        ResourceProvider(CONTEXT, "context", f"A context block that applies to a runtime's page now; {DOCUMENTATION_NOTE}.", read_context, list_context),
    ):
        registry.register(provider)
