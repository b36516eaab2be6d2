"""WebMCP on the host side: the protocol's object (``WEBMCP``), its map, its runner, and user interaction.

``WEBMCP`` (a ``PageProtocol``, see ``page_protocol.py``): the page engine
reports a page's WebMCP tools (``navigator.modelContext`` and declarative
forms) under ``page_tools["webmcp"]``; ``webmcp_manifest`` makes them one
map of the runtime; ``WebMcpRunner`` runs them through ``webmcp.call``.
WebMCP has no published documents, so nothing to convert.

An imperative tool answers with what its ``execute`` returned; a declarative
one with what ``respondWith`` resolved to, or, when the submission navigated,
``{"navigated": true, "page": {url, title, json_ld | summary}}`` read from the
next document with ``webmcp.page_result``. The call carries the bridge's call
id, so a tool's ``requestUserInteraction`` reaches ``elicit`` and cancelling
the call reaches the page (``toolcancel``, a foreign context's
``executeTool`` signal).

A page tool's ``execute(input, client)`` may call
``client.requestUserInteraction(callback)``: the page wants to involve the
user (a confirmation dialog, a choice in its own UI) before it goes on. The
page engine (``runtimes/page/webmcp_call.js``) sends that wish as an
``input_request`` ``{protocol: "webmcp", method: "requestUserInteraction",
tool}`` of the running call; ``UserInteractionBridge`` asks the user through
the caller's ``Elicit`` (MCP elicitation) whether the page may do so, worded
``<site> (<tool>) …``, and answers ``{"granted": true}`` when they accept,
after which the page runs its callback. A decline or a cancel answers
``{"granted": false, "reason": "declined" | "cancelled"}``, a client without
elicitation (``elicit`` None) ``{"granted": false, "reason":
"no_elicitation"}``: the page's promise rejects with a ``NotAllowedError``,
and a tool that lets it end its execute fails ``permission_denied`` with that
``evidence.reason``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from ..bridge.bridge import Bridge
from ..bridge.registry import RuntimeInfo
from ..deadline import Deadline
from ..errors import ActionError, ErrorCode
from .naming import page_tool_name, site_namespace
from .page_maps import marked, object_schema, surface, unique
from .page_protocol import Discovery, Elicit, PageProtocol, PageToolCall, SiteDocument

__all__ = ["INTERACTION_SCHEMA", "WEBMCP", "UserInteractionBridge", "WebMcpRunner", "webmcp_manifest"]

log = logging.getLogger(__name__)

#: Codes under which the next document is not readable yet (still navigating or loading).
_NOT_YET = frozenset({ErrorCode.STATE_MISMATCH, ErrorCode.HANDLER_FAILED, ErrorCode.RUNTIME_NOT_READY, ErrorCode.TRANSPORT_FAILED})

#: The one field the user answers: whether the page may ask them now.
INTERACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"allow": {"type": "boolean", "title": "Let the page ask you", "default": True}},
    "required": ["allow"],
}


def _refusal(reason: str, message: str) -> dict[str, Any]:
    return {"granted": False, "reason": reason, "message": message}


class UserInteractionBridge:
    """Answers one WebMCP call's ``requestUserInteraction`` wishes (the bridge's ``on_input`` for ``webmcp.call``)."""

    def __init__(self, elicit: Elicit | None, *, tool: str, site: str) -> None:
        self.elicit = elicit
        self.tool = tool
        self.site = site

    async def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        """``{"granted": true}`` when the user lets the page ask them; a refusal with its reason otherwise."""
        if request.get("method") != "requestUserInteraction":
            return _refusal("unsupported", f"the agent does not answer WebMCP {request.get('method')!r} requests")
        if self.elicit is None:
            return _refusal("no_elicitation", "the agent's client cannot ask the user (no elicitation)")
        message = (
            f"{self.site} ({self.tool}) wants to ask you something on its page before it goes on. "
            "Allow it, then answer on the page."
        )
        answer = await self.elicit(message, INTERACTION_SCHEMA)
        if answer.action != "accept":
            log.info("the user answered %s to %s's wish to ask (%s)", answer.action, self.site, self.tool)
            reason = "cancelled" if answer.action == "cancel" else "declined"
            return _refusal(reason, f"the user chose {answer.action}")
        if (answer.content or {}).get("allow") is False:
            return _refusal("declined", "the user answered no")
        return {"granted": True}


def webmcp_manifest(tools: list[dict[str, Any]], *, url: str | None) -> dict[str, Any]:
    """The actions.json map of a page's WebMCP tools (descriptors from ``webmcp.list_tools``)."""
    converted = []
    for tool in tools:
        name = tool["name"]
        entry: dict[str, Any] = {
            "name": page_tool_name(url, name),
            "description": tool.get("description") or f"WebMCP tool {name} of this page",
            "input_schema": object_schema(tool.get("inputSchema")),
            "x_actions": {"direction": "agent_to_html", "handler": "webmcp.call", "binding": {"arguments": {"tool": name}}},
            "x_webmcp": {"tool": name, "kind": tool.get("kind", "imperative")},
        }
        # The page's hints become MCP's: readOnlyHint as it is, the tool's title as the display title.
        hints: dict[str, Any] = {}
        annotations = tool.get("annotations")
        if isinstance(annotations, dict) and isinstance(annotations.get("readOnlyHint"), bool):
            hints["readOnlyHint"] = annotations["readOnlyHint"]
        if isinstance(tool.get("title"), str) and tool["title"].strip():
            hints["title"] = tool["title"].strip()[:200]
        if hints:
            entry["annotations"] = hints
        converted.append(entry)
    return marked(
        {
            "protocol": "actions.json",
            "version": 1,
            "surface": surface(url),
            "tools": unique(converted),
            "provenance": {"generated_by": "mcp-actions", "converted_from": "webmcp"},
        }
    )


def _maps(page_tools: list[dict[str, Any]] | None, *, url: str | None, site_document: SiteDocument | None = None) -> list[dict[str, Any]]:
    return [webmcp_manifest(page_tools, url=url)] if page_tools else []


class WebMcpRunner:
    """Runs WebMCP tools through ``webmcp.call`` (and reads a declarative tool's next page)."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    async def run(self, call: PageToolCall) -> Any:
        """The tool's answer: its ``execute`` result, or the page a declarative submission navigated to."""
        call_id = self.bridge.new_call_id()
        output = await self.bridge.call(
            "webmcp.call",
            {"tool": call.page_name, "arguments": call.own, "call_id": call_id},
            runtime_id=call.runtime.runtime_id,
            timeout_ms=call.deadline.remaining_ms(),
            call_id=call_id,
            on_input=UserInteractionBridge(call.elicit, tool=call.page_name, site=site_namespace(call.runtime.url)),
            origin=call.origin,
        )
        if not isinstance(output, dict):
            return output
        if output.get("navigating"):
            page = await self._next_document(call.runtime, output.get("document"), call.deadline)
            return {"submitted": True, "navigated": True, "page": page}
        if output.get("awaiting_user"):
            # A declarative form without toolautosubmit: filled, and sending it is the user's (issue 44).
            button = output.get("submit")
            return {"filled": True, "submitted": False, "waiting_for": "the user to submit the form" + (f" ({json.dumps(button, ensure_ascii=False)})" if button else "")}
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


#: WebMCP: tools the page registers (``navigator.modelContext``) or declares in forms.
WEBMCP = PageProtocol(
    name="webmcp",
    title="WebMCP",
    primitive="webmcp.call",
    name_key="tool",
    discovery=Discovery(page_tools=True),
    maps=_maps,
    make_runner=WebMcpRunner,
)
