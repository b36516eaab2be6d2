"""The catalog: every exposed tool with how to run it, built from loaded manifests.

``Catalog`` holds the tools of every valid map (and of each runtime's inline
map and page-declared tools) as ``ToolBinding``s: MCP name, dotted name,
schemas, title, annotations and how the tool runs. ``mcp_tool_name`` is the
one naming rule (dotted name to a host-safe MCP name); ``split_routing``
separates a call's routing fields from the tool's own arguments;
``ToolSelection`` applies ``--tools``/``--exclude-tools`` globs;
``ManifestWatcher`` watches manifest files so the catalogue stays live;
``context_for`` gives the context blocks that apply to a runtime.
"""

from .catalog import Catalog, ToolBinding
from .context import context_for
from .naming import mcp_tool_name
from .routing_fields import split_routing
from .selection import ToolSelection
from .watch import ManifestWatcher

__all__ = ["Catalog", "ManifestWatcher", "ToolBinding", "ToolSelection", "context_for", "mcp_tool_name", "split_routing"]
