"""Target descriptors: where an action, event, check or attachment applies in the live page.

Selector fields (``selector``, ``xpath``, ``closest``; ``selectors`` and
``fallback_selectors``) must be non-empty strings or arrays of them; the
descriptor's ``state`` must name a declared state; ``confidence`` is one of
the spec's four values. Locators inside workflow arguments and
``settle_after`` are target descriptors too, but there any value may instead
be a whole ``{% … %}`` slot (its expression is checked with the arguments).

The extension filters (docs/manifest-language.md, "Extensions"): ``within``
and ``has`` hold a nested descriptor (closed: locating fields and filters
only, at least one locating field, at most ``MAX_FILTER_DEPTH`` deep, as the
page engine's ``locator_filters.js`` allows), ``has_text`` a non-empty string;
``validate --reference-only`` warns about each (``non_reference_argument``).
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import (
    CONFIDENCE_VALUES,
    DESCRIPTOR_FILTERS,
    LIST_SELECTOR_FIELDS,
    LOCATING_FIELDS,
    NESTED_TARGET_FIELDS,
    SINGLE_SELECTOR_FIELDS,
    TARGET_FIELDS,
    TARGET_FILTERS,
)
from .base import Checks, Rules, check_keys, check_url_pattern, error, json_type, snake_case_view, warning
from .expressions import is_slot
from .refs import check_reference

__all__ = ["MAX_FILTER_DEPTH", "check_check_target", "check_selector_value", "check_target"]

#: How deep ``within``/``has`` may nest (the page engine refuses deeper ones: ``locator_filters.js`` MAX_FILTER_DEPTH).
MAX_FILTER_DEPTH = 8


def check_selector_value(value: Any, path: str, field: str) -> Checks:
    """One selector: a non-empty string."""
    if not isinstance(value, str):
        yield error(path, ErrorCode.INVALID_SELECTOR, f"'{field}' must be a selector string, got {json_type(value)}")
    elif not value.strip():
        yield error(path, ErrorCode.INVALID_SELECTOR, f"'{field}' must not be an empty selector")


def check_target(target: Any, path: str, rules: Rules, *, templated: bool = False, what: str = "target") -> Checks:
    """A target descriptor object (``templated``: slots may stand for any value)."""
    yield from _check_descriptor(target, path, rules, templated=templated, what=what, depth=0)


def _check_descriptor(target: Any, path: str, rules: Rules, *, templated: bool, what: str, depth: int) -> Checks:
    """A descriptor at ``depth`` (0: a target; deeper: the value of a ``within`` or ``has``)."""
    if templated and is_slot(target):
        return
    nested = depth > 0
    if not isinstance(target, dict):
        kind = "a nested target descriptor object (e.g. {\"selector\": \"li\", \"has_text\": \"…\"})" if nested else "a target descriptor object"
        yield error(path, ErrorCode.INVALID_TYPE, f"{what} must be {kind}, got {json_type(target)}")
        return
    known = NESTED_TARGET_FIELDS if nested else TARGET_FIELDS
    target = yield from check_keys(target, path, known, rules, subject=what, closed=nested)
    if nested and not any(field in target for field in LOCATING_FIELDS):
        yield error(path, ErrorCode.INVALID_TARGET, f"{what} needs a selector, selectors, fallback_selectors, xpath, role or text predicate")
    for field, value in target.items():
        if not isinstance(field, str) or field not in known:
            continue
        where = child_pointer(path, field)
        if rules.reference_only and field in TARGET_FILTERS:
            # Our page engine resolves them on every host; a runtime written from the reference dictionary does not.
            yield warning(where, ErrorCode.NON_REFERENCE_ARGUMENT,
                          f"{what}: '{field}' is an extension of mcp-actions' locators (docs/manifest-language.md \"Extensions\"); "
                          "a runtime written from the reference dictionary alone does not know it")
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
        elif field in DESCRIPTOR_FILTERS:
            if depth + 1 > MAX_FILTER_DEPTH:
                yield error(where, ErrorCode.INVALID_TARGET, f"'{field}' nests more than {MAX_FILTER_DEPTH} descriptors")
                continue
            yield from _check_descriptor(value, where, rules, templated=templated, what=f"{what} {field}", depth=depth + 1)
        elif field == "state":
            yield from check_reference(value, where, "state", rules.index)
        elif field == "confidence":
            if not isinstance(value, str):
                yield error(where, ErrorCode.INVALID_TYPE, f"expected string, got {json_type(value)}")
            elif value not in CONFIDENCE_VALUES:
                yield error(where, ErrorCode.INVALID_VALUE, f"'confidence' must be one of {', '.join(CONFIDENCE_VALUES)}")
        elif not isinstance(value, str):
            yield error(where, ErrorCode.INVALID_TYPE, f"'{field}' must be a string, got {json_type(value)}")
        elif field == "has_text" and not value.strip():
            yield error(where, ErrorCode.INVALID_VALUE, "'has_text' must not be empty (it keeps the elements whose text contains it)")
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
