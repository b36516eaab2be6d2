"""Root, identifiers, tools, targets, references, signals, attachments, checks, context, sources.

Each case edits one member of a valid manifest (``builders.base()``) and asserts
the exact errors, so a rule that fires too eagerly (cascades) fails as surely
as one that does not fire.
"""

from __future__ import annotations

import pytest

from mcp_actions.errors import ManifestError
from mcp_actions.manifest.limits import MAX_IDENTIFIER_LENGTH
from mcp_actions.manifest.problems import PROBLEM_CODES, Problem, ValidationReport
from mcp_actions.manifest.rules.sources import source_path_problem
from mcp_actions.manifest.validate import check_manifest, iter_problems, validate

from .builders import base, edit, errors

# (pointer to edit, new value or _DELETE, expected errors)
EDITS = [
    # -- root
    ("/version", True, [("invalid_type", "/version")]),  # a boolean is not the integer 1
    ("/version", "1", [("invalid_type", "/version")]),  # a string is not a number
    ("/version", 1.0, []),  # JSON's 1.0 is the integer 1
    ("/transitions/0/rate_limit_ms", 1e20, [("invalid_type", "/transitions/0/rate_limit_ms")]),  # not an exact integer
    ("/protocol", 1, [("invalid_type", "/protocol")]),
    ("/surface", [], [("invalid_type", "/surface")]),
    ("/surface", {"name": 3}, [("invalid_type", "/surface/name")]),
    ("/provenance", "me", [("invalid_type", "/provenance")]),
    ("/states", {}, [("invalid_type", "/states")]),  # and no unknown_state cascade from the references
    # a tool that is not an object declares nothing, so references to it are unknown (sorted by path)
    ("/tools/0", "form.submit", [("unknown_tool", "/checks/0/steps/0/tool"), ("unknown_tool", "/context/0/available_tools/0"),
                                 ("invalid_type", "/tools/0"), ("unknown_tool", "/transitions/0/tool")]),
    # -- identifiers
    ("/tools/1/name", "a" * (MAX_IDENTIFIER_LENGTH + 1), [("invalid_identifier", "/tools/1/name")]),  # too long
    ("/tools/1/name", "a" * MAX_IDENTIFIER_LENGTH, []),  # exactly at the limit
    ("/tools/1/name", 7, [("invalid_type", "/tools/1/name")]),
    ("/tools/1/name", "form..click", [("invalid_identifier", "/tools/1/name")]),  # empty segment
    ("/tools/1/name", "Form.Click-2_b", []),  # capitals, digits, hyphen and underscore after the first letter
    ("/transitions/0/name", "submit form", [("invalid_identifier", "/transitions/0/name")]),
    ("/attachments/0/id", "_badge", [("invalid_identifier", "/attachments/0/id")]),  # leading underscore
    ("/checks/0/id", "form/visible", [("invalid_identifier", "/checks/0/id")]),
    ("/context/0/id", "", [("invalid_identifier", "/context/0/id")]),
    ("/states/0/diagnostics", [{"name": "1probe"}], [("invalid_identifier", "/states/0/diagnostics/0/name")]),
    ("/states/0/diagnostics", [{"name": "p"}, {"name": "p"}], [("duplicate_name", "/states/0/diagnostics/1/name")]),
    ("/state_projections/0/summaries/0/name", "two words", [("invalid_identifier", "/state_projections/0/summaries/0/name")]),
    ("/state_projections/0/snapshot/extract/0/id", "lists!", [("invalid_identifier", "/state_projections/0/snapshot/extract/0/id")]),
    ("/signals/1", {"name": "form.submitted"}, [("duplicate_name", "/signals/1/name")]),
    ("/transitions/1", {"name": "submit_form"}, [("duplicate_name", "/transitions/1/name")]),
    ("/attachments/1", {"id": "status-badge", "target": {"selector": "b"}, "lifecycle": {}}, [("duplicate_name", "/attachments/1/id")]),
    ("/checks/1", {"id": "form_visible"}, [("duplicate_name", "/checks/1/id")]),
    ("/context/1", {"id": "form.context"}, [("duplicate_name", "/context/1/id")]),
    ("/state_projections/1", base()["state_projections"][0], [("duplicate_name", "/state_projections/1/name")]),
    # -- tools
    ("/tools/0/description", "  ", [("invalid_value", "/tools/0/description")]),
    ("/tools/0/requires", "pointer.click", [("invalid_type", "/tools/0/requires")]),
    ("/tools/0/x_actions", [], [("tool_not_executable", "/tools/0"), ("invalid_type", "/tools/0/x_actions")]),
    ("/tools/0/x_actions/direction", "sideways", [("invalid_value", "/tools/0/x_actions/direction")]),
    ("/tools/0/x_actions/scope", "global", [("invalid_value", "/tools/0/x_actions/scope")]),
    ("/tools/0/x_actions", {"direction": "html_to_agent"}, []),  # page-originated: not agent-callable, needs no handler
    ("/tools/0/x_actions", {"execution": {"steps": []}}, [("tool_not_executable", "/tools/0")]),  # empty steps run nothing
    ("/tools/0/x_actions/execution", {"steps": [{"id": "a"}, {"id": "a"}]}, [("duplicate_name", "/tools/0/x_actions/execution/steps/1/id")]),
    ("/tools/0/x_actions/execution", {"steps": ["click"]}, [("invalid_type", "/tools/0/x_actions/execution/steps/0")]),
    ("/tools/0/x_actions/execution", {"steps": [{"type": "click"}]}, [("missing_field", "/tools/0/x_actions/execution/steps/0/id")]),
    ("/tools/1/x_actions", {"workflow": base()["tools"][1]["workflow"]}, [("conflicting_fields", "/tools/1/x_actions/workflow")]),
    ("/tools/0/result_schema", [], [("schema_not_object", "/tools/0/result_schema")]),
    ("/tools/0/annotations", "read-only", [("invalid_type", "/tools/0/annotations")]),
    # -- targets and selectors
    ("/tools/0/target", "form", [("invalid_type", "/tools/0/target")]),
    ("/tools/0/target", {"selectors": "form"}, [("invalid_selector", "/tools/0/target/selectors")]),  # not a list
    ("/tools/0/target", {"xpath": ""}, [("invalid_selector", "/tools/0/target/xpath")]),  # empty
    ("/tools/0/target", {"selector": "form", "closest": 1}, [("invalid_selector", "/tools/0/target/closest")]),
    ("/tools/0/target", {"selector": "form", "state": "form_gone"}, [("unknown_state", "/tools/0/target/state")]),
    ("/tools/0/target", {"selector": "form", "confidence": "sure"}, [("invalid_value", "/tools/0/target/confidence")]),
    ("/tools/0/target", {"selector": "form", "role": 3}, [("invalid_type", "/tools/0/target/role")]),
    ("/states/0/diagnostics", [{"name": "p", "target": {"selector": ["#a"]}}], [("invalid_selector", "/states/0/diagnostics/0/target/selector")]),
    ("/signals/0/target", {"fallback_selectors": [1]}, [("invalid_selector", "/signals/0/target/fallback_selectors/0")]),
    ("/attachments/0/target", {"selector": None}, [("invalid_selector", "/attachments/0/target/selector")]),
    ("/context/0/load_when/targets", ["#form", 4], [("invalid_selector", "/context/0/load_when/targets/1")]),
    ("/context/0/load_when/targets", [{"selector": ""}], [("invalid_selector", "/context/0/load_when/targets/0/selector")]),
    # -- references
    ("/context/0/next_states", ["form_gone"], [("unknown_state", "/context/0/next_states/0")]),
    ("/context/0/available_tools", "form.submit", [("invalid_type", "/context/0/available_tools")]),
    ("/context/0/load_when", [], [("invalid_type", "/context/0/load_when")]),
    ("/transitions/0/from", 3, [("invalid_type", "/transitions/0/from")]),
    ("/transitions/0/rate_limit_ms", -5, [("invalid_value", "/transitions/0/rate_limit_ms")]),
    ("/transitions/0/convergence", {"max_attempts": 0}, [("invalid_value", "/transitions/0/convergence/max_attempts")]),
    ("/checks/0/assertions/0/target", "#form", [("invalid_target", "/checks/0/assertions/0/target")]),  # a string, not a descriptor
    ("/checks/0/assertions/0/states", ["form_gone"], [("unknown_state", "/checks/0/assertions/0/states/0")]),
    ("/checks/0/steps/0", {"type": "call"}, [("missing_field", "/checks/0/steps/0/tool")]),
    ("/checks/0/setup", [{"type": "navigate", "state": "nowhere"}], [("unknown_state", "/checks/0/setup/0/state")]),
    ("/checks/0/severity", "high", [("invalid_value", "/checks/0/severity")]),
    ("/checks/0/expected_result", [], [("invalid_type", "/checks/0/expected_result")]),
    ("/checks/0/on_fail", "stop", [("invalid_type", "/checks/0/on_fail")]),
    # -- signals and attachments
    ("/signals/0/ingestion", "always", [("invalid_value", "/signals/0/ingestion")]),
    ("/signals/0/direction", "agent_to_agent", [("invalid_value", "/signals/0/direction")]),
    ("/signals/0/event", "", [("invalid_value", "/signals/0/event")]),
    ("/signals/0/payload", {"type": "object", "properties": {"a": {"minLength": -1}}}, [("invalid_schema", "/signals/0/payload/properties/a/minLength")]),
    ("/signals/1", {"name": "form.opened", "ingestion": "disabled_by_default"}, []),  # only enabled signals need event
    ("/attachments/0/lifecycle", "always", [("invalid_type", "/attachments/0/lifecycle")]),
    ("/attachments/0/signals", ["attachment.attached"], [("invalid_type", "/attachments/0/signals")]),  # an object, as published
    ("/attachments/0/signals", {"attached": "attachment attached"}, [("invalid_identifier", "/attachments/0/signals/attached")]),
    ("/attachments/0/affordance", {"opens": {"tool": "overlay.open"}}, []),  # a primitive may be opened
    ("/attachments/0/affordance", {"opens": {"tool": "overlay.pop"}}, [("unknown_tool", "/attachments/0/affordance/opens/tool")]),
    # -- imports and composition
    ("/imports", [{"id": "ex", "kind": "public", "uri": "https://example.org/actions.json", "namespace": "ex"}], []),
    ("/imports", [{"id": "ex", "kind": "ftp", "uri": "x", "namespace": "ex"}], [("invalid_value", "/imports/0/kind")]),
    ("/imports", [{"id": "ex", "uri": "x", "namespace": "ex"}], [("missing_field", "/imports/0/kind")]),
    ("/imports", [{"id": "ex", "kind": "local", "uri": "x", "namespace": "ex", "trust": "total"}], [("invalid_value", "/imports/0/trust")]),
    ("/imports", [{"id": "ex", "kind": "local", "uri": "x", "namespace": "ex ns"}], [("invalid_identifier", "/imports/0/namespace")]),
    ("/imports", [{"id": "ex", "kind": "local", "uri": "x", "namespace": "ex", "enabled": "yes"}], [("invalid_type", "/imports/0/enabled")]),
    (
        "/imports",
        [{"id": "ex", "kind": "local", "uri": "x", "namespace": "a"}, {"id": "ex", "kind": "local", "uri": "y", "namespace": "b"}],
        [("duplicate_name", "/imports/1/id")],
    ),
    ("/imports", [{"id": "ex", "kind": "local", "namespace": "ex"}], [("missing_field", "/imports/0/uri")]),
    # namespace_required is true unless the composition says otherwise; disabled imports compose nothing
    ("/imports", [{"id": "ex", "kind": "local", "uri": "x"}], [("import_namespace_required", "/imports/0/namespace")]),
    ("/imports", [{"id": "ex", "kind": "local", "uri": "x", "enabled": False}], []),
    ("/composition", {"namespace_required": "yes"}, [("invalid_type", "/composition/namespace_required")]),
    ("/composition", {"default_conflict_policy": ""}, [("invalid_value", "/composition/default_conflict_policy")]),
]


