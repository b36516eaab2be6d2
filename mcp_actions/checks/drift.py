"""The drift report of a map against a live page: checks, states, projections, tool targets.

Every item is ``{kind, id, status, severity, message, evidence, warnings,
note}`` with ``status`` one of ``pass``, ``warn`` (holds, but something
drifted without breaking: a target found only through
``fallback_selectors``, a tool area that matches nothing), ``fail``
(drifted) or ``error`` (could not be checked: the code says why). ``note``
is None or a word for an informational outcome: ``not_current`` (a state
that is not current now), ``no_diagnostics``, ``after_action`` (a step's
element may appear only after the tool's first action), ``optional_step``,
``state_not_current`` (a step of a tool whose state is not current now),
``no_match`` (a tool area that matches nothing), ``url_mismatch``. State
items also carry ``current``. What is judged, and at which severity:

- check: its declared severity (default major); see ``runner``.
- state: ``pass`` whether current or not (a state not current is
  information: ``note`` ``not_current``, ``current`` false); ``fail`` only
  for a diagnostic that can never match on the page (invalid locator, URL
  predicate impossible on its origin). Major when a tool target or a check
  needs the state, else minor.
- projection: major when it does not read (extraction refused, expression,
  output_schema, byte budget) or required fields are missing; an extract
  entry that matches nothing is a minor ``fail``.
- tool (its own ``target``, the area where it applies): holds when at least
  one element matches, visible or rendered but empty; ``warn`` when none
  does or only hidden ones do; ``fail`` (major) when its locator is invalid
  or a URL predicate can never hold on the page's origin.
- tool_step (each literal locator of a workflow step, or of legacy
  ``x_actions.execution`` steps): a step up to the tool's first action
  (click, typing, key press, ...) must find its element now, major; and a
  step whose primitive lands on one element (``pointer.click``,
  ``text.insert``, ``locator.element_info``, ``locator.text_content``,
  ``pointer.drag``) must find exactly one, resolved as the engine resolves
  it. A later step, one that may not run (``when``, ``on_error:
  continue``, ``retry_until``), or any step of a tool whose ``target.state``
  is not current now, is information: ``pass`` with a note when its element
  is missing now, ``warn`` at severity info when it is ambiguous now.

``wait_until_expected`` lets a late page render first: it waits (bounded)
for what the map says must be there before anything is judged.
``failing(report, threshold)`` gives the items at or above a severity that
failed or could not be checked; ``mcp-actions check`` exits 1 when any do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..catalog.annotations import READ_PRIMITIVES
from ..errors import ActionError, ErrorCode
from ..manifest.expressions import has_partial_slot, slot_source
from ..manifest.model import Manifest, Tool
from ..projection.project import CompiledProjection
from ..projection.service import Observation
from ..workflow.legacy import execution_steps, translate_execution
from .probe import PrimitiveCall, Probe, locator_of, probe_target, resolve_one, url_drift, url_predicates_hold
from .runner import DEFAULT_SEVERITY, StateReading, read_state, run_check

__all__ = ["SEVERITY_ORDER", "ProjectionObserver", "StepTarget", "drift_report", "expected_targets", "failing", "step_targets", "wait_until_expected"]

SEVERITY_ORDER = ("info", "minor", "major", "critical")
_PROJECTION_DRIFT_CODES = frozenset(
    {ErrorCode.INVALID_RESULT, ErrorCode.STATE_PAYLOAD_TOO_LARGE, ErrorCode.EXPRESSION_FAILED, ErrorCode.INVALID_LOCATOR, ErrorCode.LIMIT_EXCEEDED}
)
#: Primitives that do not act on the page, beyond the catalogue's read-only ones: a tool's
#: first action is its first step whose primitive is in neither.
_NOT_ACTIONS = READ_PRIMITIVES | {"locator.probe", "refs.observe", "refs.resolve", "page.info", "webmcp.list_tools", "abp.list"}
#: Primitives that take a set of elements (waiting for any, counting): several matches are fine.
_TAKES_MANY = frozenset({"locator.wait_for", "locator.probe"})
#: Step arguments that hold a locator.
_LOCATOR_ARGS = ("locator", "target", "from", "to")

#: ``(projections) -> {name: Observation | ActionError}`` in one round trip (``ProjectionService.observe_all``).
ProjectionObserver = Callable[[list[CompiledProjection]], Awaitable[Mapping[str, Observation | ActionError]]]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _item(kind: str, id_: str, status: str, severity: str, message: str, evidence: Any = None, warnings: list[str] | None = None,
          *, note: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "id": id_, "status": status, "severity": severity, "message": message,
            "evidence": evidence or {}, "warnings": warnings or [], "note": note, **extra}


def _is_literal(value: Any) -> bool:
    """True when ``value`` holds no ``{% … %}`` slot anywhere (a step locator fixed in the map)."""
    if isinstance(value, str):
        return slot_source(value) is None and not has_partial_slot(value)
    if isinstance(value, dict):
        return all(_is_literal(v) for v in value.values())
    if isinstance(value, list):
        return all(_is_literal(v) for v in value)
    return True


def _needed_states(manifest: Manifest) -> set[str]:
    needed = {tool.target.state for tool in manifest.tools if tool.target is not None and tool.target.state}
    for check in manifest.checks:
        needed |= {a["state"] for a in check.assertions if isinstance(a.get("state"), str)}
    return needed


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

    @property
    def id(self) -> str:
        """``tool#step``, the report's id."""
        return f"{self.tool}#{self.step}"

    @property
    def needs_one(self) -> bool:
        """True when the primitive lands on exactly one element."""
        return self.primitive not in _TAKES_MANY


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
            if isinstance(value, dict) and _is_literal(value) and locator_of(value):
                before = first is None or index <= first
                wait_state = (args.get("state") if args.get("state") in ("attached", "visible") else "visible") if primitive == "locator.wait_for" else None
                out.append(StepTarget(tool.name, step_id, primitive, value, before, optional, steps[first][0] if first is not None else None, wait_state))
    return out


