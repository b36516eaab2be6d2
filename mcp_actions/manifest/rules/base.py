"""Shared vocabulary of the rule modules: JSON types, identifiers, key checks, problem helpers.

Every rule is a generator of ``Problem``s that never raises on malformed
input: it checks a value's type before it looks inside. Helpers that also
*return* something (the entries of an array, say) do so as a generator's
return value, so a rule writes ``items = yield from object_entries(...)``.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Collection, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...bounded_regex import pattern_problem
from ...errors import ErrorCode
from ..limits import MAX_IDENTIFIER_LENGTH, MAX_NESTING_DEPTH, Limits
from ..problems import Problem, child_pointer
from .hints import did_you_mean, member_to_add, snake_case

__all__ = [
    "check_url_pattern",
    "check_required_identifier",
    "IDENTIFIER_RE",
    "STEP_ID_RE",
    "Checks",
    "Rules",
    "SnakeCaseView",
    "array_entries",
    "check_enum",
    "check_identifier",
    "check_keys",
    "check_non_negative_integer",
    "check_string",
    "check_string_list",
    "check_unique_names",
    "depth_of",
    "error",
    "expect_type",
    "is_integer",
    "json_type",
    "meant_keys",
    "missing_member",
    "object_entries",
    "snake_case_view",
    "warning",
]

IDENTIFIER_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]*(\.[a-zA-Z][a-zA-Z0-9_-]*)*$")
# Step ids are used as steps.<id> inside JSONata, where '.' and '-' would break the path.
STEP_ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Checks = Iterator[Problem]
"""What every rule returns: a lazy stream of problems."""


@dataclass
class Rules:
    """What every rule needs besides the document: limits, primitives, and the name index."""

    limits: Limits
    primitives: frozenset[str]
    primitive_schemas: Mapping[str, Any]
    index: Any  # refs.Index; typed loosely to keep this module free of cycles
    # The map's own primitive_dictionary (name -> input_schema), and whether it carries one at all.
    map_primitives: Mapping[str, Any] = field(default_factory=dict)
    host_published: bool = False
    max_depth: int = MAX_NESTING_DEPTH
    # Report what only runtimes written from the reference dictionary alone refuse (validate --reference-only).
    reference_only: bool = False
    # The objects checked under their snake_case keys (check_keys): the pointer each renamed member was
    # checked at -> its pointer in the document, so that every problem points into the document.
    renamed: dict[str, str] = field(default_factory=dict)


def error(path: str, code: str, message: str) -> Problem:
    """An error problem."""
    return Problem(path, code, message, "error")


def warning(path: str, code: str, message: str) -> Problem:
    """A warning problem."""
    return Problem(path, code, message, "warning")


_JSON_TYPES: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """The JSON type name of ``value`` (a Python type name for values that are not JSON)."""
    name = _JSON_TYPES.get(type(value))
    if name is not None:
        return name
    for base, base_name in _JSON_TYPES.items():
        if isinstance(value, base):
            return base_name
    return type(value).__name__


# Beyond 2**53 a float no longer holds every integer exactly: such a number is not an exact integer.
_MAX_EXACT_FLOAT_INTEGER = 2.0**53


def is_integer(value: Any) -> bool:
    """True for a JSON integer: an int (not a bool) or an integral float such as ``1.0`` (up to 2**53)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) <= _MAX_EXACT_FLOAT_INTEGER


def _has_type(value: Any, expected: str) -> bool:
    if expected == "integer":
        return is_integer(value)
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return json_type(value) == expected


def expect_type(value: Any, expected: str | tuple[str, ...], path: str) -> Problem | None:
    """An ``invalid_type`` problem when ``value`` is not of the expected JSON type(s), else None."""
    options = (expected,) if isinstance(expected, str) else expected
    if any(_has_type(value, option) for option in options):
        return None
    return error(path, ErrorCode.INVALID_TYPE, f"expected {' or '.join(options)}, got {json_type(value)}")


class SnakeCaseView(dict[str, Any]):
    """An object with its camelCase keys renamed to the snake_case keys they stand for (``renamed``: camel -> snake)."""

    renamed: dict[str, str]


