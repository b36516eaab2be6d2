"""A state projection compiled once: its JSONata expression, output schema, summaries and budgets.

``CompiledProjection.project`` turns extracted records into the state agents
read: the expression runs over ``{"records": {...}}`` (without an expression
the records are the state), the result is checked against ``output_schema``,
and every figure that reaches an agent is held to a byte budget:

- ``expression_output``: the expression's result, at most ``limits.max_projection_bytes``
  (summaries may condense a state too large to read whole);
- ``state``: the whole read result (state with its diagnostics), at most
  ``limits.max_state_bytes`` (checked by the service, which builds that result);
- ``summary:<name>``: a summary's value, at most its ``max_bytes`` (and ``limits.max_summary_bytes``).

An oversized value is ``state_payload_too_large`` naming the budget, the size
and the limit; it is never truncated, because half a document reads as a
smaller, wrong state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ActionError, ErrorCode
from ..jsonutil import json_size
from ..manifest.expressions import CompiledExpression, compile_slot
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..manifest.model import Projection
from ..schema_check import CompiledSchema

__all__ = ["DEFAULT_DELTA_KEYS", "CompiledProjection", "CompiledSummary", "check_budget"]

#: Record fields tried, in order, as the stable key of records in a list (``x_delta_keys`` overrides).
DEFAULT_DELTA_KEYS: tuple[str, ...] = ("id", "key")


def check_budget(value: Any, *, budget: str, max_bytes: int, projection: str) -> int:
    """The JSON size of ``value``; ``state_payload_too_large`` when it exceeds ``max_bytes``."""
    size = json_size(value)
    if size > max_bytes:
        raise ActionError(
            f"projection {projection!r}: {budget} is {size} bytes, over its {max_bytes}-byte budget; "
            "narrow the selectors or read a summary",
            code=ErrorCode.STATE_PAYLOAD_TOO_LARGE,
            evidence={"projection": projection, "budget": budget, "bytes": size, "max_bytes": max_bytes},
        )
    return size


@dataclass(frozen=True)
class CompiledSummary:
    """A declared summary: its expression over ``{"state": ...}`` and its byte budget."""

    name: str
    max_bytes: int
    expression: CompiledExpression
    description: str | None = None


class CompiledProjection:
    """One ``state_projections`` entry, ready to project records many times."""

    def __init__(self, projection: Projection, *, limits: Limits = DEFAULT_LIMITS) -> None:
        self.name = projection.name
        self.description = projection.description
        self.limits = limits
        snapshot = projection.snapshot
        self.entries: list[dict[str, Any]] = list(snapshot.get("extract") or [])
        spec = snapshot.get("projection")
        self.expression: CompiledExpression | None = compile_slot(spec["expression"]) if isinstance(spec, dict) else None
        schema = snapshot.get("output_schema")
        self.output_schema: dict[str, Any] | None = schema if isinstance(schema, dict) else None
        self._check = CompiledSchema(self.output_schema, label=f"the output_schema of projection {self.name}") if self.output_schema else None
        self.summaries: dict[str, CompiledSummary] = {}
        for raw in projection.summaries:
            max_bytes = min(int(raw.get("max_bytes") or limits.max_summary_bytes), limits.max_summary_bytes)
            self.summaries[raw["name"]] = CompiledSummary(raw["name"], max_bytes, compile_slot(raw["expression"]), raw.get("description"))
        extra = projection.model_extra or {}
        keys = extra.get("x_delta_keys")
        self.delta_keys: tuple[str, ...] = tuple(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else DEFAULT_DELTA_KEYS

    def project(self, records: dict[str, Any]) -> Any:
        """The state for ``records``: expression, budget, schema. Raises ``ActionError``."""
        if self.expression is None:
            state: Any = records
        else:
            try:
                state = self.expression.evaluate({"records": records})
            except ActionError as exc:
                raise ActionError(exc.message, code=exc.code, evidence={**exc.evidence, "projection": self.name, "field": "projection"}) from exc
        check_budget(state, budget="expression_output", max_bytes=self.limits.max_projection_bytes, projection=self.name)
        self.validate(state)
        return state

    def validate(self, state: Any) -> None:
        """Check ``state`` against ``output_schema``; ``invalid_result`` names the failing path."""
        if self._check is None:
            return
        failure = self._check.failure(state)
        if failure is not None:
            raise ActionError(
                f"projection {self.name!r} breaks its output_schema at {failure.path or '/'}: {failure.message}",
                code=ErrorCode.INVALID_RESULT,
                evidence={"projection": self.name, "path": failure.path, "errors": failure.errors},
            )

    def require_summary(self, name: str) -> CompiledSummary:
        """The declared summary ``name``; ``invalid_input`` listing the declared ones otherwise."""
        summary = self.summaries.get(name)
        if summary is None:
            raise ActionError(
                f"projection {self.name!r} declares no summary {name!r}",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": "/summary_name", "projection": self.name, "summary_name": name, "available": sorted(self.summaries)},
            )
        return summary

    def summary(self, name: str, state: Any) -> tuple[Any, int, int]:
        """(value, bytes, max_bytes) of summary ``name`` over ``state``; unknown names are ``invalid_input``."""
        summary = self.require_summary(name)
        try:
            value = summary.expression.evaluate({"state": state})
        except ActionError as exc:
            raise ActionError(exc.message, code=exc.code, evidence={**exc.evidence, "projection": self.name, "summary": name}) from exc
        size = check_budget(value, budget=f"summary:{name}", max_bytes=summary.max_bytes, projection=self.name)
        return value, size, summary.max_bytes

    def describe(self) -> dict[str, Any]:
        """Name, description and summaries, for listings."""
        return {
            "name": self.name,
            "description": self.description,
            "summaries": [{"name": s.name, "max_bytes": s.max_bytes, "description": s.description} for s in self.summaries.values()],
        }
