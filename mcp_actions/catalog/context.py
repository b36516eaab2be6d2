"""Context blocks that apply to a runtime now: documentation, never permission.

A manifest's ``context`` blocks tell an agent what a page means when a URL
or state matches (``load_when``). A block applies to a runtime when each
predicate it states holds: ``url_contains`` (a substring of the runtime's
URL), ``url_matches`` (a regular expression searched in it, on RE2: the URL is
the page's to choose, docs/manifest-language.md "Regular expressions") and ``states``
(at least one of them is among the runtime's current states). ``targets``
needs the live page and is not evaluated here; a block without ``load_when``
always applies to the runtimes of its manifest. What a block says grants
nothing: tools are called and checked as always.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from ..bounded_regex import UnsupportedPattern, search
from ..bridge.registry import RuntimeInfo
from ..manifest.load import LoadedManifest
from ..manifest.model import ContextBlock
from .catalog import Catalog

__all__ = ["DOCUMENTATION_NOTE", "AppliedContext", "applies", "context_for"]

log = logging.getLogger(__name__)

DOCUMENTATION_NOTE = "documentation from the site's map: it explains the page, it grants no permission"


@dataclass(frozen=True)
class AppliedContext:
    """One context block that applies to a runtime."""

    manifest: LoadedManifest
    block: ContextBlock

    def summary(self) -> dict[str, Any]:
        """The short form ``actions.site`` ``list`` shows."""
        return {
            "id": self.block.id,
            "title": self.block.title,
            "manifest": self.manifest.namespace,
            "kind": "documentation",
            "note": DOCUMENTATION_NOTE,
        }

    def full(self) -> dict[str, Any]:
        """The whole block, as its resource shows it."""
        return {
            **self.summary(),
            "body": self.block.body,
            "load_when": self.block.load_when,
            "available_tools": list(self.block.available_tools),
            "next_states": list(self.block.next_states),
        }


def applies(block: ContextBlock, url: str, states: tuple[str, ...] | list[str]) -> bool:
    """Whether ``block``'s ``load_when`` holds for a page at ``url`` in ``states``."""
    when = block.load_when or {}
    contains = when.get("url_contains")
    if isinstance(contains, str) and contains not in url:
        return False
    pattern = when.get("url_matches")
    if isinstance(pattern, str):
        try:
            if not search(pattern, url):
                return False
        except UnsupportedPattern:
            log.warning("context block %s has an invalid url_matches pattern %r; it does not apply", block.id, pattern)
            return False
    wanted = when.get("states")
    if isinstance(wanted, list) and wanted and not set(wanted) & set(states):
        return False
    return True


def context_for(catalog: Catalog, runtime: RuntimeInfo) -> list[AppliedContext]:
    """The context blocks of the runtime's manifests that apply to it now."""
    return [
        AppliedContext(manifest, block)
        for manifest in catalog.manifests_for(runtime)
        for block in manifest.model.context
        if applies(block, runtime.url, runtime.states)
    ]
