"""``mcp-actions serve``: one launcher that opens the server's doors side by side over one app.

The doors are MCP (``server/transports.py``'s ``McpDoor``: stdio, SSE or streamable HTTP) and,
with ``--bap-port``, BAP (``bap/``). Neither starts the other: the launcher makes the app (whose
users, metrics and status page, ``operators/``, belong to both), opens the MCP door (which starts
the app; over HTTP its agent sessions are made then), opens the BAP door beside it on the same
sessions (``--max-sessions`` counts both doors), serves until the MCP transport ends or the process
is stopped, and closes both. A port that cannot be had ends the command with one line and exit 2
(``ports.PortInUse``) before anything is half started.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .actions_app import ActionsApp

if TYPE_CHECKING:
    from .app_options import AppOptions

__all__ = ["open_bap_door", "serve"]


def _say(line: str) -> None:
    # stderr, always: over stdio, stdout is the MCP wire.
    print(f"mcp-actions: {line}", file=sys.stderr, flush=True)


async def open_bap_door(app: ActionsApp, allowed_origins: Sequence[str]) -> Any:
    """The BAP door (``--bap-port``; mcp_actions/bap/), listening, with the line that says how to connect; None when off."""
    options = app.options
    if options.bap_port is None:
        return None
    import secrets

    from .bap import BapDoor

    door = BapDoor(app, host=options.bap_host, port=options.bap_port, token=options.bap_token or secrets.token_urlsafe(18), allowed_origins=allowed_origins, sessions=app.sessions)
    try:
        await door.start()
    except OSError as exc:
        from .ports import PortInUse

        raise PortInUse("BAP", options.bap_host, options.bap_port) from exc
    app.bap = door
    _say(f"BAP at {door.url}" + ("" if options.bap_token else f" (token for this run: {door.token}; give it as ?token= or X-BAP-Token)"))
    return door


async def serve(
    options: AppOptions,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int | None = None,
    http_token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
) -> None:
    """Serve ``options`` through MCP (``transport``) and, with ``--bap-port``, BAP, until MCP's transport ends or the process is stopped.

    ``port`` (HTTP transports): None serves on ``DEFAULT_MCP_PORT``, or on a free port when that one is
    taken; a port given is that port or ``ports.PortInUse``. The bridge follows ``options.bridge_port``
    and ``options.bridge_port_fallback`` the same way.
    """
    from .server.transports import McpDoor

    mcp = McpDoor(
        ActionsApp(options), transport, host=host, port=port, http_token=http_token, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins
    )
    try:
        await mcp.open()
        bap = await open_bap_door(mcp.app, allowed_origins)
        try:
            await mcp.serve()
        finally:
            if bap is not None:
                await bap.stop()
    finally:
        await mcp.close()
