"""Neighbouring protocols (WebMCP, ABP, WAB) as tools of the runtime whose page declares them.

Each protocol is one ``PageProtocol`` object (``page_protocol.py``) in its
module (``webmcp``, ``abp``, ``wab``), gathered in ``PAGE_PROTOCOLS``
(``registry``, looked up with ``page_protocol``): its discovery, exposure,
naming, running and conversion. ``PageToolExposure`` turns a runtime's
reported ``page_tools`` (and a WAB site's discovery document, found by
``wab_discovery``) into one actions.json map per protocol
(``page_manifest``) that the catalog exposes as that runtime's tools;
``PageToolRunner`` runs those tools by their protocol's runner;
``page_tool_name`` is the one rule that names tools of every source.
"""

from .exposure import PageToolExposure, page_manifest
from .naming import page_tool_name
from .page_protocol import PageProtocol
from .registry import PAGE_PROTOCOLS, page_protocol
from .runner import PageToolRunner

__all__ = ["PAGE_PROTOCOLS", "PageProtocol", "PageToolExposure", "PageToolRunner", "page_manifest", "page_protocol", "page_tool_name"]
