"""Neighbouring protocols (WebMCP, ABP, WAB) as tools of the runtime whose page declares them.

``exposure`` turns a runtime's reported ``page_tools`` into actions.json maps
(one per protocol, through the converters of ``mcp_actions.convert``) that
the catalog exposes as that runtime's tools; ``runner`` runs those tools
through the page engine's protocol primitives; ``naming`` is the one rule
that names tools of every source: ``page_tool_name``. ``page_manifest``
builds a runtime's map for one protocol; ``PageToolRunner`` runs its tools.
"""

from .exposure import page_manifest
from .naming import page_tool_name
from .runner import PageToolRunner

__all__ = ["PageToolRunner", "page_manifest", "page_tool_name"]
