"""Legacy ``x_actions.execution`` steps, run by translating them to a workflow over primitives.

Maps written before workflows existed describe execution as abstract steps
(the spec's earlier draft, still published in the simple-form example)::

    {"mode": "handler_first", "steps": [
        {"id": "inspect_name_input", "type": "inspect", "target": {...}, "assert": {"visible": true}},
        {"id": "type_name", "type": "type", "target": {...}, "value_from": "name"},
        {"id": "click_submit", "type": "click", "target": {...}},
        {"id": "wait_for_result", "type": "wait", "until": {...}, "timeout_ms": 2000},
        {"id": "extract_result", "type": "extract", "target": {...}, "as": "result"}]}

``translate_execution`` turns them into a ``CompiledWorkflow`` so they run in
the one interpreter (deadlines, progress, failures naming step and phase):

- ``inspect``  -> ``locator.element_info``; each ``assert`` key (``visible``,
  ``enabled``, ``editable``, ``in_viewport``, ``text_contains``,
  ``text_equals``) must hold, else ``state_mismatch``.
- ``type``     -> ``text.insert`` (mode ``replace``) of ``input.<value_from>``
  (a dotted path into the call's arguments) or of a literal ``value``.
- ``click``    -> ``locator.element_info`` then ``pointer.click`` at its
  ``clickable_center`` (two steps, ``<id>__locate`` and ``<id>``).
- ``wait``     -> ``locator.wait_for`` of ``until`` (or ``target``), state
  ``visible``, bounded by the step's ``timeout_ms`` (default 5000).
- ``extract``  -> ``locator.text_content``; its text is returned under ``as``
  (default: the step id).

The output is ``{"ok": true, <as>: <text>, ...}``. A target's descriptor
fields that do not locate (``state``, ``confidence``, ``notes``, URL
predicates) are dropped from the locator.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.expressions import compile_expression
from .compiled import CompiledStep, CompiledWorkflow

__all__ = ["LEGACY_STEP_TYPES", "translate_execution", "execution_steps"]

LEGACY_STEP_TYPES = ("inspect", "type", "click", "wait", "extract")
#: Target descriptor fields that are not part of a locator.
_NOT_LOCATING = frozenset({"state", "confidence", "notes", "url_contains", "url_matches"})
_ASSERTABLE = {"visible", "enabled", "editable", "in_viewport"}
_DEFAULT_WAIT_MS = 5000


def execution_steps(execution: Any) -> list[dict[str, Any]]:
    """The legacy steps of an ``x_actions.execution`` object (empty when there are none)."""
    if not isinstance(execution, dict) or not isinstance(execution.get("steps"), list):
        return []
    return [step for step in execution["steps"] if isinstance(step, dict)]


def translate_execution(execution: dict[str, Any]) -> CompiledWorkflow:
    """Translate legacy execution steps into a workflow; ``workflow_invalid`` names a step it cannot run."""
    steps: list[CompiledStep] = []
    extracted: list[tuple[str, str]] = []
    for position, raw in enumerate(execution_steps(execution)):
        step_id = str(raw.get("id") or f"step{position}")
        kind = raw.get("type")
        timeout_ms = raw.get("timeout_ms") if isinstance(raw.get("timeout_ms"), int) else None
        if kind == "inspect":
            steps.append(CompiledStep(step_id, "locator.element_info", {"locator": _locator(raw, "target")},
                                      check=_assertion(step_id, raw.get("assert")), timeout_ms=timeout_ms))
        elif kind == "type":
            steps.append(CompiledStep(step_id, "text.insert",
                                      {"text": _value(raw), "target": _locator(raw, "target"), "mode": "replace"},
                                      timeout_ms=timeout_ms))
        elif kind == "click":
            locate = f"{step_id}__locate"
            center = f"steps.{_quote(locate)}.output.clickable_center"
            steps.append(CompiledStep(locate, "locator.element_info", {"locator": _locator(raw, "target")}, timeout_ms=timeout_ms))
            steps.append(CompiledStep(step_id, "pointer.click", {"x": f"{{% {center}.x %}}", "y": f"{{% {center}.y %}}"},
                                      timeout_ms=timeout_ms))
        elif kind == "wait":
            wait_ms = timeout_ms if timeout_ms is not None else _DEFAULT_WAIT_MS
            key = "until" if isinstance(raw.get("until"), dict) else "target"
            steps.append(CompiledStep(step_id, "locator.wait_for",
                                      {"locator": _locator(raw, key), "state": "visible", "timeout_ms": wait_ms},
                                      check=compile_expression(f"steps.{_quote(step_id)}.output.matched = true"),
                                      # The wait bounds itself; leave it a little room to answer.
                                      timeout_ms=wait_ms + 1000))
        elif kind == "extract":
            steps.append(CompiledStep(step_id, "locator.text_content", {"locator": _locator(raw, "target")}, timeout_ms=timeout_ms))
            extracted.append((str(raw.get("as") or step_id), step_id))
        else:
            raise ActionError(
                f"legacy execution step {step_id!r} has type {kind!r}; this runtime runs {', '.join(LEGACY_STEP_TYPES)}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"step": step_id, "type": kind, "capability": "x_actions.execution"},
            )
    if not steps:
        raise ActionError("x_actions.execution has no steps", code=ErrorCode.CAPABILITY_UNAVAILABLE,
                          evidence={"capability": "x_actions.execution"})
    fields = ["'ok': true"] + [f"{json.dumps(name)}: steps.{_quote(sid)}.output.text" for name, sid in extracted]
    return CompiledWorkflow(tuple(steps), output="{% {" + ", ".join(fields) + "} %}", has_output=True)


def _locator(raw: dict[str, Any], key: str) -> dict[str, Any]:
    target = raw.get(key)
    if not isinstance(target, dict):
        raise ActionError(f"legacy step {raw.get('id')!r} needs a {key}", code=ErrorCode.MANIFEST_INVALID,
                          evidence={"step": raw.get("id"), "field": key})
    return {name: value for name, value in target.items() if name not in _NOT_LOCATING}


def _value(raw: dict[str, Any]) -> Any:
    """The text a ``type`` step types: the argument at ``value_from`` or a literal ``value``."""
    source = raw.get("value_from")
    if isinstance(source, str) and source:
        path = ".".join(_quote(part) for part in source.split("."))
        # $string: a number argument types as its text; a missing one fails text.insert loudly.
        return f"{{% $exists(input.{path}) ? $string(input.{path}) : null %}}"
    return raw.get("value", "")


def _assertion(step_id: str, expected: Any) -> Any:
    """A JSONata condition over ``locator.element_info``'s output for an ``inspect`` step's ``assert``."""
    if not isinstance(expected, dict) or not expected:
        return None
    output = f"steps.{_quote(step_id)}.output"
    terms = []
    for key, value in expected.items():
        if key in _ASSERTABLE:
            terms.append(f"{output}.{key} = {json.dumps(bool(value))}")
        elif key == "text_contains":
            terms.append(f"$contains({output}.text, {json.dumps(str(value))})")
        elif key == "text_equals":
            terms.append(f"$trim({output}.text) = {json.dumps(str(value))}")
    return compile_expression(" and ".join(terms)) if terms else None


def _quote(name: str) -> str:
    """A JSONata field reference (backticks for ids with dashes)."""
    return name if name.replace("_", "a").isalnum() and not name[0].isdigit() else f"`{name}`"
