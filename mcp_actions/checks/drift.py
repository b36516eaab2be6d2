"""The drift report of a map against a live page: checks, states, projections, tool targets, a check's setup.

Every item is ``{kind, id, status, severity, message, evidence, warnings,
note}`` with ``status`` one of ``pass``, ``warn`` (holds, but something
drifted without breaking: a target found only through
``fallback_selectors``, a tool area that matches nothing, a step's element
hidden now), ``fail`` (drifted) or ``error`` (could not be checked: the code
says why). ``note`` is None or a word for an informational outcome:
``not_current`` (a state that is not current now), ``no_diagnostics``,
``after_action`` (a step's element may appear only after the tool's first
action), ``optional_step``, ``state_not_current`` (a step of a tool whose
state is not current now), ``no_match`` (a tool area that matches
nothing), ``url_mismatch``, ``hidden_now`` (a step's element is there but
hidden), ``not_probed`` (a step locator built from the arguments with no
structure on the page yet), ``empty`` (a projection's list, empty as the map
allows), ``not_run`` (a setup entry after one that failed). State items also
carry ``current``; items judged after the setup carry ``after_setup``. What
is judged, and at which severity (a tool's: ``tool_severity``, minor for a
read-only tool, major for one that acts):

- check: its declared severity (default major); see ``runner``.
- state: ``pass`` whether current or not (a state not current is
  information: ``note`` ``not_current``, ``current`` false); ``fail`` only
  for a diagnostic that can never match on the page (invalid locator, URL
  predicate impossible on its origin). Major when a tool target or a check
  needs the state, else minor.
- projection: major when it does not read (extraction refused, expression,
  output_schema, byte budget) or required fields are missing; an extract
  entry that matches nothing is a minor ``fail``, unless the map says it may
  be empty (``x_actions.may_be_empty`` on the entry or the projection).
- tool (its own ``target``, the area where it applies): holds when at least
  one element matches, visible or rendered but empty; ``warn`` when none
  does or only hidden ones do (``fail`` when none does after a complete
  setup); ``fail`` when its locator is invalid or a URL predicate can never
  hold on the page's origin.
- tool_step (each locator of a workflow step, or of legacy
  ``x_actions.execution`` steps): a step up to the tool's first action
  (click, typing, key press, ...) must find its element now (``warn``
  ``hidden_now`` when it is there but hidden, unless a complete setup should
  have shown it); and a step whose primitive lands on one element
  (``pointer.click``, ``text.insert``, ``locator.element_info``,
  ``locator.text_content``, ``pointer.drag``) must find exactly one,
  resolved as the engine resolves it. A locator built from the arguments is
  probed by its structure (``structure.py``; any number of matches holds).
  A later step, one that may not run (``when``, ``on_error: continue``,
  ``retry_until``), or any step of a tool whose ``target.state`` is not
  current now, is information: ``pass`` with a note when its element is
  missing now, ``warn`` at severity info when it is ambiguous now.
- setup: a check's ``call`` setup entries (``setup.py``), run after the
  load-time judgement; what did not hold on load is judged again after them.

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

from ..catalog.annotations import READ_PRIMITIVES, derive_annotations
from ..errors import ActionError, ErrorCode
from ..manifest.model import Check, Manifest, Tool
from ..projection.project import CompiledProjection
from ..projection.service import Observation
from ..workflow.legacy import execution_steps, translate_execution
from .probe import PrimitiveCall, Probe, locator_of, probe_target, resolve_one, url_drift, url_predicates_hold
from .runner import DEFAULT_SEVERITY, StateReading, read_state, run_check
from .setup import SetupRun, run_setups, setup_calls
from .structure import is_literal, scope_of, structural_locator

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


def tool_severity(tool: Tool, manifest: Manifest) -> str:
    """The severity of ``tool``'s drift: minor for a read-only tool, major for one that acts."""
    return "minor" if derive_annotations(tool, manifest).get("readOnlyHint") else "major"


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
        return _item("tool_step", step.id, "pass", "info", message, {"target": step.locator, "primitive": step.primitive}, note="not_probed")
    probe = await probe_target(call, step.locator)
    evidence: dict[str, Any] = {"target": step.locator, "primitive": step.primitive, "before_action": step.before_action, **probe.evidence()}
    if step.form == "structure":
        evidence["probed_by"] = "structure"
    if step.first_action:
        evidence["first_action"] = step.first_action
    if probe.invalid:
        return _item("tool_step", step.id, "fail", severity, f"its locator is invalid: {(probe.error or {}).get('message')}", evidence)
    if probe.error:
        return _item("tool_step", step.id, "error", severity, f"could not resolve the target: {probe.error.get('code')}", evidence)
    if step.form == "structure" and probe.count == 0 and not (setup is not None and setup.complete):
        scope = scope_of(step.locator)
        scope_probe = await probe_target(call, scope) if scope is not None else None
        if scope_probe is None or scope_probe.count == 0:
            # No row to look in (an empty list): nothing can be said until something adds one.
            why = "its scope matches nothing now" if scope_probe is not None else "nothing matches its structure now"
            message = f"its locator depends on the arguments and {why}: not probed (a check setup that adds one lets check judge it)"
            if setup is not None:
                message = f"its locator depends on the arguments and {why}; the setup did not complete: not probed"
            return _item("tool_step", step.id, "pass", "info", message, evidence, note="not_probed")
        evidence["scope_count"] = scope_probe.count
    problem = await _step_problem(call, step, probe, evidence)
    if step.before_action and not step.optional and not not_now:
        if problem and probe.count and not probe.visible_count and not (setup is not None and setup.complete):
            # The element is there, hidden: the locator still finds it, the page is not showing it now
            # ("Clear completed" while nothing is completed). A complete setup should have shown it.
            message = f"{problem} now: the page may show it only in another state (a check setup can bring that state)"
            return _item("tool_step", step.id, "warn", severity, _after_setup(message, setup), evidence, [message], note="hidden_now")
        if problem:
            return _item("tool_step", step.id, "fail", severity, _after_setup(problem, setup), evidence)
        if probe.via_fallback:
            warning = _fallback_warning(step.locator, probe)
            return _item("tool_step", step.id, "warn", severity, warning, evidence, [warning])
        return _item("tool_step", step.id, "pass", severity, _after_setup(_found(probe, step), setup), evidence)
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
        return _item("tool", tool.name, "fail", severity, f"its area can never match on this page: {drift}", evidence)
    if not url_predicates_hold(target, url):
        message = "its area's URL predicate does not hold on this page; the tool applies elsewhere"
        return _item("tool", tool.name, "warn", severity, message, evidence, [message], note="url_mismatch")
    probe = await probe_target(call, target)
    evidence.update(probe.evidence())
    if probe.invalid:
        return _item("tool", tool.name, "fail", severity, f"its area's locator is invalid: {(probe.error or {}).get('message')}", evidence)
    if probe.error:
        return _item("tool", tool.name, "error", severity, f"could not resolve the target: {probe.error.get('code')}", evidence)
    if probe.count == 0:
        why = f"; its state {target['state']!r} is not current now" if state is not None and not state.current else ""
        if setup is not None and setup.ran and setup.complete and not why:
            return _item("tool", tool.name, "fail", severity, _after_setup("no element matches its area", setup), evidence)
        message = f"no element matches its area{why}"
        return _item("tool", tool.name, "warn", severity, message, evidence, [message], note="no_match")
    found = f"{probe.visible_count} visible element(s) match its area" if probe.visible_count else ""
    if not probe.visible_count:
        resolution = await resolve_one(call, target)
        if not resolution.empty:
            message = f"{probe.count} element(s) match its area but none is visible"
            return _item("tool", tool.name, "warn", severity, message, evidence, [message], note="no_match")
        found = f"{probe.count} element(s) match its area, rendered but empty"
    if probe.via_fallback:
        warning = _fallback_warning(target, probe)
        return _item("tool", tool.name, "warn", severity, warning, evidence, [warning])
    return _item("tool", tool.name, "pass", severity, f"{found} (found by {probe.matched_by})", evidence)


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


