"""What a server-side primitive gets: the calling map's context, the runtime, the bridge, shared services.

Some primitives need what only the server has: the calling map's files and
trust (``storage.read_file``, overlay templates) or state shared by every
runtime (the transfer buffer). They run in the server, on behalf of one
``ToolRun``, and reach the page only through the runtime's own primitives
(``call_runtime``), which the bridge checks like any other call.

``ServerServices`` are the shared ones, one set per bridge (so one per
server): ``ServerServices.of(bridge)`` makes them on first use, so every
``ToolRun`` of a server shares one transfer buffer without the composition
root having to pass it along.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...bridge.bridge import Bridge
from ...bridge.registry import RuntimeInfo
from ...catalog.catalog import ToolBinding
from ...deadline import Deadline
from ...manifest.storage_files import SiteFiles
from ...transfer.buffer import TransferBuffer

__all__ = ["ServerCall", "ServerServices"]


@dataclass
class ServerServices:
    """State the server-side primitives share across runtimes: the transfer buffer."""

    transfer: TransferBuffer = field(default_factory=TransferBuffer)

    @classmethod
    def of(cls, bridge: Bridge) -> ServerServices:
        """The services of the server ``bridge`` belongs to (made on first use, gone with the bridge)."""
        services = _BY_BRIDGE.get(bridge)
        if services is None:
            services = _BY_BRIDGE[bridge] = cls()
        return services


_BY_BRIDGE: weakref.WeakKeyDictionary[Bridge, ServerServices] = weakref.WeakKeyDictionary()


@dataclass
class ServerCall:
    """One server-side primitive call on behalf of a tool: who asks, where, and with what."""

    binding: ToolBinding
    runtime: RuntimeInfo
    bridge: Bridge
    services: ServerServices
    deadline: Deadline

    @cached_property
    def files(self) -> SiteFiles:
        """The files the calling map may read (its own origin: an imported tool reads its own map's files)."""
        return SiteFiles.of_map(self.binding.origin.source, self.binding.origin.trust)

    def source(self) -> dict[str, Any]:
        """Which runtime and page the call came from (kept with a transfer item, never a secret)."""
        return {"runtime_id": self.runtime.runtime_id, "url": self.runtime.url, "tool": self.binding.name}

    async def call_runtime(self, name: str, arguments: dict[str, Any]) -> Any:
        """A primitive on the calling runtime, through the bridge (checked there), within the deadline."""
        return await self.bridge.call(name, arguments, runtime_id=self.runtime.runtime_id, timeout_ms=self.deadline.remaining_ms())
