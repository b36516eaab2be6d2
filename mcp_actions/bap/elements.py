"""``page_observe``'s answer as BAP's interactive elements (``agent/observe``; docs/bap.md).

``page_observe`` answers one line per element a person can act on: ``@e3 button "Save"``, then
``= "value"``, ``checked``/``unchecked``, ``expanded``/``collapsed``, ``selected``, ``disabled``,
``new`` and ``in: context``. Names and values are JSON strings (``page_answers.quote``), so a
line is read back exactly. Refs are the engine's, stable for as long as the element lives.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ACTION_HINTS", "parse_observation"]

_LINE = re.compile(r"^(@e[0-9]+) ([a-z-]+)(?: |$)")
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
    elements: list[dict[str, Any]] = []
    for line in lines[1:]:
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
        words = rest.split(" in: ", 1)[0].split()
        element["flags"] = [w for w in words if w in ("checked", "unchecked", "expanded", "collapsed", "selected", "pressed", "disabled", "new")]
        elements.append(element)
    return page, elements
