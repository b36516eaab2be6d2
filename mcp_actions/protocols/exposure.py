"""From what a runtime's page declares to that runtime's tools: one map per page protocol and runtime.

``PageToolExposure`` is fed runtimes as they arrive and change
(``page_reported``) and, for protocols whose site also publishes documents
(WAB), what discovery found (``site_found``, called by ``wab_discovery.py``).
For each protocol of the registry it asks the protocol's object for its
candidate maps (``PageProtocol.maps``, best first), loads the first that is
valid (trust ``website``) and sets it as the runtime's map of that protocol
in the catalogue, which gives its tools the plan kind ``page_tool``. A map
that cannot be loaded is reported (``reports``, by the protocol's source:
``actions://bridge/launch`` and the failed maps show it) and logged; what
the host sees is announced through ``changed`` only when it changed.

The per-protocol map builders live with their protocols (``webmcp.py``,
``abp.py``, ``wab.py``); they are re-exported here under the names the
rest of the code and the tests know.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from ..bridge.registry import RuntimeInfo
from ..catalog.catalog import Catalog
from ..manifest.fetch import RemoteFetcher
from ..manifest.load import LoadedManifest, ManifestReport, load_document
from .abp import abp_manifest
from .page_maps import UNTRUSTED_DESCRIPTION
from .page_protocol import PageProtocol, SiteDocument
from .registry import PAGE_PROTOCOLS
from .wab import WAB_BRIDGES, wab_manifest
from .webmcp import webmcp_manifest

__all__ = [
    "UNTRUSTED_DESCRIPTION",
    "WAB_BRIDGES",
    "PageToolExposure",
    "abp_manifest",
    "page_manifest",
    "wab_manifest",
    "webmcp_manifest",
]

log = logging.getLogger(__name__)


def page_manifest(protocol: str, tools: list[dict[str, Any]], *, url: str | None) -> dict[str, Any]:
    """The actions.json map of one protocol's reported page tools (its best candidate)."""
    found = PAGE_PROTOCOLS.get(protocol)
    candidates = found.maps(tools, url=url) if found is not None else []
    if not candidates:
        raise ValueError(f"no page tools of protocol {protocol!r}")
    return candidates[0]


class PageToolExposure:
    """Keeps each runtime's maps of page-declared tools, one per protocol, in the catalogue."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        fetcher: RemoteFetcher | None,
        changed: Callable[[frozenset[str] | None], None],
        reports: dict[str, ManifestReport] | None = None,
        protocols: Mapping[str, PageProtocol] = PAGE_PROTOCOLS,
    ) -> None:
        """``changed(sessions)`` is called when the tools a host sees changed (only those agent sessions' tools; None: everyone's); ``reports`` receives each map that failed to load."""
        self.catalog = catalog
        self.fetcher = fetcher
        self.changed = changed
        self.reports: dict[str, ManifestReport] = reports if reports is not None else {}
        self.protocols = dict(protocols)

    def page_reported(self, runtime: RuntimeInfo) -> None:
        """The runtime arrived or reported its page tools: expose those of every protocol discovered in the page alone.

        A protocol whose site also publishes documents (WAB) is exposed by ``site_found`` once
        discovery has looked, with the page's own tools.
        """
        changed = False
        for protocol in self.protocols.values():
            if not protocol.discovery.page_tools or protocol.discovery.site_document:
                continue
            changed = self._set(runtime, protocol, runtime.page_tools.get(protocol.name) or None, None) or changed
        if changed:
            self.changed(_owners(runtime))

    def site_found(self, runtime: RuntimeInfo, found: SiteDocument | None, page: list[dict[str, Any]] | None, *, protocol: str = "wab") -> None:
        """Expose the runtime's tools of ``protocol`` from its site's document (``{"url", "document"}``, or None) and its page's own."""
        if self._set(runtime, self.protocols[protocol], page, found):
            self.changed(_owners(runtime))

    def _set(self, runtime: RuntimeInfo, protocol: PageProtocol, page: list[dict[str, Any]] | None, found: SiteDocument | None) -> bool:
        loaded: LoadedManifest | None = None
        for manifest in protocol.maps(page, url=runtime.url, site_document=found):
            loaded = self._load(runtime, protocol, manifest, where=found["url"] if found is not None else runtime.url)
            if loaded is not None:
                break
            found = None  # the next candidate does without the site's document
        return self.catalog.set_page_tools(runtime.runtime_id, protocol.name, loaded)

    def _load(self, runtime: RuntimeInfo, protocol: PageProtocol, manifest: dict[str, Any], *, where: str) -> LoadedManifest | None:
        source = protocol.source(runtime.runtime_id)
        loaded = load_document(manifest, source=source, trust="website", fetcher=self.fetcher)
        if isinstance(loaded, ManifestReport):
            self.reports[source] = loaded
            log.warning("the %s tools of %s (runtime %s) cannot be exposed: %s", protocol.title, where, runtime.runtime_id, [p.to_dict() for p in loaded.errors][:3])
            return None
        self.reports.pop(source, None)
        loaded.namespace = protocol.namespace(runtime.runtime_id)
        loaded.owner = runtime.session  # what a session's tab declares is that session's tools alone (docs/sessions.md)
        return loaded


def _owners(runtime: RuntimeInfo) -> frozenset[str] | None:
    """Whose tools a runtime's page declares: its agent session's alone, or (the operator's tab) everyone's."""
    return frozenset({runtime.session}) if runtime.session is not None else None
