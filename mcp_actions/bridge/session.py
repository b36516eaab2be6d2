"""One runtime connection as the bridge sees it: items in, items out, in order.

A transport (the WebSocket server, an in-process runtime) gets a
``RuntimeSession`` from ``Bridge.connect`` and feeds it every frame the
runtime sends. The session parses each frame into an item, answers a bad one
with an ``action_error`` (it never raises for bad input), insists that
``runtime_ready`` comes first and that items name this connection's runtime,
and hands every accepted item to its ``SessionOwner`` (the bridge): a
running call's messages (``call_progress``, ``input_request``) to their own
hooks, everything else to ``on_runtime_item``. Items that travel from the
bridge to runtimes only (``action_call``, ``input_response``,
``action_cancel``) are refused with ``invalid_item``. Sends are serialised so
items leave in order on this connection.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

from ..errors import ActionError, ErrorCode
from .items import (
    ActionCall,
    ActionCancel,
    ActionErrorItem,
    CallProgress,
    InputRequest,
    InputResponse,
    OutgoingItem,
    RuntimeReady,
    error_body,
    parse_item,
)
from .registry import Trust
from .scope import owner_scope

__all__ = ["RuntimeLink", "RuntimeSession", "SessionOwner"]

log = logging.getLogger(__name__)


class RuntimeLink(Protocol):
    """The bridge's handle on one runtime's transport."""

    async def send(self, item: dict[str, Any]) -> None:
        """Deliver one bridge → runtime item; raise when the transport cannot."""

    async def close(self, reason: str) -> None:
        """Drop the connection (replaced, stale, shutting down)."""


class SessionOwner(Protocol):
    """What a session reports to the bridge that accepted it."""

    @property
    def max_item_bytes(self) -> int:
        """The largest item accepted, in bytes of UTF-8 JSON."""

    async def on_runtime_ready(self, session: RuntimeSession, item: RuntimeReady) -> None:
        """A ``runtime_ready`` arrived (the first, or a refresh on the same connection)."""

    def on_runtime_seen(self, session: RuntimeSession) -> bool:
        """The announced runtime sent an item; False when it was retired meanwhile (the item is dropped)."""

    async def on_runtime_item(self, session: RuntimeSession, item: Any) -> None:
        """A status, output, error or event item of the announced runtime; may raise ``ActionError`` to refuse it."""

    async def on_call_progress(self, session: RuntimeSession, item: CallProgress) -> None:
        """A running call's ``call_progress``."""

    def on_input_request(self, session: RuntimeSession, item: InputRequest) -> None:
        """A running call's ``input_request``; raises ``ActionError`` ``invalid_item`` when no such call runs here."""

    def on_session_closed(self, session: RuntimeSession, reason: str) -> None:
        """The connection is gone."""


