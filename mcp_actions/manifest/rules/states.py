"""States and the transitions between them.

A state has a safe, unique ``name``, optional diagnostics (probes, each with a
safe name and a target descriptor) and observables. A transition has a safe,
unique ``name`` and may only reference declared states (``from``, ``to``), a
declared tool and a declared signal (its checked references in ``shape.REFERENCES``).
"""

from __future__ import annotations

from typing import Any

from ...errors import ErrorCode
from ..problems import child_pointer
from ..shape import STATE_FIELDS, TRANSITION_FIELDS, references
from .base import (
    Checks,
    Rules,
    check_keys,
    check_non_negative_integer,
    check_required_identifier,
    check_string,
    check_string_list,
    check_unique_names,
    error,
    json_type,
    object_entries,
)
from .refs import check_references
from .targets import check_target

__all__ = ["check_states", "check_transitions"]


def _check_named(entry: dict[str, Any], where: str, what: str) -> Checks:
    yield from check_required_identifier(entry, "name", where, missing=f"{what}: 'name' is required", what=f"{what} name")


def check_states(document: dict[str, Any], rules: Rules) -> Checks:
    """states: names, diagnostics, observables."""
    states = yield from object_entries(document, "states", "", what="a state")
    for where, state in states:
        state = yield from check_keys(state, where, STATE_FIELDS, rules, subject="state")
        yield from _check_named(state, where, "state")
        yield from check_string(state, "description", where)
        diagnostics = yield from object_entries(state, "diagnostics", where, what="a diagnostic")
        for probe_path, probe in diagnostics:
            # Probe shapes are not specified beyond name and target: their other keys stay open.
            yield from _check_named(probe, probe_path, "diagnostic")
            if "target" in probe:
                yield from check_target(probe["target"], child_pointer(probe_path, "target"), rules)
        yield from check_unique_names(diagnostics, "name", "diagnostic name")
        yield from check_string_list(state, "observables", where)
    yield from check_unique_names(states, "name", "state name")


def _check_text_or_list(entry: dict[str, Any], key: str, where: str) -> Checks:
    # preconditions, reveals, do_not_use: prose, or a list of prose/condition names.
    if key not in entry:
        return
    value = entry[key]
    if isinstance(value, str):
        return
    if not isinstance(value, list):
        yield error(child_pointer(where, key), ErrorCode.INVALID_TYPE, f"'{key}' must be a string or an array, got {json_type(value)}")


def check_transitions(document: dict[str, Any], rules: Rules) -> Checks:
    """transitions: names, and references to declared states, tools and signals."""
    transitions = yield from object_entries(document, "transitions", "", what="a transition")
    for where, transition in transitions:
        transition = yield from check_keys(transition, where, TRANSITION_FIELDS, rules, subject="transition")
        yield from _check_named(transition, where, "transition")
        yield from check_references(transition, where, references("transitions", checked=True), rules)
        yield from check_string(transition, "description", where)
        yield from check_string(transition, "method", where, non_empty=True)
        yield from check_non_negative_integer(transition, "rate_limit_ms", where)
        for key in ("preconditions", "reveals", "do_not_use"):
            yield from _check_text_or_list(transition, key, where)
        if "convergence" in transition:
            convergence = transition["convergence"]
            convergence_path = child_pointer(where, "convergence")
            if not isinstance(convergence, dict):
                yield error(convergence_path, ErrorCode.INVALID_TYPE, f"convergence must be an object, got {json_type(convergence)}")
            else:
                yield from check_non_negative_integer(convergence, "max_attempts", convergence_path, minimum=1)
    yield from check_unique_names(transitions, "name", "transition name")