@pytest.mark.parametrize(("pointer", "value", "expected"), EDITS, ids=[f"{p}={v!r:.30}" for p, v, _ in EDITS])
def test_one_edit_gives_exactly_these_errors(pointer: str, value: object, expected: list[tuple[str, str]]) -> None:
    assert errors(edit(base(), pointer, value)) == expected


def test_base_manifest_is_valid_without_warnings() -> None:
    report = check_manifest(base())
    assert report == ValidationReport(errors=(), warnings=())
    assert report.valid


def test_namespace_required_false_allows_plain_imports_whose_names_cannot_be_judged() -> None:
    document = edit(base(), "/composition", {"namespace_required": False})
    document = edit(document, "/imports", [{"id": "ex", "kind": "local", "uri": "x"}])
    document = edit(document, "/context/0/available_tools/1", "anything.from_the_import")  # may come un-prefixed from it
    assert errors(document) == []


def test_names_inside_an_import_namespace_are_not_unknown() -> None:
    document = edit(base(), "/imports", [{"id": "ex", "kind": "public", "uri": "https://e.org/a.json", "namespace": "example"}])
    document = edit(document, "/context/0/available_tools/1", "example.search.submit")  # declared by the import
    document = edit(document, "/context/0/available_tools/2", "elsewhere.search")  # not in any namespace
    assert errors(document) == [("unknown_tool", "/context/0/available_tools/2")]
    disabled = edit(document, "/imports/0/enabled", False)  # a disabled import declares nothing
    assert errors(disabled) == [("unknown_tool", "/context/0/available_tools/1"), ("unknown_tool", "/context/0/available_tools/2")]


