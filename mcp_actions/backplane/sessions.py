"""Streamable-HTTP sessions in the backplane: the record any replica needs to serve a session it did not open.

The SDK keeps a streamable-HTTP session in the memory of the process that
answered its ``initialize``; behind a balancer without sticky sessions the
client's next request may reach another replica. What the handshake settled
(the client's ``initialize`` params and the protocol version) is kept here, in
the cluster's JetStream key-value bucket, so that replica can adopt the
session (``server/adopted_sessions.py``). A 2026-07-28 client needs none of
this: each of its requests carries what it is, and this server mints no
handles, so any replica serves it as it is.

Whoever reads the bucket without the deployment's secret learns nothing
usable: a record is stored under a keyed digest of its session id
(``Seal.record_name``), never the ``Mcp-Session-Id`` itself, and its value
is sealed for that name (``Seal.seal_record``), so it cannot be read, nor
moved to another session's name, nor forged.
"""

from __future__ import annotations

import logging
from typing import Any

from .seal import Refused, Seal

__all__ = ["SessionStore"]

log = logging.getLogger(__name__)


class SessionStore:
    """The cluster's streamable-HTTP sessions in a JetStream key-value bucket (``get`` and ``put`` never raise)."""

    def __init__(self, connection: Any, bucket: str, seal: Seal, *, max_age_s: float) -> None:
        """``connection()``: the NATS client, or None while there is none; ``seal``: the deployment's (names and seals
        the records); ``max_age_s``: how long an untouched record lives."""
        self._connection = connection
        self.bucket = bucket
        self._seal = seal
        self.max_age_s = max_age_s
        self._kv: Any = None
        self._kv_of: Any = None

    async def _bucket(self) -> Any:
        nc = self._connection()
        if nc is None:
            raise ConnectionError("the backplane is unreachable")
        if self._kv is None or self._kv_of is not nc:
            from nats.js.api import KeyValueConfig

            js = nc.jetstream()
            self._kv = await js.create_key_value(KeyValueConfig(bucket=self.bucket, history=1, ttl=self.max_age_s))
            self._kv_of = nc
        return self._kv

    def _forget_bucket(self, exc: Exception) -> None:
        """After a failure other than a missing key, look the bucket up again next time (NATS may have come back without it)."""
        if type(exc).__name__ != "KeyNotFoundError":
            self._kv = None

    async def get(self, session_id: str) -> dict[str, Any] | None:
        """The stored record of a session, or None (unknown, expired, or the backplane unreachable)."""
        name = self._seal.record_name(session_id)
        try:
            entry = await (await self._bucket()).get(name)
        except Exception as exc:
            self._forget_bucket(exc)
            log.debug("session record %s not found in the backplane: %s", name[:12], exc)
            return None
        try:
            return self._seal.open_record(name, bytes(entry.value or b""))
        except Refused as refusal:
            log.warning("backplane: refused a session record: %s; not adopted", refusal.reason)
            return None

    async def put(self, session_id: str, record: dict[str, Any]) -> bool:
        """Store (or refresh) a session's record; False when the backplane did not take it."""
        try:
            name = self._seal.record_name(session_id)
            await (await self._bucket()).put(name, self._seal.seal_record(name, record))
            return True
        except Exception as exc:
            self._forget_bucket(exc)
            # The record's name, never the session id: warnings reach every MCP client (server/logs.py).
            log.warning("could not store session record %s in the backplane (another replica cannot serve it): %s", self._seal.record_name(session_id)[:12], exc)
            return False

    async def delete(self, session_id: str) -> None:
        """Forget a session the client ended."""
        try:
            await (await self._bucket()).delete(self._seal.record_name(session_id))
        except Exception as exc:
            log.debug("could not delete session record %s from the backplane: %s", self._seal.record_name(session_id)[:12], exc)
