"""Immutable state of one workflow run: step records, the run's data, progress events.

The interpreter never mutates what an expression has already seen: each step
produces a new ``StepRecord`` and a new ``WorkflowState``; the data context an
expression evaluates against is derived from that state on demand. This keeps
retries honest (``retry_until`` sees exactly the attempt it judges) and makes
a run easy to reason about after the fact.

The data context has the shape the manifest spec promises::

    {"input": <tool input>,
     "steps": {<id>: {"output": ..., "skipped": bool, "attempts": int,
                      "items": [...]        # for_each steps only
                      "error": {...}        # on_error "continue" swallowed a failure
                      "settled": bool       # settle_after declared and the step ran
                      "settle_error": {...} # the settle wait did not succeed
                      }},
     "item": ..., "index": int}             # inside for_each only
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["StepEvent", "StepRecord", "StepStatus", "WorkflowState"]

StepStatus = Literal["started", "succeeded", "skipped", "failed"]


@dataclass(frozen=True)
class StepEvent:
    """Progress of one step, for ``run_workflow(on_step=...)``.

    ``index`` is the step's 0-based position among ``total`` steps (not a
    loop index); ``elapsed_ms`` counts from the start of the workflow run.
    """

    step_id: str
    index: int
    total: int
    status: StepStatus
    elapsed_ms: int


@dataclass(frozen=True)
class StepRecord:
    """What one step left behind, as later expressions see it under ``steps.<id>``.

    ``output`` is None when the step was skipped or failed under
    ``on_error: "continue"`` (then ``error`` says why). ``attempts`` counts
    calls of the step's own primitive (all loop items and retries together;
    ``after_each`` and settle calls are not counted).
    """

    step_id: str
    output: Any = None
    skipped: bool = False
    attempts: int = 0
    items: tuple[Any, ...] | None = None
    error: dict[str, Any] | None = None
    settled: bool | None = None
    settle_error: dict[str, Any] | None = None

    def as_data(self) -> dict[str, Any]:
        """The record as JSON data; optional keys appear only when they apply."""
        data: dict[str, Any] = {"output": self.output, "skipped": self.skipped, "attempts": self.attempts}
        if self.items is not None:
            data["items"] = list(self.items)
        if self.error is not None:
            data["error"] = dict(self.error)
        if self.settled is not None:
            data["settled"] = self.settled
        if self.settle_error is not None:
            data["settle_error"] = dict(self.settle_error)
        return data


@dataclass(frozen=True)
class WorkflowState:
    """The tool input and the records of the steps that have finished, in order."""

    input: Any
    records: tuple[StepRecord, ...] = field(default=())

    def with_record(self, record: StepRecord) -> WorkflowState:
        """A new state with ``record`` added, replacing an earlier record of the same step.

        Replacing (rather than appending a duplicate) is what lets a retrying
        step show ``retry_until`` its current attempt under its own id.
        """
        kept = tuple(existing for existing in self.records if existing.step_id != record.step_id)
        return WorkflowState(self.input, kept + (record,))

    def record(self, step_id: str) -> StepRecord | None:
        """The record of ``step_id``, or None when that step has not finished."""
        for record in self.records:
            if record.step_id == step_id:
                return record
        return None

    def context(self, **bindings: Any) -> dict[str, Any]:
        """The data an expression evaluates against; ``bindings`` adds ``item``/``index``."""
        data: dict[str, Any] = {
            "input": self.input,
            "steps": {record.step_id: record.as_data() for record in self.records},
        }
        data.update(bindings)
        return data
