"""Which declared states are current on a live page, in one round trip.

A manifest's ``states`` each list ``diagnostics``: probes whose ``target``
(a target descriptor) must be present on the page. ``StateDiagnoser`` turns
every diagnostic of every state into one probe and asks the runtime for all
of them in a single ``locator.probe`` call::

    locator.probe {"probes": [{"id": "<state>/<diagnostic>", "locator": {...}, "state": "visible"}, ...]}
      -> {"results": [{"id": ..., "matched": bool, "match_count": int, "matched_by": str | null}, ...],
          "url": "<page url>"}

A state is current when every one of its diagnostics holds: its locator
matches a visible element (``"visible": false`` in a diagnostic asks only
that the element be attached), and its URL predicates (``url_contains``,
``url_matches``) hold for the page URL. A state whose diagnostics locate
nothing cannot be diagnosed and is never reported current (``undiagnosable``).

A runtime that does not provide ``locator.probe`` (``RuntimeInfo.provides``,
the one answer to "can this runtime do X") is asked with one
``locator.wait_for`` (``timeout_ms`` 0) per probe, concurrently: correct, but
not one round trip.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...bounded_regex import UnsupportedPattern, search
from ...errors import ActionError, ErrorCode
from ...manifest.model import State
from ...manifest.state_probes import build_probes

__all__ = ["PROBE_PRIMITIVE", "Diagnosis", "StateDiagnoser", "build_probes"]

log = logging.getLogger(__name__)

#: Our batch presence primitive (not in the reference dictionary); see the module docstring.
PROBE_PRIMITIVE = "locator.probe"
PrimitiveCall = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Diagnosis:
    """The outcome: ``current`` states in declaration order, and per-diagnostic evidence."""

    current: tuple[str, ...]
    evaluated: tuple[str, ...]
    undiagnosable: tuple[str, ...]
    url: str | None
    results: dict[str, bool] = field(default_factory=dict)
    round_trips: int = 1

    def to_evidence(self) -> dict[str, Any]:
        """What a ``state_mismatch`` carries."""
        return {"current_states": list(self.current), "diagnostics": dict(self.results), "url": self.url}


class StateDiagnoser:
    """Diagnoses the declared states of one manifest on one runtime."""

    def __init__(self, states: Sequence[State]) -> None:
        self.probes, self.diagnosable, self.undiagnosable = build_probes(states)

    async def diagnose(self, call: PrimitiveCall, *, provides: Callable[[str], bool], url: str | None) -> Diagnosis:
        """Run every probe (one ``locator.probe`` call when the runtime ``provides`` it) and judge the states."""
        located = [p for p in self.probes if p.locator is not None]
        matched: dict[str, bool] = {}
        round_trips = 0
        if located:
            # URL predicates are judged here, against the page URL the probe answers with.
            batch = [{"id": p.id, "locator": p.locator, "state": p.presence} for p in located]
            if provides(PROBE_PRIMITIVE):
                output = await call(PROBE_PRIMITIVE, {"probes": batch})
                round_trips = 1
                results = output.get("results") if isinstance(output, dict) else None
                if not isinstance(results, list):
                    raise ActionError("locator.probe answered without results", code=ErrorCode.HANDLER_FAILED, evidence={"output": output})
                matched = {str(r.get("id")): bool(r.get("matched")) for r in results if isinstance(r, dict)}
                url = output.get("url") if isinstance(output.get("url"), str) else url
            else:
                answers = await asyncio.gather(*(self._wait_probe(call, entry) for entry in batch))
                matched = dict(zip((str(entry["id"]) for entry in batch), answers, strict=True))
                round_trips = len(batch)
        current = []
        for state in self.diagnosable:
            held = True
            for probe in (p for p in self.probes if p.state == state):
                ok = matched.get(probe.id, False) if probe.locator is not None else True
                if ok and probe.url_contains is not None:
                    ok = url is not None and probe.url_contains in url
                if ok and probe.url_matches is not None:
                    ok = url is not None and _url_matches(probe.url_matches, url)
                matched[probe.id] = ok
                held = held and ok
            if held:
                current.append(state)
        return Diagnosis(tuple(current), tuple(self.diagnosable), tuple(self.undiagnosable), url, matched, round_trips)

    @staticmethod
    async def _wait_probe(call: PrimitiveCall, entry: dict[str, Any]) -> bool:
        try:
            output = await call("locator.wait_for", {"locator": entry["locator"], "state": entry["state"], "timeout_ms": 0})
        except ActionError as exc:
            if exc.code in (ErrorCode.TIMEOUT, ErrorCode.TARGET_NOT_FOUND, ErrorCode.HANDLER_TIMEOUT, ErrorCode.TARGET_NOT_VISIBLE):
                return False
            raise
        return isinstance(output, dict) and output.get("matched") is not False


def _url_matches(pattern: str, url: str) -> bool:
    try:
        return search(pattern, url)  # RE2: the URL is the page's to choose (docs/manifest-language.md, "Regular expressions")
    except UnsupportedPattern:
        log.warning("url_matches %r is not a regular expression RE2 runs; the diagnostic fails", pattern)
        return False
