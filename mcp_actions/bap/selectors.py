"""BAP selectors as the page tools take them: a ref, a visible text, or a locator (docs/bap.md, "Selectors").

The acting built-ins (``page_click``, ``page_fill``…) name their element by ``ref`` or by visible
``text`` (the engine's ``refs.resolve``: the text, name, label or placeholder of exactly one
element; several are refused with their refs, never one picked). A selector that is neither
becomes a locator (``locators.js``: ``selector``, ``xpath``, ``role`` and ``name``), which the
acting built-ins take too and resolve to their one element in the same call (``BapCore.target``);
what needs a ref first (``action/type``, a drag, a condition) finds it with ``page_find {locator}``
(``BapCore.element``), refusing several as acting by text does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import BapError

__all__ = ["SelectorTarget", "target_of"]


@dataclass(frozen=True)
class SelectorTarget:
    """What an acting tool is told: ``{"ref": …}`` or ``{"text": …}`` directly, or a locator to find the ref by first."""

    direct: dict[str, str] | None = None
    locator: dict[str, Any] | None = None


def _css_string(value: str) -> str:
    # A CSS string literal: JSON's escaping of quotes and backslashes is CSS's too.
    return json.dumps(value)


def _value(selector: dict[str, Any], key: str = "value") -> str:
    value = selector.get(key)
    if not isinstance(value, str) or not value.strip():
        raise BapError("InvalidParams", f"a {selector.get('type')} selector needs a non-empty {key}", details={"code": "invalid_input", "selector": selector})
    return value


def target_of(selector: Any) -> SelectorTarget:
    """The page tools' way to name what a BAP ``selector`` names; ``BapError`` for one we cannot take."""
    if not isinstance(selector, dict) or not isinstance(selector.get("type"), str):
        raise BapError("InvalidParams", "selector must be an object with a type", details={"code": "invalid_input"})
    kind = selector["type"]
    if kind == "ref":
        ref = _value(selector, "ref")
        return SelectorTarget(direct={"ref": ref if ref.startswith("@") else f"@{ref}"})
    if kind in ("text", "label"):
        # The engine's text match covers visible text, accessible name and label alike.
        return SelectorTarget(direct={"text": _value(selector)})
    if kind == "semantic":
        # A description is matched as acting by visible text is: one element, or a refusal listing them.
        return SelectorTarget(direct={"text": _value(selector, "description")})
    if kind == "placeholder":
        return SelectorTarget(locator={"selector": f"[placeholder={_css_string(_value(selector))}]"})
    if kind == "testId":
        return SelectorTarget(locator={"selector": f"[data-testid={_css_string(_value(selector))}]"})
    if kind == "css":
        return SelectorTarget(locator={"selector": _value(selector)})
    if kind == "xpath":
        return SelectorTarget(locator={"xpath": _value(selector)})
    if kind == "role":
        role = _value(selector, "role")
        name = selector.get("name")
        return SelectorTarget(locator={"role": role, **({"name": name} if isinstance(name, str) and name else {})})
    if kind == "coordinates":
        raise BapError.unsupported("coordinates selectors (act on an element: a ref from agent/observe, a role, a text)")
    raise BapError("InvalidParams", f"unknown selector type {kind!r}", details={"code": "invalid_input"})
