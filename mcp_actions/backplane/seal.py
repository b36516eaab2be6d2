"""The backplane's secret at work: every message between replicas sealed, every name on NATS opaque.

Replicas of one deployment share a secret (``--backplane-secret-file``,
docs/deploying.md). Nothing here is cryptography of our own: ``cryptography``'s
HKDF derives one key per purpose from the secret, AES-GCM seals, HMAC names.

- **Messages** (``seal``/``open``): each one is AES-GCM over its JSON and the
  time it was sealed, with the subject it is published on as associated data,
  so a message copied to another subject (another replica, another kind) does
  not open. A receiver refuses a message that does not open (another
  deployment, or a NATS client without the secret), one sealed too long ago
  or too far ahead (``WINDOW_S``), and one whose nonce it has seen already (a
  replay; nonces are remembered for twice the window, beyond which the time
  check refuses them anyway).
- **Replies** (``seal_reply``/``open_reply``): bound to the request they
  answer (its nonce is their associated data), so only an answer sealed for
  that very request is taken.
- **Records** (``seal_record``/``open_record``): the session records kept in
  JetStream key-value, under their own key, bound to the name they are
  stored under, with no time window (they live an hour).
- **Names** (``cluster``, ``tag``, ``record_name``): the subject prefix, the
  part of a subject that says which replica, and a session's key in the
  store are keyed digests (HMAC), so a NATS client without the secret learns
  neither a replica's host nor a session id, and two deployments with
  different secrets do not even share subjects.

A nonce is a random prefix chosen once per process and a counter, so no two
messages sealed by one process share one, however many it seals.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import struct
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["MIN_SECRET_BYTES", "WINDOW_S", "Refused", "Seal"]

#: A message sealed longer ago (or further ahead) than this is refused: replicas' clocks must agree within it.
WINDOW_S = 30.0
#: The shortest secret taken (``openssl rand -hex 32`` makes 64 characters).
MIN_SECRET_BYTES = 32

_VERSION = b"\x01"
_NONCE = 12
_HEADER = len(_VERSION) + _NONCE
_TIME = struct.Struct(">d")
_SALT = b"mcp-actions backplane"


class Refused(Exception):
    """A message the backplane does not take; ``reason`` says why in a few words (never what it held)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _derive(secret: bytes, purpose: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=f"mcp-actions/backplane/{purpose}/v1".encode()).derive(secret)


