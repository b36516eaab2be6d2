"""State projections: DOM extraction, a JSONata projection, an output schema, summaries.

``snapshot`` has ``version`` 1, ``source`` "dom" and a non-empty ``extract``
list. Extract entries and their fields follow docs/manifest-language.md (State projections) with closed key
sets (they are executed, so a typo must not pass silently): an entry has a
safe, unique ``id`` and one of ``selector``/``xpath``; a field takes its value
from ``attribute``, ``property`` or nested ``fields`` (at most one of them).
The projection's ``expression`` and every summary's are whole ``{% … %}``
slots that compile; summaries have a safe, unique ``name`` and a ``max_bytes``
within ``limits.max_summary_bytes``.
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer, pointer_tokens
from ..shape import (
    EXPRESSION_FIELDS,
    EXPRESSION_LANGUAGE,
    EXTRACT_FIELDS,
    FIELD_FIELDS,
    FIELD_PROPERTIES,
    PROJECTION_FIELDS,
    SNAPSHOT_FIELDS,
    SNAPSHOT_SOURCE,
    SUMMARY_FIELDS,
    VERSION,
)
from .base import (
    Checks,
    Rules,
    check_keys,
    check_required_identifier,
    check_string,
    check_unique_names,
    error,
    expect_type,
    json_type,
    missing_member,
    object_entries,
)
from .expressions import check_expression_field
from .hints import spell
from .schema import check_schema
from .targets import check_selector_value

__all__ = ["check_state_projections"]


def _check_boolean(obj: dict[str, Any], key: str, path: str) -> Checks:
    if key in obj:
        problem = expect_type(obj[key], "boolean", child_pointer(path, key))
        if problem:
            yield problem


def _check_locating(obj: dict[str, Any], path: str, what: str, *, required: bool) -> Checks:
    """selector or xpath (never both); required for extract entries, optional for fields."""
    has_selector, has_xpath = "selector" in obj, "xpath" in obj
    if has_selector and has_xpath:
        yield error(path, ErrorCode.CONFLICTING_FIELDS, f"{what}: give selector or xpath, not both")
    elif required and not has_selector and not has_xpath:
        yield error(child_pointer(path, "selector"), ErrorCode.MISSING_FIELD, f"{what}: needs a selector (or xpath)")
    for key in ("selector", "xpath", "closest"):
        if key in obj:
            yield from check_selector_value(obj[key], child_pointer(path, key), key)


def _check_fields(fields: Any, path: str, rules: Rules) -> Checks:
    """A ``fields`` object, recursively (nested record fields)."""
    if not isinstance(fields, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"fields must be an object, got {json_type(fields)}")
        return
    # Field objects sit one level below their 'fields' object; follow them only within the depth bound.
    if len(pointer_tokens(path)) + 1 > rules.max_depth:
        nested = [name for name, field in fields.items() if isinstance(field, (dict, list))]
        if nested:
            yield error(child_pointer(path, nested[0]), ErrorCode.NESTING_TOO_DEEP, f"nested deeper than {rules.max_depth} levels")
        return
    for name, field in fields.items():
        where = child_pointer(path, name)
        label = f"field {name!r}"
        if not isinstance(name, str) or not name:
            yield error(where, ErrorCode.INVALID_VALUE, "a field name must be a non-empty string")
        if not isinstance(field, dict):
            yield error(where, ErrorCode.INVALID_TYPE, f"{label} must be an object, got {json_type(field)}")
            continue
        field = yield from check_keys(field, where, FIELD_FIELDS, rules, subject=label, closed=True)
        yield from _check_locating(field, where, label, required=False)
        for key in ("many", "trim", "required"):
            yield from _check_boolean(field, key, where)
        yield from check_string(field, "attribute", where, non_empty=True)
        if "property" in field:
            value = field["property"]
            problem = expect_type(value, "string", child_pointer(where, "property"))
            if problem:
                yield problem
            elif value not in FIELD_PROPERTIES:
                yield error(child_pointer(where, "property"), ErrorCode.INVALID_VALUE, f"{label}: property must be one of {', '.join(FIELD_PROPERTIES)}")
        sources = [key for key in ("fields", "attribute", "property") if key in field]
        if len(sources) > 1:
            yield error(where, ErrorCode.CONFLICTING_FIELDS, f"{label}: {' and '.join(sources)} exclude each other")
        if "fields" in field:
            yield from _check_fields(field["fields"], child_pointer(where, "fields"), rules)


def _check_snapshot(snapshot: Any, path: str, rules: Rules) -> Checks:
    if not isinstance(snapshot, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"snapshot must be an object, got {json_type(snapshot)}")
        return
    snapshot = yield from check_keys(snapshot, path, SNAPSHOT_FIELDS, rules, subject="snapshot")
    version_path = child_pointer(path, "version")
    if "version" not in snapshot:
        yield missing_member(path, "version", VERSION, subject="snapshot")
    else:
        problem = expect_type(snapshot["version"], "integer", version_path)
        if problem:
            yield problem
        elif snapshot["version"] != 1:
            yield error(version_path, ErrorCode.UNSUPPORTED_VERSION, f"snapshot version must be {spell(VERSION)}")
    source_path = child_pointer(path, "source")
    if "source" not in snapshot:
        yield missing_member(path, "source", SNAPSHOT_SOURCE, subject="snapshot")
    else:
        problem = expect_type(snapshot["source"], "string", source_path)
        if problem:
            yield problem
        elif snapshot["source"] != SNAPSHOT_SOURCE:
            yield error(source_path, ErrorCode.INVALID_VALUE, f"snapshot source must be {spell(SNAPSHOT_SOURCE)}")
    if "extract" not in snapshot:
        yield error(child_pointer(path, "extract"), ErrorCode.MISSING_FIELD, "snapshot: 'extract' is required")
    elif isinstance(snapshot["extract"], list) and not snapshot["extract"]:
        yield error(child_pointer(path, "extract"), ErrorCode.INVALID_VALUE, "snapshot: 'extract' must not be empty")
    entries = yield from object_entries(snapshot, "extract", path, what="an extract entry")
    for where, entry in entries:
        entry_id = entry.get("id")
        label = f"extract {entry_id!r}" if isinstance(entry_id, str) else "extract entry"
        entry = yield from check_keys(entry, where, EXTRACT_FIELDS, rules, subject=label, closed=True)
        yield from check_required_identifier(entry, "id", where, missing="extract entry: 'id' is required", what="extract id")
        yield from _check_locating(entry, where, label, required=True)
        yield from _check_boolean(entry, "many", where)
        if "fields" in entry:
            yield from _check_fields(entry["fields"], child_pointer(where, "fields"), rules)
    yield from check_unique_names(entries, "id", "extract id")
    if "projection" in snapshot:
        yield from _check_projection_expression(snapshot["projection"], child_pointer(path, "projection"), rules)
    if "output_schema" in snapshot:
        yield from check_schema(snapshot["output_schema"], child_pointer(path, "output_schema"), "output_schema")


def _check_projection_expression(projection: Any, path: str, rules: Rules) -> Checks:
    if not isinstance(projection, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"projection must be an object, got {json_type(projection)}")
        return
    projection = yield from check_keys(projection, path, EXPRESSION_FIELDS, rules, subject="projection", closed=True)
    language_path = child_pointer(path, "language")
    if "language" not in projection:
        yield missing_member(path, "language", EXPRESSION_LANGUAGE, subject="projection")
    else:
        problem = expect_type(projection["language"], "string", language_path)
        if problem:
            yield problem
        elif projection["language"] != EXPRESSION_LANGUAGE:
            yield error(language_path, ErrorCode.UNSUPPORTED_EXPRESSION_LANGUAGE, f"projection language must be {spell(EXPRESSION_LANGUAGE)}")
    if "expression" not in projection:
        yield error(child_pointer(path, "expression"), ErrorCode.MISSING_FIELD, "projection: 'expression' is required")
    else:
        yield from check_expression_field(projection["expression"], child_pointer(path, "expression"), "projection expression", rules)


def _check_summaries(projection: dict[str, Any], path: str, rules: Rules) -> Checks:
    summaries = yield from object_entries(projection, "summaries", path, what="a summary")
    for where, summary in summaries:
        name = summary.get("name")
        label = f"summary {name!r}" if isinstance(name, str) else "summary"
        summary = yield from check_keys(summary, where, SUMMARY_FIELDS, rules, subject=label, closed=True)
        yield from check_required_identifier(summary, "name", where, missing="summary: 'name' is required", what="summary name")
        yield from check_string(summary, "description", where)
        bytes_path = child_pointer(where, "max_bytes")
        if "max_bytes" not in summary:
            yield error(bytes_path, ErrorCode.MISSING_FIELD, f"{label}: 'max_bytes' is required")
        else:
            value = summary["max_bytes"]
            problem = expect_type(value, "integer", bytes_path)
            if problem:
                yield problem
            elif value < 1:
                yield error(bytes_path, ErrorCode.INVALID_VALUE, f"{label}: max_bytes must be at least 1")
            elif value > rules.limits.max_summary_bytes:
                limit = rules.limits.max_summary_bytes
                yield error(bytes_path, ErrorCode.LIMIT_SUMMARY_BYTES_EXCEEDED, f"{label}: max_bytes {int(value)} exceeds the limit of {limit}")
        if "expression" not in summary:
            yield error(child_pointer(where, "expression"), ErrorCode.MISSING_FIELD, f"{label}: 'expression' is required")
        else:
            yield from check_expression_field(summary["expression"], child_pointer(where, "expression"), f"{label} expression", rules)
    yield from check_unique_names(summaries, "name", "summary name")


def check_state_projections(document: dict[str, Any], rules: Rules) -> Checks:
    """state_projections: names, snapshot (extract, projection, output_schema), summaries."""
    projections = yield from object_entries(document, "state_projections", "", what="a state projection")
    for where, projection in projections:
        projection = yield from check_keys(projection, where, PROJECTION_FIELDS, rules, subject="state projection")
        yield from check_required_identifier(projection, "name", where, missing="state projection: 'name' is required", what="state projection name")
        yield from check_string(projection, "description", where)
        if "snapshot" not in projection:
            yield error(child_pointer(where, "snapshot"), ErrorCode.MISSING_FIELD, "state projection: 'snapshot' is required")
        else:
            yield from _check_snapshot(projection["snapshot"], child_pointer(where, "snapshot"), rules)
        yield from _check_summaries(projection, where, rules)
    yield from check_unique_names(projections, "name", "state projection name")
