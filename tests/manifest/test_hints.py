"""Messages that say how to fix: fixed values, close names, accepted arguments, snake_case spellings.

Each table case is a small edit of ``base()`` and the *whole* report it gives
(severity, code, path, message), so a hint never comes with a second,
unrelated problem.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.manifest import shape
from mcp_actions.manifest.rules.hints import did_you_mean, snake_case
from mcp_actions.manifest.validate import check_manifest

from .builders import _DELETE, base, edit

TOOL = "/tools/1"
WF = f"{TOOL}/workflow"
FIND = f"{WF}/steps/0"
CLICK = f"{WF}/steps/1"
SNAPSHOT = "/state_projections/0/snapshot"
RENAME = "(actions.json spells its keys in snake_case)"

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


# -- a camelCase key standing for a known snake_case one: one error, at the key as written

CAMEL_CASE = [
    # a tool's inputSchema: not an unknown_field warning beside a missing input_schema
    (
        with_edits((f"{TOOL}/input_schema", _DELETE), (f"{TOOL}/inputSchema", {"type": "object"})),
        [("error", "field_not_allowed", f"{TOOL}/inputSchema", f"tool 'form.click': rename 'inputSchema' to 'input_schema' {RENAME}")],
    ),
    # ... PascalCase is read the same way
    (
        with_edits((f"{TOOL}/input_schema", _DELETE), (f"{TOOL}/InputSchema", {"type": "object"})),
        [("error", "field_not_allowed", f"{TOOL}/InputSchema", f"tool 'form.click': rename 'InputSchema' to 'input_schema' {RENAME}")],
    ),
    # ... and what is wrong inside it is reported where it is written
    (
        with_edits((f"{TOOL}/input_schema", _DELETE), (f"{TOOL}/inputSchema", {"type": "objec"})),
        [
            ("error", "field_not_allowed", f"{TOOL}/inputSchema", f"tool 'form.click': rename 'inputSchema' to 'input_schema' {RENAME}"),
            ("error", "invalid_schema", f"{TOOL}/inputSchema/type", "input_schema: 'objec' is not valid under any of the given schemas (metaschema keyword 'anyOf')"),
        ],
    ),
    # an optional member (it used to be a warning only, and the schema was silently left out)
    (
        with_edits((f"{TOOL}/resultSchema", {"type": "object"})),
        [("error", "field_not_allowed", f"{TOOL}/resultSchema", f"tool 'form.click': rename 'resultSchema' to 'result_schema' {RENAME}")],
    ),
    # xActions: not tool_not_executable as well; and a camelCase key inside it, pointed at through both
    (
        with_edits(("/tools/0/x_actions", _DELETE), ("/tools/0/xActions", {"handler": "form.submit", "resultSummary": {"projection": "site.board", "summary": "counts"}})),
        [
            ("error", "field_not_allowed", "/tools/0/xActions", f"tool 'form.submit': rename 'xActions' to 'x_actions' {RENAME}"),
            (
                "error",
                "field_not_allowed",
                "/tools/0/xActions/resultSummary",
                f"tool 'form.submit' x_actions: rename 'resultSummary' to 'result_summary' {RENAME}",
            ),
        ],
    ),
    # a workflow's expressionLanguage: not a missing expression_language as well
    (
        with_edits((f"{WF}/expression_language", _DELETE), (f"{WF}/expressionLanguage", "jsonata")),
        [("error", "field_not_allowed", f"{WF}/expressionLanguage", f"workflow: rename 'expressionLanguage' to 'expression_language' {RENAME}")],
    ),
    # a step's forEach: not an unpaired max_items as well
    (
        with_edits((f"{FIND}/forEach", "{% [1, 2] %}"), (f"{FIND}/max_items", 2)),
        [("error", "field_not_allowed", f"{FIND}/forEach", f"step 'find': rename 'forEach' to 'for_each' {RENAME}")],
    ),
    # a step's maxItems: not a missing max_items as well
    (
        with_edits((f"{FIND}/for_each", "{% [1, 2] %}"), (f"{FIND}/maxItems", 2)),
        [("error", "field_not_allowed", f"{FIND}/maxItems", f"step 'find': rename 'maxItems' to 'max_items' {RENAME}")],
    ),
    # settle_after's delayMs: not "needs exactly one of locator and delay_ms" as well
    (
        with_edits((f"{CLICK}/settle_after", {"delayMs": 300})),
        [("error", "field_not_allowed", f"{CLICK}/settle_after/delayMs", f"step 'click' settle_after: rename 'delayMs' to 'delay_ms' {RENAME}")],
    ),
    # a summary's maxBytes: not a missing max_bytes as well
    (
        with_edits(("/state_projections/0/summaries/0/max_bytes", _DELETE), ("/state_projections/0/summaries/0/maxBytes", 2000)),
        [
            (
                "error",
                "field_not_allowed",
                "/state_projections/0/summaries/0/maxBytes",
                f"summary 'counts': rename 'maxBytes' to 'max_bytes' {RENAME}",
            )
        ],
    ),
    # the root's stateProjections: its projections are read, so a postcondition naming one resolves
    (
        with_edits(("/stateProjections", base()["state_projections"]), ("/state_projections", _DELETE), (f"{WF}/postcondition", "site.board")),
        [("error", "field_not_allowed", "/stateProjections", f"manifest: rename 'stateProjections' to 'state_projections' {RENAME}")],
    ),
    # an assertion target's textEquals: not "needs a selector …" as well
    (
        with_edits(("/checks/0/assertions/0/target", {"textEquals": "Sent"})),
        [("error", "field_not_allowed", "/checks/0/assertions/0/target/textEquals", f"target: rename 'textEquals' to 'text_equals' {RENAME}")],
    ),
    # composition's namespaceRequired: false is read, so an import without a namespace is fine
    (
        with_edits(("/composition", {"namespaceRequired": False}), ("/imports", [{"id": "shop", "kind": "local", "uri": "shop.json"}])),
        [("error", "field_not_allowed", "/composition/namespaceRequired", f"composition: rename 'namespaceRequired' to 'namespace_required' {RENAME}")],
    ),
    # both spellings: the snake_case one is the member, the other an unknown field saying so
    (
        with_edits((f"{TOOL}/inputSchema", {"type": "object"})),
        [("warning", "unknown_field", f"{TOOL}/inputSchema", "tool 'form.click': unknown field 'inputSchema' ('input_schema' is given too: keep one)")],
    ),
    # a camelCase key that stands for no known key is an unknown field as before
    (
        with_edits((f"{TOOL}/inputForm", {})),
        [("warning", "unknown_field", f"{TOOL}/inputForm", "tool 'form.click': unknown field 'inputForm'")],
    ),
]


@pytest.mark.parametrize(("document", "expected"), CAMEL_CASE)
def test_a_camel_case_key_is_one_error_saying_to_rename_it(document: object, expected: Report) -> None:
    assert report(document) == expected


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.capitalize() for word in rest)


def test_every_snake_case_key_of_shape_is_recognised_in_camel_case() -> None:
    key_sets = [value for name, value in vars(shape).items() if name.endswith("_FIELDS") and isinstance(value, tuple)]
    keys = {key for key_set in key_sets for key in key_set if "_" in key.strip("_")}
    assert {"input_schema", "x_actions", "result_schema", "expression_language", "max_items", "state_projections"} <= keys
    assert {key: snake_case(_camel(key)) for key in keys} == {key: key for key in keys}
    assert [snake_case(key) for key in ("input_schema", "name", "$schema", 7)] == [None, None, None, None]  # nothing to rename
    assert [snake_case(key) for key in ("URLContains", "timeoutMS", "xActions")] == ["url_contains", "timeout_ms", "x_actions"]


def _rich_map() -> dict[str, Any]:
    """``base()`` with a member under most snake_case keys of shape.py (a valid map)."""
    document: dict[str, Any] = base()
    document["composition"] = {"default_conflict_policy": "prefer_local", "namespace_required": True}
    tool = document["tools"][0]
    tool["result_schema"] = {"type": "object"}
    tool["x_actions"].update({"result_summary": {"projection": "site.board", "summary": "counts"}, "result_schema": {"type": "object"}})
    steps = document["tools"][1]["workflow"]["steps"]
    steps[0].update({"for_each": "{% [1, 2] %}", "max_items": 2, "on_error": "continue", "timeout_ms": 100})
    steps[1].update({"retry_until": "{% true %}", "max_attempts": 2, "after_each": {"primitive": "page.info"}})
    steps[1]["settle_after"] = {"delay_ms": 300}
    document["transitions"][0].update({"rate_limit_ms": 10, "do_not_use": "while busy"})
    document["context"][0]["next_states"] = ["form_submitted"]
    document["checks"][0].update({"on_fail": {}, "expected_result": {}})
    document["checks"][0]["assertions"][0]["target"] = {"text_equals": "Sent", "fallback_selectors": ["form"], "url_contains": "/contact"}
    return document


def _snake_case_members() -> list[tuple[str, str]]:
    """``(pointer of an object, its key)`` for every key of ``_rich_map()`` a shape.py key set declares with an underscore."""
    declared = {key for name, value in vars(shape).items() if name.endswith("_FIELDS") and isinstance(value, tuple) for key in value}
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(_rich_map(), "")]
    while stack:
        node, pointer = stack.pop()
        members = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in members:
            if isinstance(key, str) and key in declared and "_" in key:
                found.append((pointer, key))
            if isinstance(key, str) and key.endswith("_schema"):
                continue  # a JSON Schema's own keys are not the map's
            stack.append((value, f"{pointer}/{key}"))
    return sorted(found)


def test_the_rich_map_is_valid_and_holds_many_snake_case_keys() -> None:
    assert report(_rich_map()) == []
    assert len({key for _pointer, key in _snake_case_members()}) >= 20


@pytest.mark.parametrize(("pointer", "key"), _snake_case_members())
def test_any_snake_case_key_written_in_camel_case_is_one_error_at_it(pointer: str, key: str) -> None:
    document = edit(_rich_map(), f"{pointer}/{key}")
    written = _camel(key)
    value = _rich_map()
    for token in pointer.split("/")[1:]:
        value = value[int(token)] if isinstance(value, list) else value[token]
    document = edit(document, f"{pointer}/{written}", value[key])
    ((severity, code, path, message),) = report(document)
    assert (severity, code, path) == ("error", "field_not_allowed", f"{pointer}/{written}")
    assert message.endswith(f"rename '{written}' to '{key}' {RENAME}")
