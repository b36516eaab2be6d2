"""A map tool from recorded steps: the workflow a person would write to repeat them with other values.

Each step becomes a wait for its element (pages render late and re-render
lists on every change) and the action on a locator (``pointer.click`` with
``target``, ``text.insert`` in ``replace`` mode, ``keyboard.press`` on the
element the step before acted on, ``locator.select`` for a chosen option,
``locator.set_value`` for a date, time, range or color input, ``pointer.move``
to the element's centre for a hover). What the page did is learned from the
texts the journal counted around the action, in the manifest's own
vocabulary: a text that appeared becomes the step's ``settle_after`` (wait
until it is visible: a watched text whole, else the like of a line the change
report listed, with the arguments in it and what varies by itself left out,
``settle.py``), a row that went becomes a ``locator.probe`` step retried until
it is gone. The tool answers what its call changed, as the acting page tools
do: the workflow marks the page before its first action and its output is the
change report at the end (``answer.py``). Every parameter must appear in some
step, and every step must be repeatable: otherwise ``UnlearnableStep`` says
which and why, and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from ..manifest.limits import DEFAULT_LIMITS
from .answer import RESULT_SCHEMA, with_change_report
from .locators import Parameters, UnlearnableStep, argument_slot, learned_locator, learned_text, literal
from .secrets import assert_no_secret
from .settle import appeared_settle
from .steps import ActStep

__all__ = ["MAX_LEARNED_STEPS", "learn_tool"]

#: Acting calls one tool may repeat (each becomes two to four workflow steps; a workflow holds at most 25).
MAX_LEARNED_STEPS = 8
#: How long a learned step waits for its element (late rendering) and for what it makes appear.
WAIT_MS = 5000
SETTLE_MS = 3000
#: Attempts (each after the DOM settles) to see a row go.
GONE_ATTEMPTS = 10


def _step_error(index: int, step: ActStep, reason: str) -> UnlearnableStep:
    return UnlearnableStep(f"step {index} ({step.tool.replace('.', '_')}): {reason}")


def _text_locator(text: str, parameters: Parameters) -> dict[str, Any]:
    """Where a watched text shows: innermost elements whose text is exactly it (the argument when it is one)."""
    for name, value in parameters.items():
        if value == text:
            return {"text_equals": argument_slot(name)}
    return {"text_equals": literal(text)}


def _effects(step: ActStep) -> tuple[list[str], list[str]]:
    """The watched texts the step made appear and made go."""
    before, after = step.texts_before, step.texts_after
    if not after:
        return [], []
    appeared = [t for t, n in after.items() if n > 0 and before.get(t, 0) == 0]
    gone = [t for t, n in before.items() if n > 0 and t in after and after[t] == 0]
    return appeared, gone


#: Input types whose value is set, not typed (the page engine's observe_values.js VALUE_TYPES).
VALUE_INPUT_TYPES = frozenset({"date", "time", "datetime-local", "month", "week", "range", "color"})


def _acting_steps(step: ActStep, sid: str, locator: dict[str, Any], parameters: Parameters, used: set[str], *, same_element: bool) -> list[dict[str, Any]]:
    """The workflow steps that repeat one acting call on ``locator`` (``same_element``: the call before acted on it too)."""
    wait = {"id": f"{sid}_find", "primitive": "locator.wait_for", "args": {"locator": locator, "state": "visible", "timeout_ms": WAIT_MS}}
    element = step.element or {}
    if step.tool == "page.click":
        return [wait, {"id": f"{sid}_click", "primitive": "pointer.click", "args": {"target": locator}}]
    if step.tool == "page.select" or (step.tool == "page.fill" and element.get("tag") == "select"):
        # page_select, or page_fill naming a <select>: its option is chosen, not typed.
        chosen = step.arguments.get("values") or [step.arguments.get("text", "")]
        values = [learned_text(str(v), parameters, used) for v in chosen]
        return [wait, {"id": f"{sid}_select", "primitive": "locator.select", "args": {"locator": locator, "values": values}}]
    if step.tool == "page.fill":
        text = learned_text(str(step.arguments.get("text", "")), parameters, used)
        if element.get("tag") == "input" and element.get("type") in VALUE_INPUT_TYPES:
            # A date, time, range or color input takes its value, never typed keys (page_fill set it so too).
            return [wait, {"id": f"{sid}_fill", "primitive": "locator.set_value", "args": {"locator": locator, "value": text}}]
        return [wait, {"id": f"{sid}_fill", "primitive": "text.insert", "args": {"target": locator, "text": text, "mode": "replace"}}]
    if step.tool == "page.press":
        press = {"id": f"{sid}_press", "primitive": "keyboard.press", "args": {"key": literal(str(step.arguments.get("key", "")))}}
        if same_element:
            return [press]
        if not element.get("editable"):
            raise UnlearnableStep("a key pressed on an element no earlier step reached; click or fill it first, then save from there")
        # A person clicks into a field before typing a key there.
        return [wait, {"id": f"{sid}_focus", "primitive": "pointer.click", "args": {"target": locator}}, press]
    if step.tool == "page.hover":
        # The pointer moves to the element's clickable centre, as locator.element_info reports it.
        centre = "{% steps." + sid + "_box.output.clickable_center."
        return [
            wait,
            {"id": f"{sid}_box", "primitive": "locator.element_info", "args": {"locator": locator}},
            {"id": f"{sid}_hover", "primitive": "pointer.move", "args": {"x": centre + "x %}", "y": centre + "y %}"}},
        ]
    raise UnlearnableStep(f"{step.tool.replace('.', '_')} cannot be saved as a step yet")


def _with_effects(steps: list[dict[str, Any]], step: ActStep, sid: str, parameters: Parameters) -> list[dict[str, Any]]:
    """The acting steps with what the page did learned: settle on a text that appeared, a probe until a row went."""
    appeared, gone = _effects(step)
    if appeared:
        # Prefer a text that is an argument: it is what the next call makes appear.
        chosen = next((t for t in appeared if t in parameters.values()), appeared[0])
        steps[-1]["settle_after"] = {"locator": _text_locator(chosen, parameters), "state": "visible", "timeout_ms": SETTLE_MS}
    elif (line := appeared_settle(step.appeared, parameters)) is not None:
        # No watched text appeared whole, but a line did (a confirmation naming the values, with a
        # reference number): wait for its like, the call's arguments in it and what varies left out.
        steps[-1]["settle_after"] = {"locator": line, "state": "visible", "timeout_ms": SETTLE_MS}
    for n, text in enumerate(gone[:1]):
        gid = f"{sid}_gone{n}"
        steps.append(
            {
                "id": gid,
                "primitive": "locator.probe",
                "args": {"probes": [{"locator": _text_locator(text, parameters)}]},
                "retry_until": "{% steps." + gid + ".output.results[0].matched = false %}",
                "max_attempts": GONE_ATTEMPTS,
                "description": "the row the step removes is gone",
            }
        )
    return steps


def learn_tool(steps: Sequence[ActStep], *, name: str, description: str, parameters: Parameters, secrets: Collection[str] = ()) -> dict[str, Any]:
    """The actions.json tool that repeats ``steps`` with each parameter value as its argument.

    ``secrets``: the parameters whose values are secret (``secrets.py``): their schemas show no example,
    and no string of the tool may hold their values. Raises ``UnlearnableStep`` naming the step and the
    reason (a step with nothing to find its element by, a key press on an element no earlier step
    reached, a parameter that appears in no step, a secret value the tool would still hold).
    """
    acting = sum(not step.boundary for step in steps)
    if not acting:
        raise UnlearnableStep("there is no acting call to save on this tab since its last navigation")
    if acting > MAX_LEARNED_STEPS:
        raise UnlearnableStep(f"{acting} steps are more than one tool repeats ({MAX_LEARNED_STEPS}); save fewer with `steps`")
    used: set[str] = set()
    workflow: list[dict[str, Any]] = []
    previous: str | None = None  # the locator (as JSON) the step before acted on: a key press goes there
    number = 0  # the acting call's number, as the agent counts its calls
    for index, step in enumerate(steps, start=1):
        if step.boundary:
            # A browser_navigate between the steps: the tool opens the same page there.
            if not step.url.startswith(("http://", "https://")):
                raise UnlearnableStep(f"a browser_navigate between the steps has no page address to open again ({step.url!r})")
            workflow.append({"id": f"s{index}_open", "primitive": "browser.navigate", "args": {"url": literal(step.url)}})
            previous = None
            continue
        number += 1
        try:
            if step.element is None:
                raise UnlearnableStep(step.why_not or "its element could not be described")
            locator = learned_locator(step.element, parameters, used)
            key = json.dumps(locator, sort_keys=True)
            sid = f"s{index}"
            workflow += _with_effects(_acting_steps(step, sid, locator, parameters, used, same_element=key == previous), step, sid, parameters)
        except UnlearnableStep as exc:
            raise _step_error(number, step, str(exc)) from None
        previous = key
    workflow, output = with_change_report(workflow)
    if len(workflow) > DEFAULT_LIMITS.max_steps:
        raise UnlearnableStep(f"these steps make {len(workflow)} workflow steps, more than a workflow holds ({DEFAULT_LIMITS.max_steps}); save fewer with `steps`")
    unused = [p for p in parameters if p not in used]
    if unused:
        raise UnlearnableStep(f"parameter {unused[0]!r} ({parameters[unused[0]]!r}) appears in none of the steps: not typed, chosen, nor the text of a row a click was in")
    tool = {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {p: _argument_schema(v, secret=p in secrets) for p, v in parameters.items()},
            "required": list(parameters),
            "additionalProperties": False,
        },
        "workflow": {"version": 1, "expression_language": "jsonata", "steps": workflow, "output": output},
        "result_schema": RESULT_SCHEMA,
        "x_actions": {"annotations": {"title": description[:80], "readOnlyHint": False, "openWorldHint": True}},
    }
    assert_no_secret(tool, parameters, secrets)
    return tool


def _argument_schema(value: str, *, secret: bool) -> dict[str, Any]:
    """A learned argument's schema: a string, with the value it stood for as an example unless that value is a secret."""
    if secret:
        return {"type": "string", "writeOnly": True, "description": "a secret (a password, a code): never written into the map"}
    return {"type": "string", "description": f"for example {value!r}"}
