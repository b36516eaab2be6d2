"""Asking the user before a call the map marks as needing confirmation (MCP elicitation).

A tool whose binding carries ``confirm`` (``x_actions.confirm``, or a related
check whose ``on_fail.contingency`` is ``handoff_to_user``) runs only after
the user said yes through the client:

- a handshake-era client with the elicitation capability gets an
  ``elicitation/create`` request while the call waits;
- a 2026-07-28 client with the capability gets an ``InputRequiredResult``
  carrying the same form, and retries the call with the answer under
  ``input_responses`` (the SDK client does this for its elicitation callback).

Declining, cancelling or answering "no" is ``permission_denied`` with
``evidence.reason: "declined"``; a client without elicitation is
``permission_denied`` with ``reason: "no_elicitation"``: the call never
reaches the page. The policy's ``confirm`` rules ask the same way
(``dispatch/call/policy.py``), with the tool, its page and its arguments in the question.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..catalog.catalog import ToolBinding
from ..dispatch.call.confirm_hint import way_on
from ..dispatch.call.guards import Confirmer, InputRequired
from ..errors import ActionError, ErrorCode
from ..page_chars import well_formed
from ..protocols.abp import Elicit, ElicitAnswer
from .peers import Peers

__all__ = ["CONFIRM_KEY", "CONFIRM_SCHEMA", "confirmer", "page_elicitor"]

log = logging.getLogger(__name__)

#: The key of our question in ``InputRequiredResult.input_requests`` and of its answer in ``input_responses``.
CONFIRM_KEY = "mcp-actions/confirm"
CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"allow": {"type": "boolean", "title": "Allow this action", "default": True}},
    "required": ["allow"],
}


def _denied(binding: ToolBinding, message: str, reason: str, **evidence: Any) -> ActionError:
    return ActionError(
        f"{binding.name} needs the user's confirmation: {message}",
        code=ErrorCode.PERMISSION_DENIED,
        recoverable=False,
        evidence={"tool": binding.name, "reason": reason, **evidence},
    )


def _can_elicit(ctx: ServerRequestContext[Any, Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def _judge(binding: ToolBinding, answer: types.ElicitResult) -> None:
    if answer.action != "accept":
        raise _denied(binding, f"the user chose {answer.action}", "declined", action=answer.action)
    if (answer.content or {}).get("allow") is False:
        raise _denied(binding, "the user answered no", "declined", action="accept")


def confirmer(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Confirmer:
    """How dispatch's confirmation and policy guards ask this call's user (``guards.Confirmer``).

    It returns when the user allowed the call, raises ``permission_denied`` when they
    did not (``reason: "declined"``) or cannot be asked (``reason: "no_elicitation"``),
    and for a 2026-07-28 client that has not answered yet raises ``InputRequired`` with
    the ``InputRequiredResult`` to return as the result. ``question`` is the policy's
    (the tool, its page and its arguments); without one the map's is asked.
    """

    async def confirm(binding: ToolBinding, question: str | None = None) -> None:
        by_policy = question is not None
        question = question or binding.confirm or f"Allow {binding.name}?"
        if not _can_elicit(ctx):
            if by_policy:
                how = f"; a policy rule {{\"tools\": \"{binding.name}\", \"decision\": \"allow\"}} (serve --policy) lets it run without asking"
                raise _denied(binding, f"the client cannot ask the user (no elicitation capability){how}", "no_elicitation")
            # The map asks: say how to go on (a policy rule, or the map's field), not only that it cannot.
            sentence, way = way_on(binding)
            raise _denied(binding, f"the client cannot ask the user (no elicitation capability); {sentence}", "no_elicitation", way_on=way)
        if Peers.is_modern(ctx):
            answer = (params.input_responses or {}).get(CONFIRM_KEY)
            if answer is None:
                form = types.ElicitRequestFormParams(message=question, requested_schema=CONFIRM_SCHEMA)
                raise InputRequired(types.InputRequiredResult(input_requests={CONFIRM_KEY: types.ElicitRequest(params=form)}))
            if not isinstance(answer, types.ElicitResult):
                raise _denied(binding, "the client's answer is not an elicitation result", "declined")
            _judge(binding, answer)
            return
        try:
            answer = await ctx.session.elicit_form(well_formed(question), CONFIRM_SCHEMA, related_request_id=ctx.request_id)
        except MCPError as exc:
            raise _denied(binding, f"the client could not ask the user ({exc.error.message})", "no_elicitation") from exc
        _judge(binding, answer)

    return confirm


def page_elicitor(ctx: ServerRequestContext[Any, Any]) -> Elicit | None:
    """How a page tool's question during this call reaches the user, or None when it cannot.

    A handshake-era client with elicitation is asked with ``elicitation/create``
    related to this call. A client without elicitation, and a 2026-07-28
    client (which is asked only through the call's result, not while the call
    runs), get None: the page hears a refusal.
    """
    if not _can_elicit(ctx) or Peers.is_modern(ctx):
        return None

    async def elicit(message: str, schema: dict[str, Any]) -> ElicitAnswer:
        try:
            answer = await ctx.session.elicit_form(well_formed(message), well_formed(schema), related_request_id=ctx.request_id)
        except MCPError as exc:
            log.info("the client could not ask the user: %s", exc.error.message)
            return ElicitAnswer("cancel")
        return ElicitAnswer(answer.action, dict(answer.content) if answer.content else None)

    return elicit