async def _step_item(call: PrimitiveCall, step: StepTarget, *, not_now: str | None = None) -> dict[str, Any]:
    """The item of one step's locator; ``not_now`` says why the tool cannot run on the page now (its state)."""
    probe = await probe_target(call, step.locator)
    evidence: dict[str, Any] = {"target": step.locator, "primitive": step.primitive, "before_action": step.before_action, **probe.evidence()}
    if step.first_action:
        evidence["first_action"] = step.first_action
    if probe.invalid:
        return _item("tool_step", step.id, "fail", "major", f"its locator is invalid: {(probe.error or {}).get('message')}", evidence)
    if probe.error:
        return _item("tool_step", step.id, "error", "major", f"could not resolve the target: {probe.error.get('code')}", evidence)
    problem = await _step_problem(call, step, probe, evidence)
    if step.before_action and not step.optional and not not_now:
        if problem:
            return _item("tool_step", step.id, "fail", "major", problem, evidence)
        if probe.via_fallback:
            warning = _fallback_warning(step.locator, probe)
            return _item("tool_step", step.id, "warn", "major", warning, evidence, [warning])
        return _item("tool_step", step.id, "pass", "major", _found(probe, step), evidence)
    # The step runs after the tool has acted (or may not run): what the page shows now proves nothing.
    if not_now:
        note, when = "state_not_current", f"the tool runs only when {not_now}"
    elif step.optional:
        note, when = "optional_step", f"it may not run ({step.optional})"
    else:
        note, when = "after_action", f"it runs after the tool's first action ({step.first_action})"
    if problem is None:
        return _item("tool_step", step.id, "pass", "info", _found(probe, step) + f"; {when}", evidence, note=note)
    if probe.visible_count > 1 and step.needs_one:
        message = f"{problem} now; {when}, and the page may differ then"
        return _item("tool_step", step.id, "warn", "info", message, evidence, [message], note=note)
    return _item("tool_step", step.id, "pass", "info", f"{problem} now: information only, {when} and its element may appear then", evidence, note=note)


def _found(probe: Probe, step: StepTarget) -> str:
    return f"found by {probe.matched_by}" + (f" ({probe.visible_count} visible match(es))" if not step.needs_one else "")


async def _step_problem(call: PrimitiveCall, step: StepTarget, probe: Probe, evidence: dict[str, Any]) -> str | None:
    """What keeps the step from running on the page as it is now, or None."""
    if probe.count == 0:
        return "no element matches the target"
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


