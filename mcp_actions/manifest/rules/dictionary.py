"""A map's own ``primitive_dictionary``: what the host that publishes the map provides.

Optional. When present it is an object whose ``primitives`` array holds
entries with a safe, unique ``name`` and, optionally, an ``input_schema``
that is a valid JSON Schema object. The rest of each entry (``support``,
``summary``, ``capability_class``, …) is the host's own vocabulary and is
kept open. Its names make a ``handler`` a primitive handler and a tool with
no handler a host-native tool (``execution.py``).
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from .base import Checks, Rules, check_required_identifier, check_string, check_unique_names, error, json_type, object_entries
from .schema import check_schema

__all__ = ["check_primitive_dictionary"]


def check_primitive_dictionary(document: dict[str, Any], rules: Rules) -> Checks:
    """``primitive_dictionary``, when present: an object of uniquely named primitives with valid schemas."""
    if "primitive_dictionary" not in document:
        return
    path = "/primitive_dictionary"
    dictionary = document["primitive_dictionary"]
    if not isinstance(dictionary, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"primitive_dictionary must be an object, got {json_type(dictionary)}")
        return
    yield from check_string(dictionary, "host", path)
    entries = yield from object_entries(dictionary, "primitives", path, what="a primitive dictionary entry")
    for where, entry in entries:
        yield from check_required_identifier(entry, "name", where, missing="primitive: 'name' is required", what="primitive name")
        if "input_schema" in entry:
            yield from check_schema(entry["input_schema"], child_pointer(where, "input_schema"), "input_schema")
    yield from check_unique_names(entries, "name", "primitive name")