@pytest.mark.parametrize(
    ("pointer", "value"),
    [
        ("/prompt", {"title": "x"}),  # the published map's extension
        ("/tools/0/title", "Submit"),  # a key the spec does not document on tools
        ("/tools/0/x_actions/state_machine/extra", 1),  # open: the published map's state_machine is free-form
        ("/signals/0/priority", "high"),
        ("/tools/0/target", {"selector": "form", "nth": 2}),
        ("/imports", [{"id": "ex", "kind": "local", "uri": "x", "namespace": "ex", "checksum": "abc"}]),
    ],
)
def test_unknown_keys_in_open_objects_are_warnings(pointer: str, value: object) -> None:
    document = edit(base(), "/tools/0/x_actions/state_machine", {})
    document = edit(document, pointer, value)
    report = check_manifest(document)
    assert report.errors == ()
    assert [p.code for p in report.warnings] in ([], ["unknown_field"])
    if pointer != "/tools/0/x_actions/state_machine/extra":
        assert [p.code for p in report.warnings] == ["unknown_field"]
        assert all(p.severity == "warning" for p in report.warnings)


@pytest.mark.parametrize("pointer", ["/x_vendor", "/tools/0/x_ui", "/tools/1/workflow/x_trace", "/tools/1/workflow/steps/0/x_note",
                                     "/state_projections/0/snapshot/extract/0/x_debug", "/signals/0/x_meta"])
