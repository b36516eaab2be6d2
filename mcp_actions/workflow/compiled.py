"""Compile a tool's ``workflow`` object once into frozen, ready-to-run steps.

Compiling checks the shapes the interpreter relies on and compiles every
JSONata expression up front, so a broken map fails when its tool is built,
not halfway through a call that has already clicked things. The manifest
validator reports most of these problems first and with JSON-Pointer paths;
this module re-checks only what running needs, and names the step and the
field when it refuses.

The key sets are the ones the validator checks (``manifest/shape.py``
declares them for both): closed, except ``x_*`` extensions, which are ignored
here. ``postcondition`` is kept
on the compiled workflow for the caller to act on; the interpreter itself does
not evaluate it (it needs the projection engine). Expression fields (``when``,
``for_each``, ``retry_until``) must be one whole ``{% … %}`` slot, as the
validator demands.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.expressions import (
    CompiledExpression,
    ExpressionSyntaxError,
    compile_expression,
    has_partial_slot,
    slot_source,
)
from ..manifest.limits import Limits
from ..manifest.shape import (
    AFTER_EACH_FIELDS,
    EXPRESSION_LANGUAGE,
    ON_ERROR_VALUES,
    SETTLE_AFTER_FIELDS,
    STEP_FIELDS,
    VERSION,
    WORKFLOW_FIELDS,
    settle_after_states,
)

__all__ = [
    "SETTLE_DEFAULT_STATE",
    "SETTLE_DEFAULT_TIMEOUT_MS",
    "WORKFLOW_INVALID",
    "AfterEach",
    "CompiledStep",
    "CompiledWorkflow",
    "SettleAfter",
    "WorkflowLimits",
]

WORKFLOW_INVALID = ErrorCode.WORKFLOW_INVALID
SETTLE_DEFAULT_STATE = "visible"
SETTLE_DEFAULT_TIMEOUT_MS = 5000


#: Bounds on one workflow (step count, loop items, expression and output bytes): the same
#: figures the validator checks declared values against, so both always agree.
WorkflowLimits = Limits


@dataclass(frozen=True)
class AfterEach:
    """The primitive a retrying step runs between attempts (e.g. a scroll)."""

    primitive: str
    args: dict[str, Any]


@dataclass(frozen=True)
class SettleAfter:
    """Pacing after a successful step: wait for ``locator`` or sleep ``delay_ms``."""

    locator: dict[str, Any] | None = None
    state: str = SETTLE_DEFAULT_STATE
    timeout_ms: int = SETTLE_DEFAULT_TIMEOUT_MS
    delay_ms: int | None = None


@dataclass(frozen=True)
class CompiledStep:
    """One step with its expressions compiled.

    ``max_attempts`` is 1 without ``retry_until``; ``timeout_ms`` is None when
    the step has no bound of its own (absent or 0).
    """

    id: str
    primitive: str
    args: dict[str, Any]
    when: CompiledExpression | None = None
    for_each: CompiledExpression | None = None
    max_items: int | None = None
    retry_until: CompiledExpression | None = None
    max_attempts: int = 1
    after_each: AfterEach | None = None
    settle_after: SettleAfter | None = None
    on_error: str = "stop"
    timeout_ms: int | None = None
    #: Internal, never read from a manifest: a condition the step's output must meet, else
    #: ``state_mismatch`` (legacy ``inspect``/``wait`` assertions are translated to it).
    check: CompiledExpression | None = None


@dataclass(frozen=True)
class CompiledWorkflow:
    """A workflow ready to run many times; build it with ``CompiledWorkflow.compile``."""

    steps: tuple[CompiledStep, ...]
    output: Any = None
    has_output: bool = False
    postcondition: Any = None

    @property
    def step_ids(self) -> tuple[str, ...]:
        """The step ids in execution order."""
        return tuple(step.id for step in self.steps)

    @classmethod
    def compile(cls, workflow: dict[str, Any], *, limits: WorkflowLimits | None = None) -> CompiledWorkflow:
        """Check ``workflow``'s shape and compile all its expressions.

        Raises ``ActionError`` ``workflow_invalid`` for a bad shape,
        ``limit_exceeded`` for more than ``limits.max_steps`` steps, and
        ``ExpressionSyntaxError`` (evidence names step and field) for an
        expression that does not compile or a partial ``{% … %}`` embed.
        """
        limits = limits or WorkflowLimits()
        _require(isinstance(workflow, dict), "workflow must be an object")
        _refuse_unknown(workflow, WORKFLOW_FIELDS, "workflow", step=None, prefix="")
        _require(workflow.get("version") == VERSION, "workflow version must be 1", field="version")
        _require(
            workflow.get("expression_language") == EXPRESSION_LANGUAGE,
            'workflow expression_language must be "jsonata"',
            field="expression_language",
        )
        raw_steps = workflow.get("steps")
        if not isinstance(raw_steps, list):
            raise _invalid("workflow steps must be an array", field="steps")
        if len(raw_steps) > limits.max_steps:
            raise ActionError(
                f"workflow has {len(raw_steps)} steps; the limit is {limits.max_steps}",
                code=ErrorCode.LIMIT_EXCEEDED,
                evidence={"steps": len(raw_steps), "max_steps": limits.max_steps},
            )
        steps: list[CompiledStep] = []
        for position, raw in enumerate(raw_steps):
            step = _compile_step(raw, position)
            _require(
                step.id not in {earlier.id for earlier in steps},
                f"duplicate step id {step.id!r}",
                step=step.id,
                field="id",
            )
            steps.append(step)
        has_output = "output" in workflow
        # Copied so that the compiled workflow cannot change with the manifest dict it came from.
        output = copy.deepcopy(workflow.get("output"))
        if has_output:
            _compile_slots(output, step=None, field="output")
        return cls(tuple(steps), output, has_output, copy.deepcopy(workflow.get("postcondition")))


def _invalid(message: str, *, step: str | int | None = None, field: str | None = None) -> ActionError:
    """A ``workflow_invalid`` error naming the step and field."""
    evidence: dict[str, Any] = {}
    if step is not None:
        evidence["step"] = step
    if field is not None:
        evidence["field"] = field
    return ActionError(message, code=WORKFLOW_INVALID, evidence=evidence)


def _require(condition: bool, message: str, *, step: str | int | None = None, field: str | None = None) -> None:
    """Raise ``workflow_invalid`` naming the step and field unless ``condition`` holds."""
    if not condition:
        raise _invalid(message, step=step, field=field)


def _refuse_unknown(raw: dict[str, Any], known: Any, owner: str, *, step: str | None, prefix: str) -> None:
    """Refuse the first unknown key (``x_*`` extensions aside): a typo must fail loudly."""
    unknown = sorted(key for key in raw if key not in known and not str(key).startswith("x_"))
    if unknown:
        _require(False, f"{owner} has unknown field {unknown[0]!r}", step=step, field=prefix + unknown[0])


def _is_int(value: Any, *, minimum: int) -> bool:
    # bool is an int subclass in Python; JSON true is not a count.
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _compile_step(raw: Any, position: int) -> CompiledStep:
    """Check and compile one step; ``position`` names it until its id is known."""
    _require(isinstance(raw, dict), f"step {position} must be an object", step=position)
    step_id = raw.get("id")
    _require(isinstance(step_id, str) and bool(step_id), f"step {position} needs a string id",
             step=position, field="id")
    _refuse_unknown(raw, STEP_FIELDS, f"step {step_id!r}", step=step_id, prefix="")
    primitive = raw.get("primitive")
    _require(isinstance(primitive, str) and bool(primitive), f"step {step_id!r} needs a primitive name",
             step=step_id, field="primitive")
    args = copy.deepcopy(raw.get("args", {}))
    _require(isinstance(args, dict), f"step {step_id!r}: args must be an object", step=step_id, field="args")
    _compile_slots(args, step=step_id, field="args")

    for_each = _compile_condition(raw, "for_each", step_id)
    max_items = raw.get("max_items")
    _require((for_each is None) == (max_items is None), f"step {step_id!r}: for_each and max_items go together",
             step=step_id, field="max_items" if for_each is not None else "for_each")
    _require(max_items is None or _is_int(max_items, minimum=0), f"step {step_id!r}: max_items must be an integer >= 0",
             step=step_id, field="max_items")

    retry_until = _compile_condition(raw, "retry_until", step_id)
    max_attempts = raw.get("max_attempts")
    _require((retry_until is None) == (max_attempts is None),
             f"step {step_id!r}: retry_until and max_attempts go together",
             step=step_id, field="max_attempts" if retry_until is not None else "retry_until")
    _require(max_attempts is None or _is_int(max_attempts, minimum=1),
             f"step {step_id!r}: max_attempts must be an integer >= 1", step=step_id, field="max_attempts")
    after_each = _compile_after_each(raw.get("after_each"), step_id) if "after_each" in raw else None
    _require(after_each is None or retry_until is not None, f"step {step_id!r}: after_each needs retry_until",
             step=step_id, field="after_each")

    on_error = raw.get("on_error", "stop")
    _require(on_error in ON_ERROR_VALUES, f'step {step_id!r}: on_error must be "stop" or "continue"',
             step=step_id, field="on_error")
    timeout_ms = raw.get("timeout_ms")
    _require(timeout_ms is None or _is_int(timeout_ms, minimum=0),
             f"step {step_id!r}: timeout_ms must be an integer >= 0", step=step_id, field="timeout_ms")
    return CompiledStep(
        id=step_id,
        primitive=primitive,
        args=args,
        when=_compile_condition(raw, "when", step_id),
        for_each=for_each,
        max_items=max_items,
        retry_until=retry_until,
        max_attempts=max_attempts or 1,
        after_each=after_each,
        settle_after=_compile_settle(raw["settle_after"], step_id) if "settle_after" in raw else None,
        on_error=on_error,
        # 0 means "no step-specific bound" (Playwright's convention); the deadline still applies.
        timeout_ms=timeout_ms or None,
    )


def _compile_condition(raw: dict[str, Any], field: str, step_id: str) -> CompiledExpression | None:
    """Compile ``when``/``for_each``/``retry_until``: one whole ``{% … %}`` slot."""
    if field not in raw:
        return None
    value = raw[field]
    _require(isinstance(value, str) and bool(value.strip()), f"step {step_id!r}: {field} must be a JSONata expression",
             step=step_id, field=field)
    source = slot_source(value)
    if source is None:
        raise ExpressionSyntaxError(
            f"step {step_id!r}: {field} must be one whole {{% … %}} expression slot",
            code=ErrorCode.EXPRESSION_PARTIAL_SLOT if has_partial_slot(value) else ErrorCode.EXPRESSION_NOT_SLOT,
            evidence={"step": step_id, "field": field},
        )
    return _compile_named(source, step=step_id, field=field)


def _compile_after_each(raw: Any, step_id: str) -> AfterEach:
    """Check ``after_each``: ``{primitive, args?}``."""
    _require(isinstance(raw, dict), f"step {step_id!r}: after_each must be an object", step=step_id, field="after_each")
    _refuse_unknown(raw, AFTER_EACH_FIELDS, f"step {step_id!r}: after_each", step=step_id, prefix="after_each.")
    primitive = raw.get("primitive")
    _require(isinstance(primitive, str) and bool(primitive), f"step {step_id!r}: after_each needs a primitive",
             step=step_id, field="after_each.primitive")
    args = copy.deepcopy(raw.get("args", {}))
    _require(isinstance(args, dict), f"step {step_id!r}: after_each.args must be an object",
             step=step_id, field="after_each.args")
    _compile_slots(args, step=step_id, field="after_each.args")
    return AfterEach(primitive, args)


def _compile_settle(raw: Any, step_id: str) -> SettleAfter:
    """Check ``settle_after``: exactly one of ``locator`` (+ state, timeout_ms) or ``delay_ms``."""
    field = "settle_after"
    _require(isinstance(raw, dict), f"step {step_id!r}: settle_after must be an object", step=step_id, field=field)
    _refuse_unknown(raw, SETTLE_AFTER_FIELDS, f"step {step_id!r}: settle_after",
                    step=step_id, prefix="settle_after.")
    _require(("locator" in raw) != ("delay_ms" in raw),
             f"step {step_id!r}: settle_after needs exactly one of locator or delay_ms", step=step_id, field=field)
    if "delay_ms" in raw:
        delay_ms = raw["delay_ms"]
        _require(_is_int(delay_ms, minimum=0), f"step {step_id!r}: settle_after.delay_ms must be an integer >= 0",
                 step=step_id, field=f"{field}.delay_ms")
        _require("state" not in raw and "timeout_ms" not in raw,
                 f"step {step_id!r}: settle_after state/timeout_ms apply to a locator, not delay_ms",
                 step=step_id, field=field)
        return SettleAfter(delay_ms=delay_ms)
    locator = copy.deepcopy(raw["locator"])
    _require(isinstance(locator, dict), f"step {step_id!r}: settle_after.locator must be an object",
             step=step_id, field=f"{field}.locator")
    _compile_slots(locator, step=step_id, field=f"{field}.locator")
    state = raw.get("state", SETTLE_DEFAULT_STATE)
    _require(state in settle_after_states(), f"step {step_id!r}: settle_after.state must be one of {settle_after_states()}",
             step=step_id, field=f"{field}.state")
    timeout_ms = raw.get("timeout_ms", SETTLE_DEFAULT_TIMEOUT_MS)
    _require(_is_int(timeout_ms, minimum=0), f"step {step_id!r}: settle_after.timeout_ms must be an integer >= 0",
             step=step_id, field=f"{field}.timeout_ms")
    return SettleAfter(locator=locator, state=state, timeout_ms=timeout_ms)


def _iter_strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string inside ``value`` with a dotted path to it (for error evidence)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _iter_strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _iter_strings(item, f"{path}.{position}")


def _compile_slots(value: Any, *, step: str | None, field: str) -> None:
    """Compile every whole slot inside ``value`` now; refuse partial embeds.

    ``render_args`` compiles through the same cache later, so this both
    validates and warms it.
    """
    for path, text in _iter_strings(value, field):
        source = slot_source(text)
        if source is not None:
            _compile_named(source, step=step, field=path)
        elif has_partial_slot(text):
            evidence: dict[str, Any] = {"field": path}
            if step is not None:
                evidence["step"] = step
            raise ExpressionSyntaxError(
                f"{path}: partial {{% … %}} embeds are not allowed; make the whole string one slot",
                code=ErrorCode.EXPRESSION_PARTIAL_SLOT,
                evidence=evidence,
            )


def _compile_named(source: str, *, step: str | None, field: str) -> CompiledExpression:
    """Compile ``source``, adding the step and field to a syntax error's evidence."""
    try:
        return compile_expression(source)
    except ExpressionSyntaxError as exc:
        # compile_expression raises a fresh exception each time (errors are not cached).
        if step is not None:
            exc.evidence["step"] = step
        exc.evidence["field"] = field
        raise
