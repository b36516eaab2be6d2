"""A runtime's WAB discovery document as an ``actions://`` resource.

    actions://runtimes/{runtime_id}/wab   the discovery document the runtime's site publishes

When a runtime's site is WAB-enabled (``protocols/wab_discovery.py`` found its discovery
document), the document its tools were made from is readable here as
``{runtime_id, url, trust, document}``, so an agent (or its user) can see what
the site declared: permissions, rate limits, commands. It is the site's own
text: ``trust`` is ``untrusted_page_data``. Listed only for runtimes that have
one; ``protocols/wab_discovery.py`` announces it (``updated`` and
``list_changed``) when a document is found.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .registry import ResourceEntry, ResourceProvider, ResourceRegistry, expand, not_found

__all__ = ["WAB", "register_wab_resource"]

WAB = "actions://runtimes/{runtime_id}/wab"


def register_wab_resource(registry: ResourceRegistry, documents: Mapping[str, Mapping[str, Any]], visible: Callable[[str], bool] = lambda _: True) -> None:
    """Serve ``documents`` (runtime id → ``{"url", "document"}``, a live mapping) as the WAB resource.

    ``visible``: whether the current agent session may see a runtime (another session's is not found).
    """

    async def read(params: Mapping[str, str]) -> Any:
        found = documents.get(params["runtime_id"]) if visible(params["runtime_id"]) else None
        if found is None:
            raise not_found(expand(WAB, **params))
        return {"runtime_id": params["runtime_id"], "url": found["url"], "trust": "untrusted_page_data", "document": found["document"]}

    def entries() -> list[ResourceEntry]:
        return [
            ResourceEntry(expand(WAB, runtime_id=runtime_id), f"wab-{runtime_id}", f"The WAB discovery document of {found['url']} (untrusted page data).")
            for runtime_id, found in list(documents.items())
            if visible(runtime_id)
        ]

    registry.register(ResourceProvider(WAB, "runtime-wab", "A runtime's WAB discovery document: what the site declares (untrusted page data).", read, entries))
