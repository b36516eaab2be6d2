"""ABP (Agentic Browser Protocol) on the host side: the protocol's object, error codes, elicitation, progress.

``ABP`` (a ``PageProtocol``, see ``page_protocol.py``): the page engine
(``runtimes/page/abp.js``) holds the session with the app and reports its
available capabilities under ``page_tools["abp"]``; ``abp_manifest`` makes
them one map of the runtime (through ``convert.abp``, as ``mcp-actions
convert`` does an ABP manifest); ``AbpRunner`` runs them through
``abp.call`` with the bridge's call id (the page's progress and elicitation
name it) and the caller's request id as the app's ``callId``; cancelling
the call reaches the app's ``cancel``. A running ``abp.call`` is given its
caller's means:

- ``map_abp_error``: a failed ``ABPResponse`` (``evidence.abp_code``) under
  our stable codes, the ABP code kept in the evidence;
- ``ElicitationBridge``: an app's ``elicit`` request (``elicitation/confirm``,
  ``elicitation/input``, ``elicitation/preference``, ``elicitation/select``)
  as one question to the user through an ``Elicit`` callback (the MCP layer
  asks with elicitation), answered with the spec's ``ElicitationResponse``.
  A decline, a cancel, a method we cannot ask, or no way to ask at all
  (``elicit`` None: the client has no elicitation) answers the app with a
  refusal: ``{"success": false, "error": {"code": ..., "retryable": false}}``;
- ``progress_handler``: the call's ``call_progress`` items as the caller's
  progress reports (monotonic, through ``ProgressReporter``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeGuard

from ..bridge.bridge import Bridge
from ..convert.abp import abp_to_actions
from ..errors import ActionError, ErrorCode
from ..jsonutil import as_object
from ..workflow.progress import ProgressCallback, ProgressReporter
from .naming import site_namespace
from .page_maps import marked, renamed
from .page_protocol import Discovery, Elicit, ElicitAnswer, PageProtocol, PageToolCall, SiteDocument

__all__ = ["ABP", "ABP_CODES", "AbpRunner", "Elicit", "ElicitAnswer", "ElicitationBridge", "abp_manifest", "map_abp_error", "progress_handler"]

log = logging.getLogger(__name__)

#: ABP's standard error codes (the API reference's table and the Error Handling reference's
#: session, capability, parameter, permission, execution, system and transport codes) and
#: the stable code each becomes; any other code is ``handler_failed``.
ABP_CODES: dict[str, ErrorCode] = {
    # session
    "NOT_INITIALIZED": ErrorCode.RUNTIME_NOT_READY,
    "SESSION_EXPIRED": ErrorCode.RUNTIME_NOT_READY,
    "SESSION_INVALID": ErrorCode.RUNTIME_NOT_READY,
    "ALREADY_INITIALIZED": ErrorCode.HANDLER_FAILED,
    # capability
    "UNKNOWN_CAPABILITY": ErrorCode.UNKNOWN_ACTION,
    "CAPABILITY_UNAVAILABLE": ErrorCode.CAPABILITY_UNAVAILABLE,
    "REQUIREMENT_NOT_MET": ErrorCode.STATE_MISMATCH,
    "PRECONDITION_FAILED": ErrorCode.STATE_MISMATCH,
    # parameters
    "INVALID_PARAMS": ErrorCode.INVALID_INPUT,
    "MISSING_PARAM": ErrorCode.INVALID_INPUT,
    "INVALID_TYPE": ErrorCode.INVALID_INPUT,
    # permission
    "PERMISSION_DENIED": ErrorCode.PERMISSION_DENIED,
    "PERMISSION_REQUIRED": ErrorCode.PERMISSION_DENIED,
    # execution
    "OPERATION_FAILED": ErrorCode.HANDLER_FAILED,
    "TIMEOUT": ErrorCode.HANDLER_TIMEOUT,
    "CANCELLED": ErrorCode.HANDLER_FAILED,
    "RATE_LIMITED": ErrorCode.RATE_LIMITED,
    "NOT_IMPLEMENTED": ErrorCode.MISSING_HANDLER,
    # system
    "NOT_SUPPORTED": ErrorCode.CAPABILITY_UNAVAILABLE,
    "BROWSER_ERROR": ErrorCode.HANDLER_FAILED,
    "INTERNAL_ERROR": ErrorCode.HANDLER_FAILED,
    # transport
    "TRANSPORT_ERROR": ErrorCode.TRANSPORT_FAILED,
    "DISCONNECTED": ErrorCode.TRANSPORT_FAILED,
}

#: Longest question text passed on to the user.
MAX_PROMPT_CHARS = 1000
_PRIMITIVE_TYPES = ("string", "number", "integer", "boolean")


def map_abp_error(exc: ActionError, capability: str) -> ActionError:
    """A page-side ABP failure under our stable code, the ABP code kept in ``evidence.abp_code``."""
    abp_code = exc.evidence.get("abp_code") if isinstance(exc.evidence, dict) else None
    if not isinstance(abp_code, str):
        return exc
    code = ABP_CODES.get(abp_code, ErrorCode.HANDLER_FAILED)
    return ActionError(exc.message, code=code, evidence={**exc.evidence, "capability": capability, "protocol": "abp"})


def progress_handler(callback: ProgressCallback | None) -> Callable[[float, float | None, str | None], Awaitable[None]] | None:
    """The bridge's ``on_progress`` for one call: ABP progress as the caller's progress reports."""
    if callback is None:
        return None
    reporter = ProgressReporter(callback)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        await reporter.report(progress, total, message or "")

    return on_progress


def _refusal(code: str, message: str, *, cancelled: bool = False) -> dict[str, Any]:
    response: dict[str, Any] = {"success": False, "error": {"code": code, "message": message, "retryable": False}}
    if cancelled:
        response["cancelled"] = True
    return response


def _text(value: Any) -> str:
    return str(value)[:MAX_PROMPT_CHARS] if value is not None else ""


def _primitive(schema: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(schema, dict) and schema.get("type") in _PRIMITIVE_TYPES


class _Question(NamedTuple):
    message: str
    schema: dict[str, Any]
    answer: Callable[[dict[str, Any]], Any]  # the form's content -> the ElicitationResponse's data


def _question(method: str, params: dict[str, Any]) -> _Question | None:
    """The MCP form of one ABP elicitation, or None when it cannot be asked as a form."""
    if method == "elicitation/confirm":
        message = _text(params.get("message") or params.get("prompt") or "Confirm?")
        if params.get("destructive") is True:
            message += " (this cannot be undone)"
        schema = {"type": "object", "properties": {"confirmed": {"type": "boolean", "title": "Confirm"}}, "required": ["confirmed"]}
        return _Question(message, schema, lambda c: {"confirmed": c.get("confirmed") is True})
    if method in ("elicitation/input", "elicitation/preference"):
        asked = params.get("schema")
        message = _text(params.get("prompt") or "Input requested")
        if _primitive(asked):
            field = {k: v for k, v in asked.items() if k in ("type", "enum", "minimum", "maximum", "minLength", "maxLength", "format", "description", "title")}
            if method == "elicitation/preference" and "default" in params:
                field["default"] = params["default"]
            return _Question(message, {"type": "object", "properties": {"value": field}, "required": ["value"]}, lambda c: {"value": c.get("value")})
        form = as_object(asked)
        props = form.get("properties") if form.get("type", "object") == "object" else None
        if isinstance(props, dict) and props and all(_primitive(p) for p in props.values()):
            schema = {"type": "object", "properties": props}
            if isinstance(form.get("required"), list):
                schema["required"] = form["required"]
            return _Question(message, schema, lambda c: {"value": c})
        return None
    if method == "elicitation/select":
        options = [o for o in params.get("options") or [] if isinstance(o, dict) and isinstance(o.get("value"), str)]
        if not options:
            return None
        choice: dict[str, Any] = {"type": "string", "oneOf": [{"const": o["value"], "title": _text(o.get("label") or o["value"])} for o in options]}
        if isinstance(params.get("default"), str):
            choice["default"] = params["default"]
        schema = {"type": "object", "properties": {"selected": choice}, "required": ["selected"]}
        return _Question(_text(params.get("prompt") or "Choose one"), schema, lambda c: {"selected": c.get("selected")})
    return None


class ElicitationBridge:
    """Answers one call's ABP elicitation requests (the bridge's ``on_input`` for ``abp.call``)."""

    def __init__(self, elicit: Elicit | None, *, capability: str, site: str) -> None:
        self.elicit = elicit
        self.capability = capability
        self.site = site

    async def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        """The ``ElicitationResponse`` for the app's ``request`` (``{protocol, method, params}``)."""
        method = request.get("method")
        params = as_object(request.get("params"))
        if self.elicit is None:
            return _refusal("NOT_SUPPORTED", "the agent's client cannot ask the user (no elicitation)")
        question = _question(method, params) if isinstance(method, str) else None
        if question is None:
            return _refusal("NOT_SUPPORTED", f"the agent cannot ask the user {method!r} with these parameters")
        # Page text reaches the user labelled as the page's, never as ours.
        message = f"{self.site} ({self.capability}) asks: {question.message}"
        answer = await self.elicit(message, question.schema)
        if answer.action != "accept":
            log.info("the user answered %s to %s's %s", answer.action, self.site, method)
            return _refusal("PERMISSION_DENIED", f"the user chose {answer.action}", cancelled=answer.action == "cancel")
        return {"success": True, "data": question.answer(answer.content or {})}


