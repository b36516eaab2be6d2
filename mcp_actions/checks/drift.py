"""The drift report of a map against a live page: checks, states, projections, tool targets.

Every item is ``{kind, id, status, severity, message, evidence, warnings}``
with ``status`` one of ``pass``, ``warn`` (holds, but something drifted
without breaking: a target found only through ``fallback_selectors``, an
entry that matched nothing), ``fail`` (drifted) or ``error`` (could not be
checked: the code says why). Severities:

- check: its declared severity (default major);
- state: major when a tool target or a check needs the state, else minor
  (a state may simply not be current on the page checked);
- projection: major when it does not read (extraction refused, expression,
  output_schema, byte budget) or required fields are missing; an extract
  entry that matches nothing is a minor ``fail``;
- tool target (and literal locators of workflow steps): major.

``failing(report, threshold)`` gives the items at or above a severity that
failed or could not be checked; ``mcp-actions check`` exits 1 when any do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.model import Manifest
from ..projection.project import CompiledProjection
from ..projection.service import Observation
from ..manifest.expressions import has_partial_slot, slot_source
from .probe import PrimitiveCall, probe_target
from .runner import DEFAULT_SEVERITY, run_check, state_current

__all__ = ["SEVERITY_ORDER", "ProjectionObserver", "drift_report", "failing"]

SEVERITY_ORDER = ("info", "minor", "major", "critical")
_PROJECTION_DRIFT_CODES = frozenset(
    {ErrorCode.INVALID_RESULT, ErrorCode.STATE_PAYLOAD_TOO_LARGE, ErrorCode.EXPRESSION_FAILED, ErrorCode.INVALID_LOCATOR, ErrorCode.LIMIT_EXCEEDED}
)

#: ``(projections) -> {name: Observation | ActionError}`` in one round trip (``ProjectionService.observe_all``).
ProjectionObserver = Callable[[list[CompiledProjection]], Awaitable[Mapping[str, Observation | ActionError]]]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _item(kind: str, id_: str, status: str, severity: str, message: str, evidence: Any = None, warnings: list[str] | None = None) -> dict[str, Any]:
    return {"kind": kind, "id": id_, "status": status, "severity": severity, "message": message, "evidence": evidence or {}, "warnings": warnings or []}


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


async def _target_item(call: PrimitiveCall, kind: str, id_: str, target: dict[str, Any]) -> dict[str, Any]:
    probe = await probe_target(call, target)
    evidence = {"target": target, **probe.evidence()}
    if probe.error:
        return _item(kind, id_, "error", "major", f"could not resolve the target: {probe.error.get('code')}", evidence)
    if probe.count == 0:
        return _item(kind, id_, "fail", "major", "no element matches the target", evidence)
    if probe.count > 1 and not probe.info:
        return _item(kind, id_, "fail", "major", f"{probe.count} elements match the target; it is ambiguous", evidence)
    if probe.via_fallback:
        warning = f"matched only through {probe.matched_by} ({_fallback(target, probe.matched_by)!r}); the preferred selectors drifted"
        return _item(kind, id_, "warn", "major", warning, evidence, [warning])
    return _item(kind, id_, "pass", "major", f"found by {probe.matched_by}", evidence)


def _fallback(target: dict[str, Any], matched_by: str | None) -> Any:
    try:
        index = int(str(matched_by).split("[", 1)[1].rstrip("]"))
        return target["fallback_selectors"][index]
    except (IndexError, KeyError, ValueError, TypeError):
        return matched_by


def _step_locators(tool: Any) -> list[tuple[str, dict[str, Any]]]:
    workflow = tool.effective_workflow
    out: list[tuple[str, dict[str, Any]]] = []
    for step in workflow.steps if workflow is not None else []:
        for key in ("locator", "target"):
            value = step.args.get(key)
            if isinstance(value, dict) and _is_literal(value):
                out.append((f"{tool.name}#{step.id}", value))
    return out


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
        message = result["error"]["message"] if "error" in result else "all assertions hold"
        items.append(_item("check", check.id, status, result["severity"], message, result, warnings))
    needed = _needed_states(manifest)
    for state in manifest.states:
        severity = "major" if state.name in needed else "minor"
        try:
            current, diagnostics = await state_current(call, state)
        except ActionError as exc:
            items.append(_item("state", state.name, "error", severity, f"could not run its diagnostics: {exc.code}", {"error": exc.to_error()}))
            continue
        if not diagnostics:
            items.append(_item("state", state.name, "pass", "info", "declares no diagnostic target to check", {}))
        elif current:
            items.append(_item("state", state.name, "pass", severity, "current: every diagnostic matches", {"diagnostics": diagnostics}))
        else:
            missing = [d["diagnostic"] for d in diagnostics if d["count"] == 0]
            items.append(_item("state", state.name, "fail", severity, f"not current: diagnostics match nothing: {', '.join(map(str, missing))}", {"diagnostics": diagnostics}))
    if projections:
        try:
            results = await observe(projections)
        except ActionError as exc:
            results = {p.name: exc for p in projections}
        items.extend(_projection_items(projections, results))
    for tool in manifest.tools:
        if tool.target is not None:
            items.append(await _target_item(call, "tool", tool.name, tool.target.model_dump(exclude_none=True)))
        for step_id, locator in _step_locators(tool):
            items.append(await _target_item(call, "tool_step", step_id, locator))
    counts = {status: sum(1 for i in items if i["status"] == status) for status in ("pass", "warn", "fail", "error")}
    report = {"url": url, "observed_at": _now(), "fail_on": fail_on, "summary": counts, "items": items}
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
