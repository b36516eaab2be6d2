"""Primitive dictionaries: the host's (bundled with mcp_actions) and a map's own.

The *host's dictionary* is ``runtimes/dictionary.json``: the primitives our
runtimes provide, by name, with their ``input_schema``. A map may carry its
own ``primitive_dictionary`` (``{"host": …, "primitives": [{"name",
"input_schema", …}]}``): the map published by a runtime for its own tools
describes what that runtime provides. Both are read as ``name ->
input_schema`` (None when an entry has no schema object).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..primitive_dictionary import dictionary_document

__all__ = ["host_argument_capabilities", "host_dictionary", "host_primitives", "map_primitives"]


@lru_cache(maxsize=1)
def host_dictionary() -> dict[str, dict[str, Any]]:
    """Every entry of the bundled dictionary (``runtimes/dictionary.json``) by name; treat as read-only."""
    entries = dictionary_document().get("primitives", [])
    return {entry["name"]: entry for entry in entries if isinstance(entry, dict) and isinstance(entry.get("name"), str)}


@lru_cache(maxsize=1)
def host_primitives() -> dict[str, Any]:
    """The primitives of the bundled dictionary: name -> input_schema."""
    return {name: entry.get("input_schema") for name, entry in host_dictionary().items()}


def host_argument_capabilities(primitive: str) -> dict[str, list[str]]:
    """Arguments of ``primitive`` that the bundled dictionary adds to the reference one, with the capability each needs."""
    entry = host_dictionary().get(primitive) or {}
    added = entry.get("argument_capabilities")
    return dict(added) if isinstance(added, dict) else {}


def map_primitives(document: Any) -> dict[str, Any]:
    """The primitives a map's own ``primitive_dictionary`` declares: name -> input_schema (malformed entries skipped)."""
    dictionary = document.get("primitive_dictionary") if isinstance(document, dict) else None
    entries = dictionary.get("primitives") if isinstance(dictionary, dict) else None
    if not isinstance(entries, list):
        return {}
    return {
        entry["name"]: entry.get("input_schema") if isinstance(entry.get("input_schema"), dict) else None
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    }
