"""Run a compiled ``workflow`` server-side, calling primitives on one runtime.

``run_workflow`` walks the steps in order. For each step it checks the
deadline, evaluates ``when``, expands ``for_each``, renders ``args`` from the
data context (see ``state.py``), calls the primitive through a
``PrimitiveCaller``, repeats it under ``retry_until`` (running ``after_each``
and letting the page settle between attempts, see ``pacing.py``), and paces
with ``settle_after``. Then it renders ``output``.

Decisions worth knowing (they are the contract of this module):

- Without an ``output`` field the workflow returns the *last step's* output
  (None when that step was skipped or failed under ``on_error: "continue"``).
- ``on_error`` governs failures of the page: a primitive's ``ActionError``,
  a step's own ``timeout_ms``, an ``after_each`` failure, ``retry_exhausted``.
  Failures of the map are always fatal whatever ``on_error`` says: an
  expression that fails (``expression_failed``) or outgrows its bound, and
  too many loop items (``limit_exceeded``). So is the overall deadline.
- Every failure that leaves ``run_workflow`` names where it happened:
  ``evidence`` has ``step``, ``phase`` (one of ``PHASES``), ``primitive``
  (when one was involved), ``retryable`` and ``elapsed_ms`` (plus ``index``
  inside loops). The error's ``code`` is the stable code.
- ``when`` is evaluated once per step, before any ``for_each`` expansion;
  filter items inside the ``for_each`` expression instead.
- In a loop, a failing item ends the step; under ``continue`` the step's
  output is None and ``error`` carries the loop ``index``.
- ``retry_until`` is evaluated with ``steps.<id>.output`` bound to the
  attempt just made. A *recoverable* primitive error during an attempt
  counts as an unsuccessful attempt (it is retried; ``steps.<id>.error``
  describes it to ``after_each``); a non-recoverable one fails the step.
  Between attempts, after ``after_each``, the page is given time to settle.
- A step's ``timeout_ms`` (0 = none) bounds each primitive call the step
  makes (every item and attempt, and ``after_each``), not the step as a whole.
- ``settle_after`` runs once, after the step succeeded with at least one
  call. Its own timeout never fails the workflow (the outcome is recorded as
  ``settled`` and ``settle_error``); the call's deadline passing during it
  fails the workflow naming *this* step and phase ``settle``.
- The deadline bounds everything; when it passes, the in-flight call is
  cancelled (``asyncio.timeout``) and ``handler_timeout`` names the step.
  Cancelling the task running the workflow stops it at once (between steps
  or inside any wait); nothing is left running.
- ``progress(progress, total, message)`` hears each step start (and each loop
  item and retry attempt, as fractions of the step) and the end.
- ``postcondition`` is not evaluated here (it needs the projection engine);
  ``CompiledWorkflow.postcondition`` keeps it for the caller.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..deadline import Deadline
from ..errors import ActionError, ErrorCode, WorkflowError
from ..jsonutil import json_size
from ..manifest.expressions import CompiledExpression, render_args
from .compiled import CompiledStep, CompiledWorkflow, WorkflowLimits
from .failures import PHASES, map_error, stamp
from .pacing import DeadlineReached, Pacer, PacingOptions
from .progress import ProgressCallback, ProgressReporter
from .state import StepEvent, StepRecord, StepStatus, WorkflowState

__all__ = [
    "PHASES",
    "CompiledWorkflow",
    "PacingOptions",
    "PrimitiveCaller",
    "ProgressCallback",
    "StepEvent",
    "WorkflowLimits",
    "jsonata_truthy",
    "run_workflow",
]

logger = logging.getLogger(__name__)

PrimitiveCaller = Callable[[str, dict[str, Any], int | None], Awaitable[Any]]
"""``(primitive_name, arguments, timeout_ms_remaining_or_None) -> output``; raises ``ActionError``."""

# How close to the deadline a runtime's own handler_timeout counts as the deadline's doing.
_DEADLINE_SLACK_S = 0.05


def jsonata_truthy(value: Any) -> bool:
    """Truthiness as JSONata's ``$boolean`` defines it (``[false]`` and ``{}`` are false)."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        return value != ""
    if isinstance(value, list):
        return any(jsonata_truthy(item) for item in value)
    if isinstance(value, dict):
        return len(value) > 0
    return False  # functions and other non-JSON values