def snake_case_view(obj: dict[str, Any], known: Collection[str]) -> dict[str, Any]:
    """``obj`` as the rules read it: a camelCase key whose snake_case form is a known key ``obj`` lacks is renamed to it.

    ``inputSchema`` on a tool is an ``input_schema`` spelt the wrong way, not an
    unknown field beside a missing one: the view holds it under ``input_schema``
    (in the same place), so every other rule judges it once, as that member.
    ``obj`` itself is returned when nothing is renamed.
    """
    if isinstance(obj, SnakeCaseView):
        return obj
    renamed: dict[str, str] = {}
    for key in obj:
        twin = snake_case(key) if key not in known else None
        if twin is not None and twin in known and twin not in obj and twin not in renamed.values():
            renamed[key] = twin
    if not renamed:
        return obj
    view = SnakeCaseView((renamed.get(key, key), value) for key, value in obj.items())
    view.renamed = renamed
    return view


#: How alike (difflib's ratio) a key must be to a missing known key to be read as that key.
_MEANT_CUTOFF = 0.75


def meant_keys(obj: Mapping[str, Any], known: Collection[str], synonyms: Mapping[str, str]) -> dict[str, str]:
    """The unknown keys of a closed object that stand for a known key it lacks: written -> meant.

    A key stands for another when ``synonyms`` says so (``settle_after.target`` for ``locator``, a
    step's ``arguments`` for ``args``: words of neighbouring formats) or when that key is the one
    missing known key spelt almost like it (``primitve`` for ``primitive``, ``timeout`` for
    ``timeout_ms``; ``difflib`` at ``_MEANT_CUTOFF``, stricter than ``did_you_mean``'s suggestions:
    ``retry`` may mean ``retry_until`` or ``max_attempts``, and is only a suggestion).
    A mistake is then one error naming the fix, not also the member it leaves missing.
    """
    meant: dict[str, str] = {}
    missing = [key for key in known if key not in obj]
    for key in obj:
        if not isinstance(key, str) or key in known or key.startswith("x_"):
            continue
        close = difflib.get_close_matches(key, missing, n=2, cutoff=_MEANT_CUTOFF)
        target = synonyms.get(key) or (close[0] if len(close) == 1 else None)
        if target is not None and target in missing and target not in meant.values():
            meant[key] = target
    return meant


def _renamed_view(obj: dict[str, Any], renamed: dict[str, str]) -> SnakeCaseView:
    view = SnakeCaseView((renamed.get(key, key), value) for key, value in obj.items())
    view.renamed = renamed
    return view


def check_keys(
    obj: dict[str, Any],
    path: str,
    known: Collection[str],
    rules: Rules,
    *,
    subject: str,
    closed: bool = False,
    synonyms: Mapping[str, str] | None = None,
) -> Generator[Problem, None, dict[str, Any]]:
    """Keys of ``obj`` outside ``known``: a warning in an open object, an error in a closed one; return the object to check.

    ``x_*`` keys are extensions and always allowed. A camelCase key whose
    snake_case form is a known key of the object is one error telling to
    rename it; in a closed object, so is a key that stands for a missing known
    key (``meant_keys``: a close spelling, or one of ``synonyms``), as "did you
    mean". The returned object holds such a key under the key it stands for,
    so the rules judge it once, as that member (no "required" or "applies only
    with" about the member it stands for), and problems found there point at
    the key as written (``rules.renamed``). Other unknown keys name the known
    keys close to them.
    """
    view = snake_case_view(obj, known)
    renamed = view.renamed if isinstance(view, SnakeCaseView) else {}
    # A view handed in (the root's, made before any rule ran) has had its renames already.
    meant = meant_keys(view, known, synonyms or {}) if closed and not isinstance(obj, SnakeCaseView) else {}
    if meant:
        view = _renamed_view(obj, {**renamed, **meant})
    for camel, snake in renamed.items():
        rules.renamed[child_pointer(path, snake)] = child_pointer(path, camel)
        yield error(
            child_pointer(path, camel),
            ErrorCode.FIELD_NOT_ALLOWED,
            f"{subject}: rename '{camel}' to '{snake}' (actions.json spells its keys in snake_case)",
        )
    for written, target in meant.items():
        rules.renamed[child_pointer(path, target)] = child_pointer(path, written)
        yield error(child_pointer(path, written), ErrorCode.FIELD_NOT_ALLOWED, f"{subject}: field '{written}' is not allowed; did you mean '{target}'?")
    for key in view:
        if isinstance(key, str) and (key in known or key.startswith("x_")):
            continue
        shown = key if isinstance(key, str) else repr(key)
        twin = snake_case(key)
        if twin is not None and twin in known:
            hint = f" ('{twin}' is given too: keep one)"
        else:
            hint = did_you_mean(key, known)
        if closed:
            yield error(child_pointer(path, key), ErrorCode.FIELD_NOT_ALLOWED, f"{subject}: field '{shown}' is not allowed{hint}")
        else:
            yield warning(child_pointer(path, key), ErrorCode.UNKNOWN_FIELD, f"{subject}: unknown field '{shown}'{hint}")
    return view


