"""The backplane's subjects and messages: who a cluster is, where each replica listens, how messages are encoded.

Replicas started with the same backplane secret (``--backplane-secret-file``)
form one cluster: its subjects are prefixed with a keyed digest of the
secret, and the part of a subject that names a replica is one too
(``seal.py``), so two deployments sharing one NATS do not even share
subjects, and a NATS client without the secret learns no replica's host from
them. Every message is one JSON object, sealed (``seal.py``) before it
reaches NATS.

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

import json
from typing import Any

from .seal import Seal

__all__ = ["Subjects", "decode", "encode"]


class Subjects:
    """The NATS subjects of one cluster (named by its ``Seal``)."""

    def __init__(self, seal: Seal) -> None:
        self._seal = seal
        self.prefix = f"mcpa.{seal.cluster}"
        self.directory = f"{self.prefix}.dir"
        self.notes = f"{self.prefix}.note"
        self._tags: dict[str, str] = {}

    def replica(self, replica_id: str, what: str) -> str:
        """``call``, ``ctl``, ``ev``, ``turn`` or ``ping`` of one replica (its id stands there as an opaque tag)."""
        tag = self._tags.get(replica_id)
        if tag is None:
            tag = self._tags[replica_id] = self._seal.tag(replica_id)
        return f"{self.prefix}.r.{tag}.{what}"

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
    except (ValueError, RecursionError):  # RecursionError: nested past the stack (UnicodeDecodeError is a ValueError)
        return {}
    return value if isinstance(value, dict) else {}
