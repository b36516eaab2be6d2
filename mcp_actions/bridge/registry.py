"""The registry of connected runtimes.

A runtime is known by the ``runtime_id`` it announced in ``runtime_ready``.
The registry keeps what routing needs (url, title, key, capabilities), which
runtime is active, and a bounded log of the page events each runtime sent.
It knows nothing of transports: the bridge pairs each entry with a session.
"""

from __future__ import annotations

import functools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..defaults import DEFAULT_EVENT_LOG_SIZE
from ..primitive_dictionary import PrimitiveDictionary, load_dictionary

__all__ = ["EVENT_LOG_SIZE", "PROVED_TRUST", "RuntimeInfo", "RuntimeRegistry", "Trust"]

#: Accepted page events kept per runtime (oldest dropped first).
EVENT_LOG_SIZE = DEFAULT_EVENT_LOG_SIZE


#: How a runtime's connection proved who it is (docs/threat-model.md):
#: ``host``: a runtime of this process (a tab of the browser the server drives, the memory runtime);
#: ``paired``: a WebSocket that presented a browser extension pairing's secret;
#: ``operator``: a WebSocket that presented the start token, from a program rather than a web page;
#: ``page``: a page runtime (a page credential, or a handshake a web page made). Only its origin is proved.
Trust = Literal["host", "paired", "operator", "page"]
#: The trust levels whose announcements routing may rely on.
PROVED_TRUST: frozenset[str] = frozenset({"host", "paired", "operator"})


@functools.cache
def _bundled_dictionary() -> PrimitiveDictionary:
    """The bundled primitive dictionary, built once for ``RuntimeInfo.provides``."""
    return load_dictionary()


@dataclass
class RuntimeInfo:
    """What the bridge knows about one connected runtime."""

    runtime_id: str
    url: str
    transport: str
    runtime_key: str | None = None
    title: str | None = None
    capabilities: tuple[str, ...] = ()
    states: tuple[str, ...] = ()
    manifest: dict[str, Any] | None = None  # an inline manifest (an object with ``tools``), to expose
    manifest_summary: dict[str, Any] | None = None  # the spec's summary of the map the runtime loaded
    announced_host: str | None = None  # the host kind runtime_ready named, if any
    #: True for a frame inside a page (``runtime_ready`` ``frame: true``), False for a top-level document.
    frame: bool = False
    #: Tools the page declares through WebMCP, ABP or WAB (``page_tools``, see bridge/page_tools.py).
    page_tools: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The attachments the runtime installed, as it last reported them: ``[{id, state}]``.
    attachments: list[dict[str, str]] = field(default_factory=list)
    authorization_id: str | None = None
    #: How the connection proved who it is (``Trust``); set by the bridge from the session, never from runtime_ready.
    trust: Trust = "operator"
    extension_version: str | None = None
    connected_at: float = field(default_factory=time.time)
    #: The replica holding the runtime's connection when replicas share a backplane (None alone).
    replica: str | None = None
    last_seen: float = field(default_factory=time.monotonic)
    events: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=EVENT_LOG_SIZE), repr=False)

    @property
    def host(self) -> str:
        """What kind of host this runtime runs in, for evidence (``page``, ``playwright``, ``chrome-tab``…).

        What ``runtime_ready`` announced as ``host`` wins; else the scheme of its
        ``runtime_key`` names it (``page:…`` for the page runtime, ``playwright:tab-1``
        for a browser-host tab, the spec's ``chrome-tab:123``); else the transport.
        """
        if self.announced_host:
            return self.announced_host
        scheme, colon, _ = (self.runtime_key or "").partition(":")
        return scheme if colon and scheme else self.transport

    def provides(self, name: str) -> bool:
        """Whether this runtime can be asked to run ``name`` (a primitive, capability or page tool name).

        The one answer to "can this runtime do X" (docs/bridge-protocol.md, "Runtime → bridge"): a
        runtime that announced capabilities provides what it named, and a dictionary primitive whose
        every capability it named; a runtime that announced none (one written from the spec alone)
        is trusted to answer for itself, so it provides everything and refuses what it cannot do.
        """
        if not self.capabilities or name in self.capabilities:
            return True
        primitive = _bundled_dictionary().get(name)
        return primitive is not None and primitive.provided_by(self.capabilities)

    @property
    def proved(self) -> bool:
        """True when what this runtime says of itself rests on a credential, not only on its own word."""
        return self.trust in PROVED_TRUST

    def describe(self) -> dict[str, Any]:
        """The identifying fields routing errors list for each candidate."""
        described: dict[str, Any] = {"runtime_id": self.runtime_id, "runtime_key": self.runtime_key, "url": self.url, "title": self.title}
        if self.frame:
            described["frame"] = True
        return described

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready view for resources and the local status page."""
        return {
            **self.describe(),
            "transport": self.transport,
            "capabilities": list(self.capabilities),
            "states": list(self.states),
            "has_manifest": self.manifest is not None,
            "page_tools": {protocol: [t["name"] for t in tools] for protocol, tools in self.page_tools.items()},
            "attachments": [dict(a) for a in self.attachments],
            "manifest_summary": self.manifest_summary,
            "host": self.host,
            "authorization_id": self.authorization_id,
            "trust": self.trust,
            "extension_version": self.extension_version,
            "connected_at": self.connected_at,
            "idle_seconds": round(time.monotonic() - self.last_seen, 3),
            "event_count": len(self.events),
            **({"replica": self.replica} if self.replica else {}),
        }

    def snapshot_key(self) -> tuple[Any, ...]:
        """What a replica's directory says of this runtime, for telling a changed mirror from the same one."""
        return (
            self.url, self.runtime_key, self.title, self.capabilities, self.states, self.manifest, self.manifest_summary,
            self.announced_host, self.frame, self.page_tools, self.attachments, self.authorization_id, self.trust,
            self.extension_version, self.replica,
        )


