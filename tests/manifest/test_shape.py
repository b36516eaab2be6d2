"""The manifest's shape, declared once in ``manifest/shape.py``, is what the validator, composition,
the workflow compiler and the pydantic models all follow.

* every key set: the validator knows each listed key and reports any other
  (``unknown_field`` in an open object, ``field_not_allowed`` in a closed one);
  the compiler refuses the same keys in a workflow, a step, ``after_each`` and
  ``settle_after``; the readers use the shape's own objects, not copies;
* the models type a subset of each key set and never a key the shape lacks;
  what they leave untyped is listed here, so a new key is a decision;
* every reference: composition renames it into the import's namespace, and
  the validator reports ``unknown_<kind>`` where the table says it checks it.
"""

from __future__ import annotations

import copy
import json
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from mcp_actions.errors import ActionError
from mcp_actions.manifest import compose as compose_module
from mcp_actions.manifest import model, shape
from mcp_actions.manifest.compose import compose
from mcp_actions.manifest.rules import checks as checks_rules
from mcp_actions.manifest.rules import context as context_rules
from mcp_actions.manifest.rules import projection as projection_rules
from mcp_actions.manifest.rules import refs as refs_rules
from mcp_actions.manifest.rules import root as root_rules
from mcp_actions.manifest.rules import signals as signals_rules
from mcp_actions.manifest.rules import states as states_rules
from mcp_actions.manifest.rules import targets as targets_rules
from mcp_actions.manifest.rules import tools as tools_rules
from mcp_actions.manifest.rules import workflow as workflow_rules
from mcp_actions.manifest.shape import ANY_DEPTH, REFERENCES, Reference
from mcp_actions.manifest.validate import check_manifest
from mcp_actions.workflow import compiled

from .builders import WORKFLOW, base, edit

# ------------------------------------------------------------------ one object, many readers

READERS = [
    (root_rules, "ROOT_FIELDS"),  # the validator's root keys
    (root_rules, "IMPORT_FIELDS"),  # ... and an import's
    (context_rules, "CONTEXT_FIELDS"),
    (states_rules, "TRANSITION_FIELDS"),
    (tools_rules, "TOOL_FIELDS"),
    (tools_rules, "X_ACTIONS_FIELDS"),
    (targets_rules, "TARGET_FIELDS"),
    (signals_rules, "DIRECTIONS"),  # a signal's direction takes a tool's directions
    (checks_rules, "CHECK_FIELDS"),
    (projection_rules, "FIELD_FIELDS"),
    (workflow_rules, "WORKFLOW_FIELDS"),  # the validator's closed workflow keys ...
    (compiled, "WORKFLOW_FIELDS"),  # ... are the compiler's
    (workflow_rules, "STEP_FIELDS"),
    (compiled, "STEP_FIELDS"),
    (workflow_rules, "AFTER_EACH_FIELDS"),
    (compiled, "AFTER_EACH_FIELDS"),
    (workflow_rules, "SETTLE_AFTER_FIELDS"),
    (compiled, "SETTLE_AFTER_FIELDS"),
    (workflow_rules, "ON_ERROR_VALUES"),
    (compiled, "ON_ERROR_VALUES"),
    (workflow_rules, "settle_after_states"),  # settle_after's states, from the dictionary, for both
    (compiled, "settle_after_states"),
    (compose_module, "DECLARED_KINDS"),  # composition's names ...
    (refs_rules, "DECLARED_KINDS"),  # ... are where the validator's index looks
    (compose_module, "CONFLICT_POLICIES"),
]


@pytest.mark.parametrize(("module", "name"), READERS, ids=[f"{m.__name__.rsplit('.', 1)[-1]}.{n}" for m, n in READERS])
def test_every_reader_uses_the_shapes_own_object(module: Any, name: str) -> None:
    assert getattr(module, name) is getattr(shape, name)


def test_the_validator_indexes_the_kinds_it_checks_references_to() -> None:
    assert tuple(refs_rules.UNKNOWN_CODES) == shape.REFERABLE_KINDS
    assert all(code == f"unknown_{kind}" for kind, code in refs_rules.UNKNOWN_CODES.items())


# ------------------------------------------------------------------ key sets drive the validator


