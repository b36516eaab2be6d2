"""Probing target descriptors on the live page: how many elements, and does one resolve?

A drift report asks two different questions of a target, and this module
keeps them apart:

- ``probe_target``: *what does it designate?* The number of elements it
  matches (hidden ones included) and how many of them are visible, with the
  candidate that found them (``matched_by``), through ``locator.probe`` (one
  round trip, no side effect; ``locator.wait_for`` with ``timeout_ms`` 0 on a
  runtime without it). Several matches are a finding, not a failure: the
  board's three lists are three lists. Only a locator the engine refuses
  (``invalid_locator``: a selector that is not CSS, an invalid xpath) is an
  error of the map itself.
- ``resolve_one``: *would an action land on exactly one element?* The same
  resolution a click or a typed text uses (``locator.element_info``, or
  ``locator.text_content`` for that primitive), so ``multiple_targets``,
  ``target_not_visible`` and role+name narrowing are the engine's own.

A match that came only from ``fallback_selectors`` is flagged
(``via_fallback``): the preferred selectors drifted even though the target
is still found. ``url_drift`` tells a URL predicate that can never hold on
the page's origin (or is not a regular expression) from one that simply does
not hold on this page.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..bounded_regex import UnsupportedPattern, pattern_problem, search
from ..errors import ActionError, ErrorCode
from ..manifest.shape import TARGET_FILTERS

__all__ = [
    "PrimitiveCall",
    "Probe",
    "Resolution",
    "locator_of",
    "probe_target",
    "resolve_one",
    "url_drift",
    "url_predicates_hold",
]

#: ``(primitive, arguments) -> output`` on the runtime being checked; raises ``ActionError``.
PrimitiveCall = Callable[[str, dict[str, Any]], Awaitable[Any]]

_LOCATING = ("selector", "selectors", "fallback_selectors", "xpath", "role", "text_equals", "text_contains", "closest", "name", *TARGET_FILTERS)
#: Codes of a runtime that does not offer a primitive (then the portable fallback is used).
_UNOFFERED = frozenset({ErrorCode.CAPABILITY_UNAVAILABLE, ErrorCode.UNKNOWN_ACTION, ErrorCode.CAPABILITY_UNSUPPORTED})
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def locator_of(target: dict[str, Any]) -> dict[str, Any]:
    """The locating part of a target descriptor (URL and state predicates are not the engine's business)."""
    return {key: value for key, value in target.items() if key in _LOCATING}


@dataclass
class Probe:
    """What a target descriptor designates on the page right now."""

    count: int
    visible_count: int = 0
    matched_by: str | None = None
    error: dict[str, Any] | None = None  # the runtime refused or failed the probe

    @property
    def invalid(self) -> bool:
        """True when the engine refused the locator itself (the map's own error: it can never match)."""
        return bool(self.error and self.error.get("code") == ErrorCode.INVALID_LOCATOR)

    @property
    def via_fallback(self) -> bool:
        """True when only a fallback selector found the target."""
        return bool(self.matched_by and self.matched_by.startswith("fallback_selectors"))

    def evidence(self) -> dict[str, Any]:
        """Compact evidence for a report: the match counts and the candidate that found them."""
        out: dict[str, Any] = {"count": self.count, "visible_count": self.visible_count, "matched_by": self.matched_by}
        if self.error:
            out["error"] = self.error
        return out


@dataclass
class Resolution:
    """Whether a target resolves to exactly one element the way an action resolves it."""

    ok: bool
    code: str | None = None  # multiple_targets, target_not_visible, target_not_found, invalid_locator, ...
    message: str | None = None
    info: dict[str, Any] = field(default_factory=dict)  # the primitive's output when ok
    candidates: list[dict[str, Any]] = field(default_factory=list)  # the engine's candidates when not ok
    error: dict[str, Any] | None = None

    @property
    def empty(self) -> bool:
        """True when a hidden candidate is rendered but empty: zero size and no text (an ``<output>`` before its result)."""
        for candidate in self.candidates:
            hidden = candidate.get("hidden") if isinstance(candidate, dict) else None
            if isinstance(hidden, dict) and hidden.get("reason") == "zero_size" and not str(candidate.get("text") or "").strip():
                return True
        return False


async def probe_target(call: PrimitiveCall, target: dict[str, Any]) -> Probe:
    """Count what ``target`` designates (all matches and visible ones); never raises for what the page answers."""
    locator = locator_of(target)
    try:
        output = await call("locator.probe", {"probes": [{"id": "attached", "locator": locator, "state": "attached"},
                                                         {"id": "visible", "locator": locator, "state": "visible"}]})
    except ActionError as exc:
        if exc.code not in _UNOFFERED:
            return Probe(0, error=exc.to_error())
        return await _probe_by_waiting(call, locator)
    results = {str(r.get("id")): r for r in (output or {}).get("results", []) if isinstance(r, dict)} if isinstance(output, dict) else {}
    attached, visible = results.get("attached", {}), results.get("visible", {})
    count = int(attached.get("match_count") or 0)
    return Probe(count, int(visible.get("match_count") or 0), visible.get("matched_by") or attached.get("matched_by"))


async def _probe_by_waiting(call: PrimitiveCall, locator: dict[str, Any]) -> Probe:
    """The portable way (``locator.wait_for``, ``timeout_ms`` 0) for a runtime without ``locator.probe``."""
    counts: dict[str, int] = {}
    matched_by = None
    for state in ("attached", "visible"):
        try:
            output = await call("locator.wait_for", {"locator": locator, "state": state, "timeout_ms": 0})
        except ActionError as exc:
            if exc.code in (ErrorCode.TIMEOUT, ErrorCode.TARGET_NOT_FOUND, ErrorCode.TARGET_NOT_VISIBLE):
                counts[state] = 0
                continue
            return Probe(0, error=exc.to_error())
        output = output if isinstance(output, dict) else {}
        counts[state] = int(output.get("match_count") or (1 if output.get("matched") else 0))
        matched_by = output.get("matched_by") or matched_by
    return Probe(counts["attached"], counts["visible"], matched_by)


async def resolve_one(call: PrimitiveCall, target: dict[str, Any], *, primitive: str = "locator.element_info") -> Resolution:
    """Resolve ``target`` as ``primitive`` would (``locator.text_content`` accepts one hidden element; the others need it visible)."""
    name = "locator.text_content" if primitive == "locator.text_content" else "locator.element_info"
    try:
        output = await call(name, {"locator": locator_of(target)})
    except ActionError as exc:
        candidates = exc.evidence.get("candidates")
        return Resolution(False, exc.code, exc.message, candidates=candidates if isinstance(candidates, list) else [], error=exc.to_error())
    return Resolution(True, info=output if isinstance(output, dict) else {})


def url_predicates_hold(target: dict[str, Any], url: str | None) -> bool:
    """Do the target's ``url_contains`` / ``url_matches`` hold for ``url``? (True when it has none.)"""
    contains, matches = target.get("url_contains"), target.get("url_matches")
    if isinstance(contains, str) and (url is None or contains not in url):
        return False
    if isinstance(matches, str):
        try:
            return url is not None and search(matches, url)  # RE2: the URL is the page's (docs/manifest-language.md, "Regular expressions")
        except UnsupportedPattern:
            return False
    return True


def url_drift(target: dict[str, Any], url: str | None) -> str | None:
    """Why a URL predicate of ``target`` can never hold on ``url``'s origin, or None when it could.

    Only what is certain counts: ``url_matches`` that is not a regular
    expression; ``url_matches`` anchored (``^``) on a literal prefix that no
    URL of this origin starts with; ``url_contains`` naming another origin
    (``https://other.example/...``; a URL embedded in a query string is not
    considered). A path predicate (``/search``) could hold on another page
    of the same origin, so it is never drift.
    """
    matches, contains = target.get("url_matches"), target.get("url_contains")
    if isinstance(matches, str):
        problem = pattern_problem(matches)
        if problem is not None:
            return f"url_matches {problem}"
    origin = _origin(url)
    if origin is None:
        return None
    base = origin + "/"
    if isinstance(matches, str):
        prefix = _anchored_prefix(matches)
        if prefix is not None and not (base.startswith(prefix) or prefix.startswith(base)):
            return f"url_matches {matches!r} can never match a URL of {origin}"
    if isinstance(contains, str) and _SCHEME.match(contains) and not (base.startswith(contains) or contains.startswith(base)):
        return f"url_contains {contains!r} names another origin than {origin}"
    return None


def _origin(url: str | None) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL (other schemes have no comparable origin)."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def _anchored_prefix(pattern: str) -> str | None:
    """The literal text a ``^``-anchored pattern must start with, or None when that cannot be told for sure."""
    if not pattern.startswith("^") or "|" in pattern:
        return None  # unanchored, or an alternation the anchor may not cover
    out: list[str] = []
    i = 1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1].isalnum():
                break  # a class (\d, \w, ...) or a back-reference: not literal
            literal, i = pattern[i + 1], i + 2
        elif char in ".[]()^$*?{+":
            break  # a class, a group or a quantifier: the literal prefix ends here
        else:
            literal, i = char, i + 1
        if i < len(pattern) and pattern[i] in "*?{":
            break  # this character is optional: the prefix ends before it
        out.append(literal)
    return "".join(out)
