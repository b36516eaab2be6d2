"""Messages that say how to fix: fixed values, close names, accepted arguments.

Each table case is a small edit of ``base()`` and the *whole* report it gives
(severity, code, path, message), so a hint never comes with a second,
unrelated problem.
"""

from __future__ import annotations

import pytest

from mcp_actions.manifest import shape
from mcp_actions.manifest.rules.hints import did_you_mean
from mcp_actions.manifest.validate import check_manifest

from .builders import _DELETE, base, edit

TOOL = "/tools/1"
WF = f"{TOOL}/workflow"
FIND = f"{WF}/steps/0"
CLICK = f"{WF}/steps/1"
SNAPSHOT = "/state_projections/0/snapshot"

Report = list[tuple[str, str, str, str]]


def report(document: object) -> Report:
    """Every problem as ``(severity, code, path, message)``, errors first, each sorted by path."""
    found = check_manifest(document)
    return [(p.severity, p.code, p.path, p.message) for p in found.errors + found.warnings]


def with_edits(*edits: tuple[str, object]) -> object:
    """``base()`` with each ``(pointer, value or _DELETE)`` applied in turn."""
    document = base()
    for pointer, value in edits:
        document = edit(document, pointer, value)
    return document


# -- a missing member with fixed values says what to write (the values are shape.py's)

FIXED_VALUES = [
    # the root's protocol: shape.PROTOCOL
    (with_edits(("/protocol", _DELETE)), [("error", "missing_field", "/protocol", "'protocol' is required: add \"protocol\": \"actions.json\"")]),
    # the root's version: shape.VERSION
    (with_edits(("/version", _DELETE)), [("error", "missing_field", "/version", "'version' is required: add \"version\": 1")]),
    # a workflow's version: shape.VERSION
    (
        with_edits((f"{WF}/version", _DELETE)),
        [("error", "missing_field", f"{WF}/version", "workflow: 'version' is required: add \"version\": 1")],
    ),
    # a workflow's expression_language: shape.EXPRESSION_LANGUAGE (it used to say only that it is required)
    (
        with_edits((f"{WF}/expression_language", _DELETE)),
        [("error", "missing_field", f"{WF}/expression_language", "workflow: 'expression_language' is required: add \"expression_language\": \"jsonata\"")],
    ),
    # a snapshot's version: shape.VERSION
    (
        with_edits((f"{SNAPSHOT}/version", _DELETE)),
        [("error", "missing_field", f"{SNAPSHOT}/version", "snapshot: 'version' is required: add \"version\": 1")],
    ),
    # a snapshot's source: shape.SNAPSHOT_SOURCE
    (
        with_edits((f"{SNAPSHOT}/source", _DELETE)),
        [("error", "missing_field", f"{SNAPSHOT}/source", "snapshot: 'source' is required: add \"source\": \"dom\"")],
    ),
    # a projection expression's language: shape.EXPRESSION_LANGUAGE
    (
        with_edits((f"{SNAPSHOT}/projection/language", _DELETE)),
        [("error", "missing_field", f"{SNAPSHOT}/projection/language", "projection: 'language' is required: add \"language\": \"jsonata\"")],
    ),
    # an import's kind: one of shape.IMPORT_KINDS, in their order
    (
        with_edits(("/imports", [{"id": "shop", "uri": "shop.json", "namespace": "shop"}])),
        [
            (
                "error",
                "missing_field",
                "/imports/0/kind",
                "import: 'kind' is required: add \"kind\" with one of \"website\", \"local\", \"storage\", \"shared\", \"public\", \"package\"",
            )
        ],
    ),
    # a wrong value keeps its message, now spelt from the same value set
    (with_edits(("/version", 2)), [("error", "unsupported_version", "/version", "version must be 1")]),
    # ... and so does a wrong language
    (
        with_edits((f"{WF}/expression_language", "jmespath")),
        [("error", "unsupported_expression_language", f"{WF}/expression_language", "workflow expression_language must be 'jsonata'")],
    ),
]


@pytest.mark.parametrize(("document", "expected"), FIXED_VALUES)
def test_a_missing_member_with_fixed_values_says_what_to_write(document: object, expected: Report) -> None:
    assert report(document) == expected


