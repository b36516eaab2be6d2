"""Small JSON helpers every layer shares: sizes, RFC 6901 JSON Pointers, strict parsing, objects of untrusted JSON.

They live below every package (imports nothing of ours) so that the bridge,
the manifest validator, the workflow interpreter and the catalogue count
bytes and build pointers the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = ["as_object", "escape_pointer_token", "json_pointer", "json_size", "pointer_tokens", "strict_loads"]


def as_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: reading a member of untrusted JSON without a type check each time."""
    return value if isinstance(value, dict) else {}


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON: the unit every size limit is counted in."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8"))


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


def _no_constants(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def strict_loads(data: bytes) -> Any:
    """Parse ``data`` as strict JSON: UTF-8 text, no NaN/Infinity, no repeated keys.

    Repeated keys are refused because parsers disagree about which copy wins,
    so a reviewer could read the other one. Raises ``ValueError`` (a
    ``UnicodeDecodeError`` is one) or ``RecursionError`` on anything else.
    """
    return json.loads(data.decode("utf-8"), parse_constant=_no_constants, object_pairs_hook=_no_duplicates)
