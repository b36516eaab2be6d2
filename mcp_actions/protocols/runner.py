"""Running tools that pages declare through WebMCP, ABP or WAB.

``PageToolRunner.run`` is what dispatch calls for a tool whose protocol is not
actions.json, after the arguments passed the page's own schema. Each
protocol's call goes to the runtime as its page primitive with the page's
tool name and the arguments kept apart (``{"tool": name, "arguments": {...}}``
for ``webmcp.call``), so a page parameter can never rename the tool.

WebMCP: an imperative tool answers with what its ``execute`` returned; a
declarative one with what ``respondWith`` resolved to, or, when the
submission navigated, ``{"navigated": true, "page": {url, title, json_ld |
summary}}`` read from the next document with ``webmcp.page_result``. The
call carries the bridge's call id, so a tool's ``requestUserInteraction``
reaches ``elicit`` (``protocols/webmcp.py``) and cancelling the call reaches
the page (``toolcancel``, a foreign context's ``executeTool`` signal).

ABP: ``abp.call`` with the bridge's call id (the page's progress and
elicitation name it) and the caller's request id as the app's ``callId``;
progress reaches ``progress``, elicitation ``elicit`` (``protocols/abp.py``),
cancelling the call reaches the app's ``cancel``, and ABP error codes map
onto stable codes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..bridge.bridge import Bridge
from ..bridge.registry import RuntimeInfo
from ..catalog.catalog import ToolBinding
from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from ..workflow.progress import ProgressCallback
from .abp import Elicit, ElicitationBridge, map_abp_error, progress_handler
from .naming import site_namespace
from .wab import RateLimiter, map_wab_error, origin_of, transport_arguments
from .webmcp import UserInteractionBridge

__all__ = ["PageToolRunner", "page_name_of"]

log = logging.getLogger(__name__)

#: Codes under which the next document is not readable yet (still navigating or loading).
_NOT_YET = frozenset({ErrorCode.STATE_MISMATCH, ErrorCode.HANDLER_FAILED, ErrorCode.RUNTIME_NOT_READY, ErrorCode.TRANSPORT_FAILED})


def page_name_of(binding: ToolBinding, key: str) -> str:
    """The page's own name of a page-declared tool (bound in ``x_actions.binding.arguments``)."""
    tool = binding.tool
    name = tool.x_actions.bound_arguments.get(key) if tool is not None else None
    if not isinstance(name, str):
        raise ActionError(f"{binding.name} does not name its page tool", code=ErrorCode.MANIFEST_INVALID, evidence={"tool": binding.name, "field": key})
    return name


