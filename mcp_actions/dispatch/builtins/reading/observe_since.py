"""What changed since the last observation: ``page_observe {since: "last"}`` and BAP's incremental ``agent/observe``.

Both compare ``page_observe``'s element lines (``@e4 textbox "Name" = "Ada"``, one per element)
with the lines of the previous observation that asked, by ref: a ref not there before
appeared, a ref whose line differs changed (its value, its state, its name), a ref no longer
listed went. A ref that appeared with the role and name of one that went is that element
re-rendered (the page replaced its node, so the engine gave it a new ref): ``replaced`` pairs
them, which BAP calls ``moved`` (its ``previousRef``). The ``new`` mark of a line is left out of
the comparison: it says what the page engine saw first, not what this observer saw.

``ObserveMemory`` keeps the last lines per observer (an MCP session's runtime, a BAP
connection's page), the oldest forgotten past ``MAX_OBSERVERS``; ``observed_since`` is what
``page_observe`` answers with ``since: "last"`` (docs/mcp-surface.md, "page_observe since last").
"""

from __future__ import annotations

import re
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from ....bridge.scope import scope_key

__all__ = ["Changes", "ObserveMemory", "element_lines", "observed_since"]

#: Observers remembered at once (sessions × pages); the least recently used is forgotten.
MAX_OBSERVERS = 512
_REF = re.compile(r"^(@e[0-9]+) ")
_IDENTITY = re.compile(r'^@e[0-9]+ ([a-z-]+)(?: ("(?:[^"\\]|\\.)*"))?')
_NEW = re.compile(r" new(?= \[| in: |$)")


def element_lines(text: str) -> dict[str, str]:
    """``{ref: line}`` of a ``page_observe`` answer's element lines (the ``new`` mark left out)."""
    lines: dict[str, str] = {}
    for line in text.splitlines():
        match = _REF.match(line)
        if match is not None:
            lines[match.group(1)] = _NEW.sub("", line)
    return lines


def _identity(line: str) -> str:
    match = _IDENTITY.match(line)
    return f"{match.group(1)} {match.group(2) or ''}" if match else line


@dataclass
class Changes:
    """What differs from the previous observation: refs that appeared, changed and went, and re-rendered ones."""

    first: bool
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    #: new ref -> the gone ref of the same role and name it replaced.
    replaced: dict[str, str] = field(default_factory=dict)

    @property
    def none(self) -> bool:
        """Nothing appeared, changed or went."""
        return not (self.added or self.changed or self.gone)


class ObserveMemory:
    """The last element lines each observer saw, and what differs now."""

    def __init__(self, limit: int = MAX_OBSERVERS) -> None:
        self._last: OrderedDict[Hashable, dict[str, str]] = OrderedDict()
        self._limit = limit

    def compare(self, observer: Hashable, lines: dict[str, str]) -> Changes:
        """What differs between ``lines`` and what ``observer`` saw last; ``lines`` become what it saw."""
        before = self._last.pop(observer, None)
        self._last[observer] = dict(lines)
        while len(self._last) > self._limit:
            self._last.popitem(last=False)
        if before is None:
            return Changes(first=True, added=list(lines))
        changes = Changes(first=False)
        changes.added = [ref for ref in lines if ref not in before]
        changes.changed = [ref for ref in lines if ref in before and before[ref] != lines[ref]]
        changes.gone = [ref for ref in before if ref not in lines]
        went: dict[str, str] = {}
        for ref in changes.gone:
            went.setdefault(_identity(before[ref]), ref)
        for ref in changes.added:
            old = went.pop(_identity(lines[ref]), None)
            if old is not None:
                changes.replaced[ref] = old
        return changes

    def forget(self, observer: Hashable) -> None:
        """Drop what ``observer`` saw (its page closed)."""
        self._last.pop(observer, None)


#: page_observe's memory, one per ActionService (its sessions' runtimes are the observers).
_MEMORIES: weakref.WeakKeyDictionary[Any, ObserveMemory] = weakref.WeakKeyDictionary()


def observed_since(owner: Any, runtime_id: str, text: str, since_last: bool) -> str:
    """Note what ``page_observe`` answered (``text``) for the current session; with ``since_last``, answer only what changed.

    The answer keeps the page line, then ``+`` lines for elements that appeared (``(was @e5)`` when
    one replaced an element of its role and name), ``~`` lines for those that changed, and one
    ``- gone:`` line of refs; or says nothing changed. The first observation of a page is the whole list.
    """
    memory = _MEMORIES.setdefault(owner, ObserveMemory())
    lines = element_lines(text)
    changes = memory.compare((scope_key(), runtime_id), lines)
    if not since_last or changes.first:
        return text
    head = text.splitlines()[0] if text else ""
    out = [head]
    for ref in changes.added:
        out.append(f"+ {lines[ref]}" + (f" (was {changes.replaced[ref]})" if ref in changes.replaced else ""))
    out.extend(f"~ {lines[ref]}" for ref in changes.changed)
    if changes.gone:
        out.append("- gone: " + ", ".join(changes.gone))
    if changes.none:
        out.append("no change since the last page_observe")
    return "\n".join(out)
