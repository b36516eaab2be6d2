"""The shape of an actions.json manifest, declared once: key sets, value sets, names and references.

Everything that knows what a manifest looks like reads it from here:

* the validator's rules (``rules/*.py``): which keys each object knows
  (open objects warn ``unknown_field`` about others, closed ones refuse them
  with ``field_not_allowed``), which values an enumerated member takes, which
  kinds of names references are checked against, and which members of
  transitions, context blocks and check entries are references;
* composition (``compose.py``): which names an import declares (they get its
  namespace prefix), which members reference one of them (renamed with it),
  and the conflict policies;
* the workflow compiler (``workflow/compiled.py``): the closed key sets of a
  workflow, its steps, ``after_each`` and ``settle_after``, and their values;
* the pydantic models (``model.py``) give typed access to a valid manifest;
  a test holds their fields to these key sets (a model may leave a key
  untyped, in ``model_extra``, but never declare one the shape does not have).

Key sets are tuples in the order messages list them. ``x_*`` keys are
extensions everywhere and are not listed.

References: ``DECLARED_KINDS`` says where each kind of name is declared
(root list and the entry's name key); ``REFERENCES`` lists every member of a
declared entry that names one, with a path from the entry (``ANY_DEPTH``
stands for the entry's value there and every object below it, through arrays
and objects), the kind it names, its form (one name, an array of names, or an
object whose values are names) and whether the validator checks that it
resolves.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from ..primitive_dictionary import host_primitives

__all__ = [
    "AFTER_EACH_FIELDS",
    "ANNOTATION_FIELDS",
    "ANNOTATION_HINTS",
    "ANY_DEPTH",
    "ATTACHMENT_FIELDS",
    "BINDING_FIELDS",
    "CHECK_ENTRY_LISTS",
    "CHECK_FIELDS",
    "COMPOSITION_FIELDS",
    "CONFIDENCE_VALUES",
    "CONFLICT_POLICIES",
    "CONTEXT_FIELDS",
    "DECLARED_KINDS",
    "DESCRIPTOR_FILTERS",
    "DIRECTIONS",
    "EXECUTION_FIELDS",
    "EXECUTION_MODES",
    "EXPRESSION_FIELDS",
    "EXPRESSION_LANGUAGE",
    "EXTRACT_FIELDS",
    "FIELD_FIELDS",
    "FIELD_PROPERTIES",
    "IMPORT_FIELDS",
    "IMPORT_KINDS",
    "INGESTION_VALUES",
    "LIST_SELECTOR_FIELDS",
    "LOCATING_FIELDS",
    "NESTED_TARGET_FIELDS",
    "ON_ERROR_VALUES",
    "PROJECTION_FIELDS",
    "PROTOCOL",
    "REFERABLE_KINDS",
    "REFERENCES",
    "RESULT_SUMMARY_FIELDS",
    "ROOT_FIELDS",
    "SCOPES",
    "SETTLE_AFTER_FIELDS",
    "SETTLE_AFTER_SYNONYMS",
    "SETTLE_STATES_FALLBACK",
    "SEVERITIES",
    "SIGNAL_FIELDS",
    "SINGLE_SELECTOR_FIELDS",
    "SNAPSHOT_FIELDS",
    "SNAPSHOT_SOURCE",
    "STATE_FIELDS",
    "STEP_FIELDS",
    "STEP_SYNONYMS",
    "SUMMARY_FIELDS",
    "SURFACE_TEXT_FIELDS",
    "TARGET_FIELDS",
    "TARGET_FILTERS",
    "TARGET_HOLDERS",
    "TEXT_FIELDS",
    "TOOL_FIELDS",
    "TRANSITION_FIELDS",
    "TRUST_LEVELS",
    "VERSION",
    "WORKFLOW_FIELDS",
    "X_ACTIONS_FIELDS",
    "Declaration",
    "Reference",
    "ReferenceForm",
    "locate",
    "references",
    "settle_after_states",
]

# ---------------------------------------------------------------- the root

PROTOCOL = "actions.json"
#: The manifest version, and the version of a workflow and of a projection snapshot.
VERSION = 1
ROOT_FIELDS = (
    "$schema", "protocol", "version", "surface", "imports", "composition", "context", "states", "transitions",
    "tools", "signals", "attachments", "checks", "provenance", "state_projections", "primitive_dictionary",
)  # fmt: skip
#: The spec lists surface's "common fields" only: other keys are fine there.
SURFACE_TEXT_FIELDS = ("origin", "name", "kind", "description", "surface_id")
IMPORT_FIELDS = ("id", "kind", "uri", "namespace", "trust", "enabled", "provenance")
IMPORT_KINDS = ("website", "local", "storage", "shared", "public", "package")
TRUST_LEVELS = ("website", "private", "shared", "public", "local", "unknown")
COMPOSITION_FIELDS = ("default_conflict_policy", "namespace_required")
#: ``composition.default_conflict_policy``: judged by the composer (the validator checks only that it is a string).
CONFLICT_POLICIES = ("prefer_local", "prefer_import", "error")

# ---------------------------------------------------------------- context, states, transitions

CONTEXT_FIELDS = ("id", "title", "body", "load_when", "available_tools", "next_states", "source")
STATE_FIELDS = ("name", "description", "diagnostics", "observables")
TRANSITION_FIELDS = (
    "name", "description", "from", "to", "tool", "signal", "method", "rate_limit_ms",
    "preconditions", "reveals", "convergence", "do_not_use",
)  # fmt: skip

# ---------------------------------------------------------------- tools

TOOL_FIELDS = (
    "name", "description", "input_schema", "target", "requires", "x_actions", "workflow", "result_schema", "annotations",
)  # fmt: skip
# state_machine and execution.fallback are used by the published simple-form map.
# binding.arguments: the bound arguments of a handler that names a primitive (published reference maps).
X_ACTIONS_FIELDS = (
    "direction", "handler", "scope", "source", "execution", "result_schema", "workflow", "state_machine", "annotations", "confirm", "binding",
    "result_summary",
)  # fmt: skip
BINDING_FIELDS = ("arguments",)
#: ``x_actions.result_summary``: the projection summary a successful call's result carries (closed).
RESULT_SUMMARY_FIELDS = ("projection", "summary")
#: MCP tool hints a map may set explicitly under x_actions.annotations (booleans, and a title string).
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
ANNOTATION_FIELDS = ("title", *ANNOTATION_HINTS)
EXECUTION_FIELDS = ("mode", "steps", "fallback")
DIRECTIONS = ("agent_to_html", "html_to_agent", "bidirectional")
SCOPES = ("active_surface", "persistent")
EXECUTION_MODES = ("handler_first", "steps_first")

# ---------------------------------------------------------------- workflows (closed key sets)

EXPRESSION_LANGUAGE = "jsonata"
# 'postcondition' names a state projection to re-check after a mutating action (spec, state_projections).
WORKFLOW_FIELDS = ("version", "expression_language", "steps", "output", "postcondition")
STEP_FIELDS = (
    "id", "primitive", "args", "when", "for_each", "max_items", "retry_until", "max_attempts",
    "after_each", "settle_after", "on_error", "timeout_ms", "description",
)  # fmt: skip
AFTER_EACH_FIELDS = ("primitive", "args")
SETTLE_AFTER_FIELDS = ("locator", "delay_ms", "state", "timeout_ms")
#: Words of neighbouring formats (MCP's tools/call ``arguments``, a primitive's ``target``) that a map writes
#: where these keys belong: the validator says "did you mean" and judges the value as the key meant.
STEP_SYNONYMS = {"arguments": "args", "params": "args", "parameters": "args"}
SETTLE_AFTER_SYNONYMS = {"target": "locator"}
ON_ERROR_VALUES = ("stop", "continue")
#: settle_after's states when the dictionary's ``locator.wait_for`` does not say (see ``settle_after_states``).
SETTLE_STATES_FALLBACK = ("attached", "visible")

# ---------------------------------------------------------------- target descriptors

SINGLE_SELECTOR_FIELDS = ("selector", "xpath", "closest")
LIST_SELECTOR_FIELDS = ("selectors", "fallback_selectors")
TEXT_FIELDS = ("role", "name", "text_equals", "text_contains", "url_contains", "url_matches", "notes")
#: Extension filters (docs/manifest-language.md, "Extensions"): ``within`` and ``has`` hold a nested
#: descriptor, ``has_text`` a non-empty string; they narrow what the other fields find.
DESCRIPTOR_FILTERS = ("within", "has")
TARGET_FILTERS = (*DESCRIPTOR_FILTERS, "has_text")
TARGET_FIELDS = (*SINGLE_SELECTOR_FIELDS, *LIST_SELECTOR_FIELDS, *TEXT_FIELDS, "state", "confidence", *TARGET_FILTERS)
#: A nested descriptor (the value of ``within`` or ``has``) locates only: no URL, state or confidence (closed).
NESTED_TARGET_FIELDS = (*SINGLE_SELECTOR_FIELDS, *LIST_SELECTOR_FIELDS, "role", "name", "text_equals", "text_contains", "notes", *TARGET_FILTERS)
# Fields that find an element (a locator, docs/primitives.md); url/state predicates alone find nothing.
LOCATING_FIELDS = ("selector", "selectors", "fallback_selectors", "xpath", "role", "text_equals", "text_contains")
CONFIDENCE_VALUES = ("observed", "inferred", "generated", "unknown")
#: Keys whose object value is a target descriptor, wherever they appear (a workflow argument's locator too).
TARGET_HOLDERS = ("target", "locator")

# ---------------------------------------------------------------- signals, attachments, checks

SIGNAL_FIELDS = ("name", "description", "direction", "event", "ingestion", "target", "payload", "protocol", "source")
INGESTION_VALUES = ("enabled", "disabled_by_default")
ATTACHMENT_FIELDS = ("id", "kind", "description", "target", "affordance", "lifecycle", "signals")
CHECK_FIELDS = ("id", "description", "severity", "assertions", "on_fail", "setup", "steps", "expected_result")
SEVERITIES = ("info", "minor", "major", "critical")
#: A check's lists of entries (each an object whose references are checked, and renamed at any depth).
CHECK_ENTRY_LISTS = ("setup", "assertions", "steps")

# ---------------------------------------------------------------- state projections

PROJECTION_FIELDS = ("name", "description", "snapshot", "summaries")
SNAPSHOT_FIELDS = ("version", "source", "extract", "projection", "output_schema")
#: ``snapshot.source``: where a projection's records come from (the only source there is).
SNAPSHOT_SOURCE = "dom"
EXTRACT_FIELDS = ("id", "selector", "xpath", "many", "fields")
FIELD_FIELDS = ("selector", "xpath", "many", "fields", "closest", "attribute", "property", "trim", "required", "default")
FIELD_PROPERTIES = ("innerText", "textContent", "value", "checked", "ariaLabel", "boundingClientRect")
EXPRESSION_FIELDS = ("language", "expression")
SUMMARY_FIELDS = ("name", "description", "max_bytes", "expression")


@functools.cache
def settle_after_states() -> tuple[str, ...]:
    """The states ``settle_after.state`` may name: ``locator.wait_for``'s, as the bundled dictionary declares them."""
    schema = host_primitives().get("locator.wait_for") or {}
    try:
        states = schema["properties"]["state"]["enum"]
        return tuple(state for state in states if isinstance(state, str))
    except (KeyError, TypeError):
        return SETTLE_STATES_FALLBACK