def _may_be_empty(entry: Mapping[str, Any], declared: Mapping[str, Any]) -> bool:
    """True when the map says this extract entry's list may be empty (``x_actions.may_be_empty`` on it or its projection)."""
    own = entry.get("x_actions")
    return (isinstance(own, Mapping) and own.get("may_be_empty") is True) or declared.get("may_be_empty") is True


def _projection_items(projections: list[CompiledProjection], results: Mapping[str, Observation | ActionError],
                      declared: Mapping[str, Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One item per projection; ``declared`` is each projection's own ``x_actions`` (by name)."""
    declared = declared or {}
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
        own = declared.get(projection.name, {})
        empty = [entry["id"] for entry in projection.entries if counts.get(entry["id"]) == 0]
        allowed = [entry["id"] for entry in projection.entries if counts.get(entry["id"]) == 0 and _may_be_empty(entry, own)]
        if set(empty) - set(allowed):
            matched_nothing = [entry_id for entry_id in empty if entry_id not in allowed]
            items.append(_item("projection", projection.name, "fail", "minor", f"extract entries matched nothing: {', '.join(matched_nothing)}", evidence))
            continue
        if allowed:
            message = f"reads and matches its output_schema; empty now, as the map allows: {', '.join(allowed)}"
            items.append(_item("projection", projection.name, "pass", "major", message, evidence, note="empty"))
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


async def _check_items(manifest: Manifest, call: PrimitiveCall, url: str | None, checks: list[Check]) -> list[dict[str, Any]]:
    states = {state.name: state for state in manifest.states}
    items = []
    for check in checks:
        result = await run_check(call, check, states=states, url=url)
        status = {"passed": "pass", "failed": "fail", "error": "error"}[result["status"]]
        warnings = [w for a in result.get("evidence", {}).get("assertions", []) for w in a.get("warnings", [])]
        if status == "pass" and warnings:
            status = "warn"
        message = result["error"]["message"] if "error" in result else "all assertions hold" if check.assertions else "no assertions to check"
        if status != "fail" and result.get("evidence", {}).get("not_run"):
            message += f" ({' and '.join(result['evidence']['not_run'])} not run by this version)"
        items.append(_item("check", check.id, status, result["severity"], message, result, warnings))
    return items


async def _state_items(manifest: Manifest, call: PrimitiveCall, url: str | None) -> tuple[list[dict[str, Any]], dict[str, StateReading]]:
    needed = _needed_states(manifest)
    items = []
    readings: dict[str, StateReading] = {}
    for state in manifest.states:
        severity = "major" if state.name in needed else "minor"
        try:
            readings[state.name] = reading = await read_state(call, state, url=url)
        except ActionError as exc:
            items.append(_item("state", state.name, "error", severity, f"could not run its diagnostics: {exc.code}", {"error": exc.to_error()}))
            continue
        items.append(_state_item(reading, severity))
    return items, readings


async def _page_items(manifest: Manifest, call: PrimitiveCall, observe: ProjectionObserver, projections: list[CompiledProjection], *,
                      url: str | None, readings: Mapping[str, StateReading], setup: SetupRun | None = None) -> list[dict[str, Any]]:
    """Projections, tool areas and tool steps as the page is now (``setup``: after the map's setup ran)."""
    items: list[dict[str, Any]] = []
    if projections:
        try:
            results = await observe(projections)
        except ActionError as exc:
            results = {p.name: exc for p in projections}
        declared = {p.name: own for p in manifest.state_projections if isinstance(own := (p.model_extra or {}).get("x_actions"), dict)}
        items.extend(_projection_items(projections, results, declared))
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


def _settled(item: Mapping[str, Any]) -> bool:
    """True when an item judged on load needs no second look after the setup (it held, or only informs)."""
    return item["status"] == "pass" and item.get("note") not in ("not_probed", "empty")


def _merged(on_load: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The load-time items, each one that did not hold replaced by its judgement after the setup."""
    later = {(item["kind"], item["id"]): item for item in after}
    out = []
    for item in on_load:
        again = later.get((item["kind"], item["id"]))
        if again is None or _settled(item):
            out.append(item)
        else:
            out.append({**again, "after_setup": True})
    return out


async def drift_report(
    manifest: Manifest,
    call: PrimitiveCall,
    observe: ProjectionObserver,
    projections: list[CompiledProjection],
    *,
    url: str | None,
    fail_on: str = "major",
    run_setup: bool = True,
) -> dict[str, Any]:
    """Check everything the map declares against the page ``call`` reaches; never raises for the page's answers.

    The page is judged as loaded; then, when ``run_setup`` and the map's
    checks have ``call`` setup entries (``setup.py``), those run on the same
    page and what did not hold on load (and the checks that have a setup) is
    judged again on the page they leave.
    """
    items = await _check_items(manifest, call, url, list(manifest.checks))
    state_items, readings = await _state_items(manifest, call, url)
    items += state_items
    items += await _page_items(manifest, call, observe, projections, url=url, readings=readings)
    with_setup = [check for check in manifest.checks if setup_calls(check)] if run_setup else []
    if with_setup:
        setup = await run_setups(manifest, call, severity_of=lambda tool: tool_severity(tool, manifest), item=_item)
        if setup.ran:
            _, readings_after = await _state_items(manifest, call, url)
            after = await _check_items(manifest, call, url, with_setup)
            after += await _page_items(manifest, call, observe, projections, url=url, readings=readings_after, setup=setup)
            # A check with a setup is about the page its setup leaves: its judgement after the setup stands.
            redo = {("check", check.id) for check in with_setup}
            again = {(a["kind"], a["id"]): a for a in after}
            items = [{**again[key], "after_setup": True} if (key := (i["kind"], i["id"])) in redo else i for i in _merged(items, after)]
        items += setup.items
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
