"""Run a manifest's ``checks`` against the live page, and read its states.

Each check gives ``{check_id, status, severity, observed_at, url, evidence,
drift_detected, error}`` as the spec asks. ``status`` is ``passed``,
``failed`` (an assertion does not hold: ``drift_detected`` is true and
``error.code`` is ``drift_detected``, with the declared severity) or
``error`` (the check could not run: ``error.code`` says why).

Assertions understood (several keys in one assertion must all hold):
``target`` with ``visible`` (bool), ``exists`` (bool, default true),
``enabled`` (bool), ``text_equals`` / ``text_contains`` (the element's
text), ``count`` / ``min_count`` / ``max_count`` (elements matched); and
``state`` (a state of the map is current, judged by its diagnostics).

Several matches are not ambiguity here: an assertion says something about
what the target designates, not where an action lands.

- ``exists``: some element matches (``false``: none does).
- ``visible: true``: at least one match is visible. A match rendered but
  empty (zero size and no text, like an ``<output>`` before its first
  result) counts, with a note. ``visible: false``: no match is visible.
- ``count`` / ``min_count`` / ``max_count``: the number of matches (the
  visible ones when the assertion also says ``visible: true``).
- ``text_equals`` / ``text_contains``: at least one match has that text
  (whitespace collapsed, as the engine's locators compare; only a visible
  one when the assertion says ``visible: true``).
- ``enabled``: a property of one element, so the target must resolve to
  one visible element as an action would (role+name narrowing included);
  several visible matches are reported as ambiguous.

Each assertion's evidence has ``target`` with ``count``, ``visible_count``
and ``matched_by``. A locator the engine refuses (``invalid_locator``) can
never match, so its assertion fails rather than erroring.

``steps`` are not run by this version, nor ``setup`` entries other than
``call`` ones (those run in ``setup.py``, before the check is judged again);
a check that has them lists them under ``evidence.not_run``. ``on_fail.store_evidence`` is
honoured for failed checks: ``url`` stores the page URL, ``dom_snapshot`` a
bounded text snapshot of the page (``dom.snapshot_text``, at most
``DOM_SNAPSHOT_CHARS`` characters, with ``truncated``); other kinds are
listed as ``not_stored``.

A state (``read_state``) is current when each of its diagnostics holds,
exactly as the server judges it before a tool runs (``build_probes`` of
``mcp_actions.dispatch.primitives.states``): the diagnostic's locator matches a visible
element (an attached one with ``"visible": false``) and its URL predicates
hold. A diagnostic that can never match on this page (an invalid locator, a
URL predicate impossible on the page's origin) is drift; one that merely
does not match now is not.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..dispatch.primitives.states import build_probes
from ..errors import ActionError, ErrorCode
from ..manifest.model import Check, State
from .probe import PrimitiveCall, Probe, locator_of, probe_target, resolve_one, url_drift, url_predicates_hold
from .setup import setup_calls

__all__ = ["DEFAULT_SEVERITY", "DOM_SNAPSHOT_CHARS", "StateReading", "read_state", "run_check", "state_current"]

DEFAULT_SEVERITY = "major"
DOM_SNAPSHOT_CHARS = 4_000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class StateReading:
    """A state on the live page: current or not, per-diagnostic evidence, and what can never match."""

    name: str
    current: bool
    diagnosable: bool
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)
    url: str | None = None


async def read_state(call: PrimitiveCall, state: State, *, url: str | None = None) -> StateReading:
    """Diagnose ``state`` on the page; raises ``ActionError`` only when the runtime could not answer."""
    probes, diagnosable, _ = build_probes([state])
    reading = StateReading(state.name, current=False, diagnosable=bool(diagnosable), url=url)
    held = bool(probes)
    for probe in probes:
        name = probe.id.split("/", 1)[1]
        entry: dict[str, Any] = {"diagnostic": name, "matched": True}
        predicates = {key: value for key, value in (("url_contains", probe.url_contains), ("url_matches", probe.url_matches)) if value is not None}
        if probe.locator is not None:
            wanted = probe.presence
            output = await _probe_one(call, probe.locator, wanted)
            if isinstance(output, ActionError):
                if output.code != ErrorCode.INVALID_LOCATOR:
                    raise output
                reading.drift.append(f"{name}: its locator is invalid: {output.message}")
                entry.update(matched=False, error=output.to_error())
            else:
                entry.update(matched=bool(output.get("matched")), count=int(output.get("match_count") or 0),
                             matched_by=output.get("matched_by"), needs=wanted)
                url = output.get("url") if isinstance(output.get("url"), str) else url
        if predicates:
            reason = url_drift(predicates, url)
            if reason:
                reading.drift.append(f"{name}: {reason}")
            holds = url_predicates_hold(predicates, url)
            entry.update(predicates, url_holds=holds)
            entry["matched"] = entry["matched"] and holds
        held = held and entry["matched"]
        reading.diagnostics.append(entry)
    reading.current = held and not reading.drift
    reading.url = url
    return reading


async def _probe_one(call: PrimitiveCall, locator: dict[str, Any], state: str) -> dict[str, Any] | ActionError:
    """One ``locator.probe`` (the server's own state probe); the portable ``locator.wait_for`` without it."""
    try:
        output = await call("locator.probe", {"probes": [{"id": "d", "locator": locator, "state": state}]})
    except ActionError as exc:
        if exc.code not in (ErrorCode.CAPABILITY_UNAVAILABLE, ErrorCode.UNKNOWN_ACTION, ErrorCode.CAPABILITY_UNSUPPORTED):
            return exc
        try:
            waited = await call("locator.wait_for", {"locator": locator, "state": state, "timeout_ms": 0})
        except ActionError as inner:
            if inner.code in (ErrorCode.TIMEOUT, ErrorCode.TARGET_NOT_FOUND, ErrorCode.TARGET_NOT_VISIBLE):
                return {"matched": False, "match_count": 0, "matched_by": None}
            return inner
        return waited if isinstance(waited, dict) else {"matched": True}
    results = output.get("results") if isinstance(output, dict) else None
    first = results[0] if isinstance(results, list) and results and isinstance(results[0], dict) else {}
    return {**first, "url": output.get("url") if isinstance(output, dict) else None}


async def state_current(call: PrimitiveCall, state: State) -> tuple[bool, list[dict[str, Any]]]:
    """Is ``state`` current? ``(current, per-diagnostic evidence)``; see ``read_state``."""
    reading = await read_state(call, state)
    return reading.current, reading.diagnostics


def _text_locator(target: dict[str, Any], key: str, wanted: str) -> dict[str, Any] | None | bool:
    """The target narrowed to elements whose text satisfies ``key: wanted``.

    Returns a locator, ``True`` when the target's own predicate already
    implies the assertion's, ``False`` when it excludes it, or None when the
    two cannot be combined in one locator (then one element is judged).
    """
    wanted_norm = " ".join(wanted.split())
    own = target.get(key)
    if not isinstance(own, str):
        return {**target, key: wanted}
    own_norm = " ".join(own.split())
    if key == "text_equals":
        return own_norm == wanted_norm
    if wanted_norm in own_norm:
        return True
    if own_norm in wanted_norm:
        return {**target, key: wanted}
    return None


def _searched_alone(matched_by: str | None) -> bool:
    """True when the engine found the match by searching the whole page for the text (not through the target's own candidates)."""
    return matched_by in ("text_equals", "text_contains")


async def _judge_text(call: PrimitiveCall, assertion: dict[str, Any], target: dict[str, Any], probe: Probe, out: dict[str, Any]) -> list[str]:
    """Problems of the text keys: at least one match (a visible one with ``visible: true``) must have the text."""
    problems: list[str] = []
    visible_only = assertion.get("visible") is True
    text_only_target = not any(key in target for key in ("selector", "selectors", "fallback_selectors", "xpath", "role"))
    for key in ("text_equals", "text_contains"):
        wanted = assertion.get(key)
        if not isinstance(wanted, str) or not probe.count:
            continue
        combined = _text_locator(locator_of(target), key, wanted) if " ".join(wanted.split()) else None
        if combined is True:
            continue
        if combined is False:
            problems.append(f"the target's own {key} {target.get(key)!r} excludes {wanted!r}")
            continue
        if combined is None:  # judged on the one element the target resolves to
            problems += await _judge_text_of_one(call, key, wanted, target)
            continue
        narrowed = await probe_target(call, combined)
        if narrowed.error:
            raise ActionError.from_error(narrowed.error)
        found = narrowed.visible_count if visible_only else narrowed.count
        if _searched_alone(narrowed.matched_by) and not text_only_target:
            found = 0  # the engine fell back to a page-wide text search: not an element of this target
        out.setdefault("text_matches", {})[key] = found
        if not found:
            if probe.count == 1:
                problems += await _judge_text_of_one(call, key, wanted, target)
            else:
                verb = "has the text" if key == "text_equals" else "contains"
                problems.append(f"none of the {probe.count} matches {verb} {wanted!r}")
    return problems


async def _judge_text_of_one(call: PrimitiveCall, key: str, wanted: str, target: dict[str, Any]) -> list[str]:
    resolution = await resolve_one(call, target, primitive="locator.text_content")
    if not resolution.ok:
        return [f"{key} needs one element to compare: {resolution.code}: {resolution.message}"]
    text = " ".join(str(resolution.info.get("text") or "").split())
    wanted_norm = " ".join(wanted.split())
    if key == "text_equals" and text != wanted_norm:
        return [f"text is {text!r}, expected {wanted_norm!r}"]
    if key == "text_contains" and wanted_norm not in text:
        return [f"text {text!r} does not contain {wanted_norm!r}"]
    return []


#: The count assertions and what each asks of the number of matches (``basis``) against the wanted one.
_COUNT_RULES: tuple[tuple[str, Callable[[int, int], bool]], ...] = (
    ("count", lambda n, wanted: n == wanted),
    ("min_count", lambda n, wanted: n >= wanted),
    ("max_count", lambda n, wanted: n <= wanted),
)


async def _judge_target(call: PrimitiveCall, assertion: dict[str, Any], probe: Probe, out: dict[str, Any]) -> list[str]:
    """The ways ``probe`` breaks ``assertion`` (empty when it holds); notes go to ``out['notes']``."""
    problems: list[str] = []
    target = assertion["target"]
    # "visible: false" is also satisfied by an absent element, so it implies no existence requirement.
    exists = assertion.get("exists", None if assertion.get("visible") is False else True)
    if exists is True and probe.count == 0:
        problems.append("no element matches the target")
    if exists is False and probe.count > 0:
        problems.append(f"{probe.count} element(s) match a target that must be absent")
    basis = probe.count
    if assertion.get("visible") is True and probe.count:
        basis = probe.visible_count
        if not probe.visible_count:
            resolution = await resolve_one(call, target)
            if resolution.empty:
                basis = max(1, sum(1 for c in resolution.candidates if (c.get("hidden") or {}).get("reason") == "zero_size"))
                out.setdefault("notes", []).append("rendered but empty (zero size, no text): counted as visible")
            else:
                reasons = sorted({str((c.get("hidden") or {}).get("reason")) for c in resolution.candidates if isinstance(c, dict)})
                problems.append(f"{probe.count} element(s) match but none is visible" + (f" ({', '.join(reasons)})" if reasons else ""))
    if assertion.get("visible") is False and probe.visible_count:
        problems.append(f"{probe.visible_count} visible element(s) match, expected none visible")
    if "enabled" in assertion and probe.count:
        resolution = await resolve_one(call, target)
        if resolution.ok:
            out["enabled"] = bool(resolution.info.get("enabled"))
            if out["enabled"] != bool(assertion["enabled"]):
                problems.append(f"enabled is {out['enabled']}, expected {bool(assertion['enabled'])}")
        else:
            problems.append(f"enabled is judged on one element: {resolution.code}: {resolution.message}")
    problems += await _judge_text(call, assertion, target, probe, out)
    for key, holds in _COUNT_RULES:
        wanted = assertion.get(key)
        if isinstance(wanted, int) and not isinstance(wanted, bool) and not holds(basis, wanted):
            what = "visible element(s)" if assertion.get("visible") is True else "element(s)"
            problems.append(f"{basis} {what} match, {key} is {wanted}")
    return problems


async def _assertion(call: PrimitiveCall, assertion: dict[str, Any], states: Mapping[str, State], url: str | None) -> dict[str, Any]:
    """One assertion's outcome: ``{"assertion", "holds", "problems", ...evidence}``."""
    out: dict[str, Any] = {"assertion": assertion, "holds": True, "problems": []}
    if isinstance(assertion.get("target"), dict):
        probe = await probe_target(call, assertion["target"])
        out["target"] = probe.evidence()
        if probe.invalid:
            out["problems"].append(f"the target's locator is invalid: {(probe.error or {}).get('message')}")
        elif probe.error:
            raise ActionError.from_error(probe.error)
        else:
            out["problems"] += await _judge_target(call, assertion, probe, out)
            if probe.via_fallback:
                out["warnings"] = [f"matched only through {probe.matched_by}"]
    if isinstance(assertion.get("state"), str):
        state = states.get(assertion["state"])
        if state is None:
            out["problems"].append(f"the map declares no state {assertion['state']!r}")
        else:
            reading = await read_state(call, state, url=url)
            out["state"] = {"name": state.name, "current": reading.current, "diagnostics": reading.diagnostics}
            if not reading.current:
                out["problems"].append(f"state {state.name!r} is not current" + (f" ({'; '.join(reading.drift)})" if reading.drift else ""))
    if "target" not in assertion and "state" not in assertion:
        out["problems"].append("the assertion names no target or state this version can check")
    out["holds"] = not out["problems"]
    return out


def _named(assertion: dict[str, Any]) -> str:
    """``{"selector":"#submit"}: `` for an assertion with a target (its locating part), else nothing."""
    target = assertion.get("target")
    if not isinstance(target, dict):
        return ""
    return json.dumps(locator_of(target), ensure_ascii=False, separators=(",", ":"), default=str) + ": "


async def _store_evidence(call: PrimitiveCall, kinds: Any, url: str | None) -> dict[str, Any]:
    stored: dict[str, Any] = {}
    not_stored: list[str] = []
    for kind in kinds if isinstance(kinds, list) else []:
        if kind == "url":
            stored["url"] = url
        elif kind == "dom_snapshot":
            try:
                snapshot = await call("dom.snapshot_text", {"max_chars": DOM_SNAPSHOT_CHARS})
            except ActionError as exc:
                stored["dom_snapshot"] = {"error": exc.to_error()}
            else:
                snapshot = snapshot if isinstance(snapshot, dict) else {}
                stored["dom_snapshot"] = {"kind": "text", "text": snapshot.get("text"), "truncated": bool(snapshot.get("truncated")), "max_chars": DOM_SNAPSHOT_CHARS}
        else:
            not_stored.append(str(kind))
    if not_stored:
        stored["not_stored"] = not_stored
    return stored


async def run_check(call: PrimitiveCall, check: Check, *, states: Mapping[str, State], url: str | None) -> dict[str, Any]:
    """Run one check's assertions on the page; never raises for what the page does."""
    severity = check.severity or DEFAULT_SEVERITY
    result: dict[str, Any] = {"check_id": check.id, "status": "passed", "severity": severity, "observed_at": _now(), "url": url, "drift_detected": False}
    evidence: dict[str, Any] = {}
    # Setup entries that call a tool are run by drift_report (setup.py) before this check is judged again.
    not_run = [key for key in ("setup", "steps") if len(getattr(check, key)) > (len(setup_calls(check)) if key == "setup" else 0)]
    if not_run:
        evidence["not_run"] = not_run
    try:
        outcomes = [await _assertion(call, assertion, states, url) for assertion in check.assertions]
    except ActionError as exc:
        result.update(status="error", error=exc.to_error(), evidence=evidence)
        return result
    evidence["assertions"] = outcomes
    failed = [o for o in outcomes if not o["holds"]]
    if failed:
        # Name the target of each failed assertion: a check often asserts several.
        problems = [f"{_named(o['assertion'])}{p}" for o in failed for p in o["problems"]]
        result.update(
            status="failed",
            drift_detected=True,
            error={
                "code": ErrorCode.DRIFT_DETECTED.value,
                "message": f"check {check.id!r} failed: " + "; ".join(problems),
                "severity": severity,
                "recoverable": True,
                "evidence": {"failed_assertions": [i for i, o in enumerate(outcomes) if not o["holds"]]},
            },
        )
        evidence.update(await _store_evidence(call, (check.on_fail or {}).get("store_evidence"), url))
    result["evidence"] = evidence
    return result