# ---------------------------------------------------------------- names and references


class Declaration(NamedTuple):
    """Where one kind of name is declared: the root list and the key of each entry's name."""

    list_key: str
    name_key: str


#: Every kind of name a manifest declares. An import's namespace prefixes all of them.
DECLARED_KINDS: dict[str, Declaration] = {
    "tool": Declaration("tools", "name"),
    "state": Declaration("states", "name"),
    "signal": Declaration("signals", "name"),
    "transition": Declaration("transitions", "name"),
    "context": Declaration("context", "id"),
    "attachment": Declaration("attachments", "id"),
    "check": Declaration("checks", "id"),
    "projection": Declaration("state_projections", "name"),
}

#: A path token: the value reached so far and every object below it, at any depth (through arrays and objects).
ANY_DEPTH = "**"

ReferenceForm = Literal["name", "names", "values"]
"""How a member names: ``name`` (a string), ``names`` (an array of strings), ``values`` (an object whose values are names)."""


@dataclass(frozen=True)
class Reference:
    """A member of a declared entry that names something a manifest declares.

    ``within`` is the root list holding the entries, ``path`` the keys from an
    entry down to the member (``ANY_DEPTH`` for any depth), ``kind`` what it
    names. ``checked``: the validator reports ``unknown_<kind>`` when it names
    nothing declared (for a path through ``ANY_DEPTH``: where the validator
    reads that object, e.g. a target descriptor, or a check entry itself);
    ``note`` says why a reference is not checked.
    """

    within: str
    path: tuple[str, ...]
    kind: str
    form: ReferenceForm = "name"
    checked: bool = True
    note: str = ""


