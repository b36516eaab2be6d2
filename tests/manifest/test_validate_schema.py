"""Embedded JSON Schemas: metaschema checks by declared dialect, paths inside the schema, the fast path."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from mcp_actions.manifest.rules.schema import fast_schema_valid, official_schema_problems, subschema_keywords

from .builders import base, edit, errors

SCHEMA = "/tools/0/input_schema"

# (schema, expected errors relative to the schema pointer)
SCHEMAS = [
    ({"type": "object", "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}}}, []),
    ({"type": ["string", "null"]}, []),
    ({"type": "object", "properties": {"q": {"type": "strng"}}}, [("invalid_schema", "/properties/q/type")]),
    ({"type": "object", "properties": {"q": {"pattern": "(unclosed"}}}, [("invalid_schema", "/properties/q/pattern")]),
    ({"type": "object", "patternProperties": {"[": {}}}, [("invalid_schema", "/patternProperties")]),  # a bad regex as a key
    ({"type": "object", "required": ["a", "a"]}, [("invalid_schema", "/required")]),  # not unique
    ({"minLength": -1}, [("invalid_schema", "/minLength")]),
    ({"allOf": []}, [("invalid_schema", "/allOf")]),  # schemaArray needs one item
    ({"anyOf": [{"type": "string"}, 5]}, [("invalid_schema", "/anyOf/1")]),
    ({"items": {"items": {"items": {"minimum": "0"}}}}, [("invalid_schema", "/items/items/items/minimum")]),
    ({"$defs": {"q": {"enum": "a"}}, "$ref": "#/$defs/q"}, [("invalid_schema", "/$defs/q/enum")]),
    ({"dependencies": {"a": ["b"], "c": {"type": "string"}}}, []),  # legacy keyword, both forms
    ({"dependencies": {"a": 5}}, [("invalid_schema", "/dependencies/a")]),
    ({"$schema": 5}, [("invalid_schema", "/$schema")]),
    ({"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"type": "integer"}]}, []),
    ({"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": True}, []),  # draft-04 booleans
    ({"$schema": "https://json-schema.org/draft/2020-12/schema", "minimum": 1, "exclusiveMinimum": True}, [("invalid_schema", "/exclusiveMinimum")]),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": 1}}}, [("invalid_schema", "/properties/a/type")]),
    ({"x-custom": {"anything": True}, "title": "T"}, []),  # unknown keywords are allowed
    ({"title": 5}, [("invalid_schema", "/title")]),
]


@pytest.mark.parametrize(("schema", "expected"), SCHEMAS, ids=[repr(s)[:60] for s, _ in SCHEMAS])
def test_schema_problems_point_inside_the_schema(schema: dict[str, object], expected: list[tuple[str, str]]) -> None:
    assert errors(edit(base(), SCHEMA, schema)) == [(code, SCHEMA + path) for code, path in expected]


@pytest.mark.parametrize(("schema", "expected"), [case for case in SCHEMAS if "$schema" not in case[0]])
def test_fast_path_agrees_with_the_official_metaschema(schema: dict[str, object], expected: list[tuple[str, str]]) -> None:
    official_valid = not official_schema_problems(schema, Draft202012Validator)
    assert official_valid == (expected == [])
    assert fast_schema_valid(schema) == official_valid


def test_subschema_keywords_are_derived_from_the_metaschema() -> None:
    assert subschema_keywords() == {
        "definitions": "map", "dependencies": "map", "$defs": "map", "properties": "map", "patternProperties": "map",
        "dependentSchemas": "map", "prefixItems": "array", "allOf": "array", "anyOf": "array", "oneOf": "array",
        "items": "single", "contains": "single", "additionalProperties": "single", "propertyNames": "single",
        "if": "single", "then": "single", "else": "single", "not": "single", "unevaluatedItems": "single",
        "unevaluatedProperties": "single", "contentSchema": "single",
    }  # fmt: skip


def test_a_repeated_schema_gives_the_same_problems() -> None:
    document = base()
    bad = {"type": "object", "properties": {"q": {"type": "strng"}}}
    document["tools"][0]["input_schema"] = bad
    document["tools"][1]["input_schema"] = dict(bad)
    assert errors(document) == [("invalid_schema", "/tools/0/input_schema/properties/q/type"), ("invalid_schema", "/tools/1/input_schema/properties/q/type")]


def test_schema_nested_too_deeply_is_reported_once() -> None:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(40):
        schema = {"type": "object", "properties": {"a": schema}}
    found = errors(edit(base(), SCHEMA, schema))
    assert [code for code, _ in found] == ["nesting_too_deep"]
    assert found[0][1].startswith(SCHEMA + "/properties/a/properties/a")


def test_schema_with_values_that_are_not_json_is_reported_not_raised() -> None:
    found = errors(edit(base(), SCHEMA, {"type": "object", "enum": {1, 2}}))
    assert found and {code for code, _ in found} <= {"invalid_schema"}