def _rich() -> dict[str, Any]:
    """``base()`` with one object of every kind a key set describes."""
    document = base()
    document["imports"] = [{"id": "lib", "kind": "local", "uri": "lib.json", "namespace": "lib"}]
    document["composition"] = {"namespace_required": True}
    first = document["tools"][0]
    first["target"] = {"selector": "form", "within": {"selector": "main"}}
    first["x_actions"].update(
        binding={"arguments": {}},
        annotations={"title": "Submit"},
        execution={"mode": "handler_first"},
        result_summary={"projection": "site.board", "summary": "counts"},
    )
    steps = document["tools"][1]["workflow"]["steps"]
    steps[0]["settle_after"] = {"delay_ms": 10}
    steps[1].update(retry_until="{% true %}", max_attempts=2, after_each={"primitive": "viewport.scroll", "args": {}})
    return document


# (key set, pointer of an object it describes in _rich(), closed?)
KEY_SETS = [
    ("ROOT_FIELDS", "", False),  # the root: unknown keys warn (the simple-form map carries a prompt)
    ("IMPORT_FIELDS", "/imports/0", False),
    ("COMPOSITION_FIELDS", "/composition", False),
    ("CONTEXT_FIELDS", "/context/0", False),
    ("STATE_FIELDS", "/states/0", False),
    ("TRANSITION_FIELDS", "/transitions/0", False),
    ("TOOL_FIELDS", "/tools/0", False),
    ("X_ACTIONS_FIELDS", "/tools/0/x_actions", False),
    ("BINDING_FIELDS", "/tools/0/x_actions/binding", False),
    ("ANNOTATION_FIELDS", "/tools/0/x_actions/annotations", False),
    ("EXECUTION_FIELDS", "/tools/0/x_actions/execution", False),
    ("RESULT_SUMMARY_FIELDS", "/tools/0/x_actions/result_summary", True),  # our own key: a typo would drop the summary
    ("WORKFLOW_FIELDS", "/tools/1/workflow", True),  # executed: a typo must not change what runs
    ("STEP_FIELDS", "/tools/1/workflow/steps/0", True),
    ("AFTER_EACH_FIELDS", "/tools/1/workflow/steps/1/after_each", True),
    ("SETTLE_AFTER_FIELDS", "/tools/1/workflow/steps/0/settle_after", True),
    ("TARGET_FIELDS", "/tools/0/target", False),
    ("NESTED_TARGET_FIELDS", "/tools/0/target/within", True),  # within/has: locating only
    ("SIGNAL_FIELDS", "/signals/0", False),
    ("ATTACHMENT_FIELDS", "/attachments/0", False),
    ("CHECK_FIELDS", "/checks/0", False),
    ("PROJECTION_FIELDS", "/state_projections/0", False),
    ("SNAPSHOT_FIELDS", "/state_projections/0/snapshot", False),
    ("EXTRACT_FIELDS", "/state_projections/0/snapshot/extract/0", True),  # executed by the page engine
    ("FIELD_FIELDS", "/state_projections/0/snapshot/extract/0/fields/name", True),
    ("EXPRESSION_FIELDS", "/state_projections/0/snapshot/projection", True),
    ("SUMMARY_FIELDS", "/state_projections/0/summaries/0", True),
]
KEY_PROBLEMS = ("unknown_field", "field_not_allowed")


def _key_problems(document: dict[str, Any], pointer: str) -> list[tuple[str, str]]:
    report = check_manifest(document)
    return [(p.code, p.severity) for p in (*report.errors, *report.warnings) if p.path == pointer and p.code in KEY_PROBLEMS]


def test_the_rich_document_is_valid() -> None:
    report = check_manifest(_rich())
    assert report.errors == ()
    assert [p for p in report.warnings if p.code in KEY_PROBLEMS] == []


@pytest.mark.parametrize(("name", "pointer", "closed"), KEY_SETS, ids=[case[0] for case in KEY_SETS])
def test_a_key_outside_the_set_is_reported_and_an_extension_is_not(name: str, pointer: str, closed: bool) -> None:
    assert "bogus" not in getattr(shape, name)
    document = edit(_rich(), f"{pointer}/bogus", 1)
    assert _key_problems(document, f"{pointer}/bogus") == [("field_not_allowed", "error") if closed else ("unknown_field", "warning")]
    assert _key_problems(edit(_rich(), f"{pointer}/x_note", 1), f"{pointer}/x_note") == []