_STATE_MACHINE = "the simple-form map's state machine documents the tool; nothing runs or checks it"
_NOT_READ = "the validator reads no locator here; renamed all the same, wherever one appears"


def _target_states(within: str) -> tuple[Reference, ...]:
    # A target descriptor (or a workflow argument's locator) may name the state it applies in. The
    # validator reads targets in every entry kind listed here, locators only in workflows (tools).
    read = {holder: holder == "target" or within == "tools" for holder in TARGET_HOLDERS}
    return tuple(Reference(within, (ANY_DEPTH, holder, "state"), "state", checked=read[holder], note="" if read[holder] else _NOT_READ) for holder in TARGET_HOLDERS)


def _check_entry_references() -> tuple[Reference, ...]:
    # Check entries (calls, assertions, setup steps) name tools, states and attachments by these keys.
    members: tuple[tuple[str, str, ReferenceForm], ...] = (
        ("tool", "tool", "name"),
        ("state", "state", "name"),
        ("attachment", "attachment", "name"),
        ("states", "state", "names"),
        ("attachments", "attachment", "names"),
    )
    return tuple(Reference("checks", (entries, ANY_DEPTH, key), kind, form) for entries in CHECK_ENTRY_LISTS for key, kind, form in members)


#: Every member that references a declared name, grouped by the list whose entries hold it.
REFERENCES: tuple[Reference, ...] = (
    *_target_states("tools"),
    # A workflow's postcondition: a projection name, or an object naming one.
    Reference("tools", ("workflow", "postcondition"), "projection"),
    Reference("tools", ("workflow", "postcondition", "projection"), "projection"),
    Reference("tools", ("x_actions", "workflow", "postcondition"), "projection"),
    Reference("tools", ("x_actions", "workflow", "postcondition", "projection"), "projection"),
    Reference("tools", ("x_actions", "result_summary", "projection"), "projection"),
    Reference("tools", ("x_actions", "state_machine", "initial_state"), "state", checked=False, note=_STATE_MACHINE),
    Reference("tools", ("x_actions", "state_machine", "terminal_state"), "state", checked=False, note=_STATE_MACHINE),
    Reference("tools", ("x_actions", "state_machine", "transitions"), "transition", "names", checked=False, note=_STATE_MACHINE),
    *_target_states("states"),
    Reference("transitions", ("from",), "state"),
    Reference("transitions", ("to",), "state"),
    Reference("transitions", ("tool",), "tool"),
    Reference("transitions", ("signal",), "signal"),
    Reference(
        "transitions", ("preconditions",), "state", "names", checked=False,
        note="preconditions mix free-form conditions with state names: only declared states are renamed",
    ),  # fmt: skip
    Reference("context", ("available_tools",), "tool", "names"),
    Reference("context", ("next_states",), "state", "names"),
    Reference("context", ("load_when", "states"), "state", "names"),
    *_target_states("signals"),
    *_target_states("attachments"),
    # What an affordance opens: a declared tool, or a primitive (the validator accepts both).
    Reference("attachments", ("affordance", "opens", "tool"), "tool"),
    Reference(
        "attachments", ("signals",), "signal", "values", checked=False,
        note="an attachment's signals may be runtime-defined: safe identifiers, not necessarily declared",
    ),  # fmt: skip
    *_target_states("checks"),
    *_check_entry_references(),
)

