"""The snapshots diffs are taken against, per runtime and projection, bounded in number.

Two values are kept per (runtime, projection): the *baseline*, the state an
agent last read (``state_read``, ``state_summary``, ``state_diff``), which
the next diff is taken against; and the *latest*, the state last read or
refreshed for change notifications after calls, which moves without moving
the agent's baseline. Postconditions move neither.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_SNAPSHOTS", "Snapshot", "SnapshotStore"]

#: Snapshots kept per kind before the least recently used go (each is at most max_state_bytes).
MAX_SNAPSHOTS = 256


@dataclass(frozen=True)
class Snapshot:
    """One observed state with when and where it was observed."""

    state: Any
    observed_at: str
    url: str | None = None


class SnapshotStore:
    """Baselines and latest values by (runtime_id, projection), least recently used dropped first."""

    def __init__(self, max_entries: int = MAX_SNAPSHOTS) -> None:
        self.max_entries = max_entries
        self._baseline: OrderedDict[tuple[str, str], Snapshot] = OrderedDict()
        self._latest: OrderedDict[tuple[str, str], Snapshot] = OrderedDict()

    @staticmethod
    def _put(table: OrderedDict[tuple[str, str], Snapshot], key: tuple[str, str], snapshot: Snapshot, bound: int) -> None:
        table[key] = snapshot
        table.move_to_end(key)
        while len(table) > bound:
            table.popitem(last=False)

    def baseline(self, runtime_id: str, projection: str) -> Snapshot | None:
        """The state the agent last read, or None."""
        return self._baseline.get((runtime_id, projection))

    def latest(self, runtime_id: str, projection: str) -> Snapshot | None:
        """The state last observed (by a read or a refresh), or None."""
        return self._latest.get((runtime_id, projection))

    def record_read(self, runtime_id: str, projection: str, snapshot: Snapshot) -> None:
        """An agent read this state: it is the new baseline and the latest value."""
        self._put(self._baseline, (runtime_id, projection), snapshot, self.max_entries)
        self._put(self._latest, (runtime_id, projection), snapshot, self.max_entries)

    def record_observed(self, runtime_id: str, projection: str, snapshot: Snapshot) -> None:
        """A refresh observed this state: only the latest value moves."""
        self._put(self._latest, (runtime_id, projection), snapshot, self.max_entries)

    def forget_runtime(self, runtime_id: str) -> None:
        """Drop everything of a runtime that went away."""
        for table in (self._baseline, self._latest):
            for key in [k for k in table if k[0] == runtime_id]:
                del table[key]