@pytest.mark.parametrize(("name", "pointer", "closed"), KEY_SETS, ids=[case[0] for case in KEY_SETS])
def test_every_key_of_the_set_is_known(name: str, pointer: str, closed: bool) -> None:
    for key in getattr(shape, name):
        # Any value: a wrong one is some other problem, never an unknown key.
        assert _key_problems(edit(_rich(), f"{pointer}/{key}", None), f"{pointer}/{key}") == [], key


def test_every_key_set_is_tested() -> None:
    declared = {name for name in shape.__all__ if name.endswith("_FIELDS")} - {"SINGLE_SELECTOR_FIELDS", "LIST_SELECTOR_FIELDS", "TEXT_FIELDS", "LOCATING_FIELDS", "SURFACE_TEXT_FIELDS"}
    assert declared == {case[0] for case in KEY_SETS}


# ------------------------------------------------------------------ the compiler's closed key sets


def _compile_refusal(workflow: dict[str, Any]) -> str | None:
    """The compiler's ``unknown field`` refusal of ``workflow``, if any (other refusals do not count)."""
    try:
        compiled.CompiledWorkflow.compile(workflow)
    except ActionError as exc:
        return exc.message if "unknown field" in exc.message else None
    return None


def _workflow() -> dict[str, Any]:
    workflow = copy.deepcopy(WORKFLOW)
    workflow["steps"][0]["settle_after"] = {"locator": {"selector": "#done"}}
    workflow["steps"][1].update(retry_until="{% true %}", max_attempts=2, after_each={"primitive": "viewport.scroll", "args": {}})
    return workflow


# (key set, where in _workflow() its object is: keys from the workflow)
COMPILED_SETS = [
    ("WORKFLOW_FIELDS", ()),  # the workflow object itself
    ("STEP_FIELDS", ("steps", 0)),
    ("AFTER_EACH_FIELDS", ("steps", 1, "after_each")),
    ("SETTLE_AFTER_FIELDS", ("steps", 0, "settle_after")),
]


def _at(workflow: dict[str, Any], tokens: tuple[Any, ...]) -> Any:
    node: Any = workflow
    for token in tokens:
        node = node[token]
    return node


@pytest.mark.parametrize(("name", "tokens"), COMPILED_SETS, ids=[case[0] for case in COMPILED_SETS])
def test_the_compiler_knows_the_same_keys_and_refuses_others(name: str, tokens: tuple[Any, ...]) -> None:
    assert _compile_refusal(_workflow()) is None
    for key in getattr(shape, name):
        workflow = _workflow()
        _at(workflow, tokens)[key] = None
        assert _compile_refusal(workflow) is None, key
    workflow = _workflow()
    _at(workflow, tokens)["bogus"] = 1
    assert "'bogus'" in (_compile_refusal(workflow) or "")
    workflow = _workflow()
    _at(workflow, tokens)["x_note"] = 1  # extensions are ignored, as the validator allows them
    assert _compile_refusal(workflow) is None


# ------------------------------------------------------------------ the models follow the shape


def _aliases(cls: type[BaseModel]) -> set[str]:
    return {info.alias or name for name, info in cls.model_fields.items()}


# (model, its key set, keys it leaves untyped in model_extra: why)
MODELS = [
    (model.Manifest, "ROOT_FIELDS", {"$schema"}),  # a hint for editors, never read
    (model.Surface, "SURFACE_TEXT_FIELDS", set()),
    (model.Import, "IMPORT_FIELDS", set()),
    (model.ContextBlock, "CONTEXT_FIELDS", set()),
    (model.State, "STATE_FIELDS", set()),
    # convergence is read from model_extra by the transition tracker; the others are prose for agents
    (model.Transition, "TRANSITION_FIELDS", {"description", "preconditions", "reveals", "convergence", "do_not_use"}),
    (model.Tool, "TOOL_FIELDS", set()),
    # annotations and confirm are read from model_extra by the catalogue; state_machine is documentation
    (model.XActions, "X_ACTIONS_FIELDS", {"state_machine", "annotations", "confirm"}),
    (model.Workflow, "WORKFLOW_FIELDS", {"postcondition"}),  # the compiler reads it from the raw workflow
    (model.WorkflowStep, "STEP_FIELDS", {"description"}),  # prose, never run
    # the page engine reads these from the raw descriptor
    (model.Target, "TARGET_FIELDS", {"xpath", "within", "has", "has_text"}),
    (model.Signal, "SIGNAL_FIELDS", {"protocol", "source"}),  # provenance metadata
    (model.Attachment, "ATTACHMENT_FIELDS", {"description"}),
    (model.Check, "CHECK_FIELDS", set()),
    (model.Projection, "PROJECTION_FIELDS", set()),
]


