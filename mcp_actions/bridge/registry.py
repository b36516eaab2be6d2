"""The registry of connected runtimes.

A runtime is known by the ``runtime_id`` it announced in ``runtime_ready``.
The registry keeps what routing needs (url, title, key, capabilities), which
runtime is active, and a bounded log of the page events each runtime sent.
It knows nothing of transports: the bridge pairs each entry with a session.
"""

from __future__ import annotations

import builtins
import functools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..defaults import DEFAULT_EVENT_LOG_SIZE
from ..primitive_dictionary import PrimitiveDictionary, load_dictionary
from .scope import scope_key, visible_to

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
    #: The agent session that owns it (``SessionKey.id``, bridge/scope.py); None: the operator's.
    session: str | None = None
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

    def announces(self, name: str) -> bool:
        """Whether the runtime said it has ``name``: for a property of the host (``input.trusted``: its clicks
        are real input), which a runtime that announced nothing does not have, unlike what it ``provides``."""
        return name in self.capabilities

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
            **({"session": self.session} if self.session else {}),
        }

    def snapshot_key(self) -> tuple[Any, ...]:
        """What a replica's directory says of this runtime, for telling a changed mirror from the same one."""
        return (
            self.url, self.runtime_key, self.title, self.capabilities, self.states, self.manifest, self.manifest_summary,
            self.announced_host, self.frame, self.page_tools, self.attachments, self.authorization_id, self.trust,
            self.extension_version, self.replica, self.session,
        )


class RuntimeRegistry:
    """Connected runtimes by id, with each session's active runtime and key lookup.

    ``list``/``get``/``find_by_key`` see every runtime (identity and bookkeeping need that);
    ``visible``/``get_visible`` see what the current agent session may (bridge/scope.py), and
    routing uses those. The active runtime is kept per session: the session that owns a runtime
    (None for the operator's and for sessions in a shared context).
    """

    def __init__(self) -> None:
        self._runtimes: dict[str, RuntimeInfo] = {}
        self._active: dict[str | None, str] = {}
        #: Called with the new active runtime when the active one moves to another (the bridge
        #: publishes it as ``RuntimeActive``: what the agent sees may depend on the active page).
        self.on_active: Callable[[RuntimeInfo], None] | None = None

    def __len__(self) -> int:
        return len(self._runtimes)

    def __contains__(self, runtime_id: object) -> bool:
        return runtime_id in self._runtimes

    def list(self) -> list[RuntimeInfo]:
        """Every connected runtime, in order of connection (whatever session owns it)."""
        return list(self._runtimes.values())

    def visible(self) -> builtins.list[RuntimeInfo]:
        """The runtimes the current agent session may list and route to, in order of connection."""
        return [info for info in self._runtimes.values() if visible_to(info.session)]

    def get(self, runtime_id: str) -> RuntimeInfo | None:
        """The runtime with this id, or None."""
        return self._runtimes.get(runtime_id)

    def get_visible(self, runtime_id: str) -> RuntimeInfo | None:
        """The runtime with this id when the current agent session may see it, or None."""
        info = self._runtimes.get(runtime_id)
        return info if info is not None and visible_to(info.session) else None

    def find_by_key(self, runtime_key: str) -> RuntimeInfo | None:
        """The runtime announced with this ``runtime_key``, or None."""
        for info in self._runtimes.values():
            if info.runtime_key == runtime_key:
                return info
        return None

    def add(self, info: RuntimeInfo) -> None:
        """Register (or re-register) a runtime; the first of a session becomes that session's active one."""
        self._runtimes[info.runtime_id] = info
        if info.session is not None:
            self._active.setdefault(info.session, info.runtime_id)

    def remove(self, runtime_id: str) -> RuntimeInfo | None:
        """Forget a runtime; where it was active, the newest remaining one of that scope takes its place."""
        info = self._runtimes.pop(runtime_id, None)
        for scope, active in list(self._active.items()):
            if active != runtime_id:
                continue
            # Not announced: the runtime's going is (the bridge's ``RuntimeGone``), and this follows from it.
            rest = [i.runtime_id for i in self._runtimes.values() if scope is None or i.session == scope]
            if rest:
                self._active[scope] = rest[-1]
            else:
                del self._active[scope]
        return info

    @property
    def active_id(self) -> str | None:
        """The current agent session's active runtime id (the shared one outside an isolated session)."""
        return self._active.get(scope_key())

    def set_active(self, runtime_id: str | None) -> None:
        """Mark the runtime an implicit call goes to when several could take it.

        It becomes active for the session that owns it (for the operator's runtimes: for the
        current scope). A move from one runtime to another is announced (``on_active``); the first
        runtime becoming active is not, since its arrival already is.
        """
        info = self._runtimes.get(runtime_id) if runtime_id is not None else None
        if runtime_id is not None and info is None:
            return
        scope = info.session if info is not None and info.session is not None else scope_key()
        previous = self._active.get(scope)
        if runtime_id is None:
            self._active.pop(scope, None)
        else:
            self._active[scope] = runtime_id
        if previous is not None and runtime_id != previous and info is not None and self.on_active is not None:
            self.on_active(info)

    def actives(self) -> dict[str | None, RuntimeInfo]:
        """Every scope's active runtime: the shared one (key None) and each agent session's own."""
        return {scope: self._runtimes[rid] for scope, rid in self._active.items() if rid in self._runtimes}

    def forget_session(self, session: str) -> None:
        """A session ended: its active runtime is forgotten (its runtimes leave on their own)."""
        self._active.pop(session, None)

    @property
    def active(self) -> RuntimeInfo | None:
        """The current agent session's active runtime, if any."""
        active_id = self.active_id
        return self._runtimes.get(active_id) if active_id else None
