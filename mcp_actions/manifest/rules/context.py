"""Context blocks: scoped documentation an agent may load while navigating.

Context grants no permission, but what it names must exist: ``available_tools``
are declared tools, ``load_when.states`` and ``next_states`` declared states,
``load_when.targets`` selectors or target descriptors.
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import CONTEXT_FIELDS, references
from .base import (
    Checks,
    Rules,
    check_keys,
    check_required_identifier,
    check_string,
    check_unique_names,
    check_url_pattern,
    error,
    json_type,
    object_entries,
)
from .refs import check_references
from .targets import check_selector_value, check_target

__all__ = ["check_context"]

# The block's checked references (shape.REFERENCES): those inside load_when are checked with it.
_LOAD_WHEN_REFERENCES = references("context", below=("load_when",), checked=True)
_BLOCK_REFERENCES = tuple(r for r in references("context", checked=True) if r not in _LOAD_WHEN_REFERENCES)


def _check_load_when(load_when: Any, path: str, rules: Rules) -> Checks:
    if not isinstance(load_when, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"load_when must be an object, got {json_type(load_when)}")
        return
    # "predicates such as states, targets, or URL patterns": an open set, so other keys pass.
    yield from check_references(load_when, path, _LOAD_WHEN_REFERENCES, rules, skip=1)
    for key in ("url_contains", "url_matches"):
        yield from check_string(load_when, key, path)
    yield from check_url_pattern(load_when.get("url_matches"), child_pointer(path, "url_matches"))
    if "targets" in load_when:
        targets_path = child_pointer(path, "targets")
        targets = load_when["targets"]
        if not isinstance(targets, list):
            yield error(targets_path, ErrorCode.INVALID_TYPE, f"'targets' must be an array, got {json_type(targets)}")
            return
        for position, target in enumerate(targets):
            where = child_pointer(targets_path, position)
            if isinstance(target, dict):
                yield from check_target(target, where, rules)
            else:
                yield from check_selector_value(target, where, "targets")


def check_context(document: dict[str, Any], rules: Rules) -> Checks:
    """context: ids, texts, load_when predicates, tool and state references."""
    blocks = yield from object_entries(document, "context", "", what="a context block")
    for where, block in blocks:
        block = yield from check_keys(block, where, CONTEXT_FIELDS, rules, subject="context")
        yield from check_required_identifier(block, "id", where, missing="context: 'id' is required", what="context id")
        yield from check_string(block, "title", where)
        yield from check_string(block, "body", where)
        if "load_when" in block:
            yield from _check_load_when(block["load_when"], child_pointer(where, "load_when"), rules)
        yield from check_references(block, where, _BLOCK_REFERENCES, rules)
        if "source" in block and not isinstance(block["source"], dict):
            yield error(child_pointer(where, "source"), ErrorCode.INVALID_TYPE, f"source must be an object, got {json_type(block['source'])}")
    yield from check_unique_names(blocks, "id", "context id")
