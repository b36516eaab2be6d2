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

__all__ = ["StrictJsonError", "as_object", "escape_pointer_token", "fit_json", "json_pointer", "json_size", "pointer_tokens", "strict_loads"]


def as_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: reading a member of untrusted JSON without a type check each time."""
    return value if isinstance(value, dict) else {}


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON: the unit every size limit is counted in.

    A lone surrogate (JSON's ``"\\ud800"`` decodes to one) counts its three bytes instead of
    raising: sizes are measured before anything judges the value, so measuring must not fail.
    """
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def _longest_list(value: Any) -> int:
    if isinstance(value, dict):
        return max((_longest_list(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max([len(value), *(_longest_list(v) for v in value)])
    return 0


def _shrunk(value: Any, keep: int, longest: int, text_cap: int | None, left: dict[str, int], key: str) -> Any:
    """``value`` with each list cut to the same share of its items (``keep`` of ``longest``), strings to ``text_cap``."""
    if isinstance(value, dict):
        return {k: _shrunk(v, keep, longest, text_cap, left, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        # The same share of every list, so parallel lists (data and its sources) stay in step.
        kept = -(-len(value) * keep // longest) if longest else len(value)
        if kept < len(value):
            left[key] = left.get(key, 0) + len(value) - kept
        return [_shrunk(v, keep, longest, text_cap, left, key) for v in value[:kept]]
    if isinstance(value, str) and text_cap is not None and len(value) > text_cap:
        left[""] = left.get("", 0) + 1
        return value[:text_cap] + "…"
    return value


def _fitting(value: Any, limit: int, text_cap: int | None) -> tuple[str, dict[str, int]] | None:
    """The most items of ``value`` whose JSON fits ``limit`` (a binary search on the share kept), or None."""
    longest = _longest_list(value)
    best: tuple[str, dict[str, int]] | None = None
    low, high = 0, max(longest - 1, 0)
    while low <= high:
        middle = (low + high) // 2
        left: dict[str, int] = {}
        text = _compact(_shrunk(value, middle, longest, text_cap, left, "items"))
        if len(text) <= limit:
            best, low = (text, left), middle + 1
        else:
            high = middle - 1
    return best


def fit_json(value: Any, limit: int) -> tuple[str, str | None]:
    """``value`` as compact JSON of at most ``limit`` characters, still valid JSON, and the line saying what was left out.

    A host that shows only a result's text must still get JSON it can parse: so a long answer is
    not cut mid-token but keeps the first items of its lists (the same share of each), and, when
    that is not enough, shortens its long strings. The line (None when nothing was left out) says
    how many items each list lost, e.g. ``(+87 more items in data, +261 in sources; all in
    structuredContent)``.
    """
    text = _compact(value)
    if len(text) <= limit:
        return text, None
    found = None
    for text_cap in (None, 2000, 500, 200, 60, 20):
        found = _fitting(value, limit, text_cap)
        if found is not None:
            break
    if found is None:
        # Too many members even with no items and short strings: an empty value of its kind.
        return ("{}" if isinstance(value, dict) else "[]" if isinstance(value, list) else '""'), f"({len(text)} characters; the whole result is in structuredContent)"
    fitted, left = found
    cut_texts = left.pop("", 0)
    parts = [f"+{count} more items in {key}" if not index else f"+{count} in {key}" for index, (key, count) in enumerate(left.items())]
    if len(left) == 1 and next(iter(left)) == "items":
        parts = [f"+{left['items']} more items"]
    if cut_texts:
        parts.append(f"{cut_texts} long text{'s' if cut_texts > 1 else ''} cut")
    return fitted, f"({', '.join(parts)}; all in structuredContent)"


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
