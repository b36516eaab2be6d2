"""The one naming rule for tools of every source.

A tool's *dotted name* (``_meta["mcp-actions/tool"]``) is
``<namespace>.<tool>``: for an actions.json map, the map's namespace and the
tool's own name; for a tool a page declares through WebMCP, ABP or WAB, the
page's *site namespace* and the tool's (command's, capability's) name made
safe (runs of characters outside ``[A-Za-z0-9_-]`` become ``_``, a segment
that does not start with a letter gets an ``x``). The site namespace is the
page's host without a leading ``www.``, its dots and other unsafe characters
turned into ``_`` (``https://shop.example.com/x`` → ``shop_example_com``;
a page without a host, ``page``). The MCP name is derived from the dotted
name alone (``catalog.naming.mcp_tool_name``). ``_meta["mcp-actions/protocol"]``
says where the tool came from: ``actions.json``, or a page protocol's name
(``registry.PROTOCOLS`` lists them all).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..convert.naming import safe_dotted_name, safe_identifier

__all__ = ["page_tool_name", "site_namespace"]


def site_namespace(url: str | None) -> str:
    """The namespace of tools a page at ``url`` declares (see the module docstring)."""
    host = (urlsplit(url or "").hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    return safe_identifier(host.replace(".", "_"), fallback="page")


def page_tool_name(url: str | None, tool: str) -> str:
    """The dotted name of a page-declared tool: ``<site namespace>.<safe tool name>``."""
    return f"{site_namespace(url)}.{safe_dotted_name(tool, fallback='tool')}"
