"""A step locator whose values come from the tool's arguments, probed by its structure.

``{"selector": ".toggle", "within": {"selector": "li", "has_text": "{% input.title %}"}}``
cannot be probed as written: the title is the caller's. What does not depend
on the arguments can: ``{"selector": ".toggle", "within": {"selector": "li"}}``
(a toggle inside some row). ``structural_locator`` keeps every literal value
and drops every slot (a ``within``/``has`` left without a locating field is
dropped whole); a locator with no literal locating field left cannot be
probed at all (None). ``scope_of`` is the literal ``within`` scope: when the
rows are there but no toggle is inside any, the map drifted; when there are
no rows yet (an empty list), nothing can be said until something adds one
(docs/cli.md, "A check's setup: controls that appear only with data").
"""

from __future__ import annotations

from typing import Any

from ..manifest.expressions import has_partial_slot, slot_source
from ..manifest.shape import DESCRIPTOR_FILTERS, LOCATING_FIELDS

__all__ = ["is_literal", "scope_of", "structural_locator"]


def is_literal(value: Any) -> bool:
    """True when ``value`` holds no ``{% … %}`` slot anywhere (fixed in the map)."""
    if isinstance(value, str):
        return slot_source(value) is None and not has_partial_slot(value)
    if isinstance(value, dict):
        return all(is_literal(v) for v in value.values())
    if isinstance(value, list):
        return all(is_literal(v) for v in value)
    return True


def structural_locator(locator: dict[str, Any]) -> dict[str, Any] | None:
    """``locator`` without what the arguments fill in, or None when nothing locating is left."""
    out: dict[str, Any] = {}
    for key, value in locator.items():
        if key in DESCRIPTOR_FILTERS:
            nested = structural_locator(value) if isinstance(value, dict) else None
            if nested is not None:
                out[key] = nested
        elif is_literal(value):
            out[key] = value
    return out if any(key in out for key in LOCATING_FIELDS) else None


def scope_of(locator: dict[str, Any]) -> dict[str, Any] | None:
    """The (structural) ``within`` scope of ``locator``, or None when it has none."""
    within = locator.get("within")
    return within if isinstance(within, dict) else None