def missing_member(path: str, key: str, values: Any, *, subject: str = "") -> Problem:
    """``missing_field`` for a required ``key`` of the object at ``path`` whose values are fixed (shape.py's): the message says what to add."""
    prefix = f"{subject}: " if subject else ""
    return error(child_pointer(path, key), ErrorCode.MISSING_FIELD, f"{prefix}'{key}' is required: {member_to_add(key, values)}")


def check_identifier(value: Any, path: str, what: str, *, pattern: re.Pattern[str] = IDENTIFIER_RE) -> Checks:
    """A safe identifier: a string matching ``pattern`` and at most 128 characters."""
    if not isinstance(value, str):
        yield error(path, ErrorCode.INVALID_TYPE, f"{what} must be a string, got {json_type(value)}")
        return
    code = ErrorCode.INVALID_STEP_ID if pattern is STEP_ID_RE else ErrorCode.INVALID_IDENTIFIER
    if len(value) > MAX_IDENTIFIER_LENGTH:
        yield error(path, code, f"{what} is longer than {MAX_IDENTIFIER_LENGTH} characters")
    elif not pattern.match(value):
        yield error(path, code, f"{what} {value!r} is not a safe identifier")


def check_required_identifier(
    entry: Mapping[str, Any], key: str, path: str, *, missing: str, what: str, pattern: re.Pattern[str] = IDENTIFIER_RE
) -> Checks:
    """A required ``name``/``id`` member: ``missing_field`` when absent, else a safe identifier."""
    if key not in entry:
        yield error(child_pointer(path, key), ErrorCode.MISSING_FIELD, missing)
    else:
        yield from check_identifier(entry[key], child_pointer(path, key), what, pattern=pattern)


def check_string(obj: Mapping[str, Any], key: str, path: str, *, required: bool = False, non_empty: bool = False) -> Checks:
    """``obj[key]`` is a string (present when ``required``; not blank when ``non_empty``)."""
    where = child_pointer(path, key)
    if key not in obj:
        if required:
            yield error(where, ErrorCode.MISSING_FIELD, f"'{key}' is required")
        return
    value = obj[key]
    problem = expect_type(value, "string", where)
    if problem:
        yield problem
    elif non_empty and not value.strip():
        yield error(where, ErrorCode.INVALID_VALUE, f"'{key}' must not be empty")


def check_url_pattern(value: Any, path: str) -> Checks:
    """Warn when a ``url_matches`` string is not a regular expression RE2 runs.

    It is searched in page URLs on RE2 only, and one that RE2 refuses never
    matches (fails closed: the context block does not apply, the diagnostic
    fails, ``check`` reports drift), so the map stays loadable and the author is told.
    """
    if isinstance(value, str):
        problem = pattern_problem(value)
        if problem is not None:
            yield warning(path, ErrorCode.INVALID_VALUE, f"url_matches {problem}; it never matches (docs/manifest-language.md, \"Regular expressions\")")


