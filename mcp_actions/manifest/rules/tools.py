"""Tools: the agent-callable actions, their x_actions metadata and legacy execution steps.

A tool needs a safe, unique ``name``, a ``description`` and an
``input_schema`` that is a valid JSON Schema object. An agent-callable tool
(``x_actions.direction`` other than ``html_to_agent``) must also be runnable
(``execution.classify_tool``): a ``handler`` (a page function, or a primitive
of the host's or the map's dictionary, whose ``x_actions.binding.arguments``
must fit that primitive's schema), a ``workflow`` (at the tool or under
``x_actions``, not both), legacy ``x_actions.execution.steps``, or, with none
of these, a name that is a primitive of the host's dictionary or of the map's
own ``primitive_dictionary`` (a host-native tool). In a map that carries a
``primitive_dictionary`` (a host's own map), a host-native tool named in no
dictionary is only a warning: it runs where that host provides it.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from ...bounded_regex import UnsupportedPattern, search
from ...errors import ErrorCode
from ...jsonutil import json_pointer
from ...schema_check import bounded_validator
from ..execution import ExecutionPlan, ToolKind, classify_tool
from ..problems import child_pointer
from ..shape import (
    ANNOTATION_FIELDS,
    BINDING_FIELDS,
    DIRECTIONS,
    EXECUTION_FIELDS,
    EXECUTION_MODES,
    RESULT_SUMMARY_FIELDS,
    SCOPES,
    TOOL_FIELDS,
    X_ACTIONS_FIELDS,
)
from .base import (
    Checks,
    Rules,
    check_enum,
    check_identifier,
    check_keys,
    check_non_negative_integer,
    check_required_identifier,
    check_string,
    check_string_list,
    check_unique_names,
    error,
    json_type,
    object_entries,
    warning,
)
from .hints import accepted_arguments, did_you_mean
from .refs import check_reference
from .schema import check_schema, fast_schema_valid
from .targets import check_target
from .workflow import check_workflow

__all__ = ["check_tools"]

#: Top-level rules about which arguments are present (pointer.click: x and y, or target): bound
#: arguments may leave them to the call, whose own arguments are laid over them.
_PRESENCE_RULES = frozenset({"required", "dependentRequired", "anyOf"})


def _check_execution(execution: Any, path: str, label: str, rules: Rules) -> Checks:
    """Legacy ``x_actions.execution``: a mode and inspectable steps with safe, unique ids."""
    if not isinstance(execution, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{label}: execution must be an object, got {json_type(execution)}")
        return
    execution = yield from check_keys(execution, path, EXECUTION_FIELDS, rules, subject=f"{label} execution")
    yield from check_enum(execution, "mode", path, EXECUTION_MODES)
    yield from check_string(execution, "fallback", path)
    steps = yield from object_entries(execution, "steps", path, what="an execution step")
    for where, step in steps:
        # Legacy steps are documentation-grade (their execution is pending), so their keys stay open.
        yield from check_required_identifier(step, "id", where, missing="execution step: 'id' is required", what="execution step id")
        yield from check_string(step, "type", where)
        for key in ("target", "until"):
            if isinstance(step.get(key), dict):
                yield from check_target(step[key], child_pointer(where, key), rules, what=f"execution step {key}")
            elif key == "target" and key in step:
                yield error(child_pointer(where, key), ErrorCode.INVALID_TYPE, f"execution step target must be an object, got {json_type(step[key])}")
        yield from check_non_negative_integer(step, "timeout_ms", where)
    yield from check_unique_names(steps, "id", "execution step id")


def _check_x_actions(x_actions: Any, path: str, label: str, rules: Rules) -> Checks:
    if not isinstance(x_actions, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{label}: x_actions must be an object, got {json_type(x_actions)}")
        return
    x_actions = yield from check_keys(x_actions, path, X_ACTIONS_FIELDS, rules, subject=f"{label} x_actions")
    yield from check_enum(x_actions, "direction", path, DIRECTIONS)
    yield from check_enum(x_actions, "scope", path, SCOPES)
    if "handler" in x_actions:
        yield from check_identifier(x_actions["handler"], child_pointer(path, "handler"), "handler")
    for key in ("source", "state_machine"):
        if key in x_actions and not isinstance(x_actions[key], dict):
            yield error(child_pointer(path, key), ErrorCode.INVALID_TYPE, f"{label}: x_actions.{key} must be an object, got {json_type(x_actions[key])}")
    if "annotations" in x_actions:
        yield from _check_annotations(x_actions["annotations"], child_pointer(path, "annotations"), label, rules)
    if "confirm" in x_actions and not isinstance(x_actions["confirm"], (bool, str)):
        yield error(child_pointer(path, "confirm"), ErrorCode.INVALID_TYPE, f"{label}: x_actions.confirm must be a boolean or a message, got {json_type(x_actions['confirm'])}")
    if "result_summary" in x_actions:
        yield from _check_result_summary(x_actions["result_summary"], child_pointer(path, "result_summary"), label, rules)
    if "execution" in x_actions:
        yield from _check_execution(x_actions["execution"], child_pointer(path, "execution"), label, rules)
    if "result_schema" in x_actions:
        yield from check_schema(x_actions["result_schema"], child_pointer(path, "result_schema"), "result_schema")
    if "workflow" in x_actions:
        yield from check_workflow(x_actions["workflow"], child_pointer(path, "workflow"), rules)


def _check_annotations(annotations: Any, path: str, label: str, rules: Rules) -> Checks:
    """``x_actions.annotations``: MCP hints that override the derived ones."""
    if not isinstance(annotations, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{label}: x_actions.annotations must be an object, got {json_type(annotations)}")
        return
    annotations = yield from check_keys(annotations, path, ANNOTATION_FIELDS, rules, subject=f"{label} x_actions.annotations")
    for key, value in annotations.items():
        expected = str if key == "title" else bool
        if key in ANNOTATION_FIELDS and not isinstance(value, expected):
            yield error(child_pointer(path, key), ErrorCode.INVALID_TYPE, f"{label}: x_actions.annotations.{key} must be a {'string' if expected is str else 'boolean'}, got {json_type(value)}")


def _check_result_summary(value: Any, path: str, label: str, rules: Rules) -> Checks:
    """``x_actions.result_summary``: ``{"projection": name, "summary": name}``, a declared projection."""
    if not isinstance(value, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{label}: x_actions.result_summary must be an object, got {json_type(value)}")
        return
    # Our own key, so closed: a misspelt field would silently drop the summary otherwise.
    value = yield from check_keys(value, path, RESULT_SUMMARY_FIELDS, rules, subject=f"{label} x_actions.result_summary", closed=True)
    for key in RESULT_SUMMARY_FIELDS:
        if key not in value:
            yield error(child_pointer(path, key), ErrorCode.MISSING_FIELD, f"{label}: x_actions.result_summary.{key} is required")
        elif not isinstance(value[key], str) or not value[key]:
            yield error(child_pointer(path, key), ErrorCode.INVALID_TYPE, f"{label}: x_actions.result_summary.{key} must be a non-empty string")
    if isinstance(value.get("projection"), str) and value["projection"]:
        yield from check_reference(value["projection"], child_pointer(path, "projection"), "projection", rules.index)


def _execution(tool: dict[str, Any], rules: Rules) -> ExecutionPlan | None:
    return classify_tool(tool, host_primitives=rules.primitives, map_primitives=rules.map_primitives, host_published=rules.host_published)


def _primitive_schema(primitive: str, rules: Rules) -> Any:
    """The input_schema of ``primitive``: the host's dictionary first, then the map's own."""
    schema = rules.primitive_schemas.get(primitive)
    return schema if isinstance(schema, dict) else rules.map_primitives.get(primitive)


def _check_binding(binding: Any, path: str, label: str, execution: ExecutionPlan | None, rules: Rules) -> Checks:
    """``x_actions.binding``: an object whose ``arguments`` (an object) fit the handler's primitive.

    The call's own arguments are laid over the bound ones, so a required
    argument may come from either: only the bound arguments that are present are checked.
    """
    if not isinstance(binding, dict):
        yield error(path, ErrorCode.INVALID_TYPE, f"{label}: x_actions.binding must be an object, got {json_type(binding)}")
        return
    binding = yield from check_keys(binding, path, BINDING_FIELDS, rules, subject=f"{label} x_actions.binding")
    if "arguments" not in binding:
        return
    where = child_pointer(path, "arguments")
    arguments = binding["arguments"]
    if not isinstance(arguments, dict):
        yield error(where, ErrorCode.INVALID_TYPE, f"{label}: binding.arguments must be an object, got {json_type(arguments)}")
        return
    if execution is None or execution.kind is not ToolKind.PRIMITIVE_HANDLER or execution.primitive is None:
        return
    schema = _primitive_schema(execution.primitive, rules)
    if not isinstance(schema, dict) or not fast_schema_valid(schema):
        return  # an invalid map dictionary schema is reported at the dictionary
    # On RE2 like every check at run time: a map may import its dictionary from elsewhere.
    try:
        found = list(bounded_validator(Draft202012Validator)(schema).iter_errors(arguments))
    except UnsupportedPattern:
        return  # reported at the dictionary's schema
    for problem in found:
        if problem.validator in _PRESENCE_RULES and not problem.absolute_path:
            continue  # the call may supply what is missing
        prefix = f"{label}: bound arguments of {execution.primitive}: "
        if problem.validator == "additionalProperties" and problem.validator_value is False and not problem.absolute_path:
            # Name each argument the primitive does not take, and those it does.
            properties = schema.get("properties")
            declared = properties if isinstance(properties, dict) else {}
            for key in arguments:
                if key not in declared and not _pattern_named(key, schema):
                    message = f"unknown argument '{key}'; {accepted_arguments(schema)}{did_you_mean(key, declared)}"
                    yield error(where, ErrorCode.PRIMITIVE_ARGS_INVALID, prefix + message)
            continue
        yield error(where + json_pointer(problem.absolute_path), ErrorCode.PRIMITIVE_ARGS_INVALID, prefix + " ".join(problem.message.split())[:200])


def _pattern_named(key: Any, schema: dict[str, Any]) -> bool:
    """Does one of the schema's ``patternProperties`` name ``key``?"""
    patterns = schema.get("patternProperties")
    if not isinstance(patterns, dict) or not isinstance(key, str):
        return False
    try:
        return any(search(pattern, key) for pattern in patterns)
    except (UnsupportedPattern, TypeError):
        return False