class RuntimeRegistry:
    """Connected runtimes by id, with the active runtime and key lookup."""

    def __init__(self) -> None:
        self._runtimes: dict[str, RuntimeInfo] = {}
        self.active_id: str | None = None
        #: Called with the new active runtime when the active one moves to another (the bridge
        #: publishes it as ``RuntimeActive``: what the agent sees may depend on the active page).
        self.on_active: Callable[[RuntimeInfo], None] | None = None

    def __len__(self) -> int:
        return len(self._runtimes)

    def __contains__(self, runtime_id: object) -> bool:
        return runtime_id in self._runtimes

    def list(self) -> list[RuntimeInfo]:
        """Every connected runtime, in order of connection."""
        return list(self._runtimes.values())

    def get(self, runtime_id: str) -> RuntimeInfo | None:
        """The runtime with this id, or None."""
        return self._runtimes.get(runtime_id)

    def find_by_key(self, runtime_key: str) -> RuntimeInfo | None:
        """The runtime announced with this ``runtime_key``, or None."""
        for info in self._runtimes.values():
            if info.runtime_key == runtime_key:
                return info
        return None

    def add(self, info: RuntimeInfo) -> None:
        """Register (or re-register) a runtime."""
        self._runtimes[info.runtime_id] = info

    def remove(self, runtime_id: str) -> RuntimeInfo | None:
        """Forget a runtime; the active runtime falls back to the newest remaining one."""
        info = self._runtimes.pop(runtime_id, None)
        if self.active_id == runtime_id:
            # Not announced: the runtime's going is (the bridge's ``RuntimeGone``), and this follows from it.
            self.active_id = next(reversed(self._runtimes), None) if self._runtimes else None
        return info

    def set_active(self, runtime_id: str | None) -> None:
        """Mark the runtime an implicit call goes to when several could take it.

        A move from one runtime to another is announced (``on_active``); the first
        runtime becoming active is not, since its arrival already is.
        """
        if runtime_id is not None and runtime_id not in self._runtimes:
            return
        previous, self.active_id = self.active_id, runtime_id
        active = self.active
        if previous is not None and runtime_id != previous and active is not None and self.on_active is not None:
            self.on_active(active)

    @property
    def active(self) -> RuntimeInfo | None:
        """The active runtime, if any."""
        return self._runtimes.get(self.active_id) if self.active_id else None
