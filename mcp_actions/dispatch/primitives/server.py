"""The server-side primitives: name → async function(ServerCall, arguments).

``ToolRun.call_primitive`` looks here first. A primitive found here runs in
the server on behalf of the calling tool (``context.py``), its
arguments checked against the dictionary's ``input_schema`` as the bridge
would; it is not sent to the runtime, so the runtime need not announce it.
Whatever it needs of the page it asks through the runtime's own primitives.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .context import ServerCall
from .storage import storage_read_file
from .transfer import transfer_clear, transfer_insert, transfer_read, transfer_write

__all__ = ["SERVER_PRIMITIVES", "ServerPrimitive", "run_server_primitive"]

ServerPrimitive = Callable[[ServerCall, dict[str, Any]], Awaitable[Any]]

#: Every server-side primitive by name (all of the reference dictionary).
SERVER_PRIMITIVES: dict[str, ServerPrimitive] = {
    "storage.read_file": storage_read_file,
    "transfer.write": transfer_write,
    "transfer.read": transfer_read,
    "transfer.insert": transfer_insert,
    "transfer.clear": transfer_clear,
}


async def run_server_primitive(name: str, call: ServerCall, arguments: dict[str, Any]) -> Any:
    """Run the server-side primitive ``name``: its arguments checked against the dictionary, then its function."""
    entry = call.bridge.dictionary.get(name)
    if entry is not None:
        entry.check_input(arguments)
    return await SERVER_PRIMITIVES[name](call, arguments)
