"""Confirmations asked of a BAP client: ``approval/required``, answered by ``approval/respond`` (docs/bap.md, "Confirmations").

A tool whose map asks for the user's yes (``x_actions.confirm``), or a policy rule that says
``confirm``, reaches the connection's ``Confirmer`` (``dispatch/call/guards.py``): it sends the
notification ``approval/required {requestId, originalRequest, rule, context, expiresAt}`` (the
released client's ``ApprovalRequiredParams``; ``rule`` is the question asked) and waits for
``approval/respond {requestId, decision}``. ``approve`` and ``approve-once`` let this call run;
``approve-session`` lets every later call of the same tool on this connection run without asking;
``deny`` refuses it. The refusals are MCP's: ``permission_denied`` with ``evidence.reason``
``declined`` (the client said no) or ``no_elicitation`` (nobody answered before ``expiresAt``),
recorded in the audit log as ``declined`` and ``denied``; the door answers them as BAP's
``ApprovalDenied`` (-32030) and ``ApprovalTimeout`` (-32031).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import ActionError, ErrorCode
from .errors import BapError

if TYPE_CHECKING:
    from ..catalog.catalog import ToolBinding
    from ..dispatch.call.guards import Confirmer

__all__ = ["APPROVAL_WAIT_MS", "Approvals"]

#: How long a question waits for its answer when the request names no ``timeout`` of its own.
APPROVAL_WAIT_MS = 60_000
_DECISIONS = frozenset({"approve", "approve-once", "approve-session", "deny"})


def _refused(binding: ToolBinding, message: str, reason: str, **evidence: Any) -> ActionError:
    # The words and codes of MCP's refusals (server/confirm.py): the audit log and the agent read the same.
    return ActionError(
        f"{binding.name} needs the user's confirmation: {message}",
        code=ErrorCode.PERMISSION_DENIED,
        recoverable=False,
        evidence={"tool": binding.name, "reason": reason, **evidence},
    )


class Approvals:
    """The questions one BAP connection was asked and not yet answered, and the tools it approved for the session."""

    def __init__(self, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[tuple[str, str | None]]] = {}
        self._session_approved: set[str] = set()

    def confirmer(self, request: dict[str, Any], wait_ms: int, context: Callable[[], Awaitable[dict[str, str]]]) -> Confirmer:
        """How the guards ask this connection about one BAP request (``request``: its method and params)."""

        async def confirm(binding: ToolBinding, question: str | None = None) -> None:
            if binding.name in self._session_approved:
                return
            rule = question or binding.confirm or f"Allow {binding.name}?"
            request_id = f"apr-{uuid.uuid4().hex[:16]}"
            answer: asyncio.Future[tuple[str, str | None]] = asyncio.get_running_loop().create_future()
            self._pending[request_id] = answer
            try:
                page = await context()
                params = {"requestId": request_id, "originalRequest": request, "rule": rule, "context": page, "expiresAt": int(time.time() * 1000) + wait_ms}
                await self._send({"jsonrpc": "2.0", "method": "approval/required", "params": params})
                try:
                    decision, reason = await asyncio.wait_for(asyncio.shield(answer), wait_ms / 1000)
                except TimeoutError:
                    raise _refused(binding, f"nobody answered approval/required {request_id} within {wait_ms} ms", "no_elicitation", timeout_ms=wait_ms) from None
            finally:
                self._pending.pop(request_id, None)
                if not answer.done():
                    answer.cancel()
            if decision == "deny":
                raise _refused(binding, "the client denied it" + (f" ({reason})" if reason else ""), "declined", action="deny")
            if decision == "approve-session":
                self._session_approved.add(binding.name)

        return confirm

    def respond(self, params: dict[str, Any]) -> dict[str, Any]:
        """``approval/respond {requestId, decision, reason?}``: the answer to one open question."""
        request_id, decision = params.get("requestId"), params.get("decision")
        if decision not in _DECISIONS:
            raise BapError("InvalidParams", f"decision is one of {sorted(_DECISIONS)}", details={"code": ErrorCode.INVALID_INPUT})
        answer = self._pending.get(request_id) if isinstance(request_id, str) else None
        if answer is None or answer.done():
            raise BapError("InvalidParams", f"no open approval request {request_id!r} (answered, expired, or never asked)", details={"code": ErrorCode.INVALID_INPUT})
        reason = params.get("reason")
        with contextlib.suppress(asyncio.InvalidStateError):
            answer.set_result((str(decision), reason if isinstance(reason, str) else None))
        return {"acknowledged": True}

    def close(self) -> None:
        """The connection went: every open question is unanswered."""
        for answer in self._pending.values():
            if not answer.done():
                answer.cancel()
        self._pending.clear()
