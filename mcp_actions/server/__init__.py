"""The MCP adapter: mcp-actions as an MCP server, a thin shell over ``ActionsApp``.

``build_server(app)`` gives the SDK's low-level ``Server`` with every tool of
the catalogue (title, annotations, output schema), the ``actions://``
resources with their templates and subscriptions, change notifications for
both protocol generations, progress, log messages and confirmation by
elicitation. ``transports.McpDoor`` serves it over stdio, SSE or streamable
HTTP (the HTTP transports behind Host/Origin allow-lists, an optional bearer
token or OAuth, and CORS); ``mcp_actions/launcher.py`` opens it beside BAP. This is the only package, with ``cli`` and
``demo``, that imports the MCP SDK.
"""

from typing import Any

__all__ = ["build_server"]


def __getattr__(name: str) -> Any:
    # Imported when asked for: over stdio the first answers go out before the SDK is loaded
    # (early_answers.py), and importing this package must not load it.
    if name == "build_server":
        from .mcp_server import build_server

        return build_server
    raise AttributeError(name)