def test_the_fixed_values_named_are_shape_values() -> None:
    assert (shape.PROTOCOL, shape.VERSION, shape.EXPRESSION_LANGUAGE, shape.SNAPSHOT_SOURCE) == ("actions.json", 1, "jsonata", "dom")
    assert shape.IMPORT_KINDS == ("website", "local", "storage", "shared", "public", "package")


# -- an unknown name says which declared (or known) names are close: difflib.get_close_matches

CLOSE_NAMES = [
    # a primitive: the three closest of the dictionary, best first ('tap' is nearer 'drag' than 'click' by letters)
    (
        with_edits((f"{CLICK}/primitive", "pointer.tap")),
        [
            (
                "error",
                "unknown_primitive",
                f"{CLICK}/primitive",
                "step 'click': primitive 'pointer.tap' is not in the dictionary; did you mean 'pointer.drag', 'pointer.move' or 'pointer.click'?",
            )
        ],
    ),
    # after_each's primitive, too
    (
        with_edits(
            (f"{FIND}/retry_until", "{% steps.find.output.visible %}"),
            (f"{FIND}/max_attempts", 3),
            (f"{FIND}/after_each", {"primitive": "viewport.scrol"}),
        ),
        [
            (
                "error",
                "unknown_primitive",
                f"{FIND}/after_each/primitive",
                "step 'find' after_each: primitive 'viewport.scrol' is not in the dictionary; did you mean 'viewport.scroll'?",
            )
        ],
    ),
    # a field of an open object (a warning), written without its underscore
    (
        with_edits((f"{TOOL}/inputschema", {"type": "object"})),
        [("warning", "unknown_field", f"{TOOL}/inputschema", "tool 'form.click': unknown field 'inputschema'; did you mean 'input_schema' or 'result_schema'?")],
    ),
    # ... or misspelt
    (
        with_edits((f"{TOOL}/input_shema", {"type": "object"})),
        [("warning", "unknown_field", f"{TOOL}/input_shema", "tool 'form.click': unknown field 'input_shema'; did you mean 'input_schema' or 'result_schema'?")],
    ),
    # a field of a closed object (an error)
    (
        with_edits((f"{WF}/outputs", "{% 1 %}")),
        [("error", "field_not_allowed", f"{WF}/outputs", "workflow: field 'outputs' is not allowed; did you mean 'output'?")],
    ),
    # a field nothing resembles: no suggestion
    (
        with_edits(("/x", 1)),
        [("warning", "unknown_field", "/x", "manifest: unknown field 'x'")],
    ),
    # a state, by a transition: the closest first, then the others close enough
    (
        with_edits(("/states/2", {"name": "board_ready"}), ("/transitions/0/from", "boardready")),
        [
            (
                "error",
                "unknown_state",
                "/transitions/0/from",
                "state 'boardready' is not declared in this manifest; did you mean 'board_ready' or 'form_ready'?",
            )
        ],
    ),
    # a tool, by a transition
    (
        with_edits(("/transitions/0/tool", "form.sumbit")),
        [("error", "unknown_tool", "/transitions/0/tool", "tool 'form.sumbit' is not declared in this manifest; did you mean 'form.submit'?")],
    ),
    # a signal, by a transition
    (
        with_edits(("/transitions/0/signal", "form.submited")),
        [("error", "unknown_signal", "/transitions/0/signal", "signal 'form.submited' is not declared in this manifest; did you mean 'form.submitted'?")],
    ),
    # an attachment, by a check's assertion
    (
        with_edits(("/checks/0/assertions/0/attachment", "status-bagde")),
        [
            (
                "error",
                "unknown_attachment",
                "/checks/0/assertions/0/attachment",
                "attachment 'status-bagde' is not declared in this manifest; did you mean 'status-badge'?",
            )
        ],
    ),
    # a projection, by a workflow's postcondition
    (
        with_edits((f"{WF}/postcondition", "site.bord")),
        [("error", "unknown_projection", f"{WF}/postcondition", "projection 'site.bord' is not declared in this manifest; did you mean 'site.board'?")],
    ),
    # what an affordance opens: the declared tools and the primitives are both candidates
    (
        with_edits(("/attachments/0/affordance", {"opens": {"tool": "form.sumbit"}})),
        [
            (
                "error",
                "unknown_tool",
                "/attachments/0/affordance/opens/tool",
                "'form.sumbit' is neither a declared tool nor a primitive; did you mean 'form.submit'?",
            )
        ],
    ),
    # a name nothing resembles: no suggestion
    (
        with_edits(("/transitions/0/to", "zzz")),
        [("error", "unknown_state", "/transitions/0/to", "state 'zzz' is not declared in this manifest")],
    ),
]


