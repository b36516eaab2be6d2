"""Target descriptors: where an action, event, check or attachment applies in the live page.

Selector fields (``selector``, ``xpath``, ``closest``; ``selectors`` and
``fallback_selectors``) must be non-empty strings or arrays of them; the
descriptor's ``state`` must name a declared state; ``confidence`` is one of
the spec's four values. Locators inside workflow arguments and
``settle_after`` are target descriptors too, but there any value may instead
be a whole ``{% … %}`` slot (its expression is checked with the arguments).
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import CONFIDENCE_VALUES, LIST_SELECTOR_FIELDS, LOCATING_FIELDS, SINGLE_SELECTOR_FIELDS, TARGET_FIELDS
from .base import Checks, Rules, check_keys, check_url_pattern, error, json_type, snake_case_view
from .expressions import is_slot
from .refs import check_reference

__all__ = ["check_check_target", "check_selector_value", "check_target"]


def check_selector_value(value: Any, path: str, field: str) -> Checks:
    """One selector: a non-empty string."""
    if not isinstance(value, str):
        yield error(path, ErrorCode.INVALID_SELECTOR, f"'{field}' must be a selector string, got {json_type(value)}")
    elif not value.strip():
        yield error(path, ErrorCode.INVALID_SELECTOR, f"'{field}' must not be an empty selector")


def check_target(target: Any, path: str, rules: Rules, *, templated: bool = False, what: str = "target") -> Checks:
    """A target descriptor object (``templated``: slots may stand for any value)."""
    if templated and is_slot(target):
        return
    if not isinstance(target, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{what} must be a target descriptor object, got {json_type(target)}")
        return
    target = yield from check_keys(target, path, TARGET_FIELDS, rules, subject=what)
    for field, value in target.items():
        if not isinstance(field, str) or field not in TARGET_FIELDS:
            continue
        where = child_pointer(path, field)
        if templated and is_slot(value):
            continue
        if field in SINGLE_SELECTOR_FIELDS:
            yield from check_selector_value(value, where, field)
        elif field in LIST_SELECTOR_FIELDS:
            if not isinstance(value, list):
                yield error(where, ErrorCode.INVALID_SELECTOR, f"'{field}' must be an array of selector strings, got {json_type(value)}")
                continue
            for position, item in enumerate(value):
                if not (templated and is_slot(item)):
                    yield from check_selector_value(item, child_pointer(where, position), field)
        elif field == "state":
            yield from check_reference(value, where, "state", rules.index)
        elif field == "confidence":
            if not isinstance(value, str):
                yield error(where, ErrorCode.INVALID_TYPE, f"expected string, got {json_type(value)}")
            elif value not in CONFIDENCE_VALUES:
                yield error(where, ErrorCode.INVALID_VALUE, f"'confidence' must be one of {', '.join(CONFIDENCE_VALUES)}")
        elif not isinstance(value, str):
            yield error(where, ErrorCode.INVALID_TYPE, f"'{field}' must be a string, got {json_type(value)}")
        elif field == "url_matches":
            yield from check_url_pattern(value, where)


def check_check_target(target: Any, path: str, rules: Rules) -> Checks:
    """A check assertion's target: a descriptor object with at least one locating field."""
    if not isinstance(target, dict):
        yield error(path, ErrorCode.INVALID_TARGET, f"an assertion target must be a target descriptor object, got {json_type(target)}")
        return
    if not any(field in snake_case_view(target, TARGET_FIELDS) for field in LOCATING_FIELDS):
        yield error(path, ErrorCode.INVALID_TARGET, "an assertion target needs a selector, selectors, fallback_selectors, xpath, role or text predicate")
    yield from check_target(target, path, rules)
