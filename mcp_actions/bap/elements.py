"""``page_observe``'s answer as BAP's interactive elements (``agent/observe``; docs/bap.md).

``page_observe`` answers one line per element a person can act on: ``@e3 button "Save"``, then
``= "value"``, ``checked``/``unchecked``, ``expanded``/``collapsed``, ``selected``, ``disabled``,
``new``, with ``tags`` the element's ``<tag>``, with ``bounds`` its box ``[x,y,w,h]``, and ``in:
context``. Names and values are JSON strings (``page_answers.quote``), so a line is read back
exactly. Refs are the engine's, stable for as long as the element lives.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ACTION_HINTS", "parse_elements", "parse_observation", "without_boxes"]

_LINE = re.compile(r"^(@e[0-9]+) ([a-z-]+)(?: |$)")
#: The tag and box ``tags`` and ``bounds`` add at the end of a line (before ``in:``): `` <input> [10,20,200,24]``.
_NUMBER = r"(-?[0-9]+(?:\.[0-9]+)?)"
_TAIL = re.compile(rf"(?: <([a-z][a-z0-9-]*)>)?(?: \[{_NUMBER},{_NUMBER},{_NUMBER},{_NUMBER}\])?$")
_BOX = r"\[-?[0-9.]+,-?[0-9.]+,-?[0-9.]+,-?[0-9.]+\]"
_BOXES = re.compile(rf"(?: <[a-z][a-z0-9-]*>(?: {_BOX})?| {_BOX})(?= in: |$)")
_DECODER = json.JSONDecoder()
#: BAP's action hints by role.
ACTION_HINTS: dict[str, list[str]] = {
    "button": ["clickable"],
    "link": ["clickable"],
    "textbox": ["editable"],
    "searchbox": ["editable"],
    "combobox": ["selectable", "editable"],
    "listbox": ["selectable"],
    "option": ["selectable"],
    "checkbox": ["checkable"],
    "radio": ["checkable"],
    "switch": ["checkable"],
    "menuitem": ["clickable"],
    "tab": ["clickable"],
    "slider": ["editable"],
    "spinbutton": ["editable"],
}


def _string(rest: str) -> tuple[str | None, str]:
    """A JSON string at the start of ``rest`` (and what follows it), or None."""
    if not rest.startswith('"'):
        return None, rest
    try:
        value, end = _DECODER.raw_decode(rest)
    except ValueError:
        return None, rest
    return (value if isinstance(value, str) else None), rest[end:].lstrip()


def parse_observation(text: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """``({url, title}, elements)`` of a ``page_observe`` answer; each element ``{ref, role, name?, value?, flags}``."""
    lines = text.splitlines()
    page: dict[str, str] = {"url": "", "title": ""}
    if lines and lines[0].startswith("page: "):
        head = lines[0][len("page: ") :]
        title, rest = _string(head)
        page = {"title": title or "", "url": rest.strip() if title is not None else head.strip()}
    return page, parse_elements(lines[1:])


def parse_elements(lines: list[str]) -> list[dict[str, Any]]:
    """The element lines of an answer (``page_observe``'s, or ``page_find``'s matches, which say a control's state too)."""
    elements: list[dict[str, Any]] = []
    for line in lines:
        match = _LINE.match(line)
        if match is None:
            continue
        element: dict[str, Any] = {"ref": match.group(1), "role": match.group(2)}
        rest = line[match.end() :]
        name, rest = _string(rest)
        if name is not None:
            element["name"] = name
        if rest.startswith("= "):
            value, rest = _string(rest[2:])
            if value is not None:
                element["value"] = value
        states = rest.split(" in: ", 1)[0]
        tail = _TAIL.search(" " + states)
        if tail is not None and tail.group(0):
            if tail.group(1):
                element["tag"] = tail.group(1)
            if tail.group(2) is not None:
                element["bounds"] = dict(zip(("x", "y", "width", "height"), (float(tail.group(n)) for n in range(2, 6)), strict=True))
            states = (" " + states)[: tail.start()]
        words = states.split()
        element["flags"] = [w for w in words if w in ("checked", "unchecked", "expanded", "collapsed", "selected", "pressed", "disabled", "new")]
        elements.append(element)
    return elements


def without_boxes(text: str) -> str:
    """``text`` with each element line's ``<tag>`` and ``[x,y,w,h]`` left out: what changed is the element, not where it sits."""
    return "\n".join(_BOXES.sub("", line, count=1) if _LINE.match(line) else line for line in text.splitlines())
