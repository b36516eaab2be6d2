"""The drift items of a map's tool targets: each tool's area on the page and each locator of its workflow steps.

What is judged, and how, is in ``drift.py``'s docstring (``tool`` and ``tool_step`` items);
``wait_until_expected`` lets a late page render first, bounded, before anything is judged.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog.annotations import READ_PRIMITIVES
from ..errors import ActionError, ErrorCode
from ..manifest.model import Manifest, Tool
from ..workflow.legacy import execution_steps, translate_execution
from .items import report_item, tool_severity
from .probe import PrimitiveCall, Probe, locator_of, probe_target, resolve_one, url_drift, url_predicates_hold
from .runner import StateReading, read_state
from .setup import SetupRun
from .structure import is_literal, scope_of, structural_locator

__all__ = ["StepTarget", "expected_targets", "step_targets", "tool_items", "wait_until_expected"]

#: Primitives that do not act on the page, beyond the catalogue's read-only ones: a tool's
#: first action is its first step whose primitive is in neither.
_NOT_ACTIONS = READ_PRIMITIVES | {"locator.probe", "refs.observe", "refs.resolve", "page.info", "webmcp.list_tools", "abp.list"}
#: Primitives that take a set of elements (waiting for any, counting): several matches are fine.
_TAKES_MANY = frozenset({"locator.wait_for", "locator.probe"})
#: Step arguments that hold a locator.
_LOCATOR_ARGS = ("locator", "target", "from", "to")


def _fallback(target: dict[str, Any], matched_by: str | None) -> Any:
    try:
        index = int(str(matched_by).split("[", 1)[1].rstrip("]"))
        return target["fallback_selectors"][index]
    except (IndexError, KeyError, ValueError, TypeError):
        return matched_by


def _fallback_warning(target: dict[str, Any], probe: Probe) -> str:
    return f"matched only through {probe.matched_by} ({_fallback(target, probe.matched_by)!r}); the preferred selectors drifted"


# -- tool steps -------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepTarget:
    """A literal locator of one tool step, with what the step needs of it when it runs."""

    tool: str
    step: str
    primitive: str
    locator: dict[str, Any]
    #: True when the step runs at or before the tool's first action: its element must be there now.
    before_action: bool
    #: Why the step may not run at all (``when``, ``on_error: continue``, ``retry_until``), or None.
    optional: str | None
    #: The id of the tool's first action step (None when the tool only reads).
    first_action: str | None
    #: What a ``locator.wait_for`` step waits for (``visible`` unless it says ``attached``); None for other primitives.
    wait_state: str | None = None
    #: ``structure``: the locator's values come from the arguments and ``locator`` is what is left without them
    #: (``structure.py``); ``none``: nothing is left, so it cannot be probed; ``literal``: fixed in the map.
    form: str = "literal"

    @property
    def id(self) -> str:
        """``tool#step``, the report's id."""
        return f"{self.tool}#{self.step}"

    @property
    def needs_one(self) -> bool:
        """True when the primitive lands on exactly one element (a structure stands for several: never)."""
        return self.primitive not in _TAKES_MANY and self.form == "literal"


def _steps_of(tool: Tool) -> list[tuple[str, str, dict[str, Any], str | None]]:
    """``(step id, primitive, args, why optional)`` of the tool's workflow, or of its legacy execution steps."""
    workflow = tool.effective_workflow
    if workflow is not None:
        out = []
        for step in workflow.steps:
            optional = "when" if step.when else "on_error: continue" if step.on_error == "continue" else "retry_until" if step.retry_until else None
            out.append((step.id, step.primitive, step.args, optional))
        return out
    if not execution_steps(tool.x_actions.execution):
        return []
    try:
        compiled = translate_execution(tool.x_actions.execution or {})
    except ActionError:
        return []  # steps this runtime cannot run: the tool refuses them itself, validate names them
    # A legacy "click" is translated to <id>__locate (the locator) and <id> (the click): report the map's id.
    return [(step.id.removesuffix("__locate"), step.primitive, step.args, "when" if step.when else None) for step in compiled.steps]


