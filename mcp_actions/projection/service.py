"""Projections of live runtimes: read, summary, diff, postconditions and change hooks.

``ProjectionService`` knows runtimes only through two callables, so it can be
tested on any runtime and wired by the composition root: ``extract`` runs one
``dom.extract`` on a runtime and ``projections_for`` names the compiled
projections that apply to it. Every observation is one round trip for all the
projections it needs.

What a read moves (see ``store.py``): ``read``, ``summary`` and ``diff`` take
the agent's baseline forward; a postcondition does not (the agent's next diff
still shows what the action changed); ``after_call`` (run by
dispatch after each call on a runtime) refreshes only the *watched*
projections of that runtime and calls the change listeners for those whose
value changed, without moving any baseline.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..errors import ActionError, ErrorCode
from ..events import EventHub, ProjectionChanged
from ..manifest.expressions import compile_slot
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..workflow.interpreter import jsonata_truthy
from .diff import json_patch, semantic_deltas
from .extract import ExtractPlan
from .project import CompiledProjection, check_budget
from .store import Snapshot, SnapshotStore

__all__ = ["Extractor", "Observation", "ProjectionService", "ProjectionSource", "postcondition_projection"]

log = logging.getLogger(__name__)

#: ``(runtime_id, dom.extract arguments, timeout_ms) -> dom.extract output``; raises ``ActionError``.
Extractor = Callable[[str, dict[str, Any], int | None], Awaitable[Any]]
#: ``runtime_id -> {projection name: CompiledProjection}`` of the maps that apply to that runtime.
ProjectionSource = Callable[[str], Mapping[str, CompiledProjection]]
#: Told ``(runtime_id, projection)`` when a watched projection's value changed after a call.


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Observation:
    """One projection's state as just observed, with its extraction diagnostics."""

    projection: str
    state: Any
    diagnostics: dict[str, Any]
    observed_at: str


def postcondition_projection(spec: Any) -> str | None:
    """The projection a workflow ``postcondition`` names (a name, or ``{"projection": name, ...}``)."""
    if isinstance(spec, str):
        return spec
    name = spec.get("projection") if isinstance(spec, Mapping) else None
    return name if isinstance(name, str) else None