def test_x_extension_keys_are_silently_fine_everywhere(pointer: str) -> None:
    report = check_manifest(edit(base(), pointer, {"anything": [1, 2]}))
    assert (report.errors, report.warnings) == ((), ())


def test_unknown_schema_dialect_is_a_warning_and_the_schema_is_still_checked() -> None:
    schema = {"$schema": "https://example.com/my-dialect", "type": "object", "required": "q"}
    report = check_manifest(edit(base(), "/tools/0/input_schema", schema))
    assert [(p.code, p.path) for p in report.warnings] == [("unknown_schema_dialect", "/tools/0/input_schema/$schema")]
    assert [(p.code, p.path) for p in report.errors] == [("invalid_schema", "/tools/0/input_schema/required")]


@pytest.mark.parametrize(
    ("origin", "warned"),
    [
        ("https://example.com", False),  # an origin, as the spec shows it
        ("http://127.0.0.1:8000/", False),  # a trailing slash is still the origin
        ("https://*.example.com", False),  # a wildcard host names several origins, still no path
        ("http://127.0.0.1:8000/board/index.html", True),  # the page the tools work on is not the origin
        ("https://example.com?tab=2", True),  # a query
        ("https://example.com/#cart", True),  # a fragment
        ("file://examples/simple-form/index.html", False),  # not a web origin: file surfaces compare paths
    ],
)
def test_a_surface_origin_with_a_path_query_or_fragment_is_warned_about_with_the_fix(origin: str, warned: bool) -> None:
    report = check_manifest(edit(base(), "/surface/origin", origin))
    assert report.errors == ()
    found = [p for p in report.warnings if p.code == "origin_not_an_origin"]
    assert [(p.path, p.severity) for p in found] == ([("/surface/origin", "warning")] if warned else [])
    if warned:
        assert "scheme://host[:port]" in found[0].message and f"write '{origin.split('/')[0]}//{origin.split('/')[2].split('?')[0]}'" in found[0].message


