"""Validation problems as data: a stable code, a JSON Pointer and a short message.

Like python-jsonschema's errors, a ``Problem`` is a value, not an exception:
the validator yields them lazily and ``ValidationReport`` gathers them. Every
code the validator can emit is listed, with its meaning, in ``PROBLEM_CODES``
(tests hold the validator to that list, so documentation can be built from it).

Paths are RFC 6901 JSON Pointers into the manifest (``""`` is the root). A
problem about a *missing* member points where the member belongs (for example
``/tools/0/description``), so its parent always resolves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "PROBLEM_CODES",
    "Problem",
    "ValidationReport",
    "child_pointer",
    "path_sort_key",
    "pointer_tokens",
    "problem_sort_key",
]

# code -> meaning. Stable: renaming a code is a breaking change for every consumer.
PROBLEM_CODES: dict[str, str] = {
    # -- shape of the document
    "invalid_json": "the file is not JSON text (reported when reading a file, path '')",
    "manifest_too_large": "the file is larger than the loader reads (reported when reading a file, path '')",
    "invalid_type": "a value has the wrong JSON type (message names the expected type)",
    "missing_field": "a required member is absent; the path points where it belongs",
    "unknown_field": "warning: an undocumented key in an open object (x_* keys are always allowed)",
    "field_not_allowed": "a key outside a closed key set (workflow, step, after_each, settle_after, extract entry, field, projection, summary)",
    "invalid_value": "a value outside its allowed set or range (enums, non-negative integers, empty strings)",
    "nesting_too_deep": "the document nests deeper than the validator follows; the node at the limit is reported",
    # -- root
    "unsupported_protocol": "protocol is not 'actions.json'",
    "unsupported_version": "version is not 1 (manifest, workflow or snapshot)",
    # -- names and references
    "invalid_identifier": "a name, id, namespace or handler is not a safe identifier or is longer than 128 characters",
    "invalid_step_id": "a workflow step id does not match ^[A-Za-z_][A-Za-z0-9_]*$ (it must work as steps.<id>)",
    "duplicate_name": "a name or id is already used earlier in the same namespace",
    "unknown_tool": "a reference names a tool the manifest does not declare",
    "unknown_state": "a reference names a state the manifest does not declare",
    "unknown_signal": "a reference names a signal the manifest does not declare",
    "unknown_attachment": "a reference names an attachment the manifest does not declare",
    "unknown_projection": "a reference names a state projection the manifest does not declare",
    "import_namespace_required": "an enabled import has no namespace while composition.namespace_required is true (the default)",
    # -- JSON Schemas
    "schema_not_object": "input_schema, payload, result_schema or output_schema is present but not an object",
    "invalid_schema": "a schema fails its metaschema; the path points inside the schema",
    "unknown_schema_dialect": "warning: $schema names a dialect jsonschema does not know; checked as Draft 2020-12",
    # -- tools, targets, sources
    "tool_not_executable": "an agent-callable tool has no x_actions.handler, no workflow and no x_actions.execution.steps",
    "invalid_selector": "a selector field is not a non-empty string (or, for list fields, an array of them)",
    "invalid_target": "a target is not a target descriptor object with at least one locating field",
    "unsafe_source_path": "a source.files entry is absolute, a URL, or climbs above the root with '..'",
    # -- workflows
    "empty_steps": "a workflow's steps array is empty",
    "unknown_primitive": "a step or after_each names a primitive that is not in the dictionary",
    "primitive_args_invalid": "literal step arguments fail the primitive's input_schema from the dictionary",
    "unpaired_field": "a field whose companion is absent (max_items without for_each, state without locator, ...)",
    "conflicting_fields": "two fields that exclude each other are both present",
    "unsupported_expression_language": "expression_language (or projection.language) is not 'jsonata'",
    "expression_not_slot": "a field that must be an expression is not one whole {% ... %} slot",
    "expression_partial_slot": "a string embeds {% or %} without being one whole {% ... %} slot",
    "expression_invalid": "an expression does not compile (JSONata syntax error)",
    "expression_forbidden_function": "an expression calls $eval, $random, $now or $millis",
    # -- limits (figures from Limits)
    "limit_steps_exceeded": "a workflow has more steps than limits.max_steps",
    "limit_loop_items_exceeded": "max_items is larger than limits.max_loop_items",
    "limit_summary_bytes_exceeded": "a summary's max_bytes is larger than limits.max_summary_bytes",
    "limit_expression_bytes_exceeded": "an expression's source is larger than limits.max_expression_bytes",
    # -- the validator itself
    "validator_internal_error": "the validator failed on this part of the document (a bug: please report it)",
}


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong (or questionable) with a manifest."""

    path: str
    code: str
    message: str
    severity: str = "error"

    def to_dict(self) -> dict[str, str]:
        """The public JSON shape: ``{"code", "path", "message"}`` (CONTRACT §1)."""
        return {"code": self.code, "path": self.path, "message": self.message}


@dataclass(frozen=True)
class ValidationReport:
    """Every problem of one manifest, split by severity and sorted by path, then code."""

    errors: tuple[Problem, ...]
    warnings: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        """True when there are no errors (warnings never make a manifest invalid)."""
        return not self.errors


def _escape(token: str) -> str:
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


def child_pointer(pointer: str, token: Any) -> str:
    """The JSON Pointer of member ``token`` (a key or an index) of the node at ``pointer``."""
    return f"{pointer}/{_escape(token if isinstance(token, str) else str(token))}"


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON Pointer (``""`` gives ``[]``)."""
    if not pointer:
        return []
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def path_sort_key(pointer: str) -> tuple[tuple[int, int, str], ...]:
    """Order pointers as a reader expects: by token, array indices numerically (/tools/2 < /tools/10)."""
    key = []
    for token in pointer.split("/")[1:] if pointer else ():
        if token.isascii() and token.isdigit() and len(token) < 19:  # '²'.isdigit() is True, int('²') fails
            key.append((0, int(token), ""))
        else:
            key.append((1, 0, token))
    return tuple(key)


def problem_sort_key(problem: Problem) -> tuple[Any, ...]:
    """Sort key of the report lists: path (numeric-aware), then code, then message."""
    return (path_sort_key(problem.path), problem.code, problem.message)