#: Defaults of ``run_workflow`` (frozen values, shared by every run).
_DEFAULT_LIMITS = WorkflowLimits()
_DEFAULT_PACING = PacingOptions()


async def run_workflow(
    workflow: CompiledWorkflow,
    input: dict[str, Any],
    call: PrimitiveCaller,
    *,
    deadline: Deadline | None = None,
    limits: WorkflowLimits = _DEFAULT_LIMITS,
    on_step: Callable[[StepEvent], None] | None = None,
    progress: ProgressCallback | None = None,
    pacing: PacingOptions = _DEFAULT_PACING,
) -> Any:
    """Run ``workflow`` against ``input``, calling primitives through ``call``.

    ``deadline`` (the call's) bounds the whole run.
    Returns the rendered ``output`` (or the last step's output). Raises
    ``WorkflowError`` whose evidence names ``step``, ``phase``, ``primitive``,
    ``retryable`` and ``elapsed_ms`` (plus ``index`` inside loops); codes are
    the primitive's own, or ``handler_timeout``, ``retry_exhausted``,
    ``expression_failed``, ``limit_exceeded``.
    """
    run = _Run(workflow, input, call, deadline, limits, on_step, ProgressReporter(progress), pacing)
    return await run.execute()


class _StepFailed(Exception):
    """Internal: a page-side step failure that ``on_error``/retries may absorb."""

    def __init__(self, error: WorkflowError, attempts: int = 0) -> None:
        super().__init__(error.message)
        self.error = error
        self.attempts = attempts


