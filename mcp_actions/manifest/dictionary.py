"""Primitive dictionaries: the host's (bundled with mcp_actions) and a map's own.

The *host's dictionary* is ``runtimes/dictionary.json``: the primitives our
runtimes provide, by name, with their ``input_schema``. A map may carry its
own ``primitive_dictionary`` (``{"host": …, "primitives": [{"name",
"input_schema", …}]}``): the map published by a runtime for its own tools
describes what that runtime provides. Both are read as ``name ->
input_schema`` (None when an entry has no schema object).
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["host_dictionary", "host_primitives", "map_primitives"]

logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def host_dictionary() -> dict[str, dict[str, Any]]:
    """Every entry of the bundled dictionary (``runtimes/dictionary.json``) by name; treat as read-only."""
    try:
        # A data file read through importlib.resources; mcp_actions.runtimes is not imported as code.
        text = resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text(encoding="utf-8")
        entries = json.loads(text).get("primitives", [])
    except (OSError, ValueError, AttributeError) as exc:
        logger.warning("primitive dictionary unavailable, primitive names cannot be checked: %s", exc)
        return {}
    return {entry["name"]: entry for entry in entries if isinstance(entry, dict) and isinstance(entry.get("name"), str)}


@lru_cache(maxsize=1)
def host_primitives() -> dict[str, Any]:
    """The primitives of the bundled dictionary: name -> input_schema."""
    return {name: entry.get("input_schema") for name, entry in host_dictionary().items()}


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
