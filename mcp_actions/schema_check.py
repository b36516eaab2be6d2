"""JSON Schemas compiled once, that refuse what they cannot check.

A schema from a manifest (a tool's ``input_schema`` or ``result_schema``, a
signal's ``payload``) or from the primitive dictionary is compiled the first
time it is needed. A schema that cannot be compiled (it fails its metaschema,
names a ``$ref`` that does not resolve, holds a pattern that is not a regular
expression) must not let everything through: every check against it raises
``ActionError`` with code ``invalid_schema``, and the schema's problem is
logged once, where its owner can see it.

The instances checked here are mostly a page's (a tool's answer, a page tool's
arguments, a signal's payload), so ``pattern`` and ``patternProperties`` (and
``additionalProperties`` and ``unevaluatedProperties``, which consult
``patternProperties``) run on RE2 (``bounded_regex``): linear time whatever the
pattern. A pattern RE2 cannot run (a backreference, lookaround) makes the schema
one that cannot be compiled (docs/manifest-language.md, "Regular expressions").

Other keywords cost time too: ``uniqueItems`` in jsonschema compares every pair
of elements (2,000 distinct objects took 9 s, a page's 1 MiB answer hours), so it
is replaced by a linear one that compares canonical forms; and checking a large
answer against an ordinary schema still takes seconds. So a check is bounded by the
instance's size as well as by time (``check_bounded``): a small instance (``json_weight``
at most ``SMALL_WEIGHT``, a few hundred values: about a millisecond) is checked at once,
on the event loop, where it queues behind nothing; a large one in a worker thread of its
own pool, where it cannot hold the loop (or the default executor) from other calls. Either
way every keyword looks at the clock before it runs and the check gives up at its instant
(``handler_timeout``, ``evidence.phase`` ``schema_check``); a small instance under a schema
that makes it costly gives up on the loop after ``INLINE_BUDGET_S`` and goes on in the pool.

This module sits below every package (it imports only ``errors``, ``jsonutil``
and ``bounded_regex``), so the bridge, the catalogue and the dictionary share it.

Why one file of about 550 lines: compiling a schema once, its bounded keywords and
where a check runs by the instance's size are one concept, "a check that cannot
stall", and splitting them would leave each half unable to keep that promise alone.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError, best_match

from .bounded_regex import compile_pattern, pattern_problem
from .errors import ActionError, ErrorCode
from .jsonutil import json_pointer

__all__ = [
    "INLINE_BUDGET_S",
    "SMALL_WEIGHT",
    "CompiledSchema",
    "SchemaFailure",
    "bounded_validator",
    "check_bounded",
    "json_weight",
    "out_of_time",
    "schema_patterns",
    "unsupported_patterns",
]

#: How many failures an error's evidence lists.
LISTED_FAILURES = 10

log = logging.getLogger(__name__)

#: The ``time.monotonic()`` instant at which a check in this context gives up (None: never).
_GIVE_UP: ContextVar[float | None] = ContextVar("schema_check_give_up", default=None)
#: The ``time.thread_time()`` (this thread's CPU time) at which a check on the event loop gives up: what
#: bounds how long it holds the loop, whatever else takes the interpreter meanwhile (None: no bound).
_CPU_GIVE_UP: ContextVar[float | None] = ContextVar("schema_check_cpu_give_up", default=None)


class _OutOfTime(Exception):
    """A check ran past the instant ``_GIVE_UP`` holds (turned into ``handler_timeout`` by ``CompiledSchema``)."""


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
                # A pattern RE2 cannot run would fail at its first use; say so now, with where it is.
                for where, problem in unsupported_patterns(schema):
                    self._broken(f"{problem} at {where}")
                    break
                else:
                    self._validator = bounded_validator(cls)(schema)
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
        except _OutOfTime:
            # The instance's fault (its size), not the schema's: the schema stays usable.
            raise ActionError(
                f"checking against {self.label} did not finish by the call's deadline",
                code=ErrorCode.HANDLER_TIMEOUT,
                evidence={"phase": "schema_check", "schema": self.label},
            ) from None
        except Exception as exc:
            self._broken(f"{type(exc).__name__}: {exc}")
            raise self._refusal() from exc
        return found

    def first_error(self, instance: Any) -> ValidationError | None:
        """The first validation error of ``instance``, or None (same refusals as ``errors``)."""
        found = self.errors(instance, limit=1)
        return found[0] if found else None

    def failure(self, instance: Any) -> SchemaFailure | None:
        """Every failure of ``instance`` in path order, summarised; None when it is valid (same refusals as ``errors``).

        Each says the specific thing (``_specific``): a value no branch of an ``anyOf``/``oneOf`` takes is
        said by the branch's own words, not as "not valid under any of the given schemas".
        """
        found = _specific(self.errors(instance))
        failures = sorted(found, key=lambda f: [(isinstance(part, str), part) for part in f[0]])
        if not failures:
            return None
        listed = [{"path": json_pointer(where), "message": message} for where, message in failures[:LISTED_FAILURES]]
        return SchemaFailure(listed[0]["path"], listed[0]["message"], listed)


#: Keywords whose error only says that no (or not exactly one) branch took the value.
_COMBINATORS = ("anyOf", "oneOf")


def _specific(errors: list[ValidationError]) -> list[tuple[list[Any], str]]:
    """The errors as (path, message), each as specific as the schema lets it be (issue 44).

    A ``<select>``'s schema gives its options twice, as ``enum`` and as ``anyOf`` of ``{const, title}``
    (Chromium's getTools() shape): a value neither takes failed both, and "'7' is not valid under any of
    the given schemas" hid "'7' is not one of ['1', … '6']". So a combinator's error is left out where
    another error names the same value; else it becomes the allowed constants when every branch is one,
    else the best-matching error of its closest branch (jsonschema's ``best_match``: the deepest error of
    the branch that went furthest).
    """
    plain = {tuple(_where(e)) for e in errors if e.validator not in _COMBINATORS}
    out: list[tuple[list[Any], str]] = []
    for error in errors:
        where = _where(error)
        if error.validator not in _COMBINATORS or not error.context:
            out.append((where, error.message))
            continue
        if tuple(where) in plain:
            continue
        branches = error.validator_value if isinstance(error.validator_value, list) else []
        consts = [b["const"] for b in branches if isinstance(b, Mapping) and "const" in b]
        if consts and len(consts) == len(branches):
            out.append((where, f"{error.instance!r} is not one of {consts!r}"))
            continue
        # A branch whose type the value has went further than one that refused its type.
        best = best_match([c for c in error.context if c.validator != "type"] or error.context)
        out.append((_where(best) if best is not None else where, best.message if best is not None else error.message))
    return out


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
        extra = sorted(k for k in error.instance if k not in declared and not any(_matches(p, k) for p in patterns))
        if extra:
            return [*path, extra[0]]
    return path


# -- patterns on RE2 ----------------------------------------------------------------------------------------

#: Keywords whose value is one subschema, a list of subschemas, or a map of names to subschemas.
_SUBSCHEMA = ("additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "dependentSchemas", "dependencies")


def schema_patterns(schema: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every regular expression ``schema`` holds, as ``(JSON Pointer relative to the schema, pattern)``.

    Follows only the keywords that hold subschemas, so a ``const``, ``enum``,
    ``default`` or ``examples`` value that happens to hold a ``pattern`` key is data, not a pattern.
    """
    if not isinstance(schema, Mapping):
        return
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        yield f"{path}/pattern", pattern
    by_pattern = schema.get("patternProperties")
    if isinstance(by_pattern, Mapping):
        for key, subschema in by_pattern.items():
            where = f"{path}/patternProperties/{_escape(str(key))}"
            yield where, str(key)
            yield from schema_patterns(subschema, where)
    for keyword in _SUBSCHEMA:
        if isinstance(schema.get(keyword), Mapping):
            yield from schema_patterns(schema[keyword], f"{path}/{keyword}")
    for keyword in _SUBSCHEMA_LISTS:
        if isinstance(schema.get(keyword), list):
            for index, subschema in enumerate(schema[keyword]):
                yield from schema_patterns(subschema, f"{path}/{keyword}/{index}")
    for keyword in _SUBSCHEMA_MAPS:
        if isinstance(schema.get(keyword), Mapping):
            for key, subschema in schema[keyword].items():
                yield from schema_patterns(subschema, f"{path}/{keyword}/{_escape(str(key))}")


def unsupported_patterns(schema: Any) -> Iterator[tuple[str, str]]:
    """``(JSON Pointer, why)`` for each pattern in ``schema`` that RE2 cannot run (docs/manifest-language.md, "Regular expressions")."""
    for where, pattern in schema_patterns(schema):
        problem = pattern_problem(pattern)
        if problem is not None:
            yield where, problem


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _matches(pattern: str, text: str) -> bool:
    # UnsupportedPattern escapes on purpose: CompiledSchema.errors turns it into invalid_schema.
    return compile_pattern(pattern).search(text) is not None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, by_pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in by_pattern.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [key for key in instance if key not in declared and not any(_matches(p, key) for p in patterns)]


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    # jsonschema's own, with its patternProperties lookup on RE2.
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            listed = ", ".join(repr(each) for each in sorted(extras, key=str))
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def _valid(errors: Iterator[ValidationError]) -> bool:
    return next(errors, None) is None


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any) -> set[str]:
    """The keys ``schema`` evaluates (jsonschema's ``find_evaluated_property_keys_by_schema``, patterns on RE2)."""
    if not isinstance(schema, Mapping):
        return set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
        reference = schema.get(keyword)
        if isinstance(reference, str):
            resolved = validator._resolver.lookup(reference)
            keys |= _evaluated_keys(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), instance, resolved.contents)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys |= {key for key, value in instance.items() if _valid(validator.descend(value, subschema))}
    for pattern in schema.get("patternProperties", {}):
        keys |= {key for key in instance if _matches(pattern, key)}
    for key, subschema in schema.get("dependentSchemas", {}).items():
        if key in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            keys |= _evaluated_keys(validator, instance, schema.get("then"))
        else:
            keys |= _evaluated_keys(validator, instance, schema.get("else"))
    return keys


