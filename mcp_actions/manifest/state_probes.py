"""A state's diagnostics as presence probes: what ``locator.probe`` is asked to decide whether the state is current.

The one reading of a state's ``diagnostics`` (``dispatch/primitives/states.py`` diagnoses
states before tools run, ``check`` reports them, and an attachment whose
target names a state installs only while its probes hold):

- a diagnostic's ``target`` (or, without one, its own locating fields) gives
  the locator, without the non-locating fields (``state``, ``confidence``,
  ``notes``, URL predicates);
- ``"visible": false`` asks only that the element be attached;
- ``url_contains`` / ``url_matches`` are checked against the page URL;
- a diagnostic that locates nothing and names no URL predicate is skipped, and
  a state left with no probe cannot be diagnosed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .model import State

__all__ = ["StateProbe", "build_probes"]

_LOCATING = ("selector", "selectors", "fallback_selectors", "xpath", "role", "text_equals", "text_contains")
_NOT_LOCATING = frozenset({"state", "confidence", "notes", "url_contains", "url_matches"})
_DIAGNOSTIC_OWN = frozenset({"name", "description", "visible", "observables"})


@dataclass(frozen=True)
class StateProbe:
    """One presence probe of one state's diagnostic (``id`` is ``<state>/<diagnostic>``)."""

    id: str
    state: str
    locator: dict[str, Any] | None
    visible: bool
    url_contains: str | None
    url_matches: str | None

    @property
    def presence(self) -> str:
        """What the locator must find: ``visible`` (the default), or only ``attached``."""
        return "visible" if self.visible else "attached"

    def request(self) -> dict[str, Any]:
        """The probe as ``locator.probe`` takes it, URL predicates included when it has them."""
        wanted: dict[str, Any] = {"id": self.id, "locator": self.locator, "state": self.presence}
        if self.url_contains is not None:
            wanted["url_contains"] = self.url_contains
        if self.url_matches is not None:
            wanted["url_matches"] = self.url_matches
        return wanted


def build_probes(states: Sequence[State]) -> tuple[list[StateProbe], list[str], list[str]]:
    """(probes, diagnosable state names, undiagnosable state names) of a manifest's states."""
    probes: list[StateProbe] = []
    diagnosable: list[str] = []
    undiagnosable: list[str] = []
    for state in states:
        mine = []
        for number, diagnostic in enumerate(state.diagnostics):
            if not isinstance(diagnostic, dict):
                continue
            if isinstance(diagnostic.get("target"), dict):
                target = diagnostic["target"]
                locator = {k: v for k, v in target.items() if k not in _NOT_LOCATING}
            else:  # locating fields on the diagnostic itself; its "name" names the diagnostic
                target = diagnostic
                locator = {k: v for k, v in target.items() if k not in _NOT_LOCATING | _DIAGNOSTIC_OWN}
            has_locator = any(key in locator for key in _LOCATING)
            url_contains = target.get("url_contains") if isinstance(target.get("url_contains"), str) else None
            url_matches = target.get("url_matches") if isinstance(target.get("url_matches"), str) else None
            if not has_locator and url_contains is None and url_matches is None:
                continue
            name = diagnostic.get("name") if isinstance(diagnostic.get("name"), str) else str(number)
            mine.append(StateProbe(f"{state.name}/{name}", state.name, locator if has_locator else None, diagnostic.get("visible", True) is not False, url_contains, url_matches))
        (diagnosable if mine else undiagnosable).append(state.name)
        probes.extend(mine)
    return probes, diagnosable, undiagnosable
