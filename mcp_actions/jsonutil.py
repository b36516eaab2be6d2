"""Small JSON helpers every layer shares: sizes, RFC 6901 JSON Pointers, strict parsing, objects of untrusted JSON.

They live below every package (imports nothing of ours) so that the bridge,
the manifest validator, the workflow interpreter and the catalogue count
bytes and build pointers the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

__all__ = ["StrictJsonError", "as_object", "escape_pointer_token", "json_pointer", "json_size", "pointer_tokens", "strict_loads"]


def as_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: reading a member of untrusted JSON without a type check each time."""
    return value if isinstance(value, dict) else {}


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON: the unit every size limit is counted in.

    A lone surrogate (JSON's ``"\\ud800"`` decodes to one) counts its three bytes instead of
    raising: sizes are measured before anything judges the value, so measuring must not fail.
    """
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def escape_pointer_token(token: Any) -> str:
    """One reference token of a JSON Pointer, ``~`` and ``/`` escaped as RFC 6901 requires."""
    text = token if isinstance(token, str) else str(token)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def json_pointer(tokens: Iterable[Any]) -> str:
    """The JSON Pointer of a path of keys and indices (``[]`` gives ``""``, the whole document)."""
    return "".join("/" + escape_pointer_token(token) for token in tokens)


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON Pointer (``""`` gives ``[]``)."""
    if not pointer:
        return []
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


class StrictJsonError(ValueError):
    """Text that parses as JSON but is not strict JSON: ``pointer`` says where (RFC 6901), ``reason`` what.

    ``reason`` is ``duplicate_key`` (``pointer`` names the repeated member) or
    ``non_finite_number`` (``NaN``, ``Infinity``, ``-Infinity``, or a number too
    large for a double, such as ``1e999``).
    """

    def __init__(self, message: str, *, pointer: str, reason: str) -> None:
        super().__init__(f"{message} at {pointer or '/'}")
        self.pointer = pointer
        self.reason = reason


class _Flaw:
    """Where parsing met something strict JSON refuses; found again, with its pointer, once parsing ends."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        self.detail = detail


class _DuplicateKeys(dict[str, Any]):
    """An object with a repeated key (the key kept in ``flaw``): parsing goes on so its place can be named."""

    flaw: _Flaw
    key: str


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result  # the common case, at the speed of dict()
    seen: set[str] = set()
    key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
    marked = _DuplicateKeys(result)
    marked.flaw, marked.key = _Flaw("duplicate_key", f"duplicate key {key!r}"), key
    return marked


def _constant(token: str) -> _Flaw:
    return _Flaw("non_finite_number", f"{token} is not JSON")


def _float(text: str) -> float | _Flaw:
    value = float(text)
    return value if math.isfinite(value) else _Flaw("non_finite_number", f"{text} is beyond a double")


def _first_flaw(value: Any) -> tuple[list[Any], _Flaw] | None:
    """The path to the first flaw in document order, and the flaw (iterative: nesting is bounded by the parser)."""
    stack: list[tuple[list[Any], Any]] = [([], value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Flaw):
            return path, node
        if isinstance(node, _DuplicateKeys):
            return [*path, node.key], node.flaw
        if isinstance(node, dict):
            stack.extend((([*path, key], child) for key, child in reversed(node.items())))
        elif isinstance(node, list):
            stack.extend((([*path, index], child) for index, child in reversed(list(enumerate(node)))))
    return None


def strict_loads(data: bytes | str) -> Any:
    """Parse ``data`` as strict JSON: UTF-8 text, no NaN/Infinity (nor a number past a double), no repeated keys.

    Repeated keys are refused because parsers disagree about which copy wins,
    so a reviewer could read the other one; a non-finite number has no JSON
    spelling, so no other reader agrees on it either. Raises ``StrictJsonError``
    (with the JSON Pointer of the first such place) for those, else
    ``ValueError`` (a ``UnicodeDecodeError`` is one) or ``RecursionError``.
    """
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    flaws: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        made = _pairs(items)
        if isinstance(made, _DuplicateKeys):
            flaws.append(True)
        return made

    def constant(token: str) -> _Flaw:
        flaws.append(True)
        return _constant(token)

    def number(token: str) -> float | _Flaw:
        made = _float(token)
        if isinstance(made, _Flaw):
            flaws.append(True)
        return made

    value = json.loads(text, parse_constant=constant, object_pairs_hook=pairs, parse_float=number)
    if flaws:
        found = _first_flaw(value)
        assert found is not None
        path, flaw = found
        raise StrictJsonError(flaw.detail, pointer=json_pointer(path), reason=flaw.reason)
    return value