@pytest.mark.parametrize(("cls", "name", "untyped"), MODELS, ids=[case[0].__name__ for case in MODELS])
def test_a_model_types_its_key_set_less_what_it_leaves_untyped(cls: type[BaseModel], name: str, untyped: set[str]) -> None:
    keys = set(getattr(shape, name))
    assert _aliases(cls) <= keys, "a model declares a key the shape does not have"
    assert keys - _aliases(cls) == untyped


def _literal(cls: type[BaseModel], field: str) -> tuple[Any, ...]:
    annotation = typing.get_type_hints(cls)[field]
    if typing.get_origin(annotation) is not typing.Literal:  # Optional[Literal[...]]: the Literal beside None
        annotation = next(arg for arg in typing.get_args(annotation) if typing.get_origin(arg) is typing.Literal)
    return typing.get_args(annotation)


# (model, field, the shape's values)
VALUE_SETS = [
    (model.Manifest, "protocol", (shape.PROTOCOL,)),
    (model.Manifest, "version", (shape.VERSION,)),
    (model.Import, "kind", shape.IMPORT_KINDS),
    (model.Import, "trust", shape.TRUST_LEVELS),
    (model.Workflow, "version", (shape.VERSION,)),
    (model.Workflow, "expression_language", (shape.EXPRESSION_LANGUAGE,)),
    (model.WorkflowStep, "on_error", shape.ON_ERROR_VALUES),
    (model.Check, "severity", shape.SEVERITIES),  # optional: None aside
]


@pytest.mark.parametrize(("cls", "field", "values"), VALUE_SETS, ids=[f"{case[0].__name__}.{case[1]}" for case in VALUE_SETS])
def test_a_models_literal_values_are_the_shapes(cls: type[BaseModel], field: str, values: tuple[Any, ...]) -> None:
    assert _literal(cls, field) == values


# ------------------------------------------------------------------ the reference table

ENTRY_KEYS = {
    "tools": shape.TOOL_FIELDS,
    "states": shape.STATE_FIELDS,
    "transitions": shape.TRANSITION_FIELDS,
    "context": shape.CONTEXT_FIELDS,
    "signals": shape.SIGNAL_FIELDS,
    "attachments": shape.ATTACHMENT_FIELDS,
    "checks": shape.CHECK_FIELDS,
    "state_projections": shape.PROJECTION_FIELDS,
}


def test_declared_kinds_are_root_lists_named_by_a_key_of_their_entries() -> None:
    for list_key, name_key in shape.DECLARED_KINDS.values():
        assert list_key in shape.ROOT_FIELDS
        assert name_key in ENTRY_KEYS[list_key]


@pytest.mark.parametrize("reference", REFERENCES, ids=[f"{r.within}:{'/'.join(r.path)}" for r in REFERENCES])
def test_a_reference_starts_at_a_key_of_its_entry_and_names_a_declared_kind(reference: Reference) -> None:
    assert reference.path[0] == ANY_DEPTH or reference.path[0] in ENTRY_KEYS[reference.within]
    assert reference.path[-1] != ANY_DEPTH
    assert reference.kind in shape.DECLARED_KINDS
    assert reference.checked or reference.note, "an unchecked reference says why"


def _reference_rich() -> dict[str, Any]:
    """``base()`` with a third tool that declares its workflow under x_actions, and a check with setup."""
    document = base()
    document["tools"].append({"name": "form.fill", "description": "Fill the form.", "input_schema": {"type": "object"}, "x_actions": {"workflow": copy.deepcopy(WORKFLOW)}})
    document["checks"][0]["setup"] = [{"type": "open"}]
    return document


