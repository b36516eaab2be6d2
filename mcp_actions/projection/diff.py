"""What changed between two snapshots of a projection: an RFC 6902 patch and semantic deltas.

The patch comes from ``jsonpatch`` (applying it to the previous state gives
the current one). Deltas say the same thing in the agent's terms: records
``added``, ``removed`` and ``changed`` in each list of records, keyed by a
stable field (``id``, then ``key``, or the projection's ``x_delta_keys``)
when every record of the list has a distinct one. Lists without such a key
are compared as multisets of values, so reordering alone adds no delta.
Nested lists (the cards of a board's lists) are followed inside matched
records, so adding one card yields exactly one ``added`` delta naming it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import jsonpatch

from ..jsonutil import json_pointer

__all__ = ["json_patch", "semantic_deltas", "stable_key"]


def json_patch(before: Any, after: Any) -> list[dict[str, Any]]:
    """RFC 6902 operations turning ``before`` into ``after``."""
    return list(jsonpatch.make_patch(before, after).patch)


def stable_key(lists: Sequence[Sequence[Any]], keys: Sequence[str]) -> str | None:
    """The first of ``keys`` that every record (an object) of every list holds, distinct within each list."""
    records = [r for records in lists for r in records]
    if not records or not all(isinstance(r, dict) for r in records):
        return None
    for key in keys:
        if all(_distinct_scalars([r.get(key) for r in records_]) for records_ in lists):
            return key
    return None


def _distinct_scalars(values: list[Any]) -> bool:
    return all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values) and len(set(values)) == len(values)


def semantic_deltas(before: Any, after: Any, keys: Sequence[str] = ("id", "key")) -> list[dict[str, Any]]:
    """Records added, removed and changed between ``before`` and ``after`` (paths are JSON Pointers into them).

    Each delta: ``{"op": "added"|"removed", "path": <list>, "key": {field: value}|None, "record": ...}``
    or ``{"op": "changed", "path": <value>, "before": ..., "after": ..., "record": {"path", "key"}|None}``.
    """
    out: list[dict[str, Any]] = []
    _walk(before, after, [], None, keys, out)
    return out


def _record_ref(path: list[Any], key: str | None, record: Any) -> dict[str, Any] | None:
    return {"path": json_pointer(path), "key": {key: record[key]}} if key is not None else None


def _walk(before: Any, after: Any, path: list[Any], owner: dict[str, Any] | None, keys: Sequence[str], out: list[dict[str, Any]]) -> None:
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for name in [*before, *(k for k in after if k not in before)]:
            if name not in after:
                out.append({"op": "changed", "path": json_pointer([*path, name]), "before": before[name], "after": None, "record": owner})
            elif name not in before:
                out.append({"op": "changed", "path": json_pointer([*path, name]), "before": None, "after": after[name], "record": owner})
            else:
                _walk(before[name], after[name], [*path, name], owner, keys, out)
        return
    if isinstance(before, list) and isinstance(after, list):
        _walk_list(before, after, path, keys, out)
        return
    out.append({"op": "changed", "path": json_pointer(path), "before": before, "after": after, "record": owner})


def _walk_list(before: list[Any], after: list[Any], path: list[Any], keys: Sequence[str], out: list[dict[str, Any]]) -> None:
    key = stable_key([before, after], keys)
    if key is not None:
        old = {record[key]: record for record in before}
        new_index = {record[key]: index for index, record in enumerate(after)}
        for record in before:
            if record[key] not in new_index:
                out.append({"op": "removed", "path": json_pointer(path), "key": {key: record[key]}, "record": record})
        for index, record in enumerate(after):
            previous = old.get(record[key])
            if previous is None:
                out.append({"op": "added", "path": json_pointer(path), "key": {key: record[key]}, "record": record})
            else:
                _walk(previous, record, [*path, index], _record_ref(path, key, record), keys, out)
        return
    if before and after and len(before) == len(after) and not any(isinstance(v, (dict, list)) for v in before + after):
        # Same-length scalar lists: position matters more than membership ([1, 2] -> [1, 3]).
        for index, (old_value, new_value) in enumerate(zip(before, after, strict=True)):
            if old_value != new_value:
                out.append({"op": "changed", "path": json_pointer([*path, index]), "before": old_value, "after": new_value, "record": None})
        return
    # No stable key: compare as multisets of values (JSON text makes dicts hashable).
    def token(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)

    remaining = Counter(token(v) for v in after)
    for value in before:
        t = token(value)
        if remaining[t] > 0:
            remaining[t] -= 1
        else:
            out.append({"op": "removed", "path": json_pointer(path), "key": None, "record": value})
    previous = Counter(token(v) for v in before)
    for value in after:
        t = token(value)
        if previous[t] > 0:
            previous[t] -= 1
        else:
            out.append({"op": "added", "path": json_pointer(path), "key": None, "record": value})