def abp_manifest(tools: list[dict[str, Any]], *, url: str | None, app: dict[str, Any] | None = None) -> dict[str, Any]:
    """The actions.json map of a page's available ABP capabilities (through ``convert.abp``)."""
    document = {"abp": "0.1", "app": app or {"id": site_namespace(url), "name": site_namespace(url)}, "capabilities": tools}
    return marked(renamed(abp_to_actions(document), url, "capability", "abp"))


def _maps(page_tools: list[dict[str, Any]] | None, *, url: str | None, site_document: SiteDocument | None = None) -> list[dict[str, Any]]:
    return [abp_manifest(page_tools, url=url)] if page_tools else []


class AbpRunner:
    """Runs ABP capabilities through ``abp.call``: progress, elicitation and ABP's error codes on the way back."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    async def run(self, call: PageToolCall) -> Any:
        """The capability's data, or ``ActionError`` under a stable code (the ABP code in ``evidence.abp_code``)."""
        capability = call.page_name
        call_id = self.bridge.new_call_id()
        arguments = {"capability": capability, "params": call.own, "call_id": call_id, "abp_call_id": call.request_id or call_id}
        try:
            return await self.bridge.call(
                "abp.call",
                arguments,
                runtime_id=call.runtime.runtime_id,
                timeout_ms=call.deadline.remaining_ms(),
                call_id=call_id,
                on_progress=progress_handler(call.progress),
                on_input=ElicitationBridge(call.elicit, capability=capability, site=site_namespace(call.runtime.url)),
                origin=call.origin,
            )
        except ActionError as exc:
            raise map_abp_error(exc, capability) from exc


#: ABP: an app's capabilities, from the session the page engine holds with it.
ABP = PageProtocol(
    name="abp",
    title="ABP",
    primitive="abp.call",
    name_key="capability",
    discovery=Discovery(page_tools=True),
    maps=_maps,
    make_runner=AbpRunner,
    convert=abp_to_actions,
)
