"""mcp-actions: an MCP server that operates websites through the actions their actions.json manifests declare."""

__version__ = "0.1.0"