def step_targets(tool: Tool) -> list[StepTarget]:
    """Every literal locator of ``tool``'s steps, in order, with its phase relative to the tool's first action."""
    steps = _steps_of(tool)
    first = next((i for i, (_, primitive, _, _) in enumerate(steps) if primitive not in _NOT_ACTIONS), None)
    out = []
    for index, (step_id, primitive, args, optional) in enumerate(steps):
        for key in _LOCATOR_ARGS:
            value = args.get(key)
            if not isinstance(value, dict):
                continue  # no locator, or a whole slot: x/y steps and computed locators are judged through their source step
            if is_literal(value):
                locator, form = value, "literal"
            else:
                structure = structural_locator(locator_of(value))
                locator, form = (structure, "structure") if structure is not None else (locator_of(value), "none")
            if not locator_of(locator):
                continue
            before = first is None or index <= first
            wait_state = (args.get("state") if args.get("state") in ("attached", "visible") else "visible") if primitive == "locator.wait_for" else None
            out.append(StepTarget(tool.name, step_id, primitive, locator, before, optional, steps[first][0] if first is not None else None, wait_state, form))
    return out


async def _step_item(call: PrimitiveCall, step: StepTarget, *, severity: str = "major", not_now: str | None = None,
                     setup: SetupRun | None = None) -> dict[str, Any]:
    """The item of one step's locator at the tool's ``severity``.

    ``not_now`` says why the tool cannot run on the page now (its state);
    ``setup`` is given when the map's setup ran before this judgement.
    """
    if step.form == "none":
        message = "its locator comes from the arguments: not probed"
        return report_item("tool_step", step.id, "pass", "info", message, {"target": step.locator, "primitive": step.primitive}, note="not_probed")
    probe = await probe_target(call, step.locator)
    evidence: dict[str, Any] = {"target": step.locator, "primitive": step.primitive, "before_action": step.before_action, **probe.evidence()}
    if step.form == "structure":
        evidence["probed_by"] = "structure"
    if step.first_action:
        evidence["first_action"] = step.first_action
    if probe.invalid:
        return report_item("tool_step", step.id, "fail", severity, f"its locator is invalid: {(probe.error or {}).get('message')}", evidence)
    if probe.error:
        return report_item("tool_step", step.id, "error", severity, f"could not resolve the target: {probe.error.get('code')}", evidence)
    if step.form == "structure" and probe.count == 0 and not (setup is not None and setup.complete):
        scope = scope_of(step.locator)
        scope_probe = await probe_target(call, scope) if scope is not None else None
        if scope_probe is None or scope_probe.count == 0:
            # No row to look in (an empty list): nothing can be said until something adds one.
            why = "its scope matches nothing now" if scope_probe is not None else "nothing matches its structure now"
            message = f"its locator depends on the arguments and {why}: not probed (a check setup that adds one lets check judge it)"
            if setup is not None:
                message = f"its locator depends on the arguments and {why}; the setup did not complete: not probed"
            return report_item("tool_step", step.id, "pass", "info", message, evidence, note="not_probed")
        evidence["scope_count"] = scope_probe.count
    problem = await _step_problem(call, step, probe, evidence)
    if step.before_action and not step.optional and not not_now:
        if problem and probe.count and not probe.visible_count and not (setup is not None and setup.complete):
            # The element is there, hidden: the locator still finds it, the page is not showing it now
            # ("Clear completed" while nothing is completed). A complete setup should have shown it.
            message = f"{problem} now: the page may show it only in another state (a check setup can bring that state)"
            return report_item("tool_step", step.id, "warn", severity, _after_setup(message, setup), evidence, [message], note="hidden_now")
        if problem:
            return report_item("tool_step", step.id, "fail", severity, _after_setup(problem, setup), evidence)
        if probe.via_fallback:
            warning = _fallback_warning(step.locator, probe)
            return report_item("tool_step", step.id, "warn", severity, warning, evidence, [warning])
        return report_item("tool_step", step.id, "pass", severity, _after_setup(_found(probe, step), setup), evidence)
    # The step runs after the tool has acted (or may not run): what the page shows now proves nothing.
    if not_now:
        note, when = "state_not_current", f"the tool runs only when {not_now}"
    elif step.optional:
        note, when = "optional_step", f"it may not run ({step.optional})"
    else:
        note, when = "after_action", f"it runs after the tool's first action ({step.first_action})"
    if problem is None:
        return report_item("tool_step", step.id, "pass", "info", _found(probe, step) + f"; {when}", evidence, note=note)
    if probe.visible_count > 1 and step.needs_one:
        message = f"{problem} now; {when}, and the page may differ then"
        return report_item("tool_step", step.id, "warn", "info", message, evidence, [message], note=note)
    return report_item("tool_step", step.id, "pass", "info", f"{problem} now: information only, {when} and its element may appear then", evidence, note=note)


