"""``ActStep``: one acting page-tool call that succeeded, as the journal records it and learning reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ActStep"]


@dataclass(frozen=True)
class ActStep:
    """One acting call that succeeded: the tool, what it typed or chose, and its element as a person finds it."""

    #: The dotted page tool: ``page.click``, ``page.fill``, ``page.press``, ``page.select``.
    tool: str
    #: The call's own arguments that carry values (``text``, ``key``, ``values``), never its ref.
    arguments: dict[str, Any]
    #: ``refs.describe``'s ``element`` (runtimes/page/describe.js); None: it could not be described, ``why_not`` says why.
    element: dict[str, Any] | None
    #: The page's URL when the step ran.
    url: str
    why_not: str | None = None
    #: How many visible elements showed each watched text before and after the action.
    texts_before: dict[str, int] = field(default_factory=dict)
    texts_after: dict[str, int] = field(default_factory=dict)
    #: True for a navigation boundary entry of the journal (no tool, nothing to repeat).
    boundary: bool = False
    #: The lines of visible text the step made appear, as the acting tool's change report listed them
    #: (``refs.change_report``'s ``added``, runtimes/page/observe_changes.js: normalised, each cut at
    #: ``LINE_CAP`` characters, a few at most). Learning waits for their like in later calls (settle.py).
    appeared: tuple[str, ...] = ()