class Seal:
    """Seals and opens one deployment's messages, records and names (one per replica: it remembers nonces)."""

    def __init__(self, secret: bytes, *, window_s: float = WINDOW_S, clock: Callable[[], float] = time.time) -> None:
        if len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"the backplane secret must be at least {MIN_SECRET_BYTES} bytes")
        self._messages = AESGCM(_derive(secret, "messages"))
        self._records = AESGCM(_derive(secret, "records"))
        self._names = _derive(secret, "names")
        self.window_s = window_s
        self._clock = clock
        self._prefix = os.urandom(_NONCE - 6)
        self._counter = itertools.count(1)
        #: Nonces taken, in the order they came, with when (monotonic): forgotten after twice the window. An
        #: OrderedDict, whose oldest entry is found at once (a dict's first live entry is found by a scan).
        self._seen: OrderedDict[bytes, float] = OrderedDict()
        #: The deployment's name on NATS: its subjects' prefix and its bucket names.
        self.cluster = self._digest("cluster", "")[:24]

    # -- names ---------------------------------------------------------------

    def _digest(self, kind: str, name: str) -> str:
        return hmac.new(self._names, f"{kind}\0{name}".encode(), hashlib.sha256).hexdigest()

    def tag(self, name: str) -> str:
        """An opaque stand-in for ``name`` (a replica id) in a subject: the same on every replica, meaningless without the secret."""
        return self._digest("tag", name)[:20]

    def record_name(self, name: str) -> str:
        """The key a session record is stored under: a keyed digest of the session id, of no use on ``/mcp``."""
        return self._digest("record", name)

    # -- messages --------------------------------------------------------------

    def _nonce(self) -> bytes:
        counter = next(self._counter)
        if counter >= 1 << 48:  # never in practice; a fresh prefix keeps nonces unique even then
            self._prefix, self._counter = os.urandom(_NONCE - 6), itertools.count(1)
            counter = next(self._counter)
        return self._prefix + counter.to_bytes(6, "big")

    def _seal(self, aead: AESGCM, associated: bytes, body: bytes) -> bytes:
        nonce = self._nonce()
        return _VERSION + nonce + aead.encrypt(nonce, body, associated)

    def _open(self, aead: AESGCM, associated: bytes, data: bytes) -> bytes:
        if len(data) < _HEADER + 16 or data[:1] != _VERSION:
            raise Refused("not sealed with this deployment's secret")
        try:
            return aead.decrypt(data[1:_HEADER], data[_HEADER:], associated)
        except InvalidTag:
            raise Refused("not sealed with this deployment's secret") from None

    def seal(self, subject: str, message: dict[str, Any]) -> bytes:
        """``message`` sealed for ``subject`` and now."""
        return self._seal(self._messages, b"msg\0" + subject.encode(), _TIME.pack(self._clock()) + _json(message))

    def open(self, subject: str, data: bytes) -> dict[str, Any]:
        """The message ``data`` holds if it was sealed for ``subject`` by this deployment lately and never seen before; else ``Refused``."""
        return self._checked(data[1:_HEADER], self._open(self._messages, b"msg\0" + subject.encode(), data))

    def seal_reply(self, request: bytes, message: dict[str, Any]) -> bytes:
        """The answer to the sealed ``request``: it opens only as the answer to that request."""
        return self._seal(self._messages, b"reply\0" + request[1:_HEADER], _TIME.pack(self._clock()) + _json(message))

    def open_reply(self, request: bytes, data: bytes) -> dict[str, Any]:
        """The answer ``data`` holds if it was sealed for ``request``; else ``Refused``."""
        return self._checked(data[1:_HEADER], self._open(self._messages, b"reply\0" + request[1:_HEADER], data))

    def _checked(self, nonce: bytes, body: bytes) -> dict[str, Any]:
        (sealed_at,) = _TIME.unpack_from(body)
        if abs(self._clock() - sealed_at) > self.window_s:
            raise Refused(f"sealed {self._clock() - sealed_at:+.0f} s from now, outside the {self.window_s:g} s window (a replay, or clocks apart)")
        now = time.monotonic()
        self._forget(now)
        if nonce in self._seen:
            raise Refused("already taken once (a replay)")
        self._seen[nonce] = now
        try:
            message = json.loads(body[_TIME.size :])
        except (ValueError, RecursionError):
            raise Refused("not a message") from None
        if not isinstance(message, dict):
            raise Refused("not a message")
        return message

    def _forget(self, now: float) -> None:
        limit = now - 2 * self.window_s
        while self._seen:
            _, taken = next(iter(self._seen.items()))
            if taken >= limit:
                return
            self._seen.popitem(last=False)

    # -- records ---------------------------------------------------------------

    def seal_record(self, name: str, record: dict[str, Any]) -> bytes:
        """A session record sealed for the key it is stored under (``record_name``)."""
        return self._seal(self._records, b"record\0" + name.encode(), _json(record))

    def open_record(self, name: str, data: bytes) -> dict[str, Any]:
        """The record stored under ``name``; ``Refused`` when it was not sealed for that name by this deployment."""
        try:
            record = json.loads(self._open(self._records, b"record\0" + name.encode(), data))
        except (ValueError, RecursionError):
            raise Refused("not a record") from None
        if not isinstance(record, dict):
            raise Refused("not a record")
        return record


def _json(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), default=str).encode()
