"""Which runtime a connection becomes: identities are taken back by their owner, never by a claim.

A ``runtime_ready`` names a ``runtime_id`` and maybe a ``runtime_key``. When
no connected runtime holds them, the connection gets them. When one does, the
newcomer takes that runtime over (its old connection is replaced, its id, key
and page events carry on) only when it holds the same credential that runtime
was created with, its *owner*:

- ``host`` (this process's own runtimes): only another runtime of this process;
- ``pairing:<authorization_id>``: only a connection of the same pairing;
- ``operator`` (the start token, no web page's ``Origin``): only the start token;
- ``secret:<digest>`` (a page runtime): only a connection presenting the secret the bridge gave that
  runtime (``runtime_config.runtime_secret``), which also takes back an id that runtime held until
  its socket dropped (a *reservation*, kept for the last ``MAX_RESERVATIONS`` page runtimes that left).

Anyone else claiming a held id or key does not get it: the newcomer gets a fresh
id (``<trust>-<random>``) and no key, which the bridge logs and tells it in its
``runtime_config`` (``renamed``). Two exceptions keep squatting from paying: a
runtime of this process always gets its own id, and a proved runtime (host,
paired, operator) gets an id or key that only an unproved page runtime holds or
reserved; that page runtime is *evicted* (disconnected) first. So a page that
announced ``tab-2`` before the server opened its second tab, or
``chrome-tab:7`` before the extension shared tab 7, is dropped, not obeyed.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, field

from .registry import PROVED_TRUST, RuntimeInfo, RuntimeRegistry, Trust

__all__ = ["MAX_RESERVATIONS", "Claim", "IdentityBook", "owner_key"]

#: Page runtimes that left whose ids stay reserved for their secret (oldest forgotten first).
MAX_RESERVATIONS = 1024


def owner_key(trust: Trust, *, authorization_id: str | None = None, secret_digest: str | None = None) -> str | None:
    """The credential that owns what a connection of this trust creates (None: a page runtime without a secret yet)."""
    if trust == "host":
        return "host"
    if trust == "paired":
        return f"pairing:{authorization_id}"
    if trust == "operator":
        return "operator"
    return f"secret:{secret_digest}" if secret_digest else None


@dataclass(frozen=True)
class Claim:
    """What a connection announcing itself gets."""

    runtime_id: str
    runtime_key: str | None
    #: The runtime it takes back (its own, reconnecting): its old connection is replaced.
    previous: RuntimeInfo | None = None
    #: Unproved runtimes that held or reserved what a proved newcomer claimed: disconnected first.
    evict: tuple[str, ...] = ()
    #: Set when the announced id or key belonged to another credential: the refused ``runtime_id`` and/or
    #: ``runtime_key`` as announced, and the ``reason``.
    renamed: dict[str, str] = field(default_factory=dict)


class IdentityBook:
    """Who owns each runtime id: connected runtimes, and reservations of page runtimes that left."""

    def __init__(self, *, max_reservations: int = MAX_RESERVATIONS) -> None:
        self._owners: dict[str, str] = {}  # runtime id -> owner key (connected and reserved)
        self._trust: dict[str, Trust] = {}  # runtime id -> trust of its owner
        # The reserved ids alone, oldest first: only these are bounded, a connected runtime's entry never goes.
        self._reserved: OrderedDict[str, None] = OrderedDict()
        self._max_reservations = max_reservations

    def owner(self, runtime_id: str) -> str | None:
        """The owner key of a connected or reserved runtime id."""
        return self._owners.get(runtime_id)

    def id_owned_by(self, owner: str) -> str | None:
        """The runtime id a secret owner holds or reserved (a page runtime reconnecting finds its id by its secret)."""
        for runtime_id, held_by in self._owners.items():
            if held_by == owner:
                return runtime_id
        return None

    def claim(self, registry: RuntimeRegistry, *, trust: Trust, owner: str | None, runtime_id: str, runtime_key: str | None) -> Claim:
        """Decide what a connection of ``trust`` owned by ``owner`` gets for the id and key it announced."""
        if owner is not None and owner.startswith("secret:"):
            runtime_id = self.id_owned_by(owner) or runtime_id  # the id this secret was given, even if renamed
        evict: list[str] = []
        renamed: dict[str, str] = {}
        key_holder = registry.find_by_key(runtime_key) if runtime_key else None
        if key_holder is not None:
            if self._mine(key_holder.runtime_id, owner):
                return Claim(key_holder.runtime_id, runtime_key, previous=key_holder)
            if self._yields_to(key_holder.runtime_id, trust):
                evict.append(key_holder.runtime_id)
            else:
                renamed = {"runtime_key": runtime_key or "", "reason": f"runtime_key {runtime_key!r} belongs to another connection's credential"}
                runtime_key = None
        previous: RuntimeInfo | None = None
        id_holder = registry.get(runtime_id)
        if id_holder is not None and id_holder.runtime_id not in evict:
            if self._mine(runtime_id, owner):
                previous = id_holder
            elif self._yields_to(runtime_id, trust):
                evict.append(runtime_id)
            else:
                renamed = {"runtime_id": runtime_id, **renamed, "reason": f"runtime_id {runtime_id!r} belongs to another connection's credential"}
                runtime_id = self._fresh(trust, registry)
        elif id_holder is None and runtime_id in self._owners and not self._mine(runtime_id, owner):
            # A page runtime that left reserved this id for its secret.
            if self._yields_to(runtime_id, trust):
                self.forget(runtime_id)
            else:
                renamed = {"runtime_id": runtime_id, **renamed, "reason": f"runtime_id {runtime_id!r} is reserved for the page runtime that held it"}
                runtime_id = self._fresh(trust, registry)
        return Claim(runtime_id, runtime_key, previous=previous, evict=tuple(evict), renamed=renamed)

    def own(self, runtime_id: str, owner: str, trust: Trust) -> None:
        """Record that ``owner`` (of ``trust``) now holds ``runtime_id``."""
        self._reserved.pop(runtime_id, None)
        self._owners[runtime_id] = owner
        self._trust[runtime_id] = trust

    def left(self, runtime_id: str) -> None:
        """The runtime's connection is gone: a page runtime's id stays reserved for its secret, others are free."""
        owner = self._owners.get(runtime_id)
        if owner is None or not owner.startswith("secret:"):
            self.forget(runtime_id)
            return
        self._reserved[runtime_id] = None
        self._reserved.move_to_end(runtime_id)
        # Bounded: the oldest reservations go first; connected runtimes are not counted, nor ever dropped.
        while len(self._reserved) > self._max_reservations:
            self.forget(next(iter(self._reserved)))

    def forget(self, runtime_id: str) -> None:
        """Drop whatever is known of ``runtime_id``'s owner (evicted, or its reservation given up)."""
        self._owners.pop(runtime_id, None)
        self._trust.pop(runtime_id, None)
        self._reserved.pop(runtime_id, None)

    def _mine(self, runtime_id: str, owner: str | None) -> bool:
        return owner is not None and self._owners.get(runtime_id) == owner

    def _yields_to(self, runtime_id: str, trust: Trust) -> bool:
        """Whether what ``runtime_id``'s owner holds gives way to a newcomer of ``trust`` (see the module docstring)."""
        held = self._trust.get(runtime_id, "page")
        if trust == "host":
            return held != "host"
        return trust in PROVED_TRUST and held not in PROVED_TRUST

    @staticmethod
    def _fresh(trust: Trust, registry: RuntimeRegistry) -> str:
        while True:
            candidate = f"{trust}-{secrets.token_hex(6)}"
            if candidate not in registry:
                return candidate
