"""Run a manifest's ``checks`` against the live page.

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
``setup`` and ``steps`` are not run by this version; a check that has them
lists them under ``evidence.not_run``.

``on_fail.store_evidence`` is honoured for failed checks: ``url`` stores the
page URL, ``dom_snapshot`` a bounded text snapshot of the page
(``dom.snapshot_text``, at most ``DOM_SNAPSHOT_CHARS`` characters, with
``truncated``); other kinds are listed as ``not_stored``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.model import Check, State
from .probe import PrimitiveCall, Probe, probe_target

__all__ = ["DEFAULT_SEVERITY", "DOM_SNAPSHOT_CHARS", "run_check", "state_current"]

DEFAULT_SEVERITY = "major"
DOM_SNAPSHOT_CHARS = 4_000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def state_current(call: PrimitiveCall, state: State) -> tuple[bool, list[dict[str, Any]]]:
    """Is ``state`` current? Every diagnostic with a target must match something; returns per-diagnostic evidence."""
    evidence: list[dict[str, Any]] = []
    current = True
    for diagnostic in state.diagnostics:
        target = diagnostic.get("target")
        if not isinstance(target, dict):
            continue
        probe = await probe_target(call, target)
        if probe.error:
            raise ActionError.from_error(probe.error)
        evidence.append({"diagnostic": diagnostic.get("name"), **probe.evidence()})
        current = current and probe.count > 0
    return current, evidence


def _judge_target(assertion: dict[str, Any], probe: Probe) -> list[str]:
    """The ways ``probe`` breaks ``assertion`` (empty when it holds)."""
    problems: list[str] = []
    # "visible: false" is also satisfied by an absent element, so it implies no existence requirement.
    exists = assertion.get("exists", None if assertion.get("visible") is False else True)
    if exists is True and probe.count == 0:
        problems.append("no element matches the target")
    if exists is False and probe.count > 0:
        problems.append(f"{probe.count} element(s) match a target that must be absent")
    if "visible" in assertion and probe.count:
        if probe.count > 1 and "visible" not in probe.info:
            problems.append(f"{probe.count} visible elements match; the target is ambiguous")
        elif bool(probe.info.get("visible")) != bool(assertion["visible"]):
            problems.append(f"visible is {bool(probe.info.get('visible'))}, expected {bool(assertion['visible'])}")
    if "enabled" in assertion and probe.count == 1 and bool(probe.info.get("enabled")) != bool(assertion["enabled"]):
        problems.append(f"enabled is {bool(probe.info.get('enabled'))}, expected {bool(assertion['enabled'])}")
    text = str(probe.info.get("text") or "")
    if isinstance(assertion.get("text_equals"), str) and probe.count == 1 and text != assertion["text_equals"]:
        problems.append(f"text is {text!r}, expected {assertion['text_equals']!r}")
    if isinstance(assertion.get("text_contains"), str) and probe.count == 1 and assertion["text_contains"] not in text:
        problems.append(f"text {text!r} does not contain {assertion['text_contains']!r}")
    for key, holds in (("count", lambda n, w: n == w), ("min_count", lambda n, w: n >= w), ("max_count", lambda n, w: n <= w)):
        wanted = assertion.get(key)
        if isinstance(wanted, int) and not holds(probe.count, wanted):
            problems.append(f"{probe.count} element(s) match, {key} is {wanted}")
    return problems


async def _assertion(call: PrimitiveCall, assertion: dict[str, Any], states: Mapping[str, State]) -> dict[str, Any]:
    """One assertion's outcome: ``{"assertion", "holds", "problems", ...evidence}``."""
    out: dict[str, Any] = {"assertion": assertion, "holds": True, "problems": []}
    if isinstance(assertion.get("target"), dict):
        probe = await probe_target(call, assertion["target"])
        if probe.error:
            raise ActionError.from_error(probe.error)
        out["target"] = probe.evidence()
        out["problems"] += _judge_target(assertion, probe)
        if probe.via_fallback:
            out["warnings"] = [f"matched only through {probe.matched_by}"]
    if isinstance(assertion.get("state"), str):
        state = states.get(assertion["state"])
        if state is None:
            out["problems"].append(f"the map declares no state {assertion['state']!r}")
        else:
            current, diagnostics = await state_current(call, state)
            out["state"] = {"name": state.name, "current": current, "diagnostics": diagnostics}
            if not current:
                out["problems"].append(f"state {state.name!r} is not current")
    if "target" not in assertion and "state" not in assertion:
        out["problems"].append("the assertion names no target or state this version can check")
    out["holds"] = not out["problems"]
    return out


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
    not_run = [key for key in ("setup", "steps") if getattr(check, key)]
    if not_run:
        evidence["not_run"] = not_run
    try:
        outcomes = [await _assertion(call, assertion, states) for assertion in check.assertions]
    except ActionError as exc:
        result.update(status="error", error=exc.to_error(), evidence=evidence)
        return result
    evidence["assertions"] = outcomes
    failed = [o for o in outcomes if not o["holds"]]
    if failed:
        problems = [p for o in failed for p in o["problems"]]
        result.update(
            status="failed",
            drift_detected=True,
            error={
                "code": ErrorCode.DRIFT_DETECTED.value,
                "message": f"check {check.id!r} failed: " + "; ".join(problems),
                "severity": severity,
                "recoverable": True,
                "evidence": {"failed_assertions": [check.assertions.index(o["assertion"]) for o in failed]},
            },
        )
        evidence.update(await _store_evidence(call, (check.on_fail or {}).get("store_evidence"), url))
    result["evidence"] = evidence
    return result
