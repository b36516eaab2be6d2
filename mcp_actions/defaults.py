"""The product's default ports, time limit and event log size, each written out once.

Every layer that needs one of these numbers (the CLI's help and fallbacks,
the composition root, the bridge, the catalogue's routing-field description,
the MCP server) imports it from here, so changing a default is a one-line
change. This module imports nothing of ours and sits below every package.
"""

from __future__ import annotations

__all__ = ["DEFAULT_BRIDGE_PORT", "DEFAULT_EVENT_LOG_SIZE", "DEFAULT_MCP_PORT", "DEFAULT_TIMEOUT_MS", "SCREENSHOT_MAX_KILOBYTES"]

#: The bridge's WebSocket port (``--bridge-port``, docs/cli.md).
DEFAULT_BRIDGE_PORT = 17345
#: The MCP HTTP transports' port (``--port``, docs/cli.md).
DEFAULT_MCP_PORT = 8931
#: Time limit of a call that does not set ``timeout_ms`` (``--timeout-ms``).
DEFAULT_TIMEOUT_MS = 30_000
#: Accepted page events kept per runtime, oldest dropped first (``--event-log-size``).
DEFAULT_EVENT_LOG_SIZE = 200
#: A screenshot's size cap when the call gives no ``max_kilobytes`` (the host's, and the marked picture's).
SCREENSHOT_MAX_KILOBYTES = 512
