"""Where a workflow failure happened: the evidence every failure leaving the interpreter carries.

An agent recovering from a failed call needs to know which step's work was
under way, in which phase, with which primitive, whether trying again can
help, and how long the call ran. ``stamp`` adds those to an error's evidence
(keeping anything more specific the error already says); ``map_error`` turns
an expression's error into a ``WorkflowError`` naming step, field and phase.
"""

from __future__ import annotations

from typing import Any

from ..errors import ActionError, WorkflowError

__all__ = ["PHASES", "map_error", "stamp"]

#: Where in a step a failure happened (``evidence["phase"]``); ``workflow`` is before any step.
PHASES = ("workflow", "when", "for_each", "args", "primitive", "check", "retry_until", "after_each", "settle", "output")
# Phases in which naming the primitive helps (in the others no primitive was involved).
_PRIMITIVE_PHASES = frozenset({"primitive", "check", "retry_until", "after_each", "settle"})
# Expression fields whose failures belong to another phase than their own name.
_FIELD_PHASES = {"after_each.args": "after_each", "settle_after.locator": "settle"}


def stamp(exc: ActionError, step: str | None, phase: str, primitive: str | None, *, elapsed_ms: int) -> None:
    """Add ``step``, ``phase``, ``primitive``, ``retryable`` and ``elapsed_ms`` to ``exc.evidence`` where absent."""
    evidence = exc.evidence
    if step is not None:
        evidence.setdefault("step", step)
    evidence.setdefault("phase", phase)
    if primitive is not None and phase in _PRIMITIVE_PHASES:
        evidence.setdefault("primitive", primitive)
    evidence.setdefault("retryable", exc.recoverable)
    evidence.setdefault("elapsed_ms", elapsed_ms)


def map_error(exc: ActionError, step_id: str, field: str, index: int | None) -> WorkflowError:
    """An expression's ``ActionError`` as a fatal ``WorkflowError`` naming step, field and phase."""
    evidence: dict[str, Any] = {**exc.evidence, "step": step_id, "field": field, "phase": _FIELD_PHASES.get(field, field)}
    if index is not None:
        evidence["index"] = index
    return WorkflowError(exc.message, code=exc.code, severity=exc.severity, recoverable=False, evidence=evidence)