@pytest.mark.parametrize(("document", "expected"), CLOSE_NAMES)
def test_an_unknown_name_says_which_names_are_close(document: object, expected: Report) -> None:
    assert report(document) == expected


def test_did_you_mean_is_difflibs_choice_and_says_nothing_without_one() -> None:
    assert did_you_mean("boardready", ["board_ready", "card_open"]) == "; did you mean 'board_ready'?"
    assert did_you_mean("board_ready", ["board_ready"]) == ""  # the word itself is no suggestion
    assert did_you_mean("x", ["board_ready"]) == ""
    assert did_you_mean(7, ["board_ready"]) == ""  # not a name


# -- an unknown argument says which arguments the primitive's input_schema accepts

TYPE_STEP = {"id": "type", "primitive": "text.insert", "args": {"text": "hello", "selector": "#q"}}
BOUND = {"handler": "pointer.click", "binding": {"arguments": {"x": 1, "y": 2, "selector": "#go"}}}

UNKNOWN_ARGUMENTS = [
    # nothing close: the accepted arguments, in the schema's order
    (
        with_edits((CLICK, TYPE_STEP)),
        [
            (
                "error",
                "primitive_args_invalid",
                f"{CLICK}/args/selector",
                "step 'type': text.insert args: unknown argument 'selector'; the arguments are 'text', 'target' and 'mode'",
            )
        ],
    ),
    # a close one too
    (
        with_edits((f"{CLICK}/args/buton", "left")),
        [
            (
                "error",
                "primitive_args_invalid",
                f"{CLICK}/args/buton",
                "step 'click': pointer.click args: unknown argument 'buton'; the arguments are 'x', 'y', 'button' and 'target'; did you mean 'button'?",
            )
        ],
    ),
    # a primitive of one argument
    (
        with_edits((f"{FIND}/args/near", {"selector": "x"})),
        [
            (
                "error",
                "primitive_args_invalid",
                f"{FIND}/args/near",
                "step 'find': locator.element_info args: unknown argument 'near'; its one argument is 'locator'",
            )
        ],
    ),
    # a primitive of none
    (
        with_edits((f"{CLICK}", {"id": "info", "primitive": "page.info", "args": {"full": True}})),
        [("error", "primitive_args_invalid", f"{CLICK}/args/full", "step 'info': page.info args: unknown argument 'full'; it takes no arguments")],
    ),
    # a camelCase argument: the snake_case one is close
    (
        with_edits((CLICK, {"id": "scroll", "primitive": "viewport.scroll", "args": {"deltaY": 400}})),
        [
            (
                "error",
                "primitive_args_invalid",
                f"{CLICK}/args/deltaY",
                "step 'scroll': viewport.scroll args: unknown argument 'deltaY'; the arguments are 'delta_x' and 'delta_y'; did you mean 'delta_y' or 'delta_x'?",
            )
        ],
    ),
    # a handler's bound arguments: at the arguments object, as before, one problem per unknown argument
    (
        with_edits(("/tools/0/x_actions", BOUND)),
        [
            (
                "error",
                "primitive_args_invalid",
                "/tools/0/x_actions/binding/arguments",
                "tool 'form.submit': bound arguments of pointer.click: unknown argument 'selector'; the arguments are 'x', 'y', 'button' and 'target'",
            )
        ],
    ),
]


@pytest.mark.parametrize(("document", "expected"), UNKNOWN_ARGUMENTS)
def test_an_unknown_argument_says_which_the_primitive_accepts(document: object, expected: Report) -> None:
    assert report(document) == expected
