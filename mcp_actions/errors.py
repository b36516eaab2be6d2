"""One rooted error tree for mcp-actions.

Every error that reaches a user carries a stable ``code`` (the Actions Bridge
Protocol's codes where one fits) so agents and site owners can react
programmatically. Foreign errors (pydantic, httpx, Playwright, websockets) are
translated at the boundary with ``raise ... from exc``.

    ActionsError                 code, message, severity, recoverable, evidence
    ├── ManifestError            a manifest failed to load or validate (carries problems)
    ├── ActionError              a call failed: routing, runtime, handler, timeout, result
    │   └── WorkflowError        a workflow step failed (evidence names the step)
    └── UsageError               bad command-line usage or configuration

``ActionError.to_error()`` gives the ``error`` object of an ``action_error``
item, so one exception type travels from a runtime through the bridge to MCP.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ActionError",
    "ActionsError",
    "ErrorCode",
    "ManifestError",
    "UsageError",
    "WorkflowError",
]


class ErrorCode:
    """The stable error codes of the Actions Bridge Protocol, plus our own additions."""

    UNKNOWN_ACTION = "unknown_action"
    INVALID_INPUT = "invalid_input"
    RUNTIME_NOT_READY = "runtime_not_ready"
    PERMISSION_DENIED = "permission_denied"
    AMBIGUOUS_RUNTIME = "ambiguous_runtime"
    RUNTIME_NOT_FOUND = "runtime_not_found"
    CAPABILITY_UNAVAILABLE = "capability_unavailable"
    MISSING_HANDLER = "missing_handler"
    HANDLER_FAILED = "handler_failed"
    HANDLER_TIMEOUT = "handler_timeout"
    INVALID_RESULT = "invalid_result"
    TARGET_NOT_FOUND = "target_not_found"
    STATE_MISMATCH = "state_mismatch"
    DRIFT_DETECTED = "drift_detected"
    UNSAFE_STATE = "unsafe_state"
    TRANSPORT_FAILED = "transport_failed"
    # Additions: protocol hygiene on the bridge, and limits of the workflow language.
    INVALID_ITEM = "invalid_item"
    DUPLICATE_CALL_ID = "duplicate_call_id"
    ITEM_TOO_LARGE = "item_too_large"
    UNKNOWN_SIGNAL = "unknown_signal"
    INVALID_EVENT = "invalid_event"
    LIMIT_EXCEEDED = "limit_exceeded"
    EXPRESSION_FAILED = "expression_failed"
    MANIFEST_INVALID = "manifest_invalid"


class ActionsError(Exception):
    """Root of every error mcp-actions raises on purpose."""

    default_code = "error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        severity: str = "major",
        recoverable: bool = True,
        evidence: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code or self.default_code
        self.message = message
        self.severity = severity
        self.recoverable = recoverable
        self.evidence = dict(evidence or {})

    def to_error(self) -> dict[str, Any]:
        """The structured ``error`` object of an ``action_error`` item."""
        error: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "severity": self.severity,
            "recoverable": self.recoverable,
        }
        if self.evidence:
            error["evidence"] = self.evidence
        return error

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class ManifestError(ActionsError):
    """A manifest could not be loaded or is invalid; ``problems`` lists why."""

    default_code = ErrorCode.MANIFEST_INVALID

    def __init__(self, message: str, *, problems: list[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.problems = list(problems or [])


class ActionError(ActionsError):
    """A call failed: it was refused, could not be routed, or the runtime reported failure."""

    default_code = ErrorCode.HANDLER_FAILED

    @classmethod
    def from_error(cls, error: dict[str, Any]) -> ActionError:
        """Rebuild an ``ActionError`` from the ``error`` object of an ``action_error`` item."""
        return cls(
            str(error.get("message") or error.get("code") or "action failed"),
            code=str(error.get("code") or ErrorCode.HANDLER_FAILED),
            severity=str(error.get("severity") or "major"),
            recoverable=bool(error.get("recoverable", True)),
            evidence=error.get("evidence") if isinstance(error.get("evidence"), dict) else None,
        )


class WorkflowError(ActionError):
    """A workflow step failed; ``evidence['step']`` names it."""


class UsageError(ActionsError):
    """Bad command-line usage or configuration."""

    default_code = "usage_error"
