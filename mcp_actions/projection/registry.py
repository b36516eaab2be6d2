"""Which compiled projections apply to a runtime, from the catalog's manifests.

A runtime sees the projections of its own inline manifest first, then those
of loaded manifests whose ``surface.origin`` matches its URL, then those of
loaded manifests that name no origin (they apply to any page, as their tools
route to the active one). The first declaration of a name wins. Each
manifest's projections are compiled once (expressions, schema validators)
and reused until the manifest is replaced.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from ..bridge.registry import RuntimeInfo
from ..bridge.routing import surface_matches
from ..catalog.catalog import Catalog
from ..errors import ActionsError
from ..manifest.load import LoadedManifest
from .project import CompiledProjection

__all__ = ["ProjectionRegistry"]

log = logging.getLogger(__name__)


class ProjectionRegistry:
    """Compiled projections per manifest, resolved per runtime."""

    def __init__(self, catalog: Catalog, runtime_of: Callable[[str], RuntimeInfo | None]) -> None:
        self.catalog = catalog
        self.runtime_of = runtime_of
        self._compiled: dict[int, tuple[LoadedManifest, dict[str, CompiledProjection]]] = {}

    def compiled(self, manifest: LoadedManifest) -> dict[str, CompiledProjection]:
        """The manifest's projections by name, compiled on first use."""
        cached = self._compiled.get(id(manifest))
        if cached is not None and cached[0] is manifest:
            return cached[1]
        live = {id(m) for m in [*self.catalog.manifests.values(), *self.catalog.inline.values()]}
        self._compiled = {key: value for key, value in self._compiled.items() if key in live}
        projections: dict[str, CompiledProjection] = {}
        for projection in manifest.model.state_projections:
            try:
                projections[projection.name] = CompiledProjection(projection)
            except ActionsError as exc:  # the validator catches these first; keep the other projections
                log.error("projection %s of %s cannot run: %s (%s)", projection.name, manifest.source, exc.message, exc.code)
        self._compiled[id(manifest)] = (manifest, projections)
        return projections

    def for_runtime(self, runtime_id: str) -> Mapping[str, CompiledProjection]:
        """The projections that apply to ``runtime_id`` (empty when it is unknown)."""
        runtime = self.runtime_of(runtime_id)
        if runtime is None:
            return {}
        sources: list[LoadedManifest] = []
        inline = self.catalog.inline.get(runtime_id)
        if inline is not None:
            sources.append(inline)
        loaded = list(self.catalog.manifests.values())
        sources.extend(m for m in loaded if m.model.surface.origin and surface_matches(m.model.surface.origin, runtime.url or ""))
        sources.extend(m for m in loaded if not m.model.surface.origin)
        out: dict[str, CompiledProjection] = {}
        for manifest in sources:
            for name, projection in self.compiled(manifest).items():
                out.setdefault(name, projection)
        return out
