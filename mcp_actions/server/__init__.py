"""The MCP adapter: mcp-actions as an MCP server, a thin shell over ``ActionsApp``.

``build_server(app)`` gives the SDK's low-level ``Server`` with every tool of
the catalogue (title, annotations, output schema), the ``actions://``
resources with their templates and subscriptions, change notifications for
both protocol generations, progress, log messages and confirmation by
elicitation. ``serve(options, transport=...)`` runs it over stdio, SSE or
streamable HTTP (the HTTP transports behind Host/Origin allow-lists, an
optional bearer token and CORS). This is the only package, with ``cli`` and
``demo``, that imports the MCP SDK.
"""

from .mcp_server import build_server
from .transports import serve

__all__ = ["build_server", "serve"]