class ProjectionService:
    """State projections of runtimes, with their baselines and change hooks."""

    def __init__(
        self,
        *,
        extract: Extractor,
        projections_for: ProjectionSource,
        limits: Limits = DEFAULT_LIMITS,
        store: SnapshotStore | None = None,
        events: EventHub | None = None,
    ) -> None:
        self._extract = extract
        self._projections_for = projections_for
        self.limits = limits
        self.store = store or SnapshotStore()
        # Counted: the state, summary and diff resources of one projection each hold a watch.
        self._watched: Counter[tuple[str, str]] = Counter()
        #: Where a watched projection's change after a call is published (``ProjectionChanged``).
        self.events = events or EventHub()

    # -- lookup ----------------------------------------------------------

    def projections(self, runtime_id: str) -> Mapping[str, CompiledProjection]:
        """The projections that apply to ``runtime_id``."""
        return self._projections_for(runtime_id)

    def _projection(self, runtime_id: str, name: Any) -> CompiledProjection:
        available = self.projections(runtime_id)
        if not isinstance(name, str) or not name:
            raise ActionError(
                "name a state projection with projection_name",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": "/projection_name", "available": sorted(available)},
            )
        projection = available.get(name)
        if projection is None:
            raise ActionError(
                f"runtime {runtime_id!r} has no state projection {name!r}",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": "/projection_name", "projection_name": name, "runtime_id": runtime_id, "available": sorted(available)},
            )
        return projection

    # -- observing ------------------------------------------------------

    async def observe_all(
        self, runtime_id: str, projections: list[CompiledProjection], *, timeout_ms: int | None = None
    ) -> dict[str, Observation | ActionError]:
        """Observe several projections in one ``dom.extract`` round trip; each gets its state or its error.

        A failing extraction (the engine refused the request) is raised, since no projection got anything.
        """
        plan = ExtractPlan([(p.name, p.entries) for p in projections])
        output = await self._extract(runtime_id, plan.request(), timeout_ms)
        observed_at = _now()
        parts = plan.split(output)
        results: dict[str, Observation | ActionError] = {}
        for projection in projections:
            part = parts[projection.name]
            try:
                state = projection.project(part.records)
            except ActionError as exc:
                exc.evidence.setdefault("diagnostics", part.diagnostics())
                results[projection.name] = exc
                continue
            results[projection.name] = Observation(projection.name, state, part.diagnostics(), observed_at)
        return results

    async def observe(self, runtime_id: str, name: Any, *, timeout_ms: int | None = None) -> Observation:
        """Observe one projection now; raises its error."""
        projection = self._projection(runtime_id, name)
        result = (await self.observe_all(runtime_id, [projection], timeout_ms=timeout_ms))[projection.name]
        if isinstance(result, ActionError):
            raise result
        return result

    # -- what agents read ---------------------------------------------

    async def read(self, runtime_id: str, projection: Any, *, timeout_ms: int | None = None) -> dict[str, Any]:
        """``{runtime_id, projection, state, diagnostics, observed_at}``; the new diff baseline."""
        observation = await self.observe(runtime_id, projection, timeout_ms=timeout_ms)
        result = {
            "runtime_id": runtime_id,
            "projection": observation.projection,
            "state": observation.state,
            "diagnostics": observation.diagnostics,
            "observed_at": observation.observed_at,
        }
        check_budget(result, budget="state", max_bytes=self.limits.max_state_bytes, projection=observation.projection)
        self._remember(runtime_id, observation)
        return result

    async def summary(
        self, runtime_id: str, projection: Any, summary_name: Any, *, timeout_ms: int | None = None, remember: bool = True
    ) -> dict[str, Any]:
        """A declared summary of the projection's current state, within its ``max_bytes``.

        With ``remember`` false (a summary attached to a tool's result) the agent's diff
        baseline stays where it was: its next ``state_diff`` still shows what the call changed.
        """
        compiled = self._projection(runtime_id, projection)
        if not isinstance(summary_name, str) or not summary_name:
            raise ActionError(
                "name a declared summary with summary_name",
                code=ErrorCode.INVALID_INPUT,
                evidence={"path": "/summary_name", "available": sorted(compiled.summaries)},
            )
        compiled.require_summary(summary_name)  # before the round trip: a typo costs nothing
        observation = await self.observe(runtime_id, compiled.name, timeout_ms=timeout_ms)
        value, size, max_bytes = compiled.summary(summary_name, observation.state)
        if remember:
            self._remember(runtime_id, observation)
        return {
            "runtime_id": runtime_id,
            "projection": compiled.name,
            "summary": summary_name,
            "value": value,
            "bytes": size,
            "max_bytes": max_bytes,
            "observed_at": observation.observed_at,
        }

    async def diff(self, runtime_id: str, projection: Any, *, timeout_ms: int | None = None) -> dict[str, Any]:
        """What changed since the agent last read this projection on this runtime (patch and deltas).

        Without an earlier read there is nothing to compare: ``baseline`` is true, the patch
        empty, and this read becomes the baseline of the next diff.
        """
        compiled = self._projection(runtime_id, projection)
        previous = self.store.baseline(runtime_id, compiled.name)
        observation = await self.observe(runtime_id, compiled.name, timeout_ms=timeout_ms)
        self._remember(runtime_id, observation)
        result: dict[str, Any] = {
            "runtime_id": runtime_id,
            "projection": compiled.name,
            "baseline": previous is None,
            "previous_observed_at": previous.observed_at if previous else None,
            "observed_at": observation.observed_at,
        }
        if previous is None:
            result.update(changed=False, patch=[], deltas=[])
        else:
            result.update(self.compare(compiled, previous.state, observation.state))
        result["diagnostics"] = observation.diagnostics
        check_budget(result, budget="diff", max_bytes=self.limits.max_state_bytes, projection=compiled.name)
        return result

    @staticmethod
    def compare(projection: CompiledProjection, before: Any, after: Any) -> dict[str, Any]:
        """``{changed, patch, deltas, counts}`` between two states of ``projection``."""
        deltas = semantic_deltas(before, after, projection.delta_keys)
        counts = {op: sum(1 for d in deltas if d["op"] == op) for op in ("added", "removed", "changed")}
        return {"changed": before != after, "patch": json_patch(before, after), "deltas": deltas, "counts": counts}

    def _remember(self, runtime_id: str, observation: Observation) -> None:
        self.store.record_read(runtime_id, observation.projection, Snapshot(observation.state, observation.observed_at))

    # -- postconditions -----------------------------------------------

    async def before_postcondition(self, runtime_id: str, spec: Any, *, timeout_ms: int | None = None) -> Observation:
        """The named projection's state before a mutating action (what the postcondition compares with)."""
        return await self.observe(runtime_id, postcondition_projection(spec), timeout_ms=timeout_ms)

    async def check_postcondition(
        self,
        runtime_id: str,
        spec: Any,
        before: Observation,
        *,
        input: Any = None,
        output: Any = None,
        timeout_ms: int | None = None,
    ) -> dict[str, Any]:
        """Re-read the projection after the action; ``state_mismatch`` (evidence: the diff) unless it holds.

        It holds when the projection reads and validates with no missing required
        field, when ``changed`` (if given) agrees with whether the state changed,
        and when ``expect`` (if given, a ``{% … %}`` slot over ``state``,
        ``previous``, ``deltas``, ``input`` and ``output``) is truthy.
        Returns ``{projection, changed, patch, deltas, counts, observed_at}``.
        """
        name = postcondition_projection(spec)
        compiled = self._projection(runtime_id, name)
        options = spec if isinstance(spec, Mapping) else {}
        try:
            after = await self.observe(runtime_id, compiled.name, timeout_ms=timeout_ms)
        except ActionError as exc:
            if exc.code not in (ErrorCode.INVALID_RESULT, ErrorCode.STATE_PAYLOAD_TOO_LARGE, ErrorCode.EXPRESSION_FAILED):
                raise
            raise ActionError(
                f"postcondition {compiled.name!r} does not hold: the projection no longer reads ({exc.code})",
                code=ErrorCode.STATE_MISMATCH,
                evidence={"projection": compiled.name, "reason": exc.code, "cause": exc.to_error()},
            ) from exc
        # Neither the agent's baseline (its next state_diff still shows what the action changed)
        # nor the change hook's latest value (after_call still announces the change) moves.
        report = {"projection": compiled.name, "observed_at": after.observed_at, **self.compare(compiled, before.state, after.state)}
        reason = None
        if after.diagnostics.get("missing_required_fields"):
            reason = "missing_required_fields"
        elif isinstance(options.get("changed"), bool) and options["changed"] != report["changed"]:
            reason = "changed" if report["changed"] else "unchanged"
        elif "expect" in options:
            context = {"state": after.state, "previous": before.state, "deltas": report["deltas"], "input": input, "output": output}
            if not jsonata_truthy(compile_slot(options["expect"]).evaluate(context, max_bytes=self.limits.max_expression_bytes)):
                reason = "expect_false"
        if reason is not None:
            evidence = {**report, "reason": reason, "diagnostics": after.diagnostics}
            if "expect" in options:
                evidence["expect"] = options["expect"]
            raise ActionError(
                f"postcondition {compiled.name!r} does not hold ({reason})",
                code=ErrorCode.STATE_MISMATCH,
                evidence=evidence,
            )
        return report

    # -- change hooks ---------------------------------------------------

    def watch(self, runtime_id: str, projection: str) -> None:
        """Refresh this projection after every call on the runtime (a subscription; counted)."""
        self._watched[(runtime_id, projection)] += 1

    def unwatch(self, runtime_id: str, projection: str) -> None:
        """Release one watch; the projection stops being refreshed when none is left."""
        key = (runtime_id, projection)
        if self._watched[key] <= 1:
            self._watched.pop(key, None)
        else:
            self._watched[key] -= 1

    def watching(self, runtime_id: str, projection: str) -> bool:
        """Whether the projection is refreshed after calls on the runtime."""
        return self._watched[(runtime_id, projection)] > 0

    def forget_runtime(self, runtime_id: str) -> None:
        """The runtime is gone: drop its snapshots and watches."""
        self.store.forget_runtime(runtime_id)
        self._watched = Counter({w: n for w, n in self._watched.items() if w[0] != runtime_id})

    async def after_call(self, runtime_id: str, *, timeout_ms: int | None = None) -> list[str]:
        """Refresh the runtime's watched projections (one round trip); return and announce those that changed."""
        available = self.projections(runtime_id)
        watched = [available[name] for rid, name in sorted(self._watched) if rid == runtime_id and name in available]
        if not watched:
            return []
        try:
            results = await self.observe_all(runtime_id, watched, timeout_ms=timeout_ms)
        except ActionError as exc:
            log.info("could not refresh projections of %s after a call: %s", runtime_id, exc.code)
            return []
        changed: list[str] = []
        for name, result in results.items():
            if isinstance(result, ActionError):
                log.info("projection %s of %s did not read after a call: %s", name, runtime_id, result.code)
                continue
            latest = self.store.latest(runtime_id, name)
            self.store.record_observed(runtime_id, name, Snapshot(result.state, result.observed_at))
            if latest is None or latest.state != result.state:
                changed.append(name)
        for name in changed:
            self.events.publish(ProjectionChanged(runtime_id, name))
        return changed
