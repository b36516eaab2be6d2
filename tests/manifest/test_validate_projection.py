"""State projections: snapshot, extract entries and fields (docs/manifest-language.md), projection, summaries."""

from __future__ import annotations

import pytest

from .builders import _DELETE, base, edit, errors

P = "/state_projections/0"
SNAP = f"{P}/snapshot"
ENTRY = f"{SNAP}/extract/0"
NAME = f"{ENTRY}/fields/name"
CARDS = f"{ENTRY}/fields/cards"

# (pointer, value or _DELETE, expected errors)
EDITS = [
    ("/state_projections", {}, [("invalid_type", "/state_projections")]),
    (P, "site.board", [("invalid_type", P)]),
    (f"{P}/name", _DELETE, [("missing_field", f"{P}/name")]),
    (f"{P}/description", 5, [("invalid_type", f"{P}/description")]),
    (f"{P}/owner", "me", []),  # projection-level keys are open: at most a warning
    (f"{P}/snapshot", _DELETE, [("missing_field", f"{P}/snapshot")]),
    (SNAP, [], [("invalid_type", SNAP)]),
    # -- snapshot
    (f"{SNAP}/version", _DELETE, [("missing_field", f"{SNAP}/version")]),
    (f"{SNAP}/version", "1", [("invalid_type", f"{SNAP}/version")]),
    (f"{SNAP}/source", _DELETE, [("missing_field", f"{SNAP}/source")]),
    (f"{SNAP}/extract", _DELETE, [("missing_field", f"{SNAP}/extract")]),
    (f"{SNAP}/extract", [], [("invalid_value", f"{SNAP}/extract")]),
    (f"{SNAP}/extract", {"lists": {}}, [("invalid_type", f"{SNAP}/extract")]),
    (f"{SNAP}/projection", _DELETE, []),  # the records are the state then
    (f"{SNAP}/projection", "{% records %}", [("invalid_type", f"{SNAP}/projection")]),
    (f"{SNAP}/projection/language", _DELETE, [("missing_field", f"{SNAP}/projection/language")]),
    (f"{SNAP}/projection/expression", _DELETE, [("missing_field", f"{SNAP}/projection/expression")]),
    (f"{SNAP}/projection/expression", "records.lists", [("expression_not_slot", f"{SNAP}/projection/expression")]),
    (f"{SNAP}/projection/expression", "{% $eval('1') %}", [("expression_forbidden_function", f"{SNAP}/projection/expression")]),
    (f"{SNAP}/projection/mode", "fast", [("field_not_allowed", f"{SNAP}/projection/mode")]),
    (f"{SNAP}/output_schema", _DELETE, []),
    (f"{SNAP}/output_schema", "object", [("schema_not_object", f"{SNAP}/output_schema")]),
    # -- extract entries (closed)
    (f"{SNAP}/extract/1", "lists", [("invalid_type", f"{SNAP}/extract/1")]),
    (f"{ENTRY}/id", _DELETE, [("missing_field", f"{ENTRY}/id")]),
    (f"{ENTRY}/xpath", "//ul", [("conflicting_fields", ENTRY)]),  # selector and xpath
    (f"{ENTRY}/selector", 3, [("invalid_selector", f"{ENTRY}/selector")]),
    (f"{ENTRY}/many", "yes", [("invalid_type", f"{ENTRY}/many")]),
    (f"{ENTRY}/limit", 5, [("field_not_allowed", f"{ENTRY}/limit")]),
    (f"{ENTRY}/fields", _DELETE, []),
    (f"{ENTRY}/fields", ["name"], [("invalid_type", f"{ENTRY}/fields")]),
    # -- fields (closed, recursive)
    (NAME, ".name", [("invalid_type", NAME)]),
    (f"{NAME}/xpath", ".//b", [("conflicting_fields", NAME)]),
    (f"{NAME}/attribute", "title", [("conflicting_fields", NAME)]),  # attribute and property
    (f"{NAME}/property", _DELETE, []),
    (f"{NAME}/property", "value", []),
    (f"{NAME}/trim", "yes", [("invalid_type", f"{NAME}/trim")]),
    (f"{NAME}/required", 1, [("invalid_type", f"{NAME}/required")]),
    (f"{NAME}/default", {"any": ["json", None]}, []),
    (f"{NAME}/closest", "", [("invalid_selector", f"{NAME}/closest")]),
    (f"{ENTRY}/fields/href", {"selector": "a", "attribute": ""}, [("invalid_value", f"{ENTRY}/fields/href/attribute")]),
    (f"{ENTRY}/fields/", {"selector": "a"}, [("invalid_value", f"{ENTRY}/fields/")]),  # an empty field name
    (f"{CARDS}/property", "innerText", [("conflicting_fields", CARDS)]),  # nested fields and property
    (f"{CARDS}/fields/title/many", "no", [("invalid_type", f"{CARDS}/fields/title/many")]),
    (f"{CARDS}/fields/title/fields", {"deep": {"selector": "i", "css": "x"}}, [("field_not_allowed", f"{CARDS}/fields/title/fields/deep/css")]),
    # -- summaries
    (f"{P}/summaries", {}, [("invalid_type", f"{P}/summaries")]),
    (f"{P}/summaries/0/name", _DELETE, [("missing_field", f"{P}/summaries/0/name")]),
    (f"{P}/summaries/0/max_bytes", _DELETE, [("missing_field", f"{P}/summaries/0/max_bytes")]),
    (f"{P}/summaries/0/max_bytes", 0, [("invalid_value", f"{P}/summaries/0/max_bytes")]),
    (f"{P}/summaries/0/max_bytes", "2kb", [("invalid_type", f"{P}/summaries/0/max_bytes")]),
    (f"{P}/summaries/0/max_bytes", 12000, []),  # exactly the limit
    (f"{P}/summaries/0/expression", "{% state. %}", [("expression_invalid", f"{P}/summaries/0/expression")]),
    (f"{P}/summaries/0/format", "json", [("field_not_allowed", f"{P}/summaries/0/format")]),
    (f"{P}/summaries/1", {"name": "counts", "max_bytes": 10, "expression": "{% 1 %}"}, [("duplicate_name", f"{P}/summaries/1/name")]),
]


@pytest.mark.parametrize(("pointer", "value", "expected"), EDITS, ids=[f"{p}={v!r:.30}" for p, v, _ in EDITS])
def test_one_edit_gives_exactly_these_errors(pointer: str, value: object, expected: list[tuple[str, str]]) -> None:
    assert errors(edit(base(), pointer, value)) == expected


def test_fields_nested_beyond_the_depth_limit_are_reported_not_followed() -> None:
    field: dict[str, object] = {"selector": "b"}
    for _ in range(40):
        field = {"selector": "li", "many": True, "fields": {"sub": field}}
    found = errors(edit(base(), f"{ENTRY}/fields/name", field))
    assert found and {code for code, _ in found} == {"nesting_too_deep"}