# (within, path, edits that make room, pointer of the reference, its value, the value renamed into "ns")
REFERENCE_CASES: list[tuple[str, tuple[str, ...], list[tuple[str, Any]], str, Any, Any]] = [
    # a tool's own target
    ("tools", (ANY_DEPTH, "target", "state"), [("/tools/0/target", {"selector": "form"})], "/tools/0/target/state", "form_ready", "ns.form_ready"),
    # a workflow argument's locator, deep inside the tool
    ("tools", (ANY_DEPTH, "locator", "state"), [], "/tools/1/workflow/steps/0/args/locator/state", "form_ready", "ns.form_ready"),
    # postcondition as a name ...
    ("tools", ("workflow", "postcondition"), [], "/tools/1/workflow/postcondition", "site.board", "ns.site.board"),
    # ... and as an object
    ("tools", ("workflow", "postcondition", "projection"), [("/tools/1/workflow/postcondition", {})], "/tools/1/workflow/postcondition/projection", "site.board", "ns.site.board"),
    ("tools", ("x_actions", "workflow", "postcondition"), [], "/tools/2/x_actions/workflow/postcondition", "site.board", "ns.site.board"),
    (
        "tools", ("x_actions", "workflow", "postcondition", "projection"), [("/tools/2/x_actions/workflow/postcondition", {})],
        "/tools/2/x_actions/workflow/postcondition/projection", "site.board", "ns.site.board",
    ),  # fmt: skip
    (
        "tools", ("x_actions", "result_summary", "projection"), [("/tools/0/x_actions/result_summary", {"summary": "counts"})],
        "/tools/0/x_actions/result_summary/projection", "site.board", "ns.site.board",
    ),  # fmt: skip
    # the simple-form map's state machine: renamed, never checked
    ("tools", ("x_actions", "state_machine", "initial_state"), [("/tools/0/x_actions/state_machine", {})], "/tools/0/x_actions/state_machine/initial_state", "form_ready", "ns.form_ready"),
    ("tools", ("x_actions", "state_machine", "terminal_state"), [("/tools/0/x_actions/state_machine", {})], "/tools/0/x_actions/state_machine/terminal_state", "form_submitted", "ns.form_submitted"),
    ("tools", ("x_actions", "state_machine", "transitions"), [("/tools/0/x_actions/state_machine", {})], "/tools/0/x_actions/state_machine/transitions", ["submit_form"], ["ns.submit_form"]),
    # a state diagnostic's target
    ("states", (ANY_DEPTH, "target", "state"), [("/states/0/diagnostics", [{"name": "probe", "target": {"selector": "form"}}])], "/states/0/diagnostics/0/target/state", "form_ready", "ns.form_ready"),
    # a locator in an extension of a state: renamed, not read by the validator
    ("states", (ANY_DEPTH, "locator", "state"), [("/states/0/x_probe", {"locator": {}})], "/states/0/x_probe/locator/state", "form_ready", "ns.form_ready"),
    ("transitions", ("from",), [], "/transitions/0/from", "form_ready", "ns.form_ready"),
    ("transitions", ("to",), [], "/transitions/0/to", "form_submitted", "ns.form_submitted"),
    ("transitions", ("tool",), [], "/transitions/0/tool", "form.submit", "ns.form.submit"),
    ("transitions", ("signal",), [], "/transitions/0/signal", "form.submitted", "ns.form.submitted"),
    # preconditions: declared states are renamed, free-form conditions are not
    ("transitions", ("preconditions",), [], "/transitions/0/preconditions", ["form_ready", "the user is signed in"], ["ns.form_ready", "the user is signed in"]),
    ("context", ("available_tools",), [], "/context/0/available_tools", ["form.submit"], ["ns.form.submit"]),
    ("context", ("next_states",), [], "/context/0/next_states", ["form_submitted"], ["ns.form_submitted"]),
    ("context", ("load_when", "states"), [], "/context/0/load_when/states", ["form_ready"], ["ns.form_ready"]),
    ("signals", (ANY_DEPTH, "target", "state"), [("/signals/0/target", {"selector": "form"})], "/signals/0/target/state", "form_ready", "ns.form_ready"),
    ("signals", (ANY_DEPTH, "locator", "state"), [("/signals/0/x_hint", {"locator": {}})], "/signals/0/x_hint/locator/state", "form_ready", "ns.form_ready"),
    ("attachments", (ANY_DEPTH, "target", "state"), [], "/attachments/0/target/state", "form_ready", "ns.form_ready"),
    ("attachments", (ANY_DEPTH, "locator", "state"), [("/attachments/0/lifecycle/locator", {})], "/attachments/0/lifecycle/locator/state", "form_ready", "ns.form_ready"),
    ("attachments", ("affordance", "opens", "tool"), [("/attachments/0/affordance", {"opens": {}})], "/attachments/0/affordance/opens/tool", "form.submit", "ns.form.submit"),
    # an attachment's signals: declared ones renamed, runtime-defined ones kept
    ("attachments", ("signals",), [], "/attachments/0/signals", {"installed": "form.submitted", "removed": "badge_removed"}, {"installed": "ns.form.submitted", "removed": "badge_removed"}),
    ("checks", (ANY_DEPTH, "target", "state"), [], "/checks/0/assertions/0/target/state", "form_ready", "ns.form_ready"),
    ("checks", (ANY_DEPTH, "locator", "state"), [("/checks/0/setup/0/locator", {"selector": "form"})], "/checks/0/setup/0/locator/state", "form_ready", "ns.form_ready"),
]
# A check's setup, assertions and steps entries, each member.
for _entries in shape.CHECK_ENTRY_LISTS:
    for _key, _value, _renamed in (
        ("tool", "form.submit", "ns.form.submit"),
        ("state", "form_ready", "ns.form_ready"),
        ("attachment", "status-badge", "ns.status-badge"),
        ("states", ["form_ready"], ["ns.form_ready"]),
        ("attachments", ["status-badge"], ["ns.status-badge"]),
    ):
        REFERENCE_CASES.append(("checks", (_entries, ANY_DEPTH, _key), [], f"/checks/0/{_entries}/0/{_key}", _value, _renamed))


