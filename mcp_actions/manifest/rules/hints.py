"""What a problem's message adds to say how to fix it: close names, fixed values, accepted arguments.

* ``did_you_mean(word, candidates)``: ``"; did you mean 'a' or 'b'?"``, the
  close candidates as ``difflib.get_close_matches`` finds them, or ``""``;
* ``spell(values)``: a value set as a message writes it (``'jsonata'``,
  ``1``, ``'stop' or 'continue'``);
* ``member_to_add(key, values)``: the member a missing field with fixed
  values asks for, as JSON (``add "version": 1``);
* ``snake_case(key)``: the snake_case spelling of a camelCase key, which is
  how actions.json spells every key it declares;
* ``accepted_arguments(schema)``: what a primitive's ``input_schema`` accepts.

The values and key sets themselves are ``shape.py``'s and the dictionary's:
this module only words them.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["accepted_arguments", "did_you_mean", "member_to_add", "quoted_list", "snake_case", "spell"]

#: At most this many suggestions; ``get_close_matches``' own cutoff (0.6) decides which are close.
MAX_SUGGESTIONS = 3
_ACRONYM_BOUNDARY = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])([A-Z])")


def quoted_list(words: Sequence[Any], conjunction: str = "or") -> str:
    """``'a'``, ``'a' or 'b'``, ``'a', 'b' or 'c'`` (strings quoted, other values as written)."""
    shown = [repr(word) if isinstance(word, str) else json.dumps(word) for word in words]
    if len(shown) <= 1:
        return "".join(shown)
    return f"{', '.join(shown[:-1])} {conjunction} {shown[-1]}"


def did_you_mean(word: Any, candidates: Iterable[Any]) -> str:
    """``"; did you mean …?"`` with the candidates close to ``word`` (best first), or ``""`` when none is."""
    if not isinstance(word, str) or not word:
        return ""
    names = [candidate for candidate in candidates if isinstance(candidate, str) and candidate != word]
    close = difflib.get_close_matches(word, names, n=MAX_SUGGESTIONS)
    return f"; did you mean {quoted_list(close)}?" if close else ""


def spell(values: Any) -> str:
    """A fixed value, or a tuple of the values a member may take, as a message writes it."""
    options = values if isinstance(values, tuple) else (values,)
    return quoted_list(options) if len(options) <= 2 else f"one of {quoted_list(options)}"


def member_to_add(key: str, values: Any) -> str:
    """What to write for a missing member with fixed values: ``add "version": 1``, ``add "kind" with one of …``."""
    options = values if isinstance(values, tuple) else (values,)
    if len(options) == 1:
        return f"add {json.dumps(key)}: {json.dumps(options[0])}"
    return f"add {json.dumps(key)} with one of {', '.join(json.dumps(option) for option in options)}"


def snake_case(key: Any) -> str | None:
    """The snake_case spelling of a camelCase (or PascalCase) ``key``: ``inputSchema`` -> ``input_schema``; None when it has none."""
    if not isinstance(key, str) or not any(character.isupper() for character in key):
        return None
    snake = _WORD_BOUNDARY.sub(r"_\1", _ACRONYM_BOUNDARY.sub(r"\1_\2", key)).lower()
    return snake if snake != key and snake.isidentifier() else None


def accepted_arguments(schema: Mapping[str, Any]) -> str:
    """What an ``input_schema`` accepts, for a message: ``the arguments are 'x', 'y' and 'button'``."""
    declared = schema.get("properties")
    names = [name for name in declared if isinstance(name, str)] if isinstance(declared, dict) else []
    if len(names) == 1:
        return f"its one argument is {quoted_list(names)}"
    if names:
        return f"the arguments are {quoted_list(names, 'and')}"
    if schema.get("patternProperties"):
        return "its arguments are named by patterns in its input_schema"
    return "it takes no arguments"
