"""One ``dom.extract`` round trip for several projections, and its answer split per projection.

Each projection's ``snapshot.extract`` entries are sent verbatim except for
their ``id``, which is namespaced (``p<index>_<id>``) so entries of different
projections cannot collide. The page engine answers (``dom.extract`` in docs/primitives.md)::

    {"records": {"<id>": [...] | {...} | null},
     "diagnostics": {"selector_counts": {"<id>": n, "<id>.<field>": n, ...},
                     "missing_required_fields": [{"entry": "<id>", "record": i, "field": "a.b"}]}}

``ExtractPlan.split`` maps every key back to its projection and the entry's
own id, so each projection sees exactly what it would have seen alone.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ActionError, ErrorCode

__all__ = ["EXTRACT_PRIMITIVE", "ExtractPlan", "ExtractResult"]

EXTRACT_PRIMITIVE = "dom.extract"


@dataclass
class ExtractResult:
    """What one projection's entries gave: records by entry id, and diagnostics."""

    records: dict[str, Any] = field(default_factory=dict)
    selector_counts: dict[str, int] = field(default_factory=dict)
    missing_required_fields: list[dict[str, Any]] = field(default_factory=list)

    def diagnostics(self) -> dict[str, Any]:
        """The ``diagnostics`` object a read returns."""
        return {"selector_counts": dict(self.selector_counts), "missing_required_fields": list(self.missing_required_fields)}


class ExtractPlan:
    """The merged extract request of several projections and the way back."""

    def __init__(self, projections: Iterable[tuple[str, list[dict[str, Any]]]]) -> None:
        self._owner: dict[str, tuple[str, str]] = {}  # namespaced id -> (projection, own id)
        self.names: list[str] = []
        self.entries: list[dict[str, Any]] = []
        for index, (name, entries) in enumerate(projections):
            self.names.append(name)
            for entry in entries:
                own = str(entry.get("id"))
                namespaced = f"p{index}_{own}"
                sent = copy.deepcopy(entry)
                sent["id"] = namespaced
                self.entries.append(sent)
                self._owner[namespaced] = (name, own)
        # Longest first, so an id that extends another (ids may contain dots) wins its keys.
        self._by_length = sorted(self._owner, key=len, reverse=True)

    def request(self) -> dict[str, Any]:
        """The arguments of the one ``dom.extract`` call."""
        return {"extract": self.entries}

    def _owner_of(self, key: str) -> tuple[str, str, str] | None:
        """(projection, own id, rest of the key) for a records or selector_counts key."""
        for namespaced in self._by_length:
            if key == namespaced or key.startswith(namespaced + "."):
                name, own = self._owner[namespaced]
                return name, own, key[len(namespaced):]
        return None

    def split(self, output: Any) -> dict[str, ExtractResult]:
        """Each projection's share of a ``dom.extract`` output; a malformed output is ``invalid_result``."""
        if not isinstance(output, Mapping) or not isinstance(output.get("records"), Mapping):
            raise ActionError(
                f"{EXTRACT_PRIMITIVE} answered without a records object",
                code=ErrorCode.INVALID_RESULT,
                evidence={"primitive": EXTRACT_PRIMITIVE, "output_type": type(output).__name__},
            )
        results = {name: ExtractResult() for name in self.names}
        for key, value in output["records"].items():
            owner = self._owner_of(str(key))
            if owner is not None and not owner[2]:
                results[owner[0]].records[owner[1]] = value
        for name, own in self._owner.values():
            results[name].records.setdefault(own, None)  # an entry the engine skipped reads as null
        found = output.get("diagnostics")
        diagnostics: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        found = diagnostics.get("selector_counts")
        counts: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        for key, count in counts.items():
            owner = self._owner_of(str(key))
            if owner is not None:
                results[owner[0]].selector_counts[owner[1] + owner[2]] = count
        missing = diagnostics.get("missing_required_fields")
        for item in missing if isinstance(missing, list) else []:
            if not isinstance(item, Mapping):
                continue
            owner = self._owner_of(str(item.get("entry")))
            if owner is not None:
                results[owner[0]].missing_required_fields.append({**item, "entry": owner[1] + owner[2]})
        return results