def _after_setup(message: str, setup: SetupRun | None) -> str:
    if setup is None or not setup.ran:
        return message
    return f"{message} (after the setup ran)" if setup.complete else f"{message} (after a setup that failed)"


def _found(probe: Probe, step: StepTarget) -> str:
    if step.form == "structure":
        return f"its structure is there: {probe.count} element(s) match without the arguments ({probe.visible_count} visible), found by {probe.matched_by}"
    return f"found by {probe.matched_by}" + (f" ({probe.visible_count} visible match(es))" if not step.needs_one else "")


async def _step_problem(call: PrimitiveCall, step: StepTarget, probe: Probe, evidence: dict[str, Any]) -> str | None:
    """What keeps the step from running on the page as it is now, or None."""
    if probe.count == 0:
        if step.form == "structure":
            return "no element matches its structure (the locator without the arguments)" + (
                f", though its scope matches {evidence['scope_count']}" if "scope_count" in evidence else "")
        return "no element matches the target"
    if step.form == "structure":
        return None  # several rows are the point: which one is the caller's to say
    if not step.needs_one:
        if step.wait_state == "visible" and not probe.visible_count:
            return f"{probe.count} element(s) match but none is visible"
        return None
    if probe.visible_count == 1:
        return None
    if probe.visible_count == 0 and step.primitive == "locator.text_content" and probe.count == 1:
        return None  # text_content reads one hidden element too
    resolution = await resolve_one(call, step.locator, primitive=step.primitive)
    if resolution.ok:
        evidence["resolved_by"] = "role+name"
        return None
    evidence["resolution"] = {"code": resolution.code, "candidates": resolution.candidates}
    if resolution.code == ErrorCode.MULTIPLE_TARGETS:
        return f"{probe.visible_count or probe.count} elements match; the step needs exactly one (the target is ambiguous)"
    if resolution.code == ErrorCode.TARGET_NOT_VISIBLE:
        return f"{probe.count} element(s) match but none is visible"
    return f"{resolution.code}: {resolution.message}"


# -- tool areas -------------------------------------------------------------------------------


async def _area_item(call: PrimitiveCall, tool: Tool, url: str | None, readings: Mapping[str, StateReading], *, severity: str = "major",
                     setup: SetupRun | None = None) -> dict[str, Any]:
    """The item of the tool's area (its ``target``), at the tool's ``severity``.

    After a complete setup, an area of a tool that can run now (no state, or
    its state current) that still matches nothing is drift, not a warning.
    """
    target = tool.target.model_dump(exclude_none=True) if tool.target is not None else {}
    evidence: dict[str, Any] = {"target": target}
    state = readings.get(target.get("state", ""))
    if state is not None and not state.current:
        evidence["state_current"] = False
    drift = url_drift(target, url)
    if drift:
        return report_item("tool", tool.name, "fail", severity, f"its area can never match on this page: {drift}", evidence)
    if not url_predicates_hold(target, url):
        message = "its area's URL predicate does not hold on this page; the tool applies elsewhere"
        return report_item("tool", tool.name, "warn", severity, message, evidence, [message], note="url_mismatch")
    probe = await probe_target(call, target)
    evidence.update(probe.evidence())
    if probe.invalid:
        return report_item("tool", tool.name, "fail", severity, f"its area's locator is invalid: {(probe.error or {}).get('message')}", evidence)
    if probe.error:
        return report_item("tool", tool.name, "error", severity, f"could not resolve the target: {probe.error.get('code')}", evidence)
    if probe.count == 0:
        why = f"; its state {target['state']!r} is not current now" if state is not None and not state.current else ""
        if setup is not None and setup.ran and setup.complete and not why:
            return report_item("tool", tool.name, "fail", severity, _after_setup("no element matches its area", setup), evidence)
        message = f"no element matches its area{why}"
        return report_item("tool", tool.name, "warn", severity, message, evidence, [message], note="no_match")
    found = f"{probe.visible_count} visible element(s) match its area" if probe.visible_count else ""
    if not probe.visible_count:
        resolution = await resolve_one(call, target)
        if not resolution.empty:
            message = f"{probe.count} element(s) match its area but none is visible"
            return report_item("tool", tool.name, "warn", severity, message, evidence, [message], note="no_match")
        found = f"{probe.count} element(s) match its area, rendered but empty"
    if probe.via_fallback:
        warning = _fallback_warning(target, probe)
        return report_item("tool", tool.name, "warn", severity, warning, evidence, [warning])
    return report_item("tool", tool.name, "pass", severity, f"{found} (found by {probe.matched_by})", evidence)


