"""The shipped primitive dictionary (``runtimes/dictionary.json``), read once.

Its own module, free of Playwright, so that dispatch can describe the built-in
browser tools from it without importing the browser host at start-up.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["dictionary_entry", "dictionary_names"]


@cache
def _dictionary() -> dict[str, dict[str, Any]]:
    text = resources.files("mcp_actions.runtimes").joinpath("dictionary.json").read_text(encoding="utf-8")
    return {p["name"]: p for p in json.loads(text)["primitives"]}


def dictionary_names() -> frozenset[str]:
    """Every primitive name of the shipped dictionary (``runtimes/dictionary.json``)."""
    return frozenset(_dictionary())


def dictionary_entry(name: str) -> dict[str, Any]:
    """One primitive's dictionary entry (name, summary, capabilities, schemas, errors); KeyError when absent."""
    return copy.deepcopy(_dictionary()[name])