def check_string_list(obj: Mapping[str, Any], key: str, path: str) -> Checks:
    """``obj[key]``, when present, is an array of strings."""
    if key not in obj:
        return
    where = child_pointer(path, key)
    value = obj[key]
    if not isinstance(value, list):
        yield error(where, ErrorCode.INVALID_TYPE, f"expected array, got {json_type(value)}")
        return
    for position, item in enumerate(value):
        problem = expect_type(item, "string", child_pointer(where, position))
        if problem:
            yield problem


def check_enum(obj: Mapping[str, Any], key: str, path: str, allowed: Collection[str]) -> Checks:
    """``obj[key]``, when present, is one of ``allowed``."""
    if key not in obj:
        return
    where = child_pointer(path, key)
    value = obj[key]
    problem = expect_type(value, "string", where)
    if problem:
        yield problem
    elif value not in allowed:
        yield error(where, ErrorCode.INVALID_VALUE, f"'{key}' must be one of {', '.join(sorted(allowed))}")


def check_non_negative_integer(obj: Mapping[str, Any], key: str, path: str, *, minimum: int = 0) -> Checks:
    """``obj[key]``, when present, is an integer of at least ``minimum``."""
    if key not in obj:
        return
    where = child_pointer(path, key)
    value = obj[key]
    problem = expect_type(value, "integer", where)
    if problem:
        yield problem
    elif value < minimum:
        yield error(where, ErrorCode.INVALID_VALUE, f"'{key}' must be at least {minimum}")


def array_entries(obj: Mapping[str, Any], key: str, path: str) -> Generator[Problem, None, list[tuple[str, Any]]]:
    """Yield a type problem when ``obj[key]`` is present but not an array; return its ``(path, item)`` pairs."""
    if key not in obj:
        return []
    where = child_pointer(path, key)
    value = obj[key]
    if not isinstance(value, list):
        yield error(where, ErrorCode.INVALID_TYPE, f"'{key}' must be an array, got {json_type(value)}")
        return []
    return [(child_pointer(where, position), item) for position, item in enumerate(value)]


def object_entries(obj: Mapping[str, Any], key: str, path: str, *, what: str) -> Generator[Problem, None, list[tuple[str, dict[str, Any]]]]:
    """Like ``array_entries``, and each entry must be an object (others are reported and dropped)."""
    entries = yield from array_entries(obj, key, path)
    kept = []
    for where, item in entries:
        if isinstance(item, dict):
            kept.append((where, item))
        else:
            yield error(where, ErrorCode.INVALID_TYPE, f"{what} must be an object, got {json_type(item)}")
    return kept


def check_unique_names(entries: list[tuple[str, dict[str, Any]]], key: str, what: str) -> Checks:
    """Report every entry whose ``key`` repeats an earlier entry's (one namespace per call)."""
    seen: set[str] = set()
    for where, entry in entries:
        name = entry.get(key)
        if not isinstance(name, str):
            continue
        if name in seen:
            yield error(child_pointer(where, key), ErrorCode.DUPLICATE_NAME, f"{what} {name!r} is declared more than once")
        seen.add(name)


def depth_of(value: Any, limit: int) -> tuple[int, list[Any]]:
    """Depth of the deepest object or array inside ``value`` (``value`` itself is 0), counted up to
    ``limit + 1``, with the token path to it. Iterative, so arbitrarily deep input cannot exhaust the stack.
    """
    deepest, deepest_tokens = 0, []
    stack: list[tuple[Any, int, list[Any]]] = [(value, 0, [])]
    while stack:
        node, depth, tokens = stack.pop()
        if depth > deepest:
            deepest, deepest_tokens = depth, tokens
            if deepest > limit:
                break
        if isinstance(node, dict):
            stack.extend((child, depth + 1, tokens + [key]) for key, child in node.items() if isinstance(child, (dict, list)))
        elif isinstance(node, list):
            stack.extend((child, depth + 1, tokens + [position]) for position, child in enumerate(node) if isinstance(child, (dict, list)))
    return deepest, deepest_tokens
