"""BAP's error codes, and the one table that maps our stable codes onto them (docs/bap.md, "Errors").

Every BAP error answer carries ``error.data`` as an object: the released Python client
(``browser-agent-protocol`` 0.9.0) reads ``data.get(...)`` and an ``error.data: null`` ends its
receive loop, so every later call of that client would time out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import ActionError, ErrorCode

__all__ = ["BAP_CODES", "BapError", "CODE_OF", "error_object", "naming"]

#: BAP's codes (the client's ``ErrorCodes``), by name.
BAP_CODES: dict[str, int] = {
    "ParseError": -32700,
    "InvalidRequest": -32600,
    "MethodNotFound": -32601,
    "InvalidParams": -32602,
    "InternalError": -32603,
    "ServerError": -32000,
    "NotInitialized": -32001,
    "AlreadyInitialized": -32002,
    "PageNotFound": -32011,
    "ElementNotFound": -32012,
    "ElementNotVisible": -32013,
    "ElementNotEnabled": -32014,
    "NavigationFailed": -32015,
    "Timeout": -32016,
    "TargetClosed": -32017,
    "SelectorAmbiguous": -32020,
    "ActionFailed": -32021,
    "ResourceLimitExceeded": -32024,
    "ApprovalDenied": -32030,
    "ApprovalTimeout": -32031,
    "ApprovalRequired": -32032,
    "DomainNotAllowed": -32041,
}

#: Our stable codes (``ErrorCode``) as BAP codes, with whether trying again may help. Anything else: ActionFailed.
CODE_OF: dict[str, tuple[str, bool]] = {
    ErrorCode.INVALID_INPUT: ("InvalidParams", False),
    ErrorCode.INVALID_LOCATOR: ("InvalidParams", False),
    ErrorCode.INVALID_KEY: ("InvalidParams", False),
    ErrorCode.UNKNOWN_TOOL: ("MethodNotFound", False),
    ErrorCode.UNKNOWN_ACTION: ("MethodNotFound", False),
    ErrorCode.RUNTIME_NOT_FOUND: ("PageNotFound", False),
    ErrorCode.AMBIGUOUS_RUNTIME: ("PageNotFound", False),
    ErrorCode.RUNTIME_NOT_READY: ("PageNotFound", True),
    ErrorCode.TARGET_NOT_FOUND: ("ElementNotFound", True),
    ErrorCode.TARGET_NOT_VISIBLE: ("ElementNotVisible", True),
    ErrorCode.TARGET_NOT_EDITABLE: ("ElementNotEnabled", False),
    ErrorCode.MULTIPLE_TARGETS: ("SelectorAmbiguous", False),
    # The policy judges origins: BAP's "domain not allowed" (never -32023, "context not found").
    ErrorCode.PERMISSION_DENIED: ("DomainNotAllowed", False),
    ErrorCode.HANDLER_TIMEOUT: ("Timeout", True),
    ErrorCode.TIMEOUT: ("Timeout", True),
    ErrorCode.TRANSPORT_FAILED: ("TargetClosed", True),
    ErrorCode.RATE_LIMITED: ("ResourceLimitExceeded", True),
    ErrorCode.CANCELLED: ("ServerError", True),
    ErrorCode.AUDIT_UNAVAILABLE: ("ServerError", True),
    ErrorCode.INTERNAL_ERROR: ("InternalError", False),
}


class BapError(Exception):
    """A BAP error answer: its code, message and ``data`` (``retryable``, ``details``, ``recoveryHint``…)."""

    def __init__(self, name: str, message: str, *, retryable: bool = False, details: dict[str, Any] | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = BAP_CODES[name]
        self.message = message
        self.data: dict[str, Any] = {"retryable": retryable}
        if details is not None:
            self.data["details"] = details
        if hint is not None:
            self.data["recoveryHint"] = hint
        retry_ms = (details or {}).get("evidence", {}).get("retry_after_ms") if isinstance((details or {}).get("evidence"), dict) else None
        if isinstance(retry_ms, int):
            self.data["retryAfterMs"] = retry_ms

    @classmethod
    def of(cls, exc: ActionError) -> BapError:
        """The BAP answer of a call the core refused or that failed: the code mapped, ours kept in ``details.code``."""
        name, retryable = CODE_OF.get(str(exc.code), ("ActionFailed", bool(getattr(exc, "recoverable", False))))
        details: dict[str, Any] = {"code": str(exc.code)}
        evidence = getattr(exc, "evidence", None)
        if evidence:
            details["evidence"] = evidence
        # A confirmation refused (bap/approvals.py) is BAP's approval error, not a domain the policy denies.
        said: dict[str, Any] = evidence if isinstance(evidence, dict) else {}
        reason = said.get("reason") if exc.code == ErrorCode.PERMISSION_DENIED else None
        if reason == "declined":
            name = "ApprovalDenied"
            details.update(reason="declined", rule=str(said.get("tool") or ""))
        elif reason == "no_elicitation":
            name = "ApprovalTimeout"
            details["timeout"] = int(said.get("timeout_ms") or 0)
        # The released client rebuilds some errors from these keys alone (its create_error_from_code), dropping the rest.
        if name == "DomainNotAllowed":
            details["domain"] = str(details.get("evidence", {}).get("origin") or details.get("evidence", {}).get("url") or "unknown")
        if name == "SelectorAmbiguous":
            details["count"] = int(said.get("match_count") or said.get("count") or 0)
            # The refs to choose from, as the door's own refusal of several locator matches gives them.
            details["candidates"] = [c["ref"] for c in said.get("candidates") or [] if isinstance(c, dict) and isinstance(c.get("ref"), str)]
        hint = "name one element: a ref from agent/observe, or a narrower selector" if name == "SelectorAmbiguous" else None
        if exc.code == ErrorCode.DIALOG_OPEN:
            hint = "answer the dialog with dialog/handle (accept or dismiss)"
        return cls(name, str(exc), retryable=retryable, details=details, hint=hint)

    @classmethod
    def unsupported(cls, what: str) -> BapError:
        """A method or option this server does not offer (yet): docs/bap.md lists them."""
        return cls("MethodNotFound", f"mcp-actions does not support {what} (docs/bap.md lists what it does)", details={"code": "unsupported"})

    def as_json(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` object (``data`` always an object)."""
        return error_object(self.code, self.message, self.data)


def error_object(code: int, message: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC ``error`` whose ``data`` is always an object (``{"retryable": false}`` at least)."""
    return {"code": code, "message": message, "data": data if data is not None else {"retryable": False}}


#: The errors about the element a selector named: the released client rebuilds them from ``details.selector``.
_ELEMENT_ERRORS = frozenset(BAP_CODES[name] for name in ("ElementNotFound", "ElementNotVisible", "ElementNotEnabled", "SelectorAmbiguous"))


@contextmanager
def naming(selector: Any) -> Iterator[None]:
    """An element error raised inside carries ``details.selector``, the selector the request gave.

    The released client builds ``BAPElementNotFoundError`` and its kin from ``details`` alone, so
    without the selector there the agent is told "Element not found" and not which one.
    """
    try:
        yield
    except BapError as exc:
        if exc.code in _ELEMENT_ERRORS and selector is not None:
            details = exc.data.setdefault("details", {})
            if isinstance(details, dict):
                details.setdefault("selector", selector)
        raise
