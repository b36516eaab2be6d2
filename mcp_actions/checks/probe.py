"""Probing one target descriptor on the live page through ``locator.element_info``.

The engine never resolves an ambiguous locator to an arbitrary element, so a
probe reads its answer as a finding rather than a failure: one element (with
``matched_by``), several (``multiple_targets``, with their count), or none
(``target_not_found``). A match that came only from ``fallback_selectors``
is flagged: the preferred selectors have drifted even though the target is
still found.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ActionError, ErrorCode

__all__ = ["PrimitiveCall", "Probe", "probe_target"]

#: ``(primitive, arguments) -> output`` on the runtime being checked; raises ``ActionError``.
PrimitiveCall = Callable[[str, dict[str, Any]], Awaitable[Any]]

_LOCATING = ("selector", "selectors", "fallback_selectors", "xpath", "role", "text_equals", "text_contains", "closest", "name")


@dataclass
class Probe:
    """What a target descriptor designates on the page right now."""

    count: int
    matched_by: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None  # an error other than "nothing" or "several"

    @property
    def via_fallback(self) -> bool:
        """True when only a fallback selector found the target."""
        return bool(self.matched_by and self.matched_by.startswith("fallback_selectors"))

    def evidence(self) -> dict[str, Any]:
        """Compact evidence for a report."""
        out: dict[str, Any] = {"count": self.count, "matched_by": self.matched_by}
        for key in ("visible", "enabled", "text", "tag"):
            if key in self.info:
                out[key] = self.info[key]
        if self.error:
            out["error"] = self.error
        return out


def locator_of(target: dict[str, Any]) -> dict[str, Any]:
    """The locating part of a target descriptor (URL and state predicates are not the engine's business)."""
    return {key: value for key, value in target.items() if key in _LOCATING}


async def probe_target(call: PrimitiveCall, target: dict[str, Any]) -> Probe:
    """Resolve ``target`` on the page; never raises for "none" or "several"."""
    try:
        info = await call("locator.element_info", {"locator": locator_of(target)})
    except ActionError as exc:
        if exc.code == ErrorCode.TARGET_NOT_FOUND:
            return Probe(0, info={"tried": exc.evidence.get("tried")} if exc.evidence.get("tried") else {})
        if exc.code == ErrorCode.MULTIPLE_TARGETS:
            return Probe(int(exc.evidence.get("count") or 2), matched_by=exc.evidence.get("matched_by"))
        return Probe(0, error=exc.to_error())
    info = info if isinstance(info, dict) else {}
    return Probe(int(info.get("match_count") or 1), matched_by=info.get("matched_by"), info=info)