class _Run:
    """The driver of one run: the workflow, its clock, and the current frozen state."""

    def __init__(
        self,
        workflow: CompiledWorkflow,
        input: dict[str, Any],
        call: PrimitiveCaller,
        deadline: Deadline | None,
        limits: WorkflowLimits,
        on_step: Callable[[StepEvent], None] | None,
        progress: ProgressReporter,
        pacing: PacingOptions,
    ) -> None:
        self.workflow = workflow
        self.call = call
        self.deadline = deadline
        self.limits = limits
        self.on_step = on_step
        self.progress = progress
        self.pacer = Pacer(call, self._time_left, pacing)
        self.started = time.monotonic()
        self.state = WorkflowState(input)
        # Where the run is: (step, phase, primitive); failures are stamped with it.
        self.where: tuple[str | None, str, str | None] = (None, "workflow", None)

    # -- the run ---------------------------------------------------------

    async def execute(self) -> Any:
        """Run every step in order, then render the output."""
        try:
            return await self._execute()
        except ActionError as exc:
            self._stamp(exc)
            raise

    async def _execute(self) -> Any:
        steps = self.workflow.steps
        if len(steps) > self.limits.max_steps:
            raise WorkflowError(
                f"workflow has {len(steps)} steps; the limit is {self.limits.max_steps}",
                code=ErrorCode.LIMIT_EXCEEDED,
                evidence={"steps": len(steps), "max_steps": self.limits.max_steps},
            )
        total = len(steps)
        for position, step in enumerate(steps):
            self.where = (step.id, "when", None)
            left = self._time_left()
            if left is not None and left <= 0:
                self._emit(step, position, "failed")
                raise self._deadline_error(step, None)
            await self.progress.report(position, total, f"step {step.id} ({step.primitive})")
            record = await self._run_step(step, position)
            self.state = self.state.with_record(record)
        self.where = (None, "output", None)
        result = self._render_output()
        await self.progress.report(total, total, "done")
        return result

    def _stamp(self, exc: ActionError) -> None:
        """Add where and when a failure happened to its evidence (keeping what it says already)."""
        stamp(exc, *self.where, elapsed_ms=self._elapsed_ms())

    async def _run_step(self, step: CompiledStep, position: int) -> StepRecord:
        """Run one step and return its record; raises on fatal failure."""
        context = self.state.context()
        try:
            runs = step.when is None or jsonata_truthy(self._evaluate(step, "when", step.when, context))
        except ActionError:
            self._emit(step, position, "failed")
            raise
        if not runs:
            logger.debug("workflow step %s skipped", step.id)
            self._emit(step, position, "skipped")
            return StepRecord(step.id, skipped=True)
        self._emit(step, position, "started")
        items: tuple[Any, ...] | None = None
        try:
            if step.for_each is not None:
                self.where = (step.id, "for_each", None)
                items = tuple(self._loop_items(step, context))
                outputs, attempts = await self._run_items(step, position, items)
                record = StepRecord(step.id, output=outputs, attempts=attempts, items=items)
            else:
                output, attempts = await self._attempt(step, position, {}, None)
                record = StepRecord(step.id, output=output, attempts=attempts)
        except _StepFailed as failed:
            self._emit(step, position, "failed")
            if step.on_error != "continue":
                self._stamp(failed.error)
                raise failed.error from failed.error.__cause__
            logger.info("workflow step %s failed (%s); continuing", step.id, failed.error.code)
            error = {"code": failed.error.code, "message": failed.error.message}
            if "index" in failed.error.evidence:
                error["index"] = failed.error.evidence["index"]
            return StepRecord(step.id, attempts=failed.attempts, items=items, error=error)
        except ActionError:
            # Fatal whatever on_error says: the deadline, expressions, limits.
            self._emit(step, position, "failed")
            raise
        if step.settle_after is not None and record.attempts > 0:
            self.where = (step.id, "settle", None)
            settle = step.settle_after
            locator = None
            if settle.locator is not None:
                locator = self._render(step, "settle_after.locator", settle.locator, self.state.context(), None)
                self.where = (step.id, "settle", "locator.wait_for")
            try:
                settled, settle_error = await self.pacer.settle_after(settle, locator)
            except DeadlineReached:
                self._emit(step, position, "failed")
                raise self._deadline_error(step, None) from None
            record = StepRecord(
                step.id,
                output=record.output,
                attempts=record.attempts,
                items=record.items,
                settled=settled,
                settle_error=settle_error,
            )
        self._emit(step, position, "succeeded")
        return record

    def _loop_items(self, step: CompiledStep, context: dict[str, Any]) -> list[Any]:
        """Evaluate ``for_each`` into a list and enforce the item bound (never truncate)."""
        assert step.for_each is not None and step.max_items is not None
        collection = self._evaluate(step, "for_each", step.for_each, context)
        if collection is None:
            items: list[Any] = []
        elif isinstance(collection, list):
            items = list(collection)
        else:
            items = [collection]  # JSONata yields a lone match as a value, not an array
        bound = min(step.max_items, self.limits.max_loop_items)
        if len(items) > bound:
            raise WorkflowError(
                f"step {step.id!r}: for_each yielded {len(items)} items; the limit is {bound}",
                code=ErrorCode.LIMIT_EXCEEDED,
                evidence={"step": step.id, "field": "for_each", "items": len(items), "max_items": bound},
            )
        return items

    async def _run_items(self, step: CompiledStep, position: int, items: tuple[Any, ...]) -> tuple[list[Any], int]:
        """Run the step once per item; returns the outputs and the total attempts."""
        outputs: list[Any] = []
        attempts = 0
        total = len(self.workflow.steps)
        for index, item in enumerate(items):
            if index:
                await self.progress.report(position + index / len(items), total, f"step {step.id} item {index + 1}/{len(items)}")
            try:
                output, used = await self._attempt(step, position, {"item": item, "index": index}, index)
            except _StepFailed as failed:
                failed.attempts += attempts
                raise
            outputs.append(output)
            attempts += used
        return outputs, attempts

    async def _attempt(self, step: CompiledStep, position: int, bindings: dict[str, Any], index: int | None) -> tuple[Any, int]:
        """Call the step's primitive, repeating under ``retry_until``; returns (output, attempts)."""
        last_error: WorkflowError | None = None
        total = len(self.workflow.steps)
        for attempt in range(1, step.max_attempts + 1):
            if attempt > 1:
                share = (attempt - 1) / step.max_attempts
                await self.progress.report(position + share * 0.999, total, f"step {step.id} attempt {attempt}/{step.max_attempts}")
            self.where = (step.id, "args", None)
            args = self._render(step, "args", step.args, self.state.context(**bindings), index)
            try:
                output = await self._call(step, "primitive", step.primitive, args, index)
            except _StepFailed as failed:
                if step.retry_until is None or not failed.error.recoverable:
                    failed.attempts = attempt
                    raise
                last_error = failed.error
                error = {"code": failed.error.code, "message": failed.error.message}
                judged = StepRecord(step.id, output=None, attempts=attempt, error=error)
            else:
                if step.check is not None:
                    self._check(step, output, bindings, index)
                if step.retry_until is None:
                    return output, attempt
                last_error = None
                judged = StepRecord(step.id, output=output, attempts=attempt)
                self.where = (step.id, "retry_until", None)
                context = self.state.with_record(judged).context(**bindings)
                if jsonata_truthy(self._evaluate(step, "retry_until", step.retry_until, context, index)):
                    return output, attempt
            if attempt < step.max_attempts:
                await self._between_attempts(step, judged, bindings, index, attempt)
        evidence: dict[str, Any] = {"step": step.id, "attempts": step.max_attempts, "primitive": step.primitive}
        if index is not None:
            evidence["index"] = index
        if last_error is not None:
            evidence["last_error"] = {"code": last_error.code, "message": last_error.message}
        self.where = (step.id, "retry_until", step.primitive)
        raise _StepFailed(
            WorkflowError(
                f"step {step.id!r}: retry_until still false after {step.max_attempts} attempts",
                code=ErrorCode.RETRY_EXHAUSTED,
                evidence=evidence,
            ),
            attempts=step.max_attempts,
        )

    async def _between_attempts(
        self, step: CompiledStep, judged: StepRecord, bindings: dict[str, Any], index: int | None, attempt: int
    ) -> None:
        """Run ``after_each`` (when declared), then let the page settle before the next attempt."""
        if step.after_each is not None:
            self.where = (step.id, "after_each", step.after_each.primitive)
            context = self.state.with_record(judged).context(**bindings)
            after_args = self._render(step, "after_each.args", step.after_each.args, context, index)
            try:
                await self._call(step, "after_each", step.after_each.primitive, after_args, index)
            except _StepFailed as failed:
                failed.attempts = attempt
                raise
        self.where = (step.id, "settle", "dom.settle")
        try:
            await self.pacer.between_attempts()
        except DeadlineReached:
            raise self._deadline_error(step, index) from None

    def _check(self, step: CompiledStep, output: Any, bindings: dict[str, Any], index: int | None) -> None:
        """Fail the step with ``state_mismatch`` when its output does not meet its ``check``."""
        assert step.check is not None
        self.where = (step.id, "check", step.primitive)
        context = self.state.with_record(StepRecord(step.id, output=output, attempts=1)).context(**bindings)
        if jsonata_truthy(self._evaluate(step, "check", step.check, context, index)):
            return
        evidence: dict[str, Any] = {"step": step.id, "primitive": step.primitive, "expected": step.check.source, "observed": output}
        if index is not None:
            evidence["index"] = index
        raise _StepFailed(WorkflowError(
            f"step {step.id!r}: the page does not meet {step.check.source}", code=ErrorCode.STATE_MISMATCH, evidence=evidence
        ))

    # -- calls and time ---------------------------------------------------

    async def _call(self, step: CompiledStep, phase: str, primitive: str, args: dict[str, Any], index: int | None) -> Any:
        """One primitive call bounded by the step timeout and the deadline.

        Raises ``_StepFailed`` for the page's failures and a fatal
        ``WorkflowError`` when the deadline passes.
        """
        self.where = (step.id, phase, primitive)
        left = self._time_left()
        if left is not None and left <= 0:
            raise self._deadline_error(step, index)
        step_bound = step.timeout_ms / 1000 if step.timeout_ms is not None else None
        deadline_governs = left is not None and (step_bound is None or left <= step_bound)
        bound = left if deadline_governs else step_bound
        timeout_ms = int(bound * 1000) if bound is not None else None
        if timeout_ms is not None and timeout_ms <= 0:
            # Less than a millisecond left: the deadline's doing, not a call sent with nothing to run in.
            raise self._deadline_error(step, index)
        try:
            async with asyncio.timeout(bound) as scope:
                return await self.call(primitive, args, timeout_ms)
        except TimeoutError as exc:
            if not scope.expired():
                raise  # a TimeoutError of the caller's own making, not ours
            if deadline_governs:
                raise self._deadline_error(step, index) from exc
            evidence = {"step": step.id, "primitive": primitive, "timeout_ms": step.timeout_ms}
            if index is not None:
                evidence["index"] = index
            raise _StepFailed(
                WorkflowError(
                    f"step {step.id!r}: {primitive} did not finish within {step.timeout_ms} ms",
                    code=ErrorCode.HANDLER_TIMEOUT,
                    evidence=evidence,
                )
            ) from exc
        except ActionError as exc:
            # The bridge enforces the (rounded-down) ms we handed it and may report
            # handler_timeout a hair before our own timer fires; the deadline is
            # the truer explanation then.
            left = self._time_left()
            ran_out = exc.code == ErrorCode.HANDLER_TIMEOUT and deadline_governs and left is not None
            if left is not None and (left <= 0 or (ran_out and left <= _DEADLINE_SLACK_S)):
                raise self._deadline_error(step, index) from exc
            evidence = {**exc.evidence, "step": step.id, "primitive": primitive, "phase": phase}
            if index is not None:
                evidence["index"] = index
            error = WorkflowError(
                exc.message, code=exc.code, severity=exc.severity, recoverable=exc.recoverable, evidence=evidence
            )
            error.__cause__ = exc
            raise _StepFailed(error) from exc

    def _time_left(self) -> float | None:
        """Seconds until the deadline, or None without one."""
        return None if self.deadline is None else self.deadline.seconds_left

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)

    def _deadline_error(self, step: CompiledStep, index: int | None) -> WorkflowError:
        """``handler_timeout`` naming the step and phase whose work was under way."""
        _, phase, primitive = self.where
        evidence: dict[str, Any] = {"step": step.id, "phase": phase, "elapsed_ms": self._elapsed_ms()}
        if index is not None:
            evidence["index"] = index
        if primitive is not None:
            evidence["primitive"] = primitive
        return WorkflowError(
            f"workflow deadline passed during step {step.id!r} ({phase})",
            code=ErrorCode.HANDLER_TIMEOUT,
            evidence=evidence,
        )

    # -- expressions and output -----------------------------------------

    def _evaluate(
        self,
        step: CompiledStep,
        field: str,
        expression: CompiledExpression,
        context: dict[str, Any],
        index: int | None = None,
    ) -> Any:
        """Evaluate a step's expression; failures become fatal ``WorkflowError``s naming the step."""
        try:
            return expression.evaluate(context, max_bytes=self.limits.max_expression_bytes)
        except ActionError as exc:
            raise map_error(exc, step.id, field, index) from exc

    def _render(self, step: CompiledStep, field: str, template: Any, context: dict[str, Any], index: int | None) -> Any:
        """Render the slots inside ``template`` for ``step``."""
        try:
            # A slot that only names a value the run already holds computes nothing (manifest/limits.py).
            return render_args(template, context, max_bytes=self.limits.max_expression_bytes, reference_max_bytes=self.limits.max_reference_bytes)
        except ActionError as exc:
            raise map_error(exc, step.id, field, index) from exc

    def _render_output(self) -> Any:
        """The workflow's result: ``output`` rendered, or the last step's output."""
        bound = self.limits.max_workflow_output_bytes
        if self.workflow.has_output:
            try:
                result = render_args(self.workflow.output, self.state.context(), max_bytes=bound)
            except ActionError as exc:
                raise WorkflowError(
                    exc.message, code=exc.code, recoverable=False, evidence={**exc.evidence, "field": "output"}
                ) from exc
        else:
            last = self.state.records[-1] if self.state.records else None
            result = last.output if last is not None else None
        size = json_size(result)
        if size > bound:
            raise WorkflowError(
                f"workflow output of {size} bytes exceeds the {bound}-byte limit",
                code=ErrorCode.LIMIT_EXCEEDED,
                recoverable=False,
                evidence={"field": "output", "bytes": size, "max_bytes": bound},
            )
        return result

    def _emit(self, step: CompiledStep, position: int, status: StepStatus) -> None:
        """Tell ``on_step``; a broken progress listener must not break the workflow."""
        if self.on_step is None:
            return
        event = StepEvent(step.id, position, len(self.workflow.steps), status, self._elapsed_ms())
        try:
            self.on_step(event)
        except Exception:
            logger.exception("on_step callback failed for step %s", step.id)