async def _area_item(call: PrimitiveCall, tool: Tool, url: str | None, readings: Mapping[str, StateReading]) -> dict[str, Any]:
    target = tool.target.model_dump(exclude_none=True) if tool.target is not None else {}
    evidence: dict[str, Any] = {"target": target}
    state = readings.get(target.get("state", ""))
    if state is not None and not state.current:
        evidence["state_current"] = False
    drift = url_drift(target, url)
    if drift:
        return _item("tool", tool.name, "fail", "major", f"its area can never match on this page: {drift}", evidence)
    if not url_predicates_hold(target, url):
        message = "its area's URL predicate does not hold on this page; the tool applies elsewhere"
        return _item("tool", tool.name, "warn", "major", message, evidence, [message], note="url_mismatch")
    probe = await probe_target(call, target)
    evidence.update(probe.evidence())
    if probe.invalid:
        return _item("tool", tool.name, "fail", "major", f"its area's locator is invalid: {(probe.error or {}).get('message')}", evidence)
    if probe.error:
        return _item("tool", tool.name, "error", "major", f"could not resolve the target: {probe.error.get('code')}", evidence)
    if probe.count == 0:
        why = f"; its state {target['state']!r} is not current now" if state is not None and not state.current else ""
        message = f"no element matches its area{why}"
        return _item("tool", tool.name, "warn", "major", message, evidence, [message], note="no_match")
    found = f"{probe.visible_count} visible element(s) match its area" if probe.visible_count else ""
    if not probe.visible_count:
        resolution = await resolve_one(call, target)
        if not resolution.empty:
            message = f"{probe.count} element(s) match its area but none is visible"
            return _item("tool", tool.name, "warn", "major", message, evidence, [message], note="no_match")
        found = f"{probe.count} element(s) match its area, rendered but empty"
    if probe.via_fallback:
        warning = _fallback_warning(target, probe)
        return _item("tool", tool.name, "warn", "major", warning, evidence, [warning])
    return _item("tool", tool.name, "pass", "major", f"{found} (found by {probe.matched_by})", evidence)


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
        bucket += [step.locator for step in step_targets(tool) if step.before_action and not step.optional]
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


def _missing_fields(diagnostics: Mapping[str, Any]) -> list[str]:
    """``entry.field`` paths of the required fields the extraction did not find, sorted.

    The engine names nested records by index (``cards.0.title``); a site owner
    fixes a selector per field, so indices are dropped (``lists.cards.title``).
    """
    paths = set()
    for missing in diagnostics.get("missing_required_fields", []):
        if isinstance(missing, Mapping):
            parts = [str(missing.get("entry")), *str(missing.get("field")).split(".")]
            paths.add(".".join(part for part in parts if not part.isdigit()))
    return sorted(paths)


def _projection_items(projections: list[CompiledProjection], results: Mapping[str, Observation | ActionError]) -> list[dict[str, Any]]:
    items = []
    for projection in projections:
        result = results.get(projection.name)
        if isinstance(result, ActionError):
            # The map's own failures are drift; a page or host that could not answer is "not checked".
            status = "fail" if result.code in _PROJECTION_DRIFT_CODES else "error"
            evidence = {"error": result.to_error()}
            # A renamed field selector usually shows first as a schema failure (the value is missing):
            # name the missing required fields, which is what the site owner has to fix.
            missing = _missing_fields(result.evidence.get("diagnostics", {}))
            cause = f"required fields missing: {', '.join(missing)}; " if missing else ""
            items.append(_item("projection", projection.name, status, "major", f"does not read: {cause}{result.code}: {result.message}", evidence))
            continue
        assert result is not None
        counts = result.diagnostics.get("selector_counts", {})
        evidence = {"selector_counts": counts, "missing_required_fields": result.diagnostics.get("missing_required_fields", [])}
        if evidence["missing_required_fields"]:
            fields = _missing_fields(result.diagnostics)
            items.append(_item("projection", projection.name, "fail", "major", f"required fields missing: {', '.join(fields)}", evidence))
            continue
        empty = [entry["id"] for entry in projection.entries if counts.get(entry["id"]) == 0]
        if empty:
            items.append(_item("projection", projection.name, "fail", "minor", f"extract entries matched nothing: {', '.join(empty)}", evidence))
            continue
        items.append(_item("projection", projection.name, "pass", "major", "reads and matches its output_schema", evidence))
    return items


