"""The fixture corpus: one invalid manifest per rule (exact code and pointer), and valid maps.

Every file under ``tests/fixtures/manifests/invalid/`` holds exactly one defect
(described in its ``x_defect`` extension key, which the validator ignores), so
each case asserts that the *only* error is the expected one: no cascades, no
noise. Every file under ``valid/`` has zero errors and loads into the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_actions.manifest.model import Manifest
from mcp_actions.manifest.problems import PROBLEM_CODES
from mcp_actions.manifest.validate import check_manifest

from ..shared_specs import shared_spec

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "manifests"

# (fixture file stem, expected code, expected JSON Pointer)
INVALID = [
    # root: protocol, version, tools
    ("root_not_object", "invalid_type", ""),  # the manifest is an array
    ("protocol_missing", "missing_field", "/protocol"),  # no protocol at all
    ("protocol_unsupported", "unsupported_protocol", "/protocol"),  # "actions.yaml"
    ("version_missing", "missing_field", "/version"),  # no version
    ("version_unsupported", "unsupported_version", "/version"),  # version 2 is an error, not a warning
    ("tools_missing", "missing_field", "/tools"),  # tools is required (empty is fine)
    ("tools_not_array", "invalid_type", "/tools"),  # tools as an object keyed by name
    # safe identifiers
    ("tool_name_unsafe", "invalid_identifier", "/tools/0/name"),  # starts with a digit
    ("handler_unsafe", "invalid_identifier", "/tools/0/x_actions/handler"),  # JavaScript source, not a dotted name
    ("state_name_unsafe", "invalid_identifier", "/states/2/name"),  # contains a space
    ("signal_name_unsafe", "invalid_identifier", "/signals/0/name"),  # trailing dot
    ("step_id_invalid", "invalid_step_id", "/tools/0/workflow/steps/0/id"),  # hyphen: unusable as steps.<id>
    ("execution_step_id_unsafe", "invalid_identifier", "/tools/0/x_actions/execution/steps/0/id"),  # legacy step id
    ("projection_name_unsafe", "invalid_identifier", "/state_projections/0/name"),  # leading dot
    # collisions in one namespace: the later declaration is reported
    ("duplicate_tool_name", "duplicate_name", "/tools/1/name"),
    ("duplicate_state_name", "duplicate_name", "/states/2/name"),
    ("duplicate_step_id", "duplicate_name", "/tools/0/workflow/steps/1/id"),
    ("extract_duplicate_id", "duplicate_name", "/state_projections/0/snapshot/extract/1/id"),
    # JSON Schemas: objects, and valid against their metaschema (path inside the schema)
    ("input_schema_not_object", "schema_not_object", "/tools/0/input_schema"),
    ("payload_not_object", "schema_not_object", "/signals/0/payload"),
    ("result_schema_not_object", "schema_not_object", "/tools/0/x_actions/result_schema"),
    ("input_schema_invalid", "invalid_schema", "/tools/0/input_schema/properties/q/type"),  # "strin"
    ("draft7_schema_invalid", "invalid_schema", "/tools/0/input_schema/required"),  # draft-07 metaschema used
    ("output_schema_invalid", "invalid_schema", "/state_projections/0/snapshot/output_schema/required"),
    # tools
    ("tool_description_missing", "missing_field", "/tools/0/description"),
    ("tool_input_schema_missing", "missing_field", "/tools/0/input_schema"),
    ("tool_not_executable", "tool_not_executable", "/tools/0"),  # no handler, workflow or execution.steps
    # signals, selectors, attachments
    ("enabled_signal_without_event", "missing_field", "/signals/0/event"),
    ("selector_not_string", "invalid_selector", "/tools/0/target/selector"),  # a number
    ("fallback_selector_not_string", "invalid_selector", "/tools/0/target/fallback_selectors/1"),  # null in the list
    ("attachment_without_target", "missing_field", "/attachments/0/target"),
    ("attachment_without_lifecycle", "missing_field", "/attachments/0/lifecycle"),
    # references
    ("transition_unknown_from_state", "unknown_state", "/transitions/0/from"),
    ("transition_unknown_to_state", "unknown_state", "/transitions/0/to"),
    ("transition_unknown_tool", "unknown_tool", "/transitions/0/tool"),
    ("transition_unknown_signal", "unknown_signal", "/transitions/0/signal"),
    ("check_unknown_tool", "unknown_tool", "/checks/0/steps/0/tool"),  # a call step
    ("check_unknown_state", "unknown_state", "/checks/0/assertions/0/state"),
    ("check_unknown_attachment", "unknown_attachment", "/checks/0/assertions/0/attachment"),
    ("check_target_not_locating", "invalid_target", "/checks/0/assertions/0/target"),  # only url_contains
    ("context_unknown_tool", "unknown_tool", "/context/0/available_tools/0"),
    ("context_unknown_state", "unknown_state", "/context/0/load_when/states/0"),
    # source.files, wherever it appears
    ("source_absolute_posix", "unsafe_source_path", "/tools/0/x_actions/source/files/0"),  # /srv/site/index.html
    ("source_absolute_windows", "unsafe_source_path", "/context/0/source/files/0"),  # C:\site\index.html
    ("source_unc", "unsafe_source_path", "/signals/0/source/files/0"),  # \\fileserver\site
    ("source_escapes_root", "unsafe_source_path", "/prompt/source/files/0"),  # src/../../x, in an extension key
    ("source_url", "unsafe_source_path", "/tools/0/x_actions/source/files/0"),  # https://…
    # workflows: closed key sets
    ("workflow_unknown_key", "field_not_allowed", "/tools/0/workflow/outputs"),
    ("step_unknown_field", "field_not_allowed", "/tools/0/workflow/steps/1/retries"),
    ("after_each_two_primitives", "field_not_allowed", "/tools/0/workflow/steps/0/after_each/then"),
    # workflows: root fields
    ("workflow_version_unsupported", "unsupported_version", "/tools/0/workflow/version"),
    ("workflow_language_unsupported", "unsupported_expression_language", "/tools/0/workflow/expression_language"),
    ("workflow_steps_empty", "empty_steps", "/tools/0/workflow/steps"),
    ("steps_over_limit", "limit_steps_exceeded", "/tools/0/workflow/steps"),  # 26 > max_steps 25
    # workflows: steps
    ("step_args_not_object", "invalid_type", "/tools/0/workflow/steps/0/args"),
    ("unknown_primitive", "unknown_primitive", "/tools/0/workflow/steps/1/primitive"),  # pointer.tap
    ("primitive_args_missing_required", "primitive_args_invalid", "/tools/0/workflow/steps/1/args/y"),
    ("on_error_invalid", "invalid_value", "/tools/0/workflow/steps/1/on_error"),  # "retry"
    ("for_each_without_max_items", "missing_field", "/tools/0/workflow/steps/0/max_items"),
    ("max_items_over_limit", "limit_loop_items_exceeded", "/tools/0/workflow/steps/0/max_items"),  # 500 > 50
    ("retry_until_without_max_attempts", "missing_field", "/tools/0/workflow/steps/0/max_attempts"),
    ("settle_after_both", "conflicting_fields", "/tools/0/workflow/steps/1/settle_after"),  # locator and delay_ms
    ("settle_after_neither", "missing_field", "/tools/0/workflow/steps/1/settle_after"),
    # workflows: expressions
    ("args_partial_slot", "expression_partial_slot", "/tools/0/workflow/steps/0/args/locator/selector"),
    ("args_syntax_error", "expression_invalid", "/tools/0/workflow/steps/1/args/x"),
    ("when_not_slot", "expression_not_slot", "/tools/0/workflow/steps/1/when"),  # bare JSONata
    ("when_syntax_error", "expression_invalid", "/tools/0/workflow/steps/1/when"),
    ("output_syntax_error", "expression_invalid", "/tools/0/workflow/output"),
    ("forbidden_function", "expression_forbidden_function", "/tools/0/workflow/steps/1/args/x"),  # $eval
    # legacy x_actions.execution
    ("execution_mode_invalid", "invalid_value", "/tools/0/x_actions/execution/mode"),
    # state projections
    ("snapshot_version_unsupported", "unsupported_version", "/state_projections/0/snapshot/version"),
    ("snapshot_source_invalid", "invalid_value", "/state_projections/0/snapshot/source"),  # "html"
    ("extract_without_selector", "missing_field", "/state_projections/0/snapshot/extract/0/selector"),
    ("field_unknown_key", "field_not_allowed", "/state_projections/0/snapshot/extract/0/fields/name/propety"),
    ("field_property_invalid", "invalid_value", "/state_projections/0/snapshot/extract/0/fields/name/property"),
    (
        "nested_field_selector_not_string",  # a nested field's selector is a list
        "invalid_selector",
        "/state_projections/0/snapshot/extract/0/fields/cards/fields/title/selector",
    ),
    ("projection_language_unsupported", "unsupported_expression_language", "/state_projections/0/snapshot/projection/language"),
    ("projection_expression_invalid", "expression_invalid", "/state_projections/0/snapshot/projection/expression"),
    ("summary_max_bytes_over_limit", "limit_summary_bytes_exceeded", "/state_projections/0/summaries/0/max_bytes"),
    ("summary_expression_missing", "missing_field", "/state_projections/0/summaries/0/expression"),
]

VALID = [
    "simple_form",  # the published simple-form example, unchanged (root 'prompt', legacy execution steps)
    "minimal",  # the spec's minimal manifest
    "spec_examples",  # every snippet of the spec, assembled into one map
    "kitchen_sink",  # every feature: workflows with every step field, projections, imports, checks, ...
    "extension_overlay",  # the reference extension's own published map, unchanged (58 tools, primitive_dictionary)
]


def load(kind: str, stem: str) -> object:
    return json.loads((CORPUS / kind / f"{stem}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("stem", "code", "pointer"), INVALID, ids=[case[0] for case in INVALID])
def test_invalid_fixture_has_exactly_its_defect(stem: str, code: str, pointer: str) -> None:
    report = check_manifest(load("invalid", stem))
    assert not report.valid
    assert [(problem.code, problem.path) for problem in report.errors] == [(code, pointer)]


def test_every_invalid_fixture_is_in_the_table() -> None:
    on_disk = {path.stem for path in (CORPUS / "invalid").glob("*.json")}
    assert on_disk == {case[0] for case in INVALID}


def test_every_fixture_describes_its_defect() -> None:
    for stem, _code, _pointer in INVALID:
        document = load("invalid", stem)
        assert stem == "root_not_object" or isinstance(document.get("x_defect"), str), stem


@pytest.mark.parametrize("stem", VALID)
def test_valid_fixture_has_no_errors_and_loads(stem: str) -> None:
    document = load("valid", stem)
    report = check_manifest(document)
    assert report.errors == ()
    assert report.valid
    Manifest.model_validate(document)


def test_published_example_is_copied_unchanged_and_only_warns_about_prompt() -> None:
    published = shared_spec("reference-examples/simple-form/actions.json")
    assert json.loads(published.read_text(encoding="utf-8")) == load("valid", "simple_form")
    report = check_manifest(load("valid", "simple_form"))
    assert [(p.code, p.path, p.severity) for p in report.warnings] == [("unknown_field", "/prompt", "warning")]


def test_kitchen_sink_uses_no_unknown_fields() -> None:
    assert check_manifest(load("valid", "kitchen_sink")).warnings == ()


def test_corpus_codes_are_documented() -> None:
    for _stem, code, _pointer in INVALID:
        assert code in PROBLEM_CODES
