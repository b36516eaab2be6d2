"""NATS as the replicas use it: every message sealed going out, opened coming in, and what does not open refused aloud.

``SealedNats`` stands between the backplane's parts and the NATS client. What
they publish and request is sealed for its subject (``seal.py``); what comes
in on a subscription is opened before a handler sees it, and a message that
does not open (a NATS client without the secret, another deployment), one too
old or too far ahead, or one seen before (a replay) never reaches a handler:
it is dropped and said in a warning (``Refusals``) that names what kind of
message it was and why, never what it held.

Requests get their answers on an inbox of this replica's own, matched to the
request and opened as the answer to that very request (``Seal.open_reply``):
an answer sealed for another request, or forged by whoever reads the inbox's
subject, is refused and the request keeps waiting for the real one. A
request to a subject nobody listens on fails at once (NATS's "no
responders"), which is how a replica that died is known at once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .seal import Refused, Seal

__all__ = ["NoResponders", "Refusals", "SealedNats"]

log = logging.getLogger(__name__)

#: Refusals of one kind are said at once, then at most once in this many seconds (with how many there were).
REFUSAL_LOG_EVERY_S = 10.0
_NO_RESPONDERS = "503"


class NoResponders(ConnectionError):
    """Nobody listens on the subject a request went to (the replica it was for is gone)."""


class Refusals:
    """Warnings of refused messages: each kind at once, then counted, so a flood of forgeries does not flood the log."""

    def __init__(self, every_s: float = REFUSAL_LOG_EVERY_S) -> None:
        self.every_s = every_s
        self._last: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], int] = {}
        #: How many messages were refused, by what they claimed to be (for the status page and tests).
        self.counts: dict[str, int] = {}

    def refused(self, what: str, reason: str) -> None:
        """One message refused: ``what`` it came as (``a call``, ``a runtime announcement``…), ``reason`` in a few words."""
        self.counts[what] = self.counts.get(what, 0) + 1
        key = (what, reason)
        now = time.monotonic()
        if now - self._last.get(key, -self.every_s) < self.every_s:
            self._held[key] = self._held.get(key, 0) + 1
            return
        more = self._held.pop(key, 0)
        self._last[key] = now
        also = f" ({more} more like it since the last warning)" if more else ""
        log.warning("backplane: refused %s: %s; dropped unread%s", what, reason, also)


#: A handler of one kind of message: given the opened message, it may return the answer to send back.
Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


class SealedNats:
    """One replica's sealed use of its NATS connection (``attach`` it to each new client)."""

    def __init__(self, seal: Seal, refusals: Refusals | None = None) -> None:
        self.seal = seal
        self.refusals = refusals or Refusals()
        self._nc: Any = None
        self._inbox = ""
        self._tokens = itertools.count(1)
        self._waiting: dict[str, tuple[bytes, asyncio.Future[dict[str, Any]]]] = {}

    async def attach(self, nc: Any) -> None:
        """Use ``nc`` from now on, with this replica's inbox for answers (the client keeps it across reconnections)."""
        self._nc = nc
        self._inbox = nc.new_inbox()
        await nc.subscribe(f"{self._inbox}.*", cb=self._answered)

    async def listen(self, subject: str, what: str, handler: Handler) -> None:
        """Hand the messages sealed for ``subject`` to ``handler``; what it returns goes back to a request, sealed for it."""

        async def opened(msg: Any) -> None:
            try:
                message = self.seal.open(subject, msg.data)
            except Refused as refusal:
                self.refusals.refused(what, refusal.reason)
                return
            answer = await handler(message)
            if answer is not None and msg.reply:
                await msg.respond(self.seal.seal_reply(msg.data, answer))

        await self._nc.subscribe(subject, cb=opened)

    async def publish(self, subject: str, message: dict[str, Any]) -> None:
        """Publish ``message`` sealed for ``subject``."""
        await self._nc.publish(subject, self.seal.seal(subject, message))

    async def request(self, subject: str, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``message`` and wait for the one answer sealed for it (``NoResponders`` at once, ``TimeoutError`` after ``timeout``)."""
        data = self.seal.seal(subject, message)
        token = str(next(self._tokens))
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[token] = (data, answer)
        try:
            await self._nc.publish(subject, data, reply=f"{self._inbox}.{token}")
            async with asyncio.timeout(timeout):
                return await answer
        finally:
            self._waiting.pop(token, None)

    async def _answered(self, msg: Any) -> None:
        waiting = self._waiting.get(msg.subject.rsplit(".", 1)[-1])
        if waiting is None or waiting[1].done():
            return  # late (its request gave up) or a second answer: the first one counted
        request, answer = waiting
        if msg.headers and msg.headers.get("Status") == _NO_RESPONDERS:
            answer.set_exception(NoResponders("no replica answers on that subject"))
            return
        try:
            answer.set_result(self.seal.open_reply(request, msg.data))
        except Refused as refusal:
            self.refusals.refused("an answer to a request", refusal.reason)