class RuntimeSession:
    """One runtime connection: feed it what the runtime sends, close it when it drops."""

    def __init__(
        self,
        owner: SessionOwner,
        link: RuntimeLink,
        transport: str,
        *,
        authorization_id: str | None = None,
        trust: Trust = "operator",
        origin: str | None = None,
        agent_session: str | None = None,
    ) -> None:
        self.link = link
        self.transport = transport
        #: When this connection opened (wall clock): of two replicas holding a runtime, the newer connection is it.
        self.opened_at = time.time()
        #: The pairing this connection proved it holds (its secret was the token), None for the start token.
        self.authorization_id = authorization_id
        #: How the connection proved who it is (bridge/credentials.py); its runtime's ``RuntimeInfo.trust``.
        self.trust: Trust = trust
        #: The web page ``Origin`` its handshake carried (None: none, or a browser extension's page).
        self.origin = origin
        #: The agent session whose credential (or browser context) the connection came with; None: the operator's (bridge/scope.py).
        self.agent_session = agent_session
        #: A page runtime's own secret (given by the bridge, or presented and recognised): it alone takes the
        #: runtime back after a reconnect (bridge/identity.py). Sent in every ``runtime_config``.
        self.runtime_secret: str | None = None
        self.runtime_id: str | None = None
        self._owner = owner
        self._closed = False
        # Ids the runtime may use for itself beside its registered id (a reconnect that kept the key).
        self._aliases: set[str] = set()
        self._send_lock = asyncio.Lock()

    @property
    def closed(self) -> bool:
        """True once the connection was closed or replaced: nothing more is handled."""
        return self._closed

    def bind(self, runtime_id: str, *, announced_as: str | None = None) -> None:
        """Make this connection runtime ``runtime_id`` (it may keep calling itself ``announced_as``)."""
        self.runtime_id = runtime_id
        if announced_as is not None and announced_as != runtime_id:
            self._aliases.add(announced_as)

    def names_this_runtime(self, runtime_id: str | None) -> bool:
        """True when an item's ``runtime_id`` (None: absent) refers to this connection's runtime."""
        return runtime_id is None or runtime_id == self.runtime_id or runtime_id in self._aliases

    async def send(self, item: OutgoingItem) -> None:
        """Send one item (the link gets its ``dump()``); the lock keeps items in order on this connection."""
        async with self._send_lock:
            await self.link.send(item.dump())

    async def receive(self, frame: str | bytes | dict[str, Any]) -> None:
        """Handle one item from the runtime. Never raises for bad input: it answers it."""
        if self._closed:
            return
        try:
            item = parse_item(frame, max_bytes=self._owner.max_item_bytes)
            await self._dispatch(item)
        except ActionError as exc:
            await self.refuse(exc)

    async def refuse(self, exc: ActionError) -> None:
        """Answer something the runtime sent with an ``action_error`` (logged; a dead link is logged too)."""
        log.warning("refused item from %s: %s (%s)", self.runtime_id or "unannounced runtime", exc.message, exc.code)
        call_id = exc.evidence.get("call_id")
        reply = ActionErrorItem(
            type="action_error",
            error=error_body(exc),
            call_id=call_id if isinstance(call_id, str) else None,
            runtime_id=self.runtime_id or None,
        )
        try:
            await self.send(reply)
        except Exception as send_exc:
            log.info("could not send the refusal to %s: %s", self.runtime_id or "unannounced runtime", send_exc)

    async def _dispatch(self, item: Any) -> None:
        with owner_scope(self.agent_session):  # handled as its owning agent session's, whatever task reads it
            await self._dispatch_item(item)

    async def _dispatch_item(self, item: Any) -> None:
        if isinstance(item, RuntimeReady):
            await self._owner.on_runtime_ready(self, item)
            return
        if self.runtime_id is None:
            raise ActionError(
                "send runtime_ready before any other item",
                code=ErrorCode.RUNTIME_NOT_READY,
                evidence={"type": item.type, "call_id": getattr(item, "call_id", None)},
            )
        if not self._owner.on_runtime_seen(self):
            return
        runtime_id = getattr(item, "runtime_id", None)
        if not self.names_this_runtime(runtime_id):
            raise ActionError(
                f"item names runtime {runtime_id!r} but this connection is {self.runtime_id!r}",
                code=ErrorCode.INVALID_ITEM,
                evidence={"runtime_id": runtime_id},
            )
        if isinstance(item, (ActionCall, InputResponse, ActionCancel)):
            raise ActionError(
                f"{item.type} travels from the bridge to runtimes only",
                code=ErrorCode.INVALID_ITEM,
                evidence={"type": item.type, "call_id": item.call_id},
            )
        if isinstance(item, CallProgress):
            await self._owner.on_call_progress(self, item)
        elif isinstance(item, InputRequest):
            self._owner.on_input_request(self, item)
        else:
            await self._owner.on_runtime_item(self, item)

    def detach(self) -> None:
        """Stop handling this connection without reporting it closed (the bridge replaced it)."""
        self._closed = True

    async def close(self, reason: str = "disconnected") -> None:
        """The transport is gone: the bridge fails this connection's pending calls at once and deregisters it."""
        if self._closed:
            return
        self._closed = True
        self._owner.on_session_closed(self, reason)