#: The kinds references are checked against (the validator's name index), in ``DECLARED_KINDS`` order.
REFERABLE_KINDS: tuple[str, ...] = tuple(kind for kind in DECLARED_KINDS if any(r.kind == kind and r.checked for r in REFERENCES))


def references(within: str, *, below: tuple[str, ...] = (), checked: bool | None = None) -> tuple[Reference, ...]:
    """The references of ``within``'s entries whose path starts with ``below`` (``checked``: only those, or only the others)."""
    return tuple(
        r for r in REFERENCES if r.within == within and r.path[: len(below)] == below and (checked is None or r.checked is checked)
    )


def locate(value: Any, path: tuple[str, ...], tokens: tuple[Any, ...] = ()) -> Iterator[tuple[dict[str, Any], str, tuple[Any, ...]]]:
    """Every member ``path`` reaches from ``value``: ``(its object, its key, JSON Pointer tokens to it)``.

    Only objects are descended into (``ANY_DEPTH``, never the last token,
    goes through arrays as well); a member is reported when its key is
    present, whatever its value: the caller judges it. Malformed input simply
    reaches nothing. ``tokens`` are the tokens of ``value`` itself.
    """
    if not path:
        return
    head, rest = path[0], path[1:]
    if head == ANY_DEPTH:
        for node, node_tokens in _with_tokens(value, tokens):
            yield from locate(node, rest, node_tokens)
    elif isinstance(value, dict) and head in value:
        if rest:
            yield from locate(value[head], rest, (*tokens, head))
        else:
            yield value, head, (*tokens, head)


def _with_tokens(value: Any, tokens: tuple[Any, ...]) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
    """``value`` when it is an object and every object below it, in document order, each with its pointer tokens."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, tokens)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            yield node, where
            stack.extend(reversed([(child, (*where, key)) for key, child in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(child, (*where, position)) for position, child in enumerate(node)]))