# -- the report -------------------------------------------------------------------------------


def _state_item(reading: StateReading, severity: str) -> dict[str, Any]:
    evidence = {"current": reading.current, "diagnostics": reading.diagnostics}
    if not reading.diagnosable:
        return _item("state", reading.name, "pass", "info", "declares no diagnostic target to check", evidence, note="no_diagnostics", current=False)
    if reading.drift:
        evidence["drift"] = reading.drift
        return _item("state", reading.name, "fail", severity, f"can never match on this page: {'; '.join(reading.drift)}", evidence, current=False)
    if reading.current:
        fallback = [f"{d['diagnostic']} matched only through {d['matched_by']}; the preferred selectors drifted"
                    for d in reading.diagnostics if str(d.get("matched_by") or "").startswith("fallback_selectors")]
        if fallback:
            return _item("state", reading.name, "warn", severity, "current, " + "; ".join(fallback), evidence, fallback, current=True)
        return _item("state", reading.name, "pass", severity, "current: every diagnostic matches", evidence, current=True)
    waiting = [str(d["diagnostic"]) for d in reading.diagnostics if not d.get("matched")]
    message = f"not current on this page (information, not drift): not matching now: {', '.join(waiting)}"
    return _item("state", reading.name, "pass", severity, message, evidence, note="not_current", current=False)


async def drift_report(
    manifest: Manifest,
    call: PrimitiveCall,
    observe: ProjectionObserver,
    projections: list[CompiledProjection],
    *,
    url: str | None,
    fail_on: str = "major",
) -> dict[str, Any]:
    """Check everything the map declares against the page ``call`` reaches; never raises for the page's answers."""
    items: list[dict[str, Any]] = []
    states = {state.name: state for state in manifest.states}
    for check in manifest.checks:
        result = await run_check(call, check, states=states, url=url)
        status = {"passed": "pass", "failed": "fail", "error": "error"}[result["status"]]
        warnings = [w for a in result.get("evidence", {}).get("assertions", []) for w in a.get("warnings", [])]
        if status == "pass" and warnings:
            status = "warn"
        message = result["error"]["message"] if "error" in result else "all assertions hold" if check.assertions else "no assertions to check"
        if status != "fail" and result.get("evidence", {}).get("not_run"):
            message += f" ({' and '.join(result['evidence']['not_run'])} not run by this version)"
        items.append(_item("check", check.id, status, result["severity"], message, result, warnings))
    needed = _needed_states(manifest)
    readings: dict[str, StateReading] = {}
    for state in manifest.states:
        severity = "major" if state.name in needed else "minor"
        try:
            readings[state.name] = reading = await read_state(call, state, url=url)
        except ActionError as exc:
            items.append(_item("state", state.name, "error", severity, f"could not run its diagnostics: {exc.code}", {"error": exc.to_error()}))
            continue
        items.append(_state_item(reading, severity))
    if projections:
        try:
            results = await observe(projections)
        except ActionError as exc:
            results = {p.name: exc for p in projections}
        items.extend(_projection_items(projections, results))
    for tool in manifest.tools:
        if tool.target is not None:
            items.append(await _area_item(call, tool, url, readings))
        state_reading = readings.get(_tool_state(tool) or "")
        # A tool that needs a state which is not current cannot run here now: its steps only inform.
        not_now = f"its state {state_reading.name!r} is current" if state_reading is not None and state_reading.diagnosable and not state_reading.current else None
        for step in step_targets(tool):
            items.append(await _step_item(call, step, not_now=not_now))
    counts = {status: sum(1 for i in items if i["status"] == status) for status in ("pass", "warn", "fail", "error")}
    report: dict[str, Any] = {"url": url, "observed_at": _now(), "fail_on": fail_on, "summary": counts, "items": items}
    report["ok"] = not failing(report, fail_on)
    return report


def failing(report: Mapping[str, Any], threshold: str) -> list[dict[str, Any]]:
    """Items that failed or could not be checked, at or above ``threshold`` severity."""
    floor = SEVERITY_ORDER.index(threshold)
    return [
        item
        for item in report["items"]
        if item["status"] in ("fail", "error") and SEVERITY_ORDER.index(item.get("severity") or DEFAULT_SEVERITY) >= floor
    ]
