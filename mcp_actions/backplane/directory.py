"""The runtime directory the replicas share: what each holds, mirrored into every other's bridge.

Each replica publishes the runtimes whose sockets it holds (``announce``): at
once when one arrives, changes or leaves, and every second besides, so a
replica that joins (or rejoins after NATS was away) knows everything within a
second. Another replica's entries are mirrored into the local bridge
(``Bridge.attach_remote``) with a channel that forwards calls to the holder
(``remote.py``); so every replica lists every runtime, its status page shows
them with their replica, and its catalogue and notifications follow them as
they do local runtimes.

When two replicas announce the same runtime (one still holds a socket the
runtime has left), the newer connection is the runtime (``bound_at``).

The directory is soft state, deliberately not kept in a store: what a replica
holds is true only while it lives. A replica's entries go when it says
goodbye, when a ping finds no responder (it died: NATS knows at once), or when
it has been silent for ``SILENT_AFTER_S``.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bridge.bridge import Bridge
from ..bridge.calls import CallChannel
from ..bridge.registry import RuntimeInfo

__all__ = ["SILENT_AFTER_S", "RuntimeDirectory", "runtime_entry", "runtime_from_entry"]

log = logging.getLogger(__name__)

#: A replica not heard from for this long is taken for gone (it announces every second).
SILENT_AFTER_S = 3.0
_TRUST = ("host", "paired", "operator", "page")


def runtime_entry(info: RuntimeInfo, owner: str | None) -> dict[str, Any]:
    """What the directory says of one runtime (no page events: those travel as notes)."""
    return {
        "runtime_id": info.runtime_id,
        "url": info.url,
        "transport": info.transport,
        "runtime_key": info.runtime_key,
        "title": info.title,
        "capabilities": list(info.capabilities),
        "states": list(info.states),
        "manifest": info.manifest,
        "manifest_summary": info.manifest_summary,
        "announced_host": info.announced_host,
        "frame": info.frame,
        "page_tools": info.page_tools,
        "attachments": info.attachments,
        "authorization_id": info.authorization_id,
        "trust": info.trust,
        "extension_version": info.extension_version,
        "connected_at": info.connected_at,
        # The agent session that owns it (bridge/scope.py): the same session id digest on every replica.
        "session": info.session,
        "owner": owner,
    }


def runtime_from_entry(entry: dict[str, Any], replica: str, event_log_size: int) -> RuntimeInfo:
    """The mirror of another replica's runtime (``ValueError`` for an entry that is not one)."""
    runtime_id, url = entry.get("runtime_id"), entry.get("url")
    if not isinstance(runtime_id, str) or not runtime_id or not isinstance(url, str):
        raise ValueError("a directory entry needs runtime_id and url")
    trust = entry.get("trust")
    return RuntimeInfo(
        runtime_id=runtime_id,
        url=url,
        transport=str(entry.get("transport") or "websocket"),
        runtime_key=entry.get("runtime_key") or None,
        title=entry.get("title"),
        capabilities=tuple(entry.get("capabilities") or ()),
        states=tuple(entry.get("states") or ()),
        manifest=entry.get("manifest"),
        manifest_summary=entry.get("manifest_summary"),
        announced_host=entry.get("announced_host"),
        frame=bool(entry.get("frame")),
        page_tools=dict(entry.get("page_tools") or {}),
        attachments=list(entry.get("attachments") or []),
        authorization_id=entry.get("authorization_id"),
        # Unknown trust is the least: a mirror never gains what its replica did not prove.
        trust=trust if trust in _TRUST else "page",
        extension_version=entry.get("extension_version"),
        connected_at=float(entry.get("connected_at") or time.time()),
        session=entry.get("session") if isinstance(entry.get("session"), str) else None,
        replica=replica,
        events=deque(maxlen=event_log_size),
    )


@dataclass
class _Replica:
    """What is known of one other replica."""

    replica_id: str
    last_heard: float = field(default_factory=time.monotonic)
    runtime_ids: set[str] = field(default_factory=set)