# -- waiting for a late page -------------------------------------------------------------------


def _tool_state(tool: Tool) -> str | None:
    """The state ``tool`` needs (its ``target.state``), or None."""
    return tool.target.state if tool.target is not None and tool.target.state else None


def expected_targets(manifest: Manifest, url: str | None) -> dict[str | None, list[dict[str, Any]]]:
    """Locators the map says are on the page, by the state they need (None: at any time).

    Positive check targets and, per tool, its area and its steps up to the
    first action; a tool that needs a state is expected only in that state.
    Targets whose URL predicates do not hold here are left out: they will not
    come to this page.
    """
    wanted: dict[str | None, list[dict[str, Any]]] = {None: []}
    for check in manifest.checks:
        for assertion in check.assertions:
            target = assertion.get("target")
            absent = assertion.get("exists") is False or assertion.get("visible") is False or assertion.get("count") == 0 or assertion.get("max_count") == 0
            if isinstance(target, dict) and not absent:
                wanted[None].append(target)
    for tool in manifest.tools:
        bucket = wanted.setdefault(_tool_state(tool), [])
        if tool.target is not None:
            bucket.append(tool.target.model_dump(exclude_none=True))
        bucket += [step.locator for step in step_targets(tool) if step.before_action and not step.optional and step.form == "literal"]
    out: dict[str | None, list[dict[str, Any]]] = {}
    seen: set[str] = set()
    for state, targets in wanted.items():
        for target in targets:
            locator = locator_of(target)
            key = json.dumps(locator, sort_keys=True, default=str)
            if locator and key not in seen and url_predicates_hold(target, url):
                seen.add(key)
                out.setdefault(state, []).append(locator)
    return out


async def wait_until_expected(call: PrimitiveCall, manifest: Manifest, *, url: str | None, timeout_ms: int) -> dict[str, Any]:
    """Wait until each expected target is attached, all within ``timeout_ms``; never raises.

    A page that renders late (a spinner, then its data) is judged once it
    has rendered; a drifted page costs at most ``timeout_ms``. The targets
    needed at any time come first; then those of tools that need a state,
    only when that state is current (a dialog's fields are not waited for
    while no dialog is open). Returns ``{"expected", "missing", "waited_ms"}``.
    """
    started = time.monotonic()
    deadline = started + timeout_ms / 1000
    expected = expected_targets(manifest, url)
    states = {state.name: state for state in manifest.states}
    waited = missing = 0
    for state_name, targets in sorted(expected.items(), key=lambda entry: entry[0] is not None):
        if state_name is not None and state_name in states:
            try:
                reading = await read_state(call, states[state_name], url=url)
            except ActionError:
                continue
            if reading.diagnosable and not reading.current:
                continue
        for locator in targets:
            waited += 1
            remaining = max(0, int((deadline - time.monotonic()) * 1000))
            try:
                output = await call("locator.wait_for", {"locator": locator, "state": "attached", "timeout_ms": remaining})
            except ActionError:
                missing += 1  # not there in time, or a locator the judging reports
                continue
            if isinstance(output, dict) and output.get("matched") is False:
                missing += 1
    return {"expected": waited, "missing": missing, "waited_ms": int((time.monotonic() - started) * 1000)}


# -- projections ------------------------------------------------------------------------------


async def tool_items(
    manifest: Manifest, call: PrimitiveCall, url: str | None, readings: Mapping[str, StateReading], *, setup: SetupRun | None = None
) -> list[dict[str, Any]]:
    """Every tool's ``tool`` item (its area, when it declares one) and its steps' ``tool_step`` items."""
    items: list[dict[str, Any]] = []
    for tool in manifest.tools:
        severity = tool_severity(tool, manifest)
        if tool.target is not None:
            items.append(await _area_item(call, tool, url, readings, severity=severity, setup=setup))
        state_reading = readings.get(_tool_state(tool) or "")
        # A tool that needs a state which is not current cannot run here now: its steps only inform.
        not_now = f"its state {state_reading.name!r} is current" if state_reading is not None and state_reading.diagnosable and not state_reading.current else None
        for step in step_targets(tool):
            items.append(await _step_item(call, step, severity=severity, not_now=not_now, setup=setup))
    return items
