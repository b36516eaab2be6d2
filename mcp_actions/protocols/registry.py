"""The page protocols mcp-actions speaks, one ``PageProtocol`` object each (see ``page_protocol.py``).

Adding a protocol is one module holding its object and one line here
(docs/development.md, "Adding a page protocol"). Exposure, the runner and
the catalogue's plans find a protocol by its name (``page_protocol``); the
order is the order exposure offers a runtime's page tools in.
"""

from __future__ import annotations

from .abp import ABP
from .page_protocol import PageProtocol
from .wab import WAB
from .webmcp import WEBMCP

__all__ = ["PAGE_PROTOCOLS", "PAGE_TOOL_KEYS", "PROTOCOLS", "page_protocol"]

#: Every page protocol, by name.
PAGE_PROTOCOLS: dict[str, PageProtocol] = {protocol.name: protocol for protocol in (WEBMCP, ABP, WAB)}

#: The ``page_tools`` keys a runtime may report (the bridge is given them: it sits below this layer).
PAGE_TOOL_KEYS: tuple[str, ...] = tuple(name for name, protocol in PAGE_PROTOCOLS.items() if protocol.discovery.page_tools)

#: Every value ``_meta["mcp-actions/protocol"]`` takes: a map's tools, then each page protocol's.
PROTOCOLS: tuple[str, ...] = ("actions.json", *PAGE_PROTOCOLS)


def page_protocol(name: str | None) -> PageProtocol | None:
    """The protocol named ``name`` (a plan's ``protocol``, a ``page_tools`` key), or None when there is none."""
    return PAGE_PROTOCOLS.get(name) if name is not None else None
