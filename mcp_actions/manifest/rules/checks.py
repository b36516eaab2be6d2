"""Checks: drift and safety probes of the live site.

A check has a safe, unique ``id`` and a severity from the spec's four. What it
references must exist: an assertion's ``target`` is a target descriptor that
locates something, and the references ``shape.REFERENCES`` lists for its
setup, assertions and steps entries (``tool``, in ``call`` steps and
elsewhere, ``state``, ``attachment``, ``states``, ``attachments``) name
declared tools, states and attachments.
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import ANY_DEPTH, CHECK_FIELDS, SEVERITIES, references
from .base import (
    Checks,
    Rules,
    check_enum,
    check_keys,
    check_required_identifier,
    check_string,
    check_unique_names,
    error,
    json_type,
    object_entries,
)
from .refs import check_references
from .targets import check_check_target

__all__ = ["check_checks"]



def _check_references(entries: str, entry: dict[str, Any], where: str, rules: Rules) -> Checks:
    """The references of one entry of ``entries`` (the validator checks each entry's own members)."""
    yield from check_references(entry, where, references("checks", below=(entries, ANY_DEPTH), checked=True), rules, skip=2)


def check_checks(document: dict[str, Any], rules: Rules) -> Checks:
    """checks: ids, severity, and every reference of setup, assertions and steps."""
    checks = yield from object_entries(document, "checks", "", what="a check")
    for where, check in checks:
        check = yield from check_keys(check, where, CHECK_FIELDS, rules, subject="check")
        yield from check_required_identifier(check, "id", where, missing="check: 'id' is required", what="check id")
        yield from check_string(check, "description", where)
        yield from check_enum(check, "severity", where, SEVERITIES)
        assertions = yield from object_entries(check, "assertions", where, what="an assertion")
        for assertion_path, assertion in assertions:
            if "target" in assertion:
                yield from check_check_target(assertion["target"], child_pointer(assertion_path, "target"), rules)
            yield from _check_references("assertions", assertion, assertion_path, rules)
        for key, what in (("setup", "a setup entry"), ("steps", "a check step")):
            entries = yield from object_entries(check, key, where, what=what)
            for entry_path, entry in entries:
                yield from check_string(entry, "type", entry_path, non_empty=True)
                if entry.get("type") == "call" and "tool" not in entry:
                    yield error(child_pointer(entry_path, "tool"), ErrorCode.MISSING_FIELD, "a call step needs 'tool'")
                yield from _check_references(key, entry, entry_path, rules)
                if "arguments" in entry and not isinstance(entry["arguments"], dict):
                    got = json_type(entry["arguments"])
                    yield error(child_pointer(entry_path, "arguments"), ErrorCode.INVALID_TYPE, f"arguments must be an object, got {got}")
        for key in ("on_fail", "expected_result"):
            if key in check and not isinstance(check[key], dict):
                yield error(child_pointer(where, key), ErrorCode.INVALID_TYPE, f"{key} must be an object, got {json_type(check[key])}")
    yield from check_unique_names(checks, "id", "check id")
