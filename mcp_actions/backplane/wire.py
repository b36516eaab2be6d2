"""The backplane's subjects and messages: who a cluster is, where each replica listens, how messages are encoded.

Replicas started with the same ``--bridge-token`` and ``--http-token`` form one
cluster: its subjects are prefixed with a digest of both tokens, so two
deployments sharing one NATS never see each other, and the tokens themselves
never travel. Every message is one JSON object.

Subjects, under ``mcpa.<cluster>``:

- ``dir``: each replica's runtime directory (``directory.py``), on change and every second;
- ``note``: change notifications to repeat to every replica's MCP clients;
- ``r.<replica>.call``: a call for a runtime that replica holds (request/reply: the reply says it was taken);
- ``r.<replica>.ctl``: a caller's cancel or input answer for a call running there, or the release of a turn;
- ``r.<replica>.ev``: a running call's progress, input requests and outcome, and turns granted, back to the caller;
- ``r.<replica>.turn``: a caller queues there for the turn of a tab that replica holds (``turns.py``);
- ``r.<replica>.ping``: liveness (a replica that died has no responder, which NATS says at once).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["Subjects", "cluster_name", "decode", "encode"]


def cluster_name(bridge_token: str, http_token: str | None) -> str:
    """The cluster of replicas sharing these tokens (a digest: the tokens never reach NATS)."""
    digest = hashlib.sha256(f"mcp-actions\0{bridge_token}\0{http_token or ''}".encode()).hexdigest()
    return digest[:16]


class Subjects:
    """The NATS subjects of one cluster."""

    def __init__(self, cluster: str) -> None:
        self.prefix = f"mcpa.{cluster}"
        self.directory = f"{self.prefix}.dir"
        self.notes = f"{self.prefix}.note"

    def replica(self, replica_id: str, what: str) -> str:
        """``call``, ``ctl``, ``ev`` or ``ping`` of one replica."""
        return f"{self.prefix}.r.{replica_id}.{what}"

    def bucket(self, what: str) -> str:
        """A JetStream key-value bucket of this cluster (``sessions``)."""
        return f"mcpa_{self.prefix.split('.', 1)[1]}_{what}"


def encode(message: dict[str, Any]) -> bytes:
    """One message as JSON bytes."""
    return json.dumps(message, separators=(",", ":"), default=str).encode()


def decode(data: bytes) -> dict[str, Any]:
    """One message from JSON bytes (an empty object for anything that is not an object)."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
