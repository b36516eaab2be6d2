"""``tools/call`` of the MCP door: one call through ``ActionService.handle``, told as it goes, answered as MCP says.

An unknown tool is a JSON-RPC error; arguments that break the schema (refused before anything
reaches a page) and an action that ran and failed are results with ``isError``, which hosts show
to the model. The client hears ``call_started``, ``call_finished``, ``call_refused`` or
``call_failed`` in its log (``logs.py``), progress when it asked for it, and questions to its user
by elicitation (``confirm.py``). A bug is logged with the arguments masked and answered
``internal_error``; an answer that cannot be rendered says the action ran.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import mcp_types as types
from mcp.server.context import ServerRequestContext

from ..dispatch.call.guards import CallContext, InputRequired
from ..errors import ActionError, ErrorCode, UnknownTool
from ..page_chars import well_formed
from .confirm import confirmer, page_elicitor
from .logs import call_event, redacted, tell
from .peers import Peers
from .tools import error_result, mark_page_content, protocol_error, success_result

if TYPE_CHECKING:
    from ..actions_app import ActionsApp

__all__ = ["tool_caller"]

log = logging.getLogger(__name__)

Ctx = ServerRequestContext[dict[str, Any], Any]
CallHandler = Callable[[Ctx, types.CallToolRequestParams], Awaitable[types.CallToolResult | types.InputRequiredResult]]


def _progress_of(ctx: Ctx) -> Any:
    if not ctx.meta or ctx.meta.get("progress_token", ctx.meta.get("progressToken")) is None:
        return None

    async def progress(done: float, total: float | None, message: str) -> None:
        await ctx.session.report_progress(done, total, well_formed(message))

    return progress


def _client_name(ctx: Ctx) -> str | None:
    """The client's ``clientInfo.name``: from ``initialize``, or a 2026-07-28 request's envelope (the SDK fills both in)."""
    params = ctx.session.client_params
    return params.client_info.name if params is not None and params.client_info is not None else None


def tool_caller(app: ActionsApp, peers: Peers) -> CallHandler:
    """The ``tools/call`` handler of a server over ``app``."""

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
        peer = peers.seen(ctx)
        loop = asyncio.get_running_loop()
        started: list[float] = []  # set once the call passed its call-stage guards

        async def admitted(binding: Any) -> None:
            started.append(loop.time())
            await tell(ctx, peer, "info", {"event": "call_started", "tool": binding.name})

        context = CallContext(
            progress=_progress_of(ctx),
            elicit=page_elicitor(ctx),
            confirm=confirmer(ctx, params),
            request_id=str(ctx.request_id) if ctx.request_id is not None else None,
            via="tools/call",
            on_admitted=admitted,
            client=_client_name(ctx),
        )
        try:
            outcome = await app.service.handle(params.name, params.arguments, context)
        except UnknownTool as exc:
            await tell(ctx, peer, "warning", call_event("call_refused", params.name, exc))
            raise protocol_error(exc) from exc
        except InputRequired as ask:
            # A 2026-07-28 client asks its user and calls again with the answer (confirm.py raised it with its result).
            return cast(types.InputRequiredResult, ask.payload)
        except ActionError as exc:
            binding = app.catalog.get(params.name)
            if not started:
                # Refused before it ran (bad arguments, the user declined): a result the model reads
                # (MCP 2025-11-25, SEP-1303), not a JSON-RPC error it never sees.
                await tell(ctx, peer, "warning", call_event("call_refused", binding.name if binding else params.name, exc))
                return error_result(exc, binding)
            elapsed = int((loop.time() - started[0]) * 1000)
            await tell(ctx, peer, "warning", call_event("call_failed", binding.name if binding else params.name, exc, elapsed_ms=elapsed))
            return mark_page_content(error_result(exc, binding), binding) if binding is not None else error_result(exc)
        except asyncio.CancelledError:
            log.info("call of %s cancelled (by its client, or the server is stopping)", params.name)
            raise
        except Exception as exc:
            # A bug. Its message may quote the arguments, and the SDK would log it whole and
            # answer -32603: log where it happened with the values masked, answer internal_error.
            where = "".join(traceback.format_tb(exc.__traceback__)).rstrip()
            log.error("call of %s failed unexpectedly: %s: %s\n%s", params.name, type(exc).__name__, redacted(str(exc), params.arguments or {}), where)
            internal = ActionError(
                f"an unexpected failure inside mcp-actions ({type(exc).__name__}); where it happened is on the server's stderr",
                code=ErrorCode.INTERNAL_ERROR,
            )
            await tell(ctx, peer, "error", call_event("call_failed", params.name, internal))
            return error_result(internal)
        binding = outcome.binding
        assert binding is not None
        await tell(ctx, peer, "info", {"event": "call_finished", "tool": binding.name, "elapsed_ms": int((loop.time() - started[0]) * 1000)})
        try:
            result = success_result(outcome.output, binding, state_summary=outcome.state_summary, tab=outcome.tab, unchecked=outcome.unchecked)
        except Exception as exc:
            # The action ran: an answer we fail to render is our failure to show it, never the call's (dispatch/call/after_action.py).
            log.error("call of %s ran, but its answer could not be rendered: %s", params.name, type(exc).__name__, exc_info=True)
            result = types.CallToolResult(
                content=[types.TextContent(type="text", text=f"The action ran, but its output could not be shown ({type(exc).__name__}); it is done, do not repeat it.")],
                is_error=False,
            )
        return mark_page_content(result, binding)

    return call_tool