# (source path, safe?)  — source_path_problem is the whole rule behind unsafe_source_path
SOURCE_PATHS = [
    ("index.html", True),
    ("src/app/../app/main.ts", True),  # climbs, but stays inside
    ("./a/./b.js", True),
    ("a\\b\\c.js", True),  # backslashes are separators, still relative
    ("/etc/passwd", False),  # absolute POSIX
    ("\\windows\\x", False),  # rooted Windows
    ("C:\\site\\x.html", False),  # drive
    ("c:x.html", False),  # drive-relative is still tied to a drive
    ("\\\\server\\share\\x", False),  # UNC
    ("//server/share/x", False),  # UNC with slashes
    ("../x", False),  # escapes at once
    ("a/../../x", False),  # escapes later
    ("https://example.com/x.js", False),  # URL
    ("file:x.html", False),  # scheme without slashes
    ("~/x", False),  # home directory
    ("a\x00b", False),  # NUL
]


@pytest.mark.parametrize(("path", "safe"), SOURCE_PATHS)
def test_source_path_safety(path: str, safe: bool) -> None:
    assert (source_path_problem(path) is None) is safe


def test_source_files_must_be_an_array_of_non_empty_strings() -> None:
    assert errors(edit(base(), "/tools/0/x_actions/source", {"files": "index.html"})) == [("invalid_type", "/tools/0/x_actions/source/files")]
    assert errors(edit(base(), "/tools/0/x_actions/source", {"files": [3, ""]})) == [
        ("invalid_type", "/tools/0/x_actions/source/files/0"),
        ("invalid_value", "/tools/0/x_actions/source/files/1"),
    ]


def test_source_files_inside_schemas_are_not_source_hints() -> None:
    schema = {"type": "object", "properties": {"source": {"type": "object"}}, "x_example": {"source": {"files": ["/abs"]}}}
    assert errors(edit(base(), "/tools/0/input_schema", schema)) == []


# -- the facade: ordering, laziness, reports, exceptions, robustness


def test_problems_are_sorted_by_path_with_numeric_indices_then_code() -> None:
    document = base()
    document["tools"] = [dict(document["tools"][0], name=f"t{i}") for i in range(12)]
    document["tools"][2]["name"] = "2bad"
    document["tools"][10]["name"] = "10bad"
    del document["tools"][10]["description"]
    report = check_manifest(edit(document, "/checks", []))
    assert [(p.path, p.code) for p in report.errors] == [
        ("/context/0/available_tools/0", "unknown_tool"),
        ("/tools/2/name", "invalid_identifier"),
        ("/tools/10/description", "missing_field"),
        ("/tools/10/name", "invalid_identifier"),
        ("/transitions/0/tool", "unknown_tool"),
    ]


def test_path_sorting_treats_only_ascii_digits_as_indices() -> None:
    report = check_manifest({"\u00b2": 1, "10": 2, "9": 3})  # '\u00b2'.isdigit() is True in Python
    assert [p.path for p in report.warnings] == ["/9", "/10", "/\u00b2"]


def test_iter_problems_is_lazy_and_yields_problems() -> None:
    stream = iter_problems(edit(base(), "/protocol", "nope"))
    first = next(stream)
    assert first == Problem("/protocol", "unsupported_protocol", "protocol must be 'actions.json'", "error")


def test_problem_to_dict_is_the_contract_shape() -> None:
    problem = Problem("/tools/0/name", "invalid_identifier", "bad", "error")
    assert problem.to_dict() == {"code": "invalid_identifier", "path": "/tools/0/name", "message": "bad"}