class RuntimeDirectory:
    """This replica's runtimes, for the others; the others' runtimes, mirrored into the bridge."""

    def __init__(self, bridge: Bridge, replica_id: str, channel_for: Callable[[str, str], CallChannel]) -> None:
        """``channel_for(replica, runtime_id)``: the channel that forwards calls to a runtime that replica holds."""
        self.bridge = bridge
        self.replica_id = replica_id
        self._channel_for = channel_for
        self._replicas: dict[str, _Replica] = {}
        #: Which replica each mirror is of, and when that replica's connection to it opened.
        self._claims: dict[str, tuple[str, float]] = {}

    def snapshot(self, *, bye: bool = False) -> dict[str, Any]:
        """The message announcing this replica's runtimes (none, with ``bye``: it is leaving)."""
        runtimes = [] if bye else [
            {**runtime_entry(info, self.bridge.owner_of(info.runtime_id)), "bound_at": self.bridge.connected_since(info.runtime_id)} for info in self.bridge.local_runtimes()
        ]
        return {"replica": self.replica_id, "runtimes": runtimes, **({"bye": True} if bye else {})}

    def heard(self, message: dict[str, Any]) -> None:
        """Apply another replica's announcement: its runtimes are mirrored, those it no longer holds forgotten."""
        replica = message.get("replica")
        if not isinstance(replica, str) or not replica or replica == self.replica_id:
            return
        if message.get("bye"):
            self.drop(replica, f"replica {replica} left")
            return
        known = self._replicas.get(replica)
        if known is None:
            known = self._replicas[replica] = _Replica(replica)
            log.info("replica %s joined", replica)
        known.last_heard = time.monotonic()
        now: set[str] = set()
        for entry in message.get("runtimes") or ():
            if not isinstance(entry, dict):
                continue
            try:
                info = runtime_from_entry(entry, replica, self.bridge.event_log_size)
            except (ValueError, TypeError) as exc:
                log.warning("replica %s announced a runtime that is not one: %s", replica, exc)
                continue
            announced_bound = entry.get("bound_at")
            bound_at = float(announced_bound) if isinstance(announced_bound, (int, float)) else 0.0
            claim = self._claims.get(info.runtime_id)
            if claim is not None and claim[0] != replica and claim[0] in self._replicas and claim[1] > bound_at:
                # Two replicas announce it (one still holds a socket the runtime has left): the newer connection is the runtime.
                continue
            owner = entry.get("owner") if isinstance(entry.get("owner"), str) else None
            if self.bridge.attach_remote(info, self._channel_for(replica, info.runtime_id), owner=owner):
                now.add(info.runtime_id)
                self._claims[info.runtime_id] = (replica, bound_at)
        for gone in known.runtime_ids - now:
            self._detach(gone, replica, f"it left replica {replica}")
        for other in self._replicas.values():
            if other is not known:
                other.runtime_ids -= now  # a runtime that moved here from another replica is this one's now
        known.runtime_ids = now

    def drop(self, replica: str, reason: str) -> None:
        """Forget a replica and its runtimes (it left or died): their calls here fail with ``transport_failed``."""
        known = self._replicas.pop(replica, None)
        if known is None:
            return
        log.warning("replica %s is gone (%s); its %d runtime(s) reconnect through the balancer", replica, reason, len(known.runtime_ids))
        for runtime_id in known.runtime_ids:
            self._detach(runtime_id, replica, reason)

    def _detach(self, runtime_id: str, replica: str, reason: str) -> None:
        # Only the mirror of that replica's runtime: one that moved to another replica is not gone.
        info = self.bridge.registry.get(runtime_id)
        if info is not None and info.replica == replica:
            self.bridge.detach_remote(runtime_id, reason)
        if self._claims.get(runtime_id, ("",))[0] == replica:
            del self._claims[runtime_id]

    def drop_all(self, reason: str) -> None:
        """Forget every other replica (the backplane is unreachable: only this replica's runtimes are served)."""
        for replica in list(self._replicas):
            self.drop(replica, reason)

    def silent(self, *, older_than: float = SILENT_AFTER_S) -> list[str]:
        """The replicas not heard from for ``older_than`` seconds."""
        limit = time.monotonic() - older_than
        return [r.replica_id for r in self._replicas.values() if r.last_heard < limit]

    def replicas(self) -> list[str]:
        """The other replicas known now."""
        return list(self._replicas)

    def describe(self) -> list[dict[str, Any]]:
        """Each other replica and how many runtimes it holds, for the status page and the launch report."""
        now = time.monotonic()
        return [
            {"replica": r.replica_id, "runtimes": len(r.runtime_ids), "heard_seconds_ago": round(now - r.last_heard, 3)}
            for r in self._replicas.values()
        ]
