"""Characters as a person sees them, and text every transport can carry (docs/threat-model.md, "Page text is the page's, and says so").

Two rules, below every package (this module imports nothing of ours):

- ``shown(text)``: page text with Unicode's default-ignorable code points removed, the characters that
  draw nothing yet reach a model whole: tag characters (U+E0000–E0FFF) that spell sentences after
  visible words, bidi controls (U+200E/200F, U+202A–202E, U+2066–2069, U+061C), zero-width characters
  (U+200B–200D, U+2060, U+FEFF), variation selectors, soft hyphens, fillers. The page engine applies the
  same rule to everything it hands on (runtimes/page/core.js ``shown``); the server applies it to page
  text it reads itself (titles, change reports, page_find's lines) through ``answers.page_text``, and to
  what a page's own tools say (their descriptions, protocols/page_maps.py; their answers, ``shown_data``).
- ``well_formed(value)``: a string, or JSON-like data, with every lone surrogate (half of a UTF-16 pair,
  which JSON's ``"\\udb40"`` decodes to) replaced by U+FFFD. A transport that encodes UTF-8 refuses such a
  string, and over stdio that ends the session: every answer, message and notification the doors send
  passes through it last (server/well_formed.py, server/logs.py, bap/door.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["INVISIBLE", "shown", "shown_data", "well_formed"]

#: Unicode's Default_Ignorable_Code_Point characters (the engine's list, core.js INVISIBLE).
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _repaired(text: str) -> str:
    """``text`` with surrogate pairs joined into their character and lone halves as U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def shown(text: object) -> str:
    """Page text as a person sees its characters: nothing invisible (see the module), no lone surrogate."""
    value = text if isinstance(text, str) else str(text)
    return INVISIBLE.sub("", _repaired(value) if _SURROGATE.search(value) else value)


def shown_data(value: Any) -> Any:
    """``value`` (JSON-like: a page's own tool's answer) with every string, keys too, as ``shown`` makes it."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {shown(k): shown_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown_data(each) for each in value]
    return value


def well_formed(value: Any, *, other: Callable[[Any], Any] | None = None) -> Any:
    """``value`` with each string (keys too, through dicts, lists and tuples) free of lone surrogates.

    The same object when nothing needed it (the common case costs one search per string); new
    containers only along the path to a string that changed. ``other``, when given, repairs any
    other value met on the way (the MCP door's pydantic models, server/well_formed.py).
    """
    if isinstance(value, str):
        return _repaired(value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        items = [(well_formed(k), well_formed(v, other=other)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, (list, tuple)):
        fixed = [well_formed(each, other=other) for each in value]
        if all(a is b for a, b in zip(fixed, value, strict=True)):
            return value
        return fixed if isinstance(value, list) else tuple(fixed)
    return other(value) if other is not None else value
