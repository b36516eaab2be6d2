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

The tool and tool_step items are ``tool_targets.py``'s, whose ``wait_until_expected``
lets a late page render first: it waits (bounded) for what the map says must be there
before anything is judged.
``failing(report, threshold)`` gives the items at or above a severity that
failed or could not be checked; ``mcp-actions check`` exits 1 when any do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.model import Check, Manifest
from ..projection.project import CompiledProjection
from ..projection.service import Observation
from .items import report_item, tool_severity
from .probe import PrimitiveCall
from .runner import DEFAULT_SEVERITY, StateReading, read_state, run_check
from .setup import SetupRun, run_setups, setup_calls
from .tool_targets import tool_items

__all__ = ["SEVERITY_ORDER", "ProjectionObserver", "drift_report", "failing"]

SEVERITY_ORDER = ("info", "minor", "major", "critical")
_PROJECTION_DRIFT_CODES = frozenset(
    {ErrorCode.INVALID_RESULT, ErrorCode.STATE_PAYLOAD_TOO_LARGE, ErrorCode.EXPRESSION_FAILED, ErrorCode.INVALID_LOCATOR, ErrorCode.LIMIT_EXCEEDED}
)

#: ``(projections) -> {name: Observation | ActionError}`` in one round trip (``ProjectionService.observe_all``).
ProjectionObserver = Callable[[list[CompiledProjection]], Awaitable[Mapping[str, Observation | ActionError]]]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _needed_states(manifest: Manifest) -> set[str]:
    needed = {tool.target.state for tool in manifest.tools if tool.target is not None and tool.target.state}
    for check in manifest.checks:
        needed |= {a["state"] for a in check.assertions if isinstance(a.get("state"), str)}
    return needed


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
            items.append(report_item("projection", projection.name, status, "major", f"does not read: {cause}{result.code}: {result.message}", evidence))
            continue
        assert result is not None
        counts = result.diagnostics.get("selector_counts", {})
        evidence = {"selector_counts": counts, "missing_required_fields": result.diagnostics.get("missing_required_fields", [])}
        if evidence["missing_required_fields"]:
            fields = _missing_fields(result.diagnostics)
            items.append(report_item("projection", projection.name, "fail", "major", f"required fields missing: {', '.join(fields)}", evidence))
            continue
        own = declared.get(projection.name, {})
        empty = [entry["id"] for entry in projection.entries if counts.get(entry["id"]) == 0]
        allowed = [entry["id"] for entry in projection.entries if counts.get(entry["id"]) == 0 and _may_be_empty(entry, own)]
        if set(empty) - set(allowed):
            matched_nothing = [entry_id for entry_id in empty if entry_id not in allowed]
            items.append(report_item("projection", projection.name, "fail", "minor", f"extract entries matched nothing: {', '.join(matched_nothing)}", evidence))
            continue
        if allowed:
            message = f"reads and matches its output_schema; empty now, as the map allows: {', '.join(allowed)}"
            items.append(report_item("projection", projection.name, "pass", "major", message, evidence, note="empty"))
            continue
        items.append(report_item("projection", projection.name, "pass", "major", "reads and matches its output_schema", evidence))
    return items


# -- the report -------------------------------------------------------------------------------


def _state_item(reading: StateReading, severity: str) -> dict[str, Any]:
    evidence = {"current": reading.current, "diagnostics": reading.diagnostics}
    if not reading.diagnosable:
        return report_item("state", reading.name, "pass", "info", "declares no diagnostic target to check", evidence, note="no_diagnostics", current=False)
    if reading.drift:
        evidence["drift"] = reading.drift
        return report_item("state", reading.name, "fail", severity, f"can never match on this page: {'; '.join(reading.drift)}", evidence, current=False)
    if reading.current:
        fallback = [f"{d['diagnostic']} matched only through {d['matched_by']}; the preferred selectors drifted"
                    for d in reading.diagnostics if str(d.get("matched_by") or "").startswith("fallback_selectors")]
        if fallback:
            return report_item("state", reading.name, "warn", severity, "current, " + "; ".join(fallback), evidence, fallback, current=True)
        return report_item("state", reading.name, "pass", severity, "current: every diagnostic matches", evidence, current=True)
    waiting = [str(d["diagnostic"]) for d in reading.diagnostics if not d.get("matched")]
    message = f"not current on this page (information, not drift): not matching now: {', '.join(waiting)}"
    return report_item("state", reading.name, "pass", severity, message, evidence, note="not_current", current=False)


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
        items.append(report_item("check", check.id, status, result["severity"], message, result, warnings))
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
            items.append(report_item("state", state.name, "error", severity, f"could not run its diagnostics: {exc.code}", {"error": exc.to_error()}))
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
    items.extend(await tool_items(manifest, call, url, readings, setup=setup))
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
        setup = await run_setups(manifest, call, severity_of=lambda tool: tool_severity(tool, manifest), item=report_item)
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