def _reference(within: str, path: tuple[str, ...]) -> Reference:
    return next(r for r in REFERENCES if r.within == within and r.path == path)


def _document(edits: list[tuple[str, Any]], pointer: str, value: Any) -> dict[str, Any]:
    document = _reference_rich()
    for where, what in [*edits, (pointer, value)]:
        document = edit(document, where, what)
    return document


def _value(document: dict[str, Any], pointer: str) -> Any:
    node: Any = document
    for token in pointer.split("/")[1:]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


CASE_IDS = [case[3] for case in REFERENCE_CASES]


def test_every_reference_has_a_case() -> None:
    assert sorted((r.within, r.path) for r in REFERENCES) == sorted((case[0], case[1]) for case in REFERENCE_CASES)


@pytest.mark.parametrize(("within", "path", "edits", "pointer", "value", "renamed"), REFERENCE_CASES, ids=CASE_IDS)
def test_composition_renames_every_reference(tmp_path: Path, within: str, path: tuple[str, ...], edits: list[tuple[str, Any]], pointer: str, value: Any, renamed: Any) -> None:
    imported = _document(edits, pointer, value)
    assert check_manifest(imported).errors == ()
    (tmp_path / "lib.json").write_text(json.dumps(imported))
    root = {"protocol": "actions.json", "version": 1, "tools": [], "imports": [{"id": "lib", "kind": "local", "uri": "lib.json", "namespace": "ns"}]}
    composition = compose(root, source=str(tmp_path / "actions.json"), base_dir=tmp_path)
    assert composition.errors == []
    assert _value(composition.document, pointer) == renamed


@pytest.mark.parametrize(("within", "path", "edits", "pointer", "value", "renamed"), REFERENCE_CASES, ids=CASE_IDS)
def test_the_validator_checks_the_references_the_table_says_it_checks(
    within: str, path: tuple[str, ...], edits: list[tuple[str, Any]], pointer: str, value: Any, renamed: Any
) -> None:
    reference = _reference(within, path)
    ghost: Any = {key: "ghost" for key in value} if isinstance(value, dict) else ["ghost"] if isinstance(value, list) else "ghost"
    where = {"name": pointer, "names": f"{pointer}/0"}.get(reference.form, f"{pointer}/{next(iter(value), '')}")
    found = [(p.code, p.path) for p in check_manifest(_document(edits, pointer, ghost)).errors if p.code.startswith("unknown_")]
    assert found == ([(f"unknown_{reference.kind}", where)] if reference.checked else [])
