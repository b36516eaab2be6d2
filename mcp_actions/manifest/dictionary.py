"""Primitive dictionaries: the host's (bundled with mcp_actions) and a map's own.

The *host's dictionary* is ``runtimes/dictionary.json``: the primitives our
runtimes provide, by name, with their ``input_schema``. It is read by
``mcp_actions.primitive_dictionary`` alone; its views are re-exported here for
the manifest layer and the modules that import them from it. A map may carry
its own ``primitive_dictionary`` (``{"host": …, "primitives": [{"name",
"input_schema", …}]}``): the map published by a runtime for its own tools
describes what that runtime provides. Both are read as ``name ->
input_schema`` (None when an entry has no schema object).
"""

from __future__ import annotations

from typing import Any

from ..primitive_dictionary import host_argument_capabilities, host_dictionary, host_primitives

__all__ = ["host_argument_capabilities", "host_dictionary", "host_primitives", "map_primitives"]


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
