"""Locators and values a person would write, with the tool's arguments in them.

A recorded step's element comes described by the page engine
(``refs.describe``): a ``locator`` that was unique when the step ran (role
and name, a stable attribute, text) and, when the element sits in a row or
item, a ``scoped`` one inside it (``within: {selector, text_equals}``, the
locator form of docs/manifest-language.md). Here each listed parameter value
becomes its argument wherever it appears: the row's text (``within`` the row
whose text is the argument), the element's name or text, typed text.

Arguments reach locators as JSONata slots (``{% input.title %}``) that the
workflow interpreter evaluates into the locator's value: nothing is ever
concatenated into a selector or XPath, so quotes, apostrophes and non-ASCII
text need no escaping. A literal that itself looks like a slot is written
as a JSONata string so that it stays literal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["NO_FIND", "PARAMETER_NAME", "Parameters", "UnlearnableStep", "argument_slot", "jsonata_string", "learned_locator", "learned_text", "literal"]

#: Why a step is refused when nothing but its position would find its element again.
NO_FIND = "this click has no name, role or text to find it by"
#: A parameter's name must work as ``input.<name>`` in a JSONata slot.
PARAMETER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

#: Argument name -> the value the agent typed or chose, or the text of the row a click was scoped to.
Parameters = Mapping[str, str]


class UnlearnableStep(ValueError):
    """A step that cannot be repeated robustly; the message is the reason a person reads."""


def argument_slot(name: str) -> str:
    """The slot that evaluates to the call's argument ``name``."""
    return "{% input." + name + " %}"


#: Characters written as \u escapes inside a JSONata string: '%' and braces (no '{%' or '%}' ends or opens a
#: slot early), '$' and '/' (the validator's scan for forbidden functions and regex literals reads source text).
_ESCAPED = {c: f"\\u{ord(c):04x}" for c in "%${}/*"}


def jsonata_string(text: str) -> str:
    """``text`` as a JSONata string literal, safe inside a ``{% … %}`` slot."""
    # A JSON string is a JSONata string literal (non-ASCII kept as is: no surrogate escapes).
    return "".join(_ESCAPED.get(c, c) for c in json.dumps(text, ensure_ascii=False))


def literal(text: str) -> str:
    """``text`` as a templated value that evaluates to itself (a slot only when it would look like one)."""
    if "{%" in text or "%}" in text:
        return "{% " + jsonata_string(text) + " %}"
    return text


def learned_text(text: str, parameters: Parameters, used: set[str]) -> str:
    """Typed text with every parameter value in it replaced by its argument (``used`` gains their names).

    The whole text equal to a value is that argument; a value inside the text is joined with the
    literal rest (``'Buy ' & input.item``). Longer values are replaced first, so one value inside
    another does not split it.
    """
    for name, value in sorted(parameters.items(), key=lambda kv: -len(kv[1])):
        if value and text == value:
            used.add(name)
            return argument_slot(name)
    pieces: list[tuple[str, str | None]] = [(text, None)]
    for name, value in sorted(parameters.items(), key=lambda kv: -len(kv[1])):
        if not value:
            continue
        split: list[tuple[str, str | None]] = []
        for piece, argument in pieces:
            if argument is not None or value not in piece:
                split.append((piece, argument))
                continue
            used.add(name)
            parts = piece.split(value)
            for i, part in enumerate(parts):
                if part:
                    split.append((part, None))
                if i < len(parts) - 1:
                    split.append((value, name))
        pieces = split
    if all(argument is None for _, argument in pieces):
        return literal(text)
    terms = [f"input.{argument}" if argument is not None else jsonata_string(piece) for piece, argument in pieces]
    return "{% " + " & ".join(terms) + " %}"


#: The locator keys a learned locator may carry (docs/manifest-language.md, target descriptors and their filters).
#: A description comes from the page's engine, which a page runtime's page could answer for itself: whatever
#: else it says is left out, and every string stays a literal.
LOCATOR_KEYS = frozenset({"selector", "role", "name", "text_equals", "text_contains", "within", "has", "has_text"})


def _literal_locator(locator: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in locator.items():
        if key not in LOCATOR_KEYS:
            continue
        if isinstance(value, str):
            out[key] = literal(value)
        elif isinstance(value, Mapping) and key in ("within", "has"):
            out[key] = _literal_locator(value)
    if not out:
        raise UnlearnableStep(NO_FIND)
    return out


def learned_locator(element: Mapping[str, Any], parameters: Parameters, used: set[str]) -> dict[str, Any]:
    """The locator a person would write for a described element, with parameter values as arguments.

    A value that is the text of the element's row scopes the element to "the row whose text is the
    argument" (``text_equals`` when it is the row's whole text, else ``has_text``); a value that is the
    element's name or text becomes that argument. Raises ``UnlearnableStep`` (with the reason) when
    nothing a person would write finds the element alone.
    """
    container = element.get("container") if isinstance(element.get("container"), Mapping) else None
    scoped = element.get("scoped") if isinstance(element.get("scoped"), Mapping) else None
    if scoped is not None and not (isinstance(scoped.get("within"), Mapping) and isinstance(scoped["within"].get("selector"), str)):
        scoped = None  # a scope names its row or section by a selector, or it is no scope
    base = element.get("locator") if isinstance(element.get("locator"), Mapping) else None
    row_text = str(container.get("text") or "") if container else ""
    if scoped is not None and row_text:
        # Longest first: "Walk the dog twice" is the row, not "Walk the dog" inside it.
        for name, value in sorted(parameters.items(), key=lambda kv: -len(kv[1])):
            if not value or value not in row_text:
                continue
            used.add(name)
            within = {"selector": literal(str(scoped["within"]["selector"]))}
            within["text_equals" if value == row_text else "has_text"] = argument_slot(name)
            located = _literal_locator({k: v for k, v in scoped.items() if k != "within"})
            for key in ("name", "text_equals"):
                if isinstance(scoped.get(key), str):
                    located[key] = learned_text(scoped[key], parameters, used)
            located["within"] = within
            return located
    if base is not None and element.get("unique"):
        located = _literal_locator(base)
        for key in ("name", "text_equals"):
            if isinstance(base.get(key), str):
                located[key] = learned_text(base[key], parameters, used)
        return located
    if scoped is not None:
        # Scoped to a section by its heading: a parameter may name the section.
        located = _literal_locator(scoped)
        has = scoped.get("within", {}).get("has") if isinstance(scoped.get("within"), Mapping) else None
        if isinstance(has, Mapping) and isinstance(has.get("name"), str):
            located["within"]["has"]["name"] = learned_text(has["name"], parameters, used)
        return located
    raise UnlearnableStep(str(element.get("reason") or NO_FIND))