def _check_tool(tool: dict[str, Any], path: str, rules: Rules) -> Checks:
    name = tool.get("name")
    label = f"tool {name!r}" if isinstance(name, str) else "tool"
    tool = yield from check_keys(tool, path, TOOL_FIELDS, rules, subject=label)
    yield from check_required_identifier(tool, "name", path, missing="tool: 'name' is required", what="tool name")
    yield from check_string(tool, "description", path, required=True, non_empty=True)
    if "input_schema" not in tool:
        yield error(child_pointer(path, "input_schema"), ErrorCode.MISSING_FIELD, f"{label}: 'input_schema' is required")
    else:
        yield from check_schema(tool["input_schema"], child_pointer(path, "input_schema"), "input_schema")
    if "target" in tool:
        yield from check_target(tool["target"], child_pointer(path, "target"), rules)
    yield from check_string_list(tool, "requires", path)
    if "annotations" in tool and not isinstance(tool["annotations"], dict):
        yield error(child_pointer(path, "annotations"), ErrorCode.INVALID_TYPE, f"annotations must be an object, got {json_type(tool['annotations'])}")
    if "result_schema" in tool:
        yield from check_schema(tool["result_schema"], child_pointer(path, "result_schema"), "result_schema")
    x_actions = tool.get("x_actions")
    if "x_actions" in tool:
        yield from _check_x_actions(x_actions, child_pointer(path, "x_actions"), label, rules)
    if "workflow" in tool:
        yield from check_workflow(tool["workflow"], child_pointer(path, "workflow"), rules)
        if isinstance(x_actions, dict) and "workflow" in x_actions:
            where = child_pointer(child_pointer(path, "x_actions"), "workflow")
            yield error(where, ErrorCode.CONFLICTING_FIELDS, f"{label}: declare the workflow once, at the tool or under x_actions")
    execution = _execution(tool, rules)
    if isinstance(x_actions, dict) and "binding" in x_actions:
        yield from _check_binding(x_actions["binding"], child_pointer(child_pointer(path, "x_actions"), "binding"), label, execution, rules)
    direction = x_actions.get("direction") if isinstance(x_actions, dict) else None
    if direction == "html_to_agent":
        return
    if execution is None:
        yield error(
            path,
            ErrorCode.TOOL_NOT_EXECUTABLE,
            f"{label} has no x_actions.handler, no workflow and no x_actions.execution.steps, and its name is no primitive of the host's dictionary",
        )
    elif not execution.declared_primitive:
        yield warning(
            path,
            ErrorCode.HOST_NATIVE_UNDECLARED,
            f"{label} has no handler or workflow and its name is in no primitive dictionary: it runs only on the host that publishes this map",
        )


def check_tools(document: dict[str, Any], rules: Rules) -> Checks:
    """``tools``: present, an array of well-formed, uniquely named tools."""
    if "tools" not in document:
        yield error("/tools", ErrorCode.MISSING_FIELD, "'tools' is required (an empty array is valid)")
        return
    tools = yield from object_entries(document, "tools", "", what="a tool")
    for where, tool in tools:
        yield from _check_tool(tool, where, rules)
    yield from check_unique_names(tools, "name", "tool name")