class PageToolRunner:
    """Runs page-declared tools through the bridge; one per application."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.rates = RateLimiter()

    async def run(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        runtime: RuntimeInfo,
        deadline: Deadline,
        *,
        progress: ProgressCallback | None = None,
        elicit: Elicit | None = None,
        request_id: str | None = None,
    ) -> Any:
        """Run one checked call of a page-declared tool on ``runtime``; its output or ``ActionError``.

        ``progress`` hears the page's progress, ``elicit`` asks the user what the page asks
        (None: the caller cannot ask), ``request_id`` is the caller's id of the call.
        """
        if binding.protocol == "webmcp":
            return await self._webmcp(binding, own, runtime, deadline, elicit)
        if binding.protocol == "wab":
            return await self._wab(binding, own, runtime, deadline)
        if binding.protocol == "abp":
            return await self._abp(binding, own, runtime, deadline, progress, elicit, request_id)
        raise ActionError(
            f"{binding.name} comes from {binding.protocol}, which this runtime cannot run",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"tool": binding.name, "capability": binding.protocol},
        )

    async def _webmcp(self, binding: ToolBinding, own: dict[str, Any], runtime: RuntimeInfo, deadline: Deadline, elicit: Elicit | None) -> Any:
        name = page_name_of(binding, "tool")
        call_id = self.bridge.new_call_id()
        output = await self.bridge.call(
            "webmcp.call",
            {"tool": name, "arguments": own, "call_id": call_id},
            runtime_id=runtime.runtime_id,
            timeout_ms=deadline.remaining_ms(),
            call_id=call_id,
            on_input=UserInteractionBridge(elicit, tool=name, site=site_namespace(runtime.url)),
        )
        if not isinstance(output, dict):
            return output
        if output.get("navigating"):
            page = await self._next_document(runtime, output.get("document"), deadline)
            return {"submitted": True, "navigated": True, "page": page}
        return output.get("result")

    async def _next_document(self, runtime: RuntimeInfo, document: Any, deadline: Deadline) -> Any:
        """``webmcp.page_result`` of the document after ``document``, retried while the tab navigates."""
        last: ActionError | None = None
        while not deadline.expired:
            try:
                return await self.bridge.call(
                    "webmcp.page_result", {"after_document": document}, runtime_id=runtime.runtime_id, timeout_ms=min(deadline.remaining_ms(), 2000)
                )
            except ActionError as exc:
                if exc.code not in _NOT_YET:
                    raise
                last = exc
            await asyncio.sleep(0.15)
        raise ActionError(
            "the form was submitted but the next page did not load in time",
            code=ErrorCode.HANDLER_TIMEOUT,
            evidence={"runtime_id": runtime.runtime_id, "last_error": last.code if last else None},
        )

    async def _abp(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        runtime: RuntimeInfo,
        deadline: Deadline,
        progress: ProgressCallback | None,
        elicit: Elicit | None,
        request_id: str | None,
    ) -> Any:
        capability = page_name_of(binding, "capability")
        call_id = self.bridge.new_call_id()
        arguments = {"capability": capability, "params": own, "call_id": call_id, "abp_call_id": request_id or call_id}
        try:
            return await self.bridge.call(
                "abp.call",
                arguments,
                runtime_id=runtime.runtime_id,
                timeout_ms=deadline.remaining_ms(),
                call_id=call_id,
                on_progress=progress_handler(progress),
                on_input=ElicitationBridge(elicit, capability=capability, site=site_namespace(runtime.url)),
            )
        except ActionError as exc:
            raise map_abp_error(exc, capability) from exc

    async def _wab(self, binding: ToolBinding, own: dict[str, Any], runtime: RuntimeInfo, deadline: Deadline) -> Any:
        command = page_name_of(binding, "command")
        tool = binding.tool
        x_wab = (tool.model_extra or {}).get("x_wab", {}) if tool is not None else {}
        if isinstance(x_wab, dict) and x_wab.get("permitted") is False:
            # WAB §4.5: refused here, before anything reaches the page.
            raise ActionError(
                f"the site does not permit {x_wab.get('permission')}, which command {command} ({x_wab.get('trigger')}) needs",
                code=ErrorCode.PERMISSION_DENIED,
                evidence={"command": command, "trigger": x_wab.get("trigger"), "permission": x_wab.get("permission"), "protocol": "wab", "wab_code": "PERMISSION_DENIED"},
            )
        site = origin_of(runtime.url) or runtime.runtime_id
        self.rates.check(site, binding_max_rate(binding))
        # Where the command goes (the site's HTTP endpoint, POSTed from the page, or a named page bridge).
        where = transport_arguments(tool.x_actions.bound_arguments if tool is not None else None)
        try:
            return await self.bridge.call(
                "wab.execute", {"command": command, "params": own, **where}, runtime_id=runtime.runtime_id, timeout_ms=deadline.remaining_ms()
            )
        except ActionError as exc:
            mapped = map_wab_error(exc, command)
            retry = mapped.evidence.get("retry_after_s") if isinstance(mapped.evidence, dict) else None
            if mapped.code == ErrorCode.RATE_LIMITED and isinstance(retry, (int, float)):
                self.rates.retry_after(site, float(retry))
            raise mapped from exc


def binding_max_rate(binding: ToolBinding) -> int:
    """The site's ``security.max_rate`` (commands per minute) kept on the tool, default 60."""
    tool = binding.tool
    x_wab = (tool.model_extra or {}).get("x_wab", {}) if tool is not None else {}
    rate = x_wab.get("max_rate") if isinstance(x_wab, dict) else None
    return rate if isinstance(rate, int) and not isinstance(rate, bool) and rate >= 1 else 60
