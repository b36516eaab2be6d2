"""The attacker of the backplane tests: a plain nats-py client that reaches the replicas' NATS, without their secret.

It does what anyone on the NATS server can: subscribe to ``>`` and keep
every message (``Sniffer``), learn the replicas' subjects from the traffic
(``prefixes``, ``replica_subjects``: a replica's subjects differ only in their
last token, and replicas ping each other all the time), publish whatever it
likes on them, replay what it saw, and read the JetStream key-value store.
Nothing here knows the product's secret or imports the product.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import nats


@dataclass
class Seen:
    subject: str
    data: bytes
    reply: str


@dataclass
class Sniffer:
    """A NATS client subscribed to every subject, keeping what it saw."""

    url: str
    seen: list[Seen] = field(default_factory=list)
    nc: Any = None

    async def __aenter__(self) -> Sniffer:
        self.nc = await nats.connect(self.url, connect_timeout=2, allow_reconnect=False)

        async def keep(msg: Any) -> None:
            self.seen.append(Seen(msg.subject, bytes(msg.data), msg.reply or ""))

        await self.nc.subscribe(">", cb=keep)
        await self.nc.flush()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.nc.close()

    def everything(self) -> bytes:
        """Every subject, reply subject and payload seen, as one byte string to search."""
        return b"\n".join(s.subject.encode() + b" " + s.reply.encode() + b" " + s.data for s in self.seen)

    def prefixes(self) -> set[str]:
        """The replicas' subject prefixes seen (``mcpa.<cluster>``)."""
        return {".".join(s.subject.split(".")[:2]) for s in self.seen if s.subject.startswith("mcpa.")}

    def replica_subjects(self, what: str) -> set[str]:
        """Every replica's ``what`` subject (``call``, ``ev``…), made from any of its subjects seen."""
        found = set()
        for s in self.seen:
            parts = s.subject.split(".")
            if len(parts) == 5 and parts[0] == "mcpa" and parts[2] == "r":
                found.add(".".join([*parts[:4], what]))
        return found

    def of(self, suffix: str) -> list[Seen]:
        """The messages seen on subjects ending with ``suffix``."""
        return [s for s in self.seen if s.subject.endswith(suffix)]

    async def publish(self, subject: str, data: bytes, reply: str = "") -> None:
        await self.nc.publish(subject, data, reply=reply)
        await self.nc.flush()

    async def request(self, subject: str, data: bytes, timeout: float = 1.0) -> bytes | None:
        """A request's reply, or None when nobody answered in time (or nobody listens)."""
        try:
            return bytes((await self.nc.request(subject, data, timeout=timeout)).data)
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
            return None


def as_json(data: bytes) -> dict[str, Any] | None:
    """A captured payload as JSON, when it is readable (it is not, sealed)."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


async def kv_contents(url: str) -> dict[str, dict[str, bytes]]:
    """Every key-value bucket on the server, with every key and value, as a client of it reads them."""
    nc = await nats.connect(url, connect_timeout=2, allow_reconnect=False)
    try:
        js = nc.jetstream()
        out: dict[str, dict[str, bytes]] = {}
        for info in await js.streams_info():
            name = info.config.name or ""
            if not name.startswith("KV_"):
                continue
            kv = await js.key_value(name[3:])
            try:
                keys = await kv.keys()
            except Exception:  # an empty bucket has no keys to list
                keys = []
            out[name[3:]] = {key: bytes((await kv.get(key)).value or b"") for key in keys}
        return out
    finally:
        await nc.close()


async def soon(seconds: float = 0.3) -> None:
    """Let the replicas hear what was published."""
    await asyncio.sleep(seconds)