def test_json_pointer_escapes_tilde_and_slash() -> None:
    document = edit(base(), "/state_projections/0/snapshot/extract/0/fields/a~b", {"selector": "x", "bogus/key": 1})
    assert errors(document) == [("field_not_allowed", "/state_projections/0/snapshot/extract/0/fields/a~0b/bogus~1key")]


def test_validate_raises_manifest_error_with_the_sorted_errors() -> None:
    document = edit(edit(base(), "/version", 9), "/tools/1/name", "!")
    with pytest.raises(ManifestError) as caught:
        validate(document)
    assert caught.value.code == "manifest_invalid"
    assert [(p.code, p.path) for p in caught.value.problems] == [("invalid_identifier", "/tools/1/name"), ("unsupported_version", "/version")]
    assert caught.value.evidence["error_count"] == 2


def test_validate_returns_none_for_a_valid_manifest_with_warnings() -> None:
    assert validate(edit(base(), "/prompt", {})) is None


@pytest.mark.parametrize(
    "document",
    [None, 0, 1.5, "actions.json", [], [{"protocol": "actions.json"}], True, b"{}", {1: 2}, {"tools": {1, 2}}, object()],
    # A bare object's repr holds its address, which differs between parallel workers collecting the same tests.
    ids=lambda document: "object()" if type(document) is object else repr(document),
)
def test_non_manifests_are_problems_not_exceptions(document: object) -> None:
    report = check_manifest(document)
    assert not report.valid
    assert all(isinstance(p, Problem) and p.code in PROBLEM_CODES for p in report.errors + report.warnings)
    assert "validator_internal_error" not in {p.code for p in report.errors}


def test_absurd_nesting_is_reported_not_followed() -> None:
    deep: object = "leaf"
    for _ in range(5000):
        deep = {"a": [deep]}
    for pointer in ("/surface/x", "/tools/0/input_schema/x_deep", "/tools/1/workflow/steps/0/args/locator/x_deep", "/tools/1/workflow/output"):
        report = check_manifest(edit(base(), pointer, deep))
        codes = {p.code for p in report.errors}
        assert "nesting_too_deep" in codes, pointer
        assert "validator_internal_error" not in codes


def test_nesting_within_the_limit_is_fine() -> None:
    nested: object = 1
    for _ in range(40):
        nested = [nested]
    assert errors(edit(base(), "/surface/x_data", nested)) == []


def test_every_code_in_the_source_is_documented_and_every_documented_code_is_used() -> None:
    import ast
    from pathlib import Path

    import mcp_actions.manifest as package
    from mcp_actions.errors import ErrorCode

    literals: list[str] = []

    def code_of(node: ast.AST) -> str | None:
        """The code a node names: an ``ErrorCode.X`` member (or, refused below, a string literal)."""
        if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "ErrorCode":
            return ErrorCode[node.attr].value
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            literals.append(node.value)
            return node.value
        return None

    emitted: set[str | None] = set()
    root = Path(package.__file__).parent
    for path in [*(root / "rules").glob("*.py"), root / "validate.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("error", "warning", "Problem"):
                if len(node.args) >= 2:
                    emitted.add(code_of(node.args[1]))
            if (
                isinstance(node, ast.Tuple)
                and len(node.elts) == 4
                and getattr(node.elts[3], "value", None) in ("error", "warning")
            ):
                emitted.add(code_of(node.elts[1]))  # rules.schema's cached verdicts: (pointer, code, message, severity)
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["code"]:
                emitted |= {code_of(c) for c in ast.walk(node.value) if isinstance(c, ast.Attribute)}
    emitted.discard(None)
    assert literals == []  # every code is an ErrorCode member, never a string literal
    emitted |= {"unknown_tool", "unknown_state", "unknown_signal", "unknown_attachment", "unknown_projection"}  # refs._UNKNOWN_CODE
    emitted |= {"expression_invalid", "expression_forbidden_function"}  # raised by compile_expression, surfaced as-is
    emitted |= {"invalid_json", "manifest_too_large"}  # reported when a file is read (load.read_document, report.py)
    assert emitted - set(PROBLEM_CODES) == set()
    assert set(PROBLEM_CODES) - emitted == set()
