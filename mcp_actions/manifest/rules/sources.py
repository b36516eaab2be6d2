"""``source.files`` anywhere in a manifest: relative paths inside the package or site root.

Source hints sit under ``tool.x_actions.source``, ``context.source``,
``signal.source``, an extension's ``prompt.source`` and so on, so the whole
document is walked (JSON Schemas and workflows aside: their ``source`` keys
mean something else). An entry must not be absolute (``/x``, ``\\x``,
``C:\\x``, ``C:x``, UNC ``\\\\host\\share``, ``~/x``), must not be a URL
(``https://…``, ``file:…``), and must not climb above the root with ``..``.

The walk is also the validator's general guard against absurd nesting: a node
deeper than the limit is reported (the first one under each parent) and not followed.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from .base import Checks, Rules, error, json_type

__all__ = ["check_sources", "source_path_problem"]

# Values under these keys are JSON Schemas or workflows, where 'source' is not a source hint.
_SKIPPED_KEYS = frozenset({"input_schema", "payload", "result_schema", "output_schema", "workflow"})
_DRIVE = re.compile(r"^[A-Za-z]:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")


def source_path_problem(value: str) -> str | None:
    """Why ``value`` is not a safe relative source path, or None when it is one."""
    if "\x00" in value:
        return "contains a NUL character"
    if _DRIVE.match(value):
        return "is an absolute Windows path"
    if _SCHEME.match(value):
        return "is a URL, not a relative path"
    normalised = value.replace("\\", "/")
    if normalised.startswith("/"):
        return "is an absolute path"
    if normalised == "~" or normalised.startswith("~/"):
        return "is relative to a home directory"
    depth = 0
    for segment in normalised.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            depth -= 1
            if depth < 0:
                return "climbs above the root with '..'"
        else:
            depth += 1
    return None


def _check_files(files: Any, path: str) -> Checks:
    if not isinstance(files, list):
        yield error(path, ErrorCode.INVALID_TYPE, f"source.files must be an array, got {json_type(files)}")
        return
    for position, entry in enumerate(files):
        where = child_pointer(path, position)
        if not isinstance(entry, str):
            yield error(where, ErrorCode.INVALID_TYPE, f"a source file must be a string, got {json_type(entry)}")
        elif not entry.strip():
            yield error(where, ErrorCode.INVALID_VALUE, "a source file path must not be empty")
        else:
            reason = source_path_problem(entry)
            if reason:
                yield error(where, ErrorCode.UNSAFE_SOURCE_PATH, f"source file {entry[:100]!r} {reason}")


def check_sources(document: Any, rules: Rules) -> Checks:
    """Every ``source.files`` in the document; and nesting beyond ``rules.max_depth``."""
    if not isinstance(document, (dict, list)):
        return
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, dict):
            source = node.get("source")
            if isinstance(source, dict) and "files" in source:
                yield from _check_files(source["files"], child_pointer(child_pointer(path, "source"), "files"))
            members: Any = ((key, value) for key, value in node.items() if not (isinstance(key, str) and key in _SKIPPED_KEYS))
        else:
            members = enumerate(node)
        children = [(value, child_pointer(path, key)) for key, value in members if isinstance(value, (dict, list))]
        if children and depth + 1 > rules.max_depth:
            yield error(children[0][1], ErrorCode.NESTING_TOO_DEEP, f"nested deeper than {rules.max_depth} levels")
            continue
        stack.extend((value, where, depth + 1) for value, where in reversed(children))
