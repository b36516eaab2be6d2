"""JSON Schemas compiled once, that refuse what they cannot check.

A schema from a manifest (a tool's ``input_schema`` or ``result_schema``, a
signal's ``payload``) or from the primitive dictionary is compiled the first
time it is needed. A schema that cannot be compiled (it fails its metaschema,
names a ``$ref`` that does not resolve, holds a pattern that is not a regular
expression) must not let everything through: every check against it raises
``ActionError`` with code ``invalid_schema``, and the schema's problem is
logged once, where its owner can see it.

This module sits below every package (it imports only ``errors`` and
``jsonutil``), so the bridge, the catalogue and the dictionary share it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError

from .errors import ActionError, ErrorCode
from .jsonutil import json_pointer

__all__ = ["CompiledSchema", "SchemaFailure"]

#: How many failures an error's evidence lists.
LISTED_FAILURES = 10

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SchemaFailure:
    """Why an instance fails a schema: the first failure in path order, and the first few of all."""

    path: str  # JSON Pointer of the first failure
    message: str
    errors: list[dict[str, str]]  # up to LISTED_FAILURES ``{path, message}``, in path order


class CompiledSchema:
    """One schema, compiled on first use; ``label`` says whose schema it is in messages and logs."""

    def __init__(self, schema: Mapping[str, Any], *, label: str) -> None:
        self.schema = schema
        self.label = label
        self._validator: Any = None
        self._problem: str | None = None

    def _compile(self) -> Any:
        if self._validator is None and self._problem is None:
            try:
                schema = dict(self.schema)  # jsonschema's validators take a dict, not any mapping
                cls = validators.validator_for(schema, default=Draft202012Validator)
                cls.check_schema(schema)
                self._validator = cls(schema)
            except SchemaError as exc:
                self._broken(f"{exc.message} at {json_pointer(exc.absolute_path)}")
        if self._problem is not None:
            raise self._refusal()
        return self._validator

    def _broken(self, problem: str) -> None:
        self._problem = problem
        # Once per schema: the owner must fix the schema, and one line says what is wrong.
        log.error("%s cannot be compiled, so everything checked against it is refused: %s", self.label, problem)

    def _refusal(self) -> ActionError:
        return ActionError(
            f"{self.label} cannot be compiled, so nothing can be checked against it: {self._problem}",
            code=ErrorCode.INVALID_SCHEMA,
            evidence={"schema": self.label, "problem": self._problem},
        )

    def prepare(self) -> None:
        """Compile now rather than at the first check; a schema that cannot compile is logged once, as then."""
        _ = self.usable

    @property
    def usable(self) -> bool:
        """False once the schema is known not to compile (compiles it if needed)."""
        try:
            self._compile()
        except ActionError:
            return False
        return True

    def errors(self, instance: Any, *, limit: int | None = None) -> list[ValidationError]:
        """The validation errors of ``instance`` (at most ``limit``), in the validator's order.

        Raises ``ActionError`` ``invalid_schema`` when the schema cannot be compiled
        or fails while checking (an unresolvable ``$ref``, a broken pattern).
        """
        validator = self._compile()
        found: list[ValidationError] = []
        try:
            for error in validator.iter_errors(instance):
                found.append(error)
                if limit is not None and len(found) >= limit:
                    break
        except Exception as exc:
            self._broken(f"{type(exc).__name__}: {exc}")
            raise self._refusal() from exc
        return found

    def first_error(self, instance: Any) -> ValidationError | None:
        """The first validation error of ``instance``, or None (same refusals as ``errors``)."""
        found = self.errors(instance, limit=1)
        return found[0] if found else None

    def failure(self, instance: Any) -> SchemaFailure | None:
        """Every failure of ``instance`` in path order, summarised; None when it is valid (same refusals as ``errors``)."""
        errors = sorted(self.errors(instance), key=lambda e: [(isinstance(part, str), part) for part in _where(e)])
        if not errors:
            return None
        listed = [{"path": json_pointer(_where(e)), "message": e.message} for e in errors[:LISTED_FAILURES]]
        return SchemaFailure(listed[0]["path"], errors[0].message, listed)


def _where(error: ValidationError) -> list[Any]:
    """The path of what is wrong: for a missing or unexpected property, the property's own path.

    ``jsonschema`` reports a missing required property, and one that
    ``additionalProperties: false`` refuses, at the object that holds them (an
    empty path for a tool's arguments); a caller correcting itself needs ``/name``.
    """
    path = list(error.absolute_path)
    if not isinstance(error.instance, Mapping):
        return path
    if error.validator == "required" and isinstance(error.validator_value, list):
        for name in error.validator_value:
            if name not in error.instance and error.message == f"{name!r} is a required property":
                return [*path, name]
    if error.validator == "additionalProperties" and error.validator_value is False and isinstance(error.schema, Mapping):
        # The first property the schema does not allow, as the argument to drop or rename.
        declared = error.schema.get("properties") or {}
        patterns = error.schema.get("patternProperties") or {}
        extra = sorted(k for k in error.instance if k not in declared and not any(re.search(p, k) for p in patterns))
        if extra:
            return [*path, extra[0]]
    return path
