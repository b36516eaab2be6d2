"""Workflows (``tool.workflow``, or ``tool.x_actions.workflow``), strictly.

The workflow object and each step have closed key sets (``x_*`` extensions
aside; ``shape.py`` declares them for this module and the workflow compiler
alike): a typo must fail at validation time rather than silently change what
runs. Every expression compiles, step ids work as ``steps.<id>`` in JSONata
and are unique, loops and retries are bounded, ``after_each`` runs one known
primitive, ``settle_after`` waits for exactly one thing, and the figures a
step declares stay within ``Limits``.

Step arguments are also checked against the primitive's ``input_schema`` from
the dictionary, as far as they are literal: any error that concerns a
``{% … %}`` slot (whose value is only known at run time) is ignored, errors
about the literal rest (a missing required argument, an unknown argument, a
literal of the wrong type) are ``primitive_args_invalid`` *errors*, because
the runtime would refuse that call on every run.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Generator
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, exceptions

from ...errors import ErrorCode
from ...jsonutil import json_pointer, pointer_tokens
from ..dictionary import host_argument_capabilities, host_primitives
from ..expressions import has_partial_slot
from ..problems import Problem, child_pointer
from ..shape import (
    AFTER_EACH_FIELDS,
    EXPRESSION_LANGUAGE,
    ON_ERROR_VALUES,
    SETTLE_AFTER_FIELDS,
    SETTLE_AFTER_SYNONYMS,
    STEP_FIELDS,
    STEP_SYNONYMS,
    VERSION,
    WORKFLOW_FIELDS,
    settle_after_states,
)
from ..verdict_cache import DiskMemo, digest
from .base import (
    STEP_ID_RE,
    Checks,
    Rules,
    check_keys,
    check_non_negative_integer,
    check_required_identifier,
    error,
    expect_type,
    json_type,
    meant_keys,
    missing_member,
    warning,
)
from .expressions import check_expression_field, check_templated, is_slot
from .hints import accepted_arguments, did_you_mean, spell
from .refs import check_reference
from .targets import check_target

__all__ = ["check_workflow"]

logger = logging.getLogger(__name__)

# Arguments that hold a locator (a target descriptor) for the primitives that take one.
_LOCATOR_ARGS = ("locator", "target")
_MAX_MESSAGE = 200
_MAX_CACHE = 50_000
_SLOT_PLACEHOLDER = "{% slot %}"
# (primitive, canonical args with slots normalised) -> ((relative pointer, message), ...)
_args_verdicts: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
# The same verdicts on disk, for the next process.
_disk = DiskMemo(
    "step-args",
    valid=lambda value: isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and all(isinstance(t, str) for t in p) for p in value),
    decode=lambda value: tuple(tuple(pair) for pair in value),
)


@lru_cache(maxsize=256)
def _args_validator(primitive: str) -> Any:
    schema = host_primitives().get(primitive)
    if not isinstance(schema, dict):
        return None
    try:
        Draft202012Validator.check_schema(schema)
    except exceptions.SchemaError:
        logger.warning("dictionary input_schema of %s is not a valid schema; its arguments are not checked", primitive)
        return None
    return Draft202012Validator(schema)


def _normalise_slots(value: Any, depth: int = 0) -> Any:
    """``value`` with every slot replaced by one placeholder: the verdict does not depend on slot text."""
    if depth > 64:
        raise RecursionError("arguments nest too deeply")
    if isinstance(value, str):
        # A partial slot is reported as such; checking it again as a literal would only add noise.
        return _SLOT_PLACEHOLDER if is_slot(value) or has_partial_slot(value) else value
    if isinstance(value, dict):
        return {key: _normalise_slots(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalise_slots(item, depth + 1) for item in value]
    return value


def _contains_slot(value: Any) -> bool:
    if isinstance(value, str):
        return value == _SLOT_PLACEHOLDER
    if isinstance(value, dict):
        return any(_contains_slot(item) for item in value.values())
    if isinstance(value, list):
        return any(_contains_slot(item) for item in value)
    return False


# Validators whose verdict is about keys or counts, which slots cannot change.
_SLOT_INDEPENDENT = frozenset(
    {"required", "additionalProperties", "minItems", "maxItems", "minProperties", "maxProperties", "dependentRequired"}
)


def _short(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"


def _matches(pattern: Any, key: Any) -> bool:
    try:
        return bool(re.search(pattern, key))
    except (re.error, TypeError):
        return False


def _pinpoint(problem: Any, relative: str) -> list[tuple[str, str]]:
    """Point at the offending member where jsonschema points at its object (missing and unexpected keys)."""
    instance, schema = problem.instance, problem.schema
    if problem.validator == "required" and isinstance(instance, dict) and isinstance(problem.validator_value, list):
        missing = [name for name in problem.validator_value if isinstance(name, str) and name not in instance]
        if missing:
            return [(child_pointer(relative, name), f"required argument '{name}' is missing") for name in missing]
    if problem.validator == "dependentRequired" and isinstance(instance, dict) and isinstance(problem.validator_value, dict):
        # pointer.click's x needs y (and y x): point at the missing partner, as for "required".
        missing = sorted({name for key, needs in problem.validator_value.items() if key in instance for name in needs if name not in instance})
        if missing:
            return [(child_pointer(relative, name), f"required argument '{name}' is missing") for name in missing]
    if problem.validator == "additionalProperties" and isinstance(instance, dict) and isinstance(schema, dict):
        declared = schema.get("properties") or {}
        patterns = schema.get("patternProperties") or {}
        extra = [key for key in instance if key not in declared and not any(_matches(pattern, key) for pattern in patterns)]
        if extra and problem.validator_value is False:
            accepted = accepted_arguments(schema)
            return [(child_pointer(relative, key), f"unknown argument '{key}'; {accepted}{did_you_mean(key, declared)}") for key in extra]
    return [(relative, _short(problem.message))]


def _args_problems(primitive: str, args: Any) -> tuple[tuple[str, str], ...]:
    validator = _args_validator(primitive)
    if validator is None:
        return ()
    try:
        normalised = _normalise_slots(args)
        key = (primitive, json.dumps(normalised, sort_keys=True, separators=(",", ":"), allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return ()  # not plain JSON: the templated-value checks report what is wrong with it
    known = _args_verdicts.get(key)
    if known is not None:
        return known
    disk_key = digest(*key)
    stored, verdict_from_disk = _disk.get(disk_key)
    if stored:
        remembered: tuple[tuple[str, str], ...] = verdict_from_disk
        _args_verdicts[key] = remembered
        return remembered
    found = []
    for problem in validator.iter_errors(normalised):
        # A slot may evaluate to anything: skip what depends on one (its type, enum, combinators over it).
        if _contains_slot(problem.instance) and problem.validator not in _SLOT_INDEPENDENT:
            continue
        found.extend(_pinpoint(problem, json_pointer(problem.absolute_path)))
    verdict = tuple(sorted(set(found)))
    if len(_args_verdicts) > _MAX_CACHE:
        _args_verdicts.clear()
    _args_verdicts[key] = verdict
    _disk.put(disk_key, [list(pair) for pair in verdict])
    return verdict


def _meant_arguments(args: dict[str, Any], args_path: str, primitive: str, what: str, rules: Rules) -> Generator[Problem, None, dict[str, Any]]:
    """An argument misspelt for a missing one (``locatr`` for ``locator``) is one error, not also "'locator' is missing".

    Returns the arguments to judge, the misspelt one under the name it stands for; what is wrong
    inside its value points at the name as written (``rules.renamed``).
    """
    schema = rules.primitive_schemas.get(primitive)
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return args
    declared = schema["properties"]
    meant = meant_keys(args, [name for name in declared if isinstance(name, str)], {})
    for written, name in meant.items():
        rules.renamed[child_pointer(args_path, name)] = child_pointer(args_path, written)
        yield error(child_pointer(args_path, written), ErrorCode.PRIMITIVE_ARGS_INVALID, f"{what}: {primitive} args: unknown argument {written!r}; {accepted_arguments(schema)}; did you mean {name!r}?")
    return {meant.get(key, key): value for key, value in args.items()} if meant else args


def _check_primitive(owner: dict[str, Any], path: str, what: str, rules: Rules) -> Checks:
    """``owner.primitive`` names a known primitive and ``owner.args`` fits it (shared by steps and after_each)."""
    primitive_path = child_pointer(path, "primitive")
    known_primitive = None
    if "primitive" not in owner:
        yield error(primitive_path, ErrorCode.MISSING_FIELD, f"{what}: 'primitive' is required")
    elif not isinstance(owner["primitive"], str):
        yield error(primitive_path, ErrorCode.INVALID_TYPE, f"{what}: 'primitive' must be a string, got {json_type(owner['primitive'])}")
    elif owner["primitive"] not in rules.primitives:
        hint = did_you_mean(owner["primitive"], rules.primitives)
        yield error(primitive_path, ErrorCode.UNKNOWN_PRIMITIVE, f"{what}: primitive {owner['primitive']!r} is not in the dictionary{hint}")
    else:
        known_primitive = owner["primitive"]
    args_path = child_pointer(path, "args")
    args = owner.get("args")
    if "args" in owner:
        if not isinstance(args, dict):
            yield error(args_path, ErrorCode.INVALID_TYPE, f"{what}: 'args' must be an object, got {json_type(args)}")
            return
        if known_primitive is not None:
            args = yield from _meant_arguments(args, args_path, known_primitive, what, rules)
        yield from check_templated(args, args_path, f"{what} args", rules, len(pointer_tokens(args_path)))
        for key in _LOCATOR_ARGS:
            if isinstance(args.get(key), dict):
                yield from check_target(args[key], child_pointer(args_path, key), rules, templated=True, what=f"{what} args.{key}")
        if rules.reference_only and known_primitive is not None and known_primitive not in rules.map_primitives:
            # Our runtimes take these arguments: only a check for runtimes written from the reference dictionary
            # alone (validate --reference-only) reports them. A map's own primitive_dictionary describes its runtime.
            for key, needed in host_argument_capabilities(known_primitive).items():
                if key in args:
                    yield warning(
                        child_pointer(args_path, key),
                        ErrorCode.NON_REFERENCE_ARGUMENT,
                        f"{what}: {known_primitive}'s {key!r} is an addition to the reference dictionary; runtimes that do not announce "
                        f"{', '.join(needed)} refuse this step (mcp-actions' own runtimes announce it)",
                    )
    if known_primitive is not None and known_primitive in rules.primitive_schemas:
        for relative, message in _args_problems(known_primitive, args if "args" in owner else {}):
            where = args_path + relative if "args" in owner else args_path
            yield error(where, ErrorCode.PRIMITIVE_ARGS_INVALID, f"{what}: {known_primitive} args: {message}")


def _check_bounded(step: dict[str, Any], path: str, label: str, rules: Rules) -> Checks:
    """for_each + max_items, retry_until + max_attempts (+ after_each): bounded, and paired."""
    for expression_field, bound_field in (("for_each", "max_items"), ("retry_until", "max_attempts")):
        if expression_field in step:
            yield from check_expression_field(step[expression_field], child_pointer(path, expression_field), f"{label} {expression_field}", rules)
            if bound_field not in step:
                yield error(child_pointer(path, bound_field), ErrorCode.MISSING_FIELD, f"{label}: {expression_field} needs {bound_field}")
        elif bound_field in step:
            yield error(child_pointer(path, bound_field), ErrorCode.UNPAIRED_FIELD, f"{label}: {bound_field} without {expression_field}")
        if bound_field not in step:
            continue
        where = child_pointer(path, bound_field)
        value = step[bound_field]
        problem = expect_type(value, "integer", where)
        if problem:
            yield problem
        elif value < 1:
            yield error(where, ErrorCode.INVALID_VALUE, f"{label}: {bound_field} must be at least 1")
        elif bound_field == "max_items" and value > rules.limits.max_loop_items:
            yield error(where, ErrorCode.LIMIT_LOOP_ITEMS_EXCEEDED, f"{label}: max_items {int(value)} exceeds the limit of {rules.limits.max_loop_items}")
    if "after_each" in step:
        where = child_pointer(path, "after_each")
        if "retry_until" not in step:
            yield error(where, ErrorCode.UNPAIRED_FIELD, f"{label}: after_each without retry_until")
        after_each = step["after_each"]
        if not isinstance(after_each, dict):
            yield error(where, ErrorCode.INVALID_TYPE, f"{label}: after_each must be an object, got {json_type(after_each)}")
        else:
            after_each = yield from check_keys(after_each, where, AFTER_EACH_FIELDS, rules, subject=f"{label} after_each", closed=True, synonyms=STEP_SYNONYMS)
            yield from _check_primitive(after_each, where, f"{label} after_each", rules)


def _check_settle(settle: Any, path: str, label: str, rules: Rules) -> Checks:
    what = f"{label} settle_after"
    if not isinstance(settle, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{what} must be an object, got {json_type(settle)}")
        return
    settle = yield from check_keys(settle, path, SETTLE_AFTER_FIELDS, rules, subject=what, closed=True, synonyms=SETTLE_AFTER_SYNONYMS)
    has_locator, has_delay = "locator" in settle, "delay_ms" in settle
    if has_locator and has_delay:
        yield error(path, ErrorCode.CONFLICTING_FIELDS, f"{what}: give exactly one of locator and delay_ms, not both")
    elif not has_locator and not has_delay:
        yield error(path, ErrorCode.MISSING_FIELD, f"{what}: needs exactly one of locator and delay_ms")
    if has_locator:
        locator_path = child_pointer(path, "locator")
        yield from check_templated(settle["locator"], locator_path, f"{what} locator", rules, len(pointer_tokens(locator_path)))
        yield from check_target(settle["locator"], locator_path, rules, templated=True, what=f"{what} locator")
    yield from check_non_negative_integer(settle, "delay_ms", path)
    for companion in ("state", "timeout_ms"):
        if companion in settle and not has_locator:
            yield error(child_pointer(path, companion), ErrorCode.UNPAIRED_FIELD, f"{what}: {companion} applies only with locator")
    if "state" in settle:
        where = child_pointer(path, "state")
        state = settle["state"]
        if not isinstance(state, str):
            yield error(where, ErrorCode.INVALID_TYPE, f"expected string, got {json_type(state)}")
        elif state not in settle_after_states():
            yield error(where, ErrorCode.INVALID_VALUE, f"{what}: state must be one of {', '.join(settle_after_states())}")
    yield from check_non_negative_integer(settle, "timeout_ms", path)


def _check_step(step: dict[str, Any], path: str, position: int, rules: Rules) -> Checks:
    step_id = step.get("id")
    label = f"step {step_id!r}" if isinstance(step_id, str) else f"step {position}"
    step = yield from check_keys(step, path, STEP_FIELDS, rules, subject=label, closed=True, synonyms=STEP_SYNONYMS)
    yield from check_required_identifier(step, "id", path, missing=f"{label}: 'id' is required", what="step id", pattern=STEP_ID_RE)
    yield from _check_primitive(step, path, label, rules)
    if "when" in step:
        yield from check_expression_field(step["when"], child_pointer(path, "when"), f"{label} when", rules)
    yield from _check_bounded(step, path, label, rules)
    if "settle_after" in step:
        yield from _check_settle(step["settle_after"], child_pointer(path, "settle_after"), label, rules)
    if "on_error" in step:
        where = child_pointer(path, "on_error")
        value = step["on_error"]
        if not isinstance(value, str):
            yield error(where, ErrorCode.INVALID_TYPE, f"expected string, got {json_type(value)}")
        elif value not in ON_ERROR_VALUES:
            yield error(where, ErrorCode.INVALID_VALUE, f"{label}: on_error must be {spell(ON_ERROR_VALUES)}")
    yield from check_non_negative_integer(step, "timeout_ms", path)
    if "description" in step:
        problem = expect_type(step["description"], "string", child_pointer(path, "description"))
        if problem:
            yield problem


def _check_postcondition(value: Any, path: str, rules: Rules) -> Checks:
    # The spec names the feature, not its shape: a projection name, or an object naming one.
    if isinstance(value, str):
        yield from check_reference(value, path, "projection", rules.index)
    elif isinstance(value, dict):
        if "projection" not in value:
            yield error(child_pointer(path, "projection"), ErrorCode.MISSING_FIELD, "postcondition: 'projection' is required")
        else:
            yield from check_reference(value["projection"], child_pointer(path, "projection"), "projection", rules.index)
    else:
        yield error(path, ErrorCode.INVALID_TYPE, f"postcondition must be a projection name or an object, got {json_type(value)}")


def check_workflow(workflow: Any, path: str, rules: Rules) -> Checks:
    """One workflow object, every step, every expression."""
    if not isinstance(workflow, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"workflow must be an object, got {json_type(workflow)}")
        return
    workflow = yield from check_keys(workflow, path, WORKFLOW_FIELDS, rules, subject="workflow", closed=True)
    version_path = child_pointer(path, "version")
    if "version" not in workflow:
        yield missing_member(path, "version", VERSION, subject="workflow")
    else:
        version = workflow["version"]
        problem = expect_type(version, "integer", version_path)
        if problem:
            yield problem
        elif version != VERSION:
            yield error(version_path, ErrorCode.UNSUPPORTED_VERSION, f"workflow version must be {spell(VERSION)}")
    language_path = child_pointer(path, "expression_language")
    if "expression_language" not in workflow:
        yield missing_member(path, "expression_language", EXPRESSION_LANGUAGE, subject="workflow")
    else:
        language = workflow["expression_language"]
        problem = expect_type(language, "string", language_path)
        if problem:
            yield problem
        elif language != EXPRESSION_LANGUAGE:
            yield error(language_path, ErrorCode.UNSUPPORTED_EXPRESSION_LANGUAGE, f"workflow expression_language must be {spell(EXPRESSION_LANGUAGE)}")
    steps_path = child_pointer(path, "steps")
    steps = workflow.get("steps")
    if "steps" not in workflow:
        yield error(steps_path, ErrorCode.MISSING_FIELD, "workflow: 'steps' is required")
    elif not isinstance(steps, list):
        yield error(steps_path, ErrorCode.INVALID_TYPE, f"workflow steps must be an array, got {json_type(steps)}")
    elif not steps:
        yield error(steps_path, ErrorCode.EMPTY_STEPS, "workflow steps must not be empty")
    else:
        if len(steps) > rules.limits.max_steps:
            yield error(steps_path, ErrorCode.LIMIT_STEPS_EXCEEDED, f"workflow has {len(steps)} steps; the limit is {rules.limits.max_steps}")
        seen_ids: set[str] = set()
        for position, step in enumerate(steps):
            where = child_pointer(steps_path, position)
            if not isinstance(step, dict):
                yield error(where, ErrorCode.INVALID_TYPE, f"step {position} must be an object, got {json_type(step)}")
                continue
            yield from _check_step(step, where, position, rules)
            step_id = step.get("id")
            if isinstance(step_id, str):
                if step_id in seen_ids:
                    yield error(child_pointer(where, "id"), ErrorCode.DUPLICATE_NAME, f"step id {step_id!r} is used more than once")
                seen_ids.add(step_id)
    if "output" in workflow:
        output_path = child_pointer(path, "output")
        yield from check_templated(workflow["output"], output_path, "workflow output", rules, len(pointer_tokens(output_path)))
    if "postcondition" in workflow:
        yield from _check_postcondition(workflow["postcondition"], child_pointer(path, "postcondition"), rules)