def _unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    refused = [key for key in instance if key not in evaluated and not _valid(validator.descend(instance[key], unevaluated, path=key, schema_path=key))]
    if refused:
        if unevaluated is False:
            listed = ", ".join(repr(each) for each in sorted(refused, key=str))
            verb = "was" if len(refused) == 1 else "were"
            yield ValidationError(f"Unevaluated properties are not allowed ({listed} {verb} unexpected)")
        else:
            listed = ", ".join(repr(each) for each in sorted(refused, key=str))
            yield ValidationError(f"Unevaluated properties are not valid under the given schema ({listed} {'was' if len(refused) == 1 else 'were'} unevaluated and invalid)")


def _canonical(value: Any) -> Any:
    """A hashable form of a JSON value, equal exactly when JSON Schema calls two values equal.

    Numbers compare by value (``1 == 1.0``), never with booleans; objects ignore key order.
    """
    if value is True or value is False:
        return ("bool", value)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, (int, float)):
        return ("num", value)
    if isinstance(value, Mapping):
        return ("obj", frozenset((key, _canonical(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return ("arr", tuple(_canonical(item) for item in value))
    if value is None:
        return ("null",)
    raise TypeError(f"{type(value).__name__} is not a JSON value")


_JSONSCHEMA_UNIQUE_ITEMS = Draft202012Validator.VALIDATORS["uniqueItems"]


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    # jsonschema's compares every pair when the elements cannot be sorted (objects): quadratic.
    if not unique or not validator.is_type(instance, "array"):
        return
    try:
        forms = [_canonical(item) for item in instance]
    except TypeError:  # not JSON data (an in-process runtime's odd value): jsonschema's own way
        yield from _JSONSCHEMA_UNIQUE_ITEMS(validator, unique, instance, schema)
        return
    seen: dict[Any, int] = {}
    for index, form in enumerate(forms):
        first = seen.setdefault(form, index)
        if first != index:
            yield ValidationError(f"the array has non-unique elements (items {first} and {index} are equal)")
            return


def _with_clock(check: Any) -> Any:
    """``check`` (a keyword's validator function) that first gives up if the context's instant has passed."""

    def timed(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        give_up, cpu_give_up = _GIVE_UP.get(), _CPU_GIVE_UP.get()
        if (give_up is not None and time.monotonic() > give_up) or (cpu_give_up is not None and time.thread_time() > cpu_give_up):
            raise _OutOfTime
        return check(validator, value, instance, schema)

    return timed


@cache
def bounded_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with every regular expression run on RE2 and bounded keywords.

    ``uniqueItems`` is linear, and every keyword looks at the clock first, so a check run by
    ``check_bounded`` gives up at its instant.
    Raises ``bounded_regex.UnsupportedPattern`` from validation when a pattern cannot run on RE2;
    ``CompiledSchema`` finds such patterns before (``unsupported_patterns``).
    """
    replaced: dict[str, Any] = dict(cls.VALIDATORS)
    if "pattern" in cls.VALIDATORS:
        replaced["pattern"] = _pattern
    if "patternProperties" in cls.VALIDATORS:
        replaced["patternProperties"] = _pattern_properties
    if "additionalProperties" in cls.VALIDATORS:
        replaced["additionalProperties"] = _additional_properties
    if "unevaluatedProperties" in cls.VALIDATORS:
        replaced["unevaluatedProperties"] = _unevaluated_properties
    if "uniqueItems" in cls.VALIDATORS:
        replaced["uniqueItems"] = _unique_items
    timed = {keyword: _with_clock(check) for keyword, check in replaced.items()}
    return validators.extend(cls, timed)  # type: ignore[no-untyped-call]  # jsonschema ships extend without annotations


#: The weight (``json_weight``) up to which an instance is checked on the event loop: about 1 ms of
#: checking against an ordinary schema with patterns (3 µs a unit, bench/bench_after_action.py).
SMALL_WEIGHT = 256
#: How long (CPU time of the loop's thread: a busy process stretches the wall time) a small instance's
#: check may hold the event loop before it goes on in the pool (a schema whose ``$ref``s branch makes
#: even a small instance costly).
INLINE_BUDGET_S = 0.005
#: Worker threads checking large instances: few, so that checks of large answers wait for each other
#: (each bounded by its own instant) rather than take the interpreter from everything else.
CHECK_WORKERS = 2

_pool: ThreadPoolExecutor | None = None


def json_weight(value: Any, limit: int) -> int:
    """What checking ``value`` costs, in units of one value, counted no further than past ``limit``.

    One unit per value and per object key, and one per 64 characters of a string (a pattern runs on
    RE2, linear in the text). Stops as soon as the count passes ``limit``, so weighing a 1 MiB answer
    costs no more than weighing a small one.
    """
    weight, stack = 0, [value]
    while stack:
        item = stack.pop()
        weight += 1
        if isinstance(item, dict):
            weight += len(item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, str):
            weight += len(item) >> 6
        if weight > limit:
            break
    return weight


def out_of_time(error: ActionError) -> bool:
    """True when ``error`` is a check that gave up at its instant (not a failure of the instance or the schema)."""
    return error.code == ErrorCode.HANDLER_TIMEOUT and error.evidence.get("phase") == "schema_check"


def _run_until(check: Callable[[Any], None], value: Any, give_up_at: float | None, cpu_budget: float | None = None) -> None:
    token = _GIVE_UP.set(give_up_at)
    cpu_token = _CPU_GIVE_UP.set(None if cpu_budget is None else time.thread_time() + cpu_budget)
    try:
        check(value)
    finally:
        _CPU_GIVE_UP.reset(cpu_token)
        _GIVE_UP.reset(token)


def _checks_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=CHECK_WORKERS, thread_name_prefix="mcp-actions-check")
    return _pool


async def check_bounded(check: Callable[[Any], None], value: Any, *, give_up_at: float | None) -> None:
    """Run ``check(value)`` (a schema check that raises), where its size says, giving up at ``give_up_at``.

    A small ``value`` is checked at once on the event loop (bounded by ``INLINE_BUDGET_S`` of CPU); a large one
    (or a small one the budget did not cover) in a worker thread of the checks' own pool, so that the
    event loop keeps answering other calls, ``tools/list`` and ``/healthz`` meanwhile. At ``give_up_at``
    (on ``time.monotonic()``) the check raises ``handler_timeout`` (``out_of_time``) instead of running on;
    a check that waited in the pool past it gives up at its first keyword.
    """
    if json_weight(value, SMALL_WEIGHT) <= SMALL_WEIGHT:
        try:
            _run_until(check, value, give_up_at, INLINE_BUDGET_S)
            return
        except ActionError as exc:
            if not out_of_time(exc) or (give_up_at is not None and time.monotonic() >= give_up_at):
                raise
    # A fresh context per check: a worker thread's own would carry one check's instant to the next.
    await asyncio.get_running_loop().run_in_executor(_checks_pool(), contextvars.Context().run, _run_until, check, value, give_up_at)
