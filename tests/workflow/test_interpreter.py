"""The workflow interpreter, driven against a small deterministic fake page.

``FakePage`` is a test double of the *page* (elements with boxes, a scrolling
viewport, an input's value), not of our code: its ``call`` method is a real
``PrimitiveCaller`` that the interpreter drives exactly as it drives the
bridge.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from mcp_actions.deadline import Deadline
from mcp_actions.errors import ActionError, WorkflowError
from mcp_actions.manifest.expressions import ExpressionSyntaxError
from mcp_actions.manifest.model import Workflow
from mcp_actions.workflow.interpreter import (
    CompiledWorkflow,
    StepEvent,
    WorkflowLimits,
    jsonata_truthy,
    run_workflow,
)

VIEWPORT_HEIGHT = 600


class FakePage:
    """A page of named elements (by CSS selector) that primitives read and change.

    An element: ``x, y, width, height`` (document coordinates), ``hidden``,
    ``editable``, ``value``, ``text``, ``reveals`` (``(selector, after_ms)``
    un-hidden after a click) and ``missing_for`` (lookups that fail before the
    element is attached, as when a list renders late).
    """

    def __init__(self, elements: dict[str, dict[str, Any]] | None = None, *, enforces_call_timeouts: bool = False) -> None:
        # Like the bridge, answer handler_timeout when a call's timeout_ms runs out
        # (a little early, as a rounded-down bridge timer does).
        self.enforces_call_timeouts = enforces_call_timeouts
        self.elements = {
            selector: {"x": 10, "y": 10, "width": 100, "height": 20, "hidden": False, "value": "", **element}
            for selector, element in (elements or {}).items()
        }
        self.scroll_y = 0
        self.calls: list[tuple[str, dict[str, Any], int | None]] = []
        self.clicks: list[str] = []
        self.cancelled: list[str] = []
        self.in_flight = 0

    async def call(self, name: str, args: dict[str, Any], timeout_ms: int | None) -> Any:
        """The PrimitiveCaller: dispatch ``name`` to this page's implementation."""
        self.calls.append((name, args, timeout_ms))
        handler = getattr(self, "_" + name.replace(".", "_"), None)
        if handler is None:
            raise ActionError(f"no primitive {name}", code="unknown_action", recoverable=False)
        self.in_flight += 1
        try:
            if self.enforces_call_timeouts and timeout_ms is not None:
                try:
                    return await asyncio.wait_for(handler(**args), max(timeout_ms - 5, 0) / 1000)
                except TimeoutError:
                    raise ActionError("call timed out", code="handler_timeout") from None
            return await handler(**args)
        except asyncio.CancelledError:
            self.cancelled.append(name)
            raise
        finally:
            self.in_flight -= 1

    def names(self) -> list[str]:
        return [name for name, _, _ in self.calls]

    # -- page model ------------------------------------------------------

    def _find(self, locator: dict[str, Any]) -> dict[str, Any]:
        selector = locator.get("selector")
        element = self.elements.get(selector)
        if element is not None and element.get("missing_for", 0) > 0:
            element["missing_for"] -= 1
            element = None
        if element is None:
            raise ActionError(f"nothing matches {selector}", code="target_not_found", evidence={"selector": selector})
        return element

    def _visible(self, element: dict[str, Any]) -> bool:
        top = element["y"] - self.scroll_y
        return not element["hidden"] and 0 <= top <= VIEWPORT_HEIGHT - element["height"]

    # -- primitives ------------------------------------------------------

    async def _locator_element_info(self, locator: dict[str, Any]) -> dict[str, Any]:
        element = self._find(locator)
        box = {"x": element["x"], "y": element["y"] - self.scroll_y, "width": element["width"], "height": element["height"]}
        center = {"x": box["x"] + box["width"] // 2, "y": box["y"] + box["height"] // 2}
        return {"visible": self._visible(element), "bounding_box": box, "clickable_center": center}

    async def _locator_text_content(self, locator: dict[str, Any]) -> dict[str, Any]:
        return {"text": self._find(locator).get("text", "")}

    async def _pointer_click(self, x: float, y: float, button: str = "left") -> dict[str, Any]:
        for selector, element in self.elements.items():
            top = element["y"] - self.scroll_y
            inside = element["x"] <= x <= element["x"] + element["width"] and top <= y <= top + element["height"]
            if inside and self._visible(element):
                self.clicks.append(selector)
                if "reveals" in element:
                    revealed, after_ms = element["reveals"]
                    asyncio.get_running_loop().call_later(after_ms / 1000, self._reveal, revealed)
                return {"clicked": True}
        raise ActionError("no visible element at point", code="target_not_found", evidence={"x": x, "y": y})

    def _reveal(self, selector: str) -> None:
        self.elements[selector]["hidden"] = False

    async def _viewport_scroll(self, delta_x: float = 0, delta_y: float = 0) -> dict[str, Any]:
        self.scroll_y = max(0, self.scroll_y + delta_y)
        return {"scroll_x": 0, "scroll_y": self.scroll_y}

    async def _text_insert(self, text: str, target: dict[str, Any] | None = None, mode: str = "append") -> dict[str, Any]:
        element = self._find(target or {})
        if not element.get("editable"):
            raise ActionError("target is not editable", code="target_not_editable", recoverable=False)
        element["value"] = text if mode == "replace" else element["value"] + text
        return {"inserted": True, "inserted_length": len(text)}

    async def _locator_wait_for(self, locator: dict[str, Any], state: str = "visible", timeout_ms: int = 30_000) -> dict[str, Any]:
        give_up = time.monotonic() + timeout_ms / 1000
        while True:
            element = self.elements.get(locator.get("selector"))
            if element is not None and (state == "attached" or self._visible(element)):
                return {"matched": True}
            if time.monotonic() >= give_up:
                raise ActionError(f"{locator} not {state} within {timeout_ms} ms", code="timeout")
            await asyncio.sleep(0.005)


def workflow(*steps: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A workflow object with the required root fields."""
    return {"version": 1, "expression_language": "jsonata", "steps": list(steps), **root}


async def run(raw: dict[str, Any], page: FakePage, input: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    return await run_workflow(CompiledWorkflow.compile(raw), input or {}, page.call, **kwargs)


def other_tasks() -> list[asyncio.Task[Any]]:
    return [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]


FORM = {
    "#name": {"y": 100, "editable": True},
    "button[type='submit']": {"x": 200, "y": 300, "width": 80, "height": 30, "reveals": ("[data-confirmation]", 30)},
    "[data-confirmation]": {"y": 400, "hidden": True, "text": "Thanks!"},
}


WAIT_FOREVER = {"id": "wait", "primitive": "locator.wait_for",
                "args": {"locator": {"selector": "#never"}, "timeout_ms": 60_000}}
FILL = {"id": "fill", "primitive": "text.insert", "args": {"text": "x", "target": {"selector": "#name"}}}


# -- slot rendering -------------------------------------------------------

@pytest.mark.parametrize(
    ("steps", "input", "expected_calls"),
    [
        # A slot reads the tool input; the literal target passes through untouched.
        (
            [{"id": "fill", "primitive": "text.insert",
              "args": {"text": "{% input.name %}", "target": {"selector": "#name"}}}],
            {"name": "Ada"},
            [("text.insert", {"text": "Ada", "target": {"selector": "#name"}})],
        ),
        # Slots at any depth, including inside arrays and nested objects.
        (
            [{"id": "fill", "primitive": "text.insert",
              "args": {"text": "{% $join(input.parts, ' ') %}", "target": {"selector": "{% input.field %}"}}}],
            {"parts": ["Ada", "Lovelace"], "field": "#name"},
            [("text.insert", {"text": "Ada Lovelace", "target": {"selector": "#name"}})],
        ),
        # The spec's own example: a later step reads an earlier step's output.
        (
            [{"id": "findButton", "primitive": "locator.element_info",
              "args": {"locator": {"selector": "button[type='submit']"}}},
             {"id": "clickButton", "primitive": "pointer.click",
              "args": {"x": "{% steps.findButton.output.clickable_center.x %}",
                       "y": "{% steps.findButton.output.clickable_center.y %}"}}],
            {},
            [("locator.element_info", {"locator": {"selector": "button[type='submit']"}}),
             ("pointer.click", {"x": 240, "y": 315})],
        ),
        # A step may render a whole object from one slot (and an absent args means {}).
        (
            [{"id": "scroll", "primitive": "viewport.scroll", "args": {"delta_y": "{% input.by * 2 %}"}},
             {"id": "again", "primitive": "viewport.scroll"}],
            {"by": 50},
            [("viewport.scroll", {"delta_y": 100}), ("viewport.scroll", {})],
        ),
    ],
)
async def test_args_slots_render_against_input_and_steps(steps, input, expected_calls) -> None:
    page = FakePage(FORM)
    await run(workflow(*steps), page, input)
    assert [(name, args) for name, args, _ in page.calls] == expected_calls


async def test_spec_example_clicks_and_settles_on_the_confirmation() -> None:
    page = FakePage(FORM)
    raw = workflow(
        {"id": "findButton", "primitive": "locator.element_info", "args": {"locator": {"selector": "button[type='submit']"}}},
        {"id": "clickButton", "primitive": "pointer.click",
         "args": {"x": "{% steps.findButton.output.clickable_center.x %}", "y": "{% steps.findButton.output.clickable_center.y %}"},
         "settle_after": {"locator": {"selector": "[data-confirmation]"}, "state": "visible", "timeout_ms": 8000}},
        {"id": "confirm", "primitive": "locator.text_content", "args": {"locator": {"selector": "[data-confirmation]"}}},
        output="{% {'clicked': true, 'button': steps.findButton.output.visible, "
               "'settled': steps.clickButton.settled, 'says': steps.confirm.output.text} %}",
    )
    assert await run(raw, page) == {"clicked": True, "button": True, "settled": True, "says": "Thanks!"}
    assert page.clicks == ["button[type='submit']"]


# -- when -----------------------------------------------------------------

@pytest.mark.parametrize(
    ("when", "input", "runs"),
    [
        ("{% input.subscribe %}", {"subscribe": True}, True),  # truthy field runs the step
        ("{% input.subscribe %}", {"subscribe": False}, False),  # false skips it
        ("{% $exists(input.email) %}", {}, False),  # the spec's advice for optional paths
        ("{% input.tags %}", {"tags": []}, False),  # JSONata truthiness: an empty array is false
        ("{% input.tags %}", {"tags": [False, 0]}, False),  # ...and so is an array of falsy values
        ("{% input.tags %}", {"tags": ["x"]}, True),  # an array with a truthy member is true
    ],
)
async def test_when_runs_or_skips_the_step(when, input, runs) -> None:
    page = FakePage(FORM)
    raw = workflow(
        {"id": "fill", "primitive": "text.insert", "when": when, "args": {"text": "x", "target": {"selector": "#name"}}},
        {"id": "report", "primitive": "locator.text_content", "args": {"locator": {"selector": "#name"}}},
        output="{% {'skipped': steps.fill.skipped, 'output': steps.fill.output, 'attempts': steps.fill.attempts} %}",
    )
    result = await run(raw, page, input)
    assert result == {"skipped": not runs, "output": {"inserted": True, "inserted_length": 1} if runs else None,
                      "attempts": 1 if runs else 0}
    assert page.names().count("text.insert") == (1 if runs else 0)


# -- for_each -------------------------------------------------------------

@pytest.mark.parametrize(
    ("collection", "input", "expected_texts"),
    [
        ("{% input.rows %}", {"rows": ["#a", "#b", "#c"]}, ["A", "B", "C"]),  # one call per item, in order
        ("{% input.rows[$ != '#b'] %}", {"rows": ["#a", "#b", "#c"]}, ["A", "C"]),  # filter inside for_each
        ("{% input.row %}", {"row": "#b"}, ["B"]),  # a single non-array value is one item
        ("{% input.rows %}", {"rows": ["#c"]}, ["C"]),  # a one-element array stays one item
        ("{% input.missing %}", {}, []),  # undefined means zero items (and no calls)
    ],
)
async def test_for_each_runs_once_per_item(collection, input, expected_texts) -> None:
    page = FakePage({"#a": {"text": "A"}, "#b": {"text": "B"}, "#c": {"text": "C"}})
    raw = workflow(
        {"id": "read", "primitive": "locator.text_content", "for_each": collection, "max_items": 10,
         "args": {"locator": {"selector": "{% item %}"}}},
        output="{% {'texts': [steps.read.output.text], 'items': [steps.read.items], 'attempts': steps.read.attempts} %}",
    )
    result = await run(raw, page, input)
    assert result["texts"] == expected_texts
    assert len(result["items"]) == len(expected_texts) == result["attempts"]


async def test_for_each_binds_index_and_outputs_a_list() -> None:
    page = FakePage({"#name": {"editable": True}})
    raw = workflow(
        {"id": "type", "primitive": "text.insert", "for_each": "{% input.words %}", "max_items": 5,
         "args": {"text": "{% $string(index) & ':' & item %}", "target": {"selector": "#name"}}},
    )
    outputs = await run(raw, page, {"words": ["ab", "cde"]})  # no output field: the last step's output
    assert outputs == [{"inserted": True, "inserted_length": 4}, {"inserted": True, "inserted_length": 5}]
    assert page.elements["#name"]["value"] == "0:ab1:cde"


@pytest.mark.parametrize(
    ("count", "max_items", "limits", "allowed"),
    [
        (3, 3, WorkflowLimits(), True),  # exactly max_items is fine
        (4, 3, WorkflowLimits(), False),  # one more than the step's max_items is refused, not truncated
        (4, 10, WorkflowLimits(max_loop_items=3), False),  # the runtime limit wins over a larger max_items
        (51, 100, WorkflowLimits(), False),  # the default runtime limit is 50
    ],
)
async def test_for_each_item_limit(count, max_items, limits, allowed) -> None:
    page = FakePage({"#a": {"text": "A"}})
    raw = workflow({"id": "read", "primitive": "locator.text_content", "for_each": "{% input.rows %}",
                    "max_items": max_items, "args": {"locator": {"selector": "#a"}}})
    compiled = CompiledWorkflow.compile(raw)
    call = run_workflow(compiled, {"rows": list(range(count))}, page.call, limits=limits)
    if allowed:
        assert len(await call) == count
        return
    with pytest.raises(WorkflowError) as caught:
        await call
    assert caught.value.code == "limit_exceeded"
    assert caught.value.evidence["step"] == "read"
    assert caught.value.evidence["items"] == count
    assert page.calls == []  # refused before the first call


# -- retry_until ----------------------------------------------------------

SCROLL_UNTIL_VISIBLE = {
    "id": "find",
    "primitive": "locator.element_info",
    "args": {"locator": {"selector": "#more"}},
    "retry_until": "{% steps.find.output.visible %}",
    "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": 500}},
}
CLICK_FOUND = {
    "id": "click",
    "primitive": "pointer.click",
    "args": {"x": "{% steps.find.output.clickable_center.x %}", "y": "{% steps.find.output.clickable_center.y %}"},
}


@pytest.mark.parametrize(
    ("element_y", "attempts", "scrolls"),
    [
        (100, 1, 0),  # already visible: one attempt, no scroll
        (700, 2, 1),  # just below the fold: one scroll
        (1700, 4, 3),  # far down: 1000px scrolled is not enough (top at 700), 1500 is
    ],
)
async def test_retry_until_scrolls_until_visible(element_y, attempts, scrolls) -> None:
    page = FakePage({"#more": {"y": element_y}})
    raw = workflow({**SCROLL_UNTIL_VISIBLE, "max_attempts": 6}, CLICK_FOUND,
                   output="{% {'attempts': steps.find.attempts, 'clicked': steps.click.output.clicked} %}")
    assert await run(raw, page) == {"attempts": attempts, "clicked": True}
    assert page.names().count("viewport.scroll") == scrolls
    assert page.clicks == ["#more"]


async def test_after_each_sees_the_attempt_it_follows() -> None:
    # Scroll by exactly the distance the failed attempt measured: one scroll suffices.
    page = FakePage({"#more": {"y": 3000}})
    step = {**SCROLL_UNTIL_VISIBLE, "max_attempts": 3,
            "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": "{% steps.find.output.bounding_box.y - 100 %}"}}}
    await run(workflow(step, CLICK_FOUND), page)
    assert [args for name, args, _ in page.calls if name == "viewport.scroll"] == [{"delta_y": 2900}]
    assert page.clicks == ["#more"]


@pytest.mark.parametrize(
    ("on_error", "raises"),
    [
        ("stop", True),  # exhaustion fails the workflow with retry_exhausted
        ("continue", False),  # ...or is recorded on the step when it is optional
    ],
)
async def test_retry_exhaustion(on_error, raises) -> None:
    page = FakePage({"#more": {"y": 5000}})
    raw = workflow({**SCROLL_UNTIL_VISIBLE, "max_attempts": 4, "on_error": on_error},
                   output="{% {'error': steps.find.error, 'attempts': steps.find.attempts} %}")
    if raises:
        with pytest.raises(WorkflowError) as caught:
            await run(raw, page)
        assert caught.value.code == "retry_exhausted"
        assert caught.value.evidence.items() >= {"step": "find", "attempts": 4, "phase": "retry_until",
                                                 "primitive": "locator.element_info", "retryable": True}.items()
        assert caught.value.evidence["elapsed_ms"] >= 0
    else:
        result = await run(raw, page)
        assert result["error"]["code"] == "retry_exhausted"
        assert result["attempts"] == 4
    # No scroll after the last attempt: nothing would judge it.
    # This page has no dom.settle: asked once, then a fixed delay paces the attempts.
    assert page.names() == (["locator.element_info", "viewport.scroll", "dom.settle"]
                            + ["locator.element_info", "viewport.scroll"] * 2 + ["locator.element_info"])


@pytest.mark.parametrize(
    ("missing_for", "max_attempts", "outcome"),
    [
        (2, 3, "found"),  # a recoverable target_not_found is an unsuccessful attempt, then retried
        (3, 3, "retry_exhausted"),  # still missing on the last attempt: exhausted, with the last error
    ],
)
async def test_retry_treats_recoverable_errors_as_unsuccessful_attempts(missing_for, max_attempts, outcome) -> None:
    page = FakePage({"#late": {"text": "here", "missing_for": missing_for}})
    raw = workflow({"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#late"}},
                    "retry_until": "{% steps.read.output.text = 'here' %}", "max_attempts": max_attempts,
                    "after_each": {"primitive": "viewport.scroll",
                                   "args": {"delta_y": "{% steps.read.error.code = 'target_not_found' ? 10 : 0 %}"}}})
    if outcome == "found":
        assert await run(raw, page) == {"text": "here"}
        assert [args for name, args, _ in page.calls if name == "viewport.scroll"] == [{"delta_y": 10}] * missing_for
        return
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page)
    assert caught.value.code == outcome
    assert caught.value.evidence["last_error"]["code"] == "target_not_found"


async def test_a_failing_after_each_fails_the_step() -> None:
    page = FakePage({"#more": {"y": 5000}})
    step = {**SCROLL_UNTIL_VISIBLE, "max_attempts": 3, "after_each": {"primitive": "pointer.click", "args": {"x": 1, "y": 1}}}
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(step), page)
    assert caught.value.code == "target_not_found"
    assert (caught.value.evidence["step"], caught.value.evidence["primitive"]) == ("find", "pointer.click")


async def test_retry_stops_at_a_non_recoverable_error() -> None:
    page = FakePage({"#label": {}})  # not editable: target_not_editable is not recoverable
    raw = workflow({"id": "fill", "primitive": "text.insert", "args": {"text": "x", "target": {"selector": "#label"}},
                    "retry_until": "{% steps.fill.output.inserted %}", "max_attempts": 5})
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page)
    assert caught.value.code == "target_not_editable"
    assert page.names() == ["text.insert"]


# -- settle_after ---------------------------------------------------------

CLICK_SUBMIT = {"id": "submit", "primitive": "pointer.click", "args": {"x": 220, "y": 310}}
READ_CONFIRMATION = {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "[data-confirmation]"}}}
SETTLE_RESULT = "{% {'settled': steps.submit.settled, 'error': steps.submit.settle_error.code, 'next': steps.read.output.text} %}"


@pytest.mark.parametrize(
    ("settle_after", "reveal_ms", "settled", "error", "wait_args"),
    [
        # The confirmation appears 30 ms after the click: settled.
        ({"locator": {"selector": "[data-confirmation]"}, "timeout_ms": 2000}, 30, True, None,
         {"locator": {"selector": "[data-confirmation]"}, "state": "visible", "timeout_ms": 2000}),
        # Defaults: state "visible", timeout 5000; the locator may use slots.
        ({"locator": {"selector": "{% input.confirmation %}"}}, 0, True, None,
         {"locator": {"selector": "[data-confirmation]"}, "state": "visible", "timeout_ms": 5000}),
        # "attached" is satisfied by a hidden element.
        ({"locator": {"selector": "[data-confirmation]"}, "state": "attached", "timeout_ms": 50}, 10_000, True, None,
         {"locator": {"selector": "[data-confirmation]"}, "state": "attached", "timeout_ms": 50}),
        # Never visible in time: NOT fatal; recorded, and the next step still runs.
        ({"locator": {"selector": "[data-confirmation]"}, "timeout_ms": 50}, 10_000, False, "timeout",
         {"locator": {"selector": "[data-confirmation]"}, "state": "visible", "timeout_ms": 50}),
        # A settle locator matching nothing fails the wait the same non-fatal way.
        ({"locator": {"selector": "#nowhere"}, "timeout_ms": 30}, 0, False, "timeout",
         {"locator": {"selector": "#nowhere"}, "state": "visible", "timeout_ms": 30}),
    ],
)
async def test_settle_after_locator(settle_after, reveal_ms, settled, error, wait_args) -> None:
    elements = {**FORM, "button[type='submit']": {**FORM["button[type='submit']"], "reveals": ("[data-confirmation]", reveal_ms)}}
    page = FakePage(elements)
    raw = workflow({**CLICK_SUBMIT, "settle_after": settle_after}, READ_CONFIRMATION, output=SETTLE_RESULT)
    result = await run(raw, page, {"confirmation": "[data-confirmation]"})
    # JSONata leaves undefined keys out of an object, hence .get for the error.
    assert (result["settled"], result.get("error"), result["next"]) == (settled, error, "Thanks!")
    assert [args for name, args, _ in page.calls if name == "locator.wait_for"] == [wait_args]


async def test_settle_after_delay_sleeps_without_calls() -> None:
    page = FakePage(FORM)
    raw = workflow({**CLICK_SUBMIT, "settle_after": {"delay_ms": 80}}, READ_CONFIRMATION, output=SETTLE_RESULT)
    started = time.monotonic()
    result = await run(raw, page)
    assert time.monotonic() - started >= 0.08
    assert result == {"settled": True, "next": "Thanks!"}
    assert "locator.wait_for" not in page.names()


async def test_deadline_during_a_settle_delay_names_that_step_and_phase() -> None:
    page = FakePage(FORM)
    raw = workflow({**CLICK_SUBMIT, "settle_after": {"delay_ms": 5000}}, READ_CONFIRMATION)
    started = time.monotonic()
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page, deadline=Deadline(started + 0.1, 100))
    assert 0.09 <= time.monotonic() - started < 1
    assert caught.value.code == "handler_timeout"
    assert caught.value.evidence.items() >= {"step": "submit", "phase": "settle"}.items()
    assert "locator.text_content" not in page.names()


@pytest.mark.parametrize(
    "step",
    [
        {**CLICK_SUBMIT, "when": "{% false %}"},  # a skipped step does not settle
        {**CLICK_SUBMIT, "args": {"x": 5, "y": 590}, "on_error": "continue"},  # nor does a failed one
    ],
)
async def test_settle_only_after_a_step_that_ran(step) -> None:
    page = FakePage(FORM)
    await run(workflow({**step, "settle_after": {"locator": {"selector": "#name"}}}), page)
    assert "locator.wait_for" not in page.names()


async def test_deadline_during_a_settle_wait_names_the_settling_step_not_the_next() -> None:
    page = FakePage(FORM)  # the confirmation is revealed only after 30 s
    page.elements["button[type='submit']"]["reveals"] = ("[data-confirmation]", 30_000)
    raw = workflow({**CLICK_SUBMIT, "settle_after": {"locator": {"selector": "[data-confirmation]"}, "timeout_ms": 5000}},
                   WAIT_FOREVER)
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page, deadline=Deadline.after_ms(200))
    assert caught.value.code == "handler_timeout"
    assert caught.value.evidence.items() >= {"step": "submit", "phase": "settle", "primitive": "locator.wait_for"}.items()
    settle_waits = [args for _, args, _ in page.calls if args.get("locator") == {"selector": "[data-confirmation]"}]
    assert len(settle_waits) == 1 and 0 < settle_waits[0]["timeout_ms"] <= 200
    assert other_tasks() == [] and page.in_flight == 0


# -- on_error -------------------------------------------------------------

MISSED_CLICK = {"id": "click", "primitive": "pointer.click", "args": {"x": 5, "y": 590}}  # nothing there


async def test_on_error_stop_fails_with_the_primitives_error_naming_the_step() -> None:
    page = FakePage(FORM)
    raw = workflow(MISSED_CLICK, READ_CONFIRMATION)  # on_error defaults to "stop"
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page)
    error = caught.value
    assert (error.code, error.message) == ("target_not_found", "no visible element at point")
    assert error.evidence.items() >= {"x": 5, "y": 590, "step": "click", "primitive": "pointer.click",
                                      "phase": "primitive", "retryable": True}.items()
    assert page.names() == ["pointer.click"]  # the later step never ran


async def test_on_error_continue_records_the_error_and_goes_on() -> None:
    page = FakePage(FORM)
    raw = workflow({**MISSED_CLICK, "on_error": "continue"}, READ_CONFIRMATION,
                   output="{% {'error': steps.click.error, 'output': steps.click.output, 'next': steps.read.output.text} %}")
    assert await run(raw, page) == {
        "error": {"code": "target_not_found", "message": "no visible element at point"},
        "output": None,
        "next": "Thanks!",
    }


@pytest.mark.parametrize(
    ("on_error", "expected"),
    [
        # stop: the loop's failing item is named by its index.
        ("stop", {"code": "target_not_found", "index": 1}),
        # continue: the step ends at the failing item; its error carries the index.
        ("continue", {"code": "target_not_found", "index": 1}),
    ],
)
async def test_on_error_inside_a_loop_names_the_index(on_error, expected) -> None:
    page = FakePage({"#a": {"text": "A"}, "#c": {"text": "C"}})
    raw = workflow({"id": "read", "primitive": "locator.text_content", "for_each": "{% input.rows %}", "max_items": 5,
                    "args": {"locator": {"selector": "{% item %}"}}, "on_error": on_error},
                   output="{% steps.read %}")
    call = run(raw, page, {"rows": ["#a", "#b", "#c"]})
    if on_error == "stop":
        with pytest.raises(WorkflowError) as caught:
            await call
        assert {"code": caught.value.code, "index": caught.value.evidence["index"]} == expected
        assert caught.value.evidence["step"] == "read"
    else:
        record = await call
        assert {"code": record["error"]["code"], "index": record["error"]["index"]} == expected
        assert record["output"] is None and record["attempts"] == 2 and record["items"] == ["#a", "#b", "#c"]
    assert page.names() == ["locator.text_content"] * 2  # "#c" never tried


# -- timeouts -------------------------------------------------------------



@pytest.mark.parametrize(
    ("on_error", "raises"),
    [
        ("stop", True),  # a step's own timeout_ms is a step failure...
        ("continue", False),  # ...that an optional step may absorb
    ],
)
async def test_step_timeout_cancels_the_call(on_error, raises) -> None:
    page = FakePage(FORM)
    raw = workflow(FILL, {**WAIT_FOREVER, "timeout_ms": 50, "on_error": on_error}, READ_CONFIRMATION,
                   output="{% steps.wait.error.code %}")
    started = time.monotonic()
    if raises:
        with pytest.raises(WorkflowError) as caught:
            await run(raw, page)
        assert caught.value.code == "handler_timeout"
        assert caught.value.evidence.items() >= {"step": "wait", "primitive": "locator.wait_for", "timeout_ms": 50,
                                                 "phase": "primitive"}.items()
    else:
        assert await run(raw, page) == "handler_timeout"
    assert time.monotonic() - started < 2
    assert page.cancelled == ["locator.wait_for"] and page.in_flight == 0
    assert other_tasks() == []
    assert [timeout for name, _, timeout in page.calls if name == "locator.wait_for"] == [50]


@pytest.mark.parametrize(
    "on_error",
    [
        "stop",  # the deadline fails the workflow...
        "continue",  # ...and on_error "continue" cannot absorb it
    ],
)
async def test_deadline_raises_handler_timeout_naming_the_step(on_error) -> None:
    page = FakePage(FORM)
    raw = workflow(FILL, {**WAIT_FOREVER, "on_error": on_error}, READ_CONFIRMATION)
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page, deadline=Deadline.after_ms(150))
    error = caught.value
    assert error.code == "handler_timeout"
    assert error.evidence["step"] == "wait"
    assert 140 <= error.evidence["elapsed_ms"] < 2000
    assert page.cancelled == ["locator.wait_for"] and page.in_flight == 0
    assert other_tasks() == []  # nothing left pending
    assert page.names() == ["text.insert", "locator.wait_for"]


async def test_a_bridge_timeout_just_before_the_deadline_counts_as_the_deadline() -> None:
    # The page answers handler_timeout 5 ms early; on_error "continue" must not absorb it.
    page = FakePage(FORM, enforces_call_timeouts=True)
    raw = workflow(FILL, {**WAIT_FOREVER, "on_error": "continue"}, READ_CONFIRMATION)
    with pytest.raises(WorkflowError) as caught:
        await run(raw, page, deadline=Deadline.after_ms(100))
    assert caught.value.code == "handler_timeout"
    assert caught.value.evidence["step"] == "wait" and "elapsed_ms" in caught.value.evidence
    assert page.names() == ["text.insert", "locator.wait_for"]


async def test_deadline_already_passed_names_the_first_step_and_calls_nothing() -> None:
    page = FakePage(FORM)
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(FILL), page, deadline=Deadline(time.monotonic() - 1, 1000))
    assert (caught.value.code, caught.value.evidence["step"]) == ("handler_timeout", "fill")
    assert page.calls == []


@pytest.mark.parametrize(
    ("deadline_s", "step_timeout_ms", "low", "high"),
    [
        (None, None, None, None),  # no bound at all: the bridge gets None
        (None, 2000, 2000, 2000),  # the step's own timeout
        (10.0, 2000, 2000, 2000),  # the step timeout when it is the tighter bound
        (1.0, 5000, 900, 1000),  # the time left when the deadline is tighter
        (1.0, None, 900, 1000),  # the time left alone
        (None, 0, None, None),  # timeout_ms 0 means no step-specific bound (Playwright's convention)
    ],
)
async def test_each_call_gets_the_remaining_ms(deadline_s, step_timeout_ms, low, high) -> None:
    page = FakePage(FORM)
    step = {**FILL, **({"timeout_ms": step_timeout_ms} if step_timeout_ms is not None else {})}
    deadline = Deadline.after_ms(int(deadline_s * 1000)) if deadline_s else None
    await run(workflow(step), page, deadline=deadline)
    ((_, _, timeout_ms),) = page.calls
    if low is None:
        assert timeout_ms is None
    else:
        assert low <= timeout_ms <= high


# -- output ---------------------------------------------------------------

@pytest.mark.parametrize(
    ("output", "expected"),
    [
        # A whole-slot expression building an object.
        ({"output": "{% {'typed': steps.fill.output.inserted_length, 'who': input.name} %}"}, {"typed": 1, "who": "Ada"}),
        # Any JSON with slots inside it; literals pass through.
        ({"output": {"who": "{% input.name %}", "fixed": [1, "{% steps.fill.output.inserted %}"], "note": "done"}},
         {"who": "Ada", "fixed": [1, True], "note": "done"}),
        # A plain literal.
        ({"output": "done"}, "done"),
        # No output field: the last step's output.
        ({}, {"text": "Thanks!"}),
    ],
)
async def test_output_rendering(output, expected) -> None:
    page = FakePage(FORM)
    assert await run(workflow(FILL, READ_CONFIRMATION, **output), page, {"name": "Ada"}) == expected


async def test_output_defaults_to_none_when_the_last_step_was_skipped() -> None:
    page = FakePage(FORM)
    assert await run(workflow(FILL, {**READ_CONFIRMATION, "when": "{% false %}"}), page) is None


@pytest.mark.parametrize(
    ("raw", "limits"),
    [
        # A rendered output over the default 32 000 bytes.
        (workflow(FILL, output="{% input.big %}"), WorkflowLimits()),
        # Inside an output object, the total counts.
        (workflow(FILL, output={"a": "{% $substring(input.big, 0, 60) %}", "b": "{% $substring(input.big, 0, 60) %}"}),
         WorkflowLimits(max_workflow_output_bytes=100)),
        # The implicit output (last step's) is bounded too.
        (workflow(FILL, {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#long"}}}),
         WorkflowLimits(max_workflow_output_bytes=100)),
    ],
)
async def test_output_size_limit(raw, limits) -> None:
    page = FakePage({**FORM, "#long": {"text": "y" * 200}})
    with pytest.raises(WorkflowError) as caught:
        await run_workflow(CompiledWorkflow.compile(raw), {"big": "x" * 40_000}, page.call, limits=limits)
    assert caught.value.code == "limit_exceeded"
    assert caught.value.evidence["field"] == "output"


# -- expression failures at run time --------------------------------------

@pytest.mark.parametrize(
    ("step", "field", "index", "calls"),
    [
        # A failing args slot: nothing is called.
        ({**FILL, "args": {"text": "{% $number(input.word) %}", "target": {"selector": "#name"}}}, "args", None, []),
        # A failing when.
        ({**FILL, "when": "{% input.word + 1 %}"}, "when", None, []),
        # A failing for_each collection.
        ({**FILL, "for_each": "{% $split(input.n, ',') %}", "max_items": 3}, "for_each", None, []),
        # A failing slot inside a loop names the item's index; earlier items ran.
        ({**FILL, "for_each": "{% [1, 'x'] %}", "max_items": 3,
          "args": {"text": "{% $string(item * 2) %}", "target": {"selector": "#name"}}}, "args", 1, ["text.insert"]),
        # A failing retry_until after the first attempt.
        ({**FILL, "retry_until": "{% steps.fill.output.inserted & 1 > 0 %}", "max_attempts": 3}, "retry_until", None,
         ["text.insert"]),
        # on_error "continue" does not absorb a broken expression: it is the map's bug, not the page's.
        ({**FILL, "on_error": "continue", "args": {"text": "{% $number(input.word) %}"}}, "args", None, []),
    ],
)
async def test_expression_runtime_error_names_the_step(step, field, index, calls) -> None:
    page = FakePage(FORM)
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(step, READ_CONFIRMATION), page, {"word": "abc", "n": 1})
    error = caught.value
    assert error.code == "expression_failed"
    assert (error.evidence["step"], error.evidence["field"]) == ("fill", field)
    assert error.evidence.get("index") == index
    assert page.names() == calls


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("{% $uppercase(input.big) %}", 16_001),  # computed: the expression limit
        ("{% input.big & '' %}", 16_001),
        ("{% input.big %}", 1_048_577),  # a reference: one bridge item at most
    ],
)
async def test_oversized_argument_is_limit_exceeded_naming_the_step(text: str, size: int) -> None:
    page = FakePage(FORM)
    step = {**FILL, "args": {"text": text, "target": {"selector": "#name"}}}
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(step), page, {"big": "x" * size})
    assert caught.value.code == "limit_exceeded"
    assert caught.value.evidence["step"] == "fill"
    assert page.calls == []


@pytest.mark.parametrize("text", ["{% input.big %}", "{% input . big %}", "{% steps.read.output.text %}"])
async def test_a_reference_argument_carries_a_large_value_unchanged(text: str) -> None:
    big = "x" * 200_000
    page = FakePage({**FORM, "#long": {"text": big}})
    read = {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#long"}}}
    step = {**FILL, "args": {"text": text, "target": {"selector": "#name"}}}
    await run(workflow(read, step), page, {"big": big})
    assert page.calls[-1][1]["text"] == big


# -- progress events ------------------------------------------------------

async def test_on_step_reports_each_step() -> None:
    page = FakePage(FORM)
    events: list[StepEvent] = []
    raw = workflow(FILL, {**READ_CONFIRMATION, "when": "{% false %}"}, {**MISSED_CLICK, "on_error": "continue"})
    await run(raw, page, on_step=events.append)
    assert [(event.step_id, event.index, event.total, event.status) for event in events] == [
        ("fill", 0, 3, "started"),
        ("fill", 0, 3, "succeeded"),
        ("read", 1, 3, "skipped"),
        ("click", 2, 3, "started"),
        ("click", 2, 3, "failed"),
    ]
    assert all(event.elapsed_ms >= 0 for event in events)


async def test_a_failing_progress_listener_does_not_break_the_workflow() -> None:
    def explode(event: StepEvent) -> None:
        raise RuntimeError("listener bug")

    page = FakePage(FORM)
    assert await run(workflow(FILL), page, on_step=explode) == {"inserted": True, "inserted_length": 1}


# -- compiling ------------------------------------------------------------

@pytest.mark.parametrize(
    ("raw", "error_type", "code", "evidence"),
    [
        # Wrong version.
        ({**workflow(FILL), "version": 2}, ActionError, "workflow_invalid", {"field": "version"}),
        # Only JSONata.
        ({**workflow(FILL), "expression_language": "jmespath"}, ActionError, "workflow_invalid",
         {"field": "expression_language"}),
        # Unknown root field.
        ({**workflow(FILL), "outputs": "{% 1 %}"}, ActionError, "workflow_invalid", {"field": "outputs"}),
        # A typo in a step field fails loudly, naming the step and the field.
        (workflow({**FILL, "on_eror": "continue"}), ActionError, "workflow_invalid", {"step": "fill", "field": "on_eror"}),
        # Duplicate ids.
        (workflow(FILL, FILL), ActionError, "workflow_invalid", {"step": "fill", "field": "id"}),
        # for_each needs max_items.
        (workflow({**FILL, "for_each": "{% [1] %}"}), ActionError, "workflow_invalid",
         {"step": "fill", "field": "max_items"}),
        # retry_until needs max_attempts.
        (workflow({**FILL, "retry_until": "{% true %}"}), ActionError, "workflow_invalid",
         {"step": "fill", "field": "max_attempts"}),
        # after_each only makes sense with retry_until.
        (workflow({**FILL, "after_each": {"primitive": "viewport.scroll"}}), ActionError, "workflow_invalid",
         {"step": "fill", "field": "after_each"}),
        # settle_after takes exactly one of locator and delay_ms.
        (workflow({**FILL, "settle_after": {"locator": {"selector": "a"}, "delay_ms": 5}}), ActionError,
         "workflow_invalid", {"step": "fill", "field": "settle_after"}),
        # on_error is stop or continue.
        (workflow({**FILL, "on_error": "ignore"}), ActionError, "workflow_invalid", {"step": "fill", "field": "on_error"}),
        # A partial embed in args.
        (workflow({**FILL, "args": {"text": "id-{% input.n %}"}}), ExpressionSyntaxError, "expression_partial_slot",
         {"step": "fill", "field": "args.text"}),
        # A syntax error names where it is.
        (workflow({**FILL, "args": {"target": {"selector": "{% input. %}"}}}), ExpressionSyntaxError,
         "expression_invalid", {"step": "fill", "field": "args.target.selector"}),
        # Expression fields must be one whole slot, as the validator demands.
        (workflow({**FILL, "when": "input.subscribe"}), ExpressionSyntaxError, "expression_not_slot",
         {"step": "fill", "field": "when"}),
        # Forbidden functions are refused up front.
        (workflow({**FILL, "when": "{% $random() > 0.5 %}"}), ExpressionSyntaxError, "expression_forbidden_function",
         {"step": "fill", "field": "when"}),
        # The output is compiled too.
        (workflow(FILL, output="{% $now() %}"), ExpressionSyntaxError, "expression_forbidden_function",
         {"field": "output"}),
        # More steps than limits.max_steps.
        (workflow(*({**FILL, "id": f"s{n}"} for n in range(26))), ActionError, "limit_exceeded", {"steps": 26}),
    ],
)
def test_compile_refuses_bad_workflows(raw, error_type, code, evidence) -> None:
    with pytest.raises(error_type) as caught:
        CompiledWorkflow.compile(raw)
    assert caught.value.code == code
    assert evidence.items() <= caught.value.evidence.items()


def test_compile_accepts_what_the_validator_accepts() -> None:
    # The dict the catalog hands over: a pydantic dump of the manifest model, with extensions.
    raw = workflow({**FILL, "description": "type one letter", "x_note": {"any": "thing"},
                    "settle_after": {"delay_ms": 0, "x_why": "pacing"}},
                   postcondition={"projection": "site.form"}, x_author="me")
    dumped = Workflow.model_validate(raw).model_dump(mode="json", by_alias=True, exclude_none=True)
    compiled = CompiledWorkflow.compile(dumped)
    assert compiled.step_ids == ("fill",)
    assert compiled.postcondition == {"projection": "site.form"}  # kept for the caller; not run here
    assert compiled.has_output is False


def test_compile_keeps_step_order() -> None:
    compiled = CompiledWorkflow.compile(workflow(FILL, READ_CONFIRMATION, MISSED_CLICK))
    assert compiled.step_ids == ("fill", "read", "click")
    assert CompiledWorkflow.compile(workflow(*({**FILL, "id": f"s{n}"} for n in range(25)))).step_ids[-1] == "s24"


async def test_one_compiled_workflow_serves_many_runs() -> None:
    compiled = CompiledWorkflow.compile(workflow({**FILL, "args": {"text": "{% input.t %}", "target": {"selector": "#name"}}}))
    page = FakePage(FORM)
    results = [await run_workflow(compiled, {"t": text}, page.call) for text in ("a", "bb", "ccc")]
    assert [result["inserted_length"] for result in results] == [1, 2, 3]
    assert page.elements["#name"]["value"] == "abbccc"


async def test_run_enforces_its_own_step_limit() -> None:
    # Compiled under the default limits, run under tighter ones: refused before any call.
    compiled = CompiledWorkflow.compile(workflow(*({**FILL, "id": f"s{n}"} for n in range(5))))
    page = FakePage(FORM)
    with pytest.raises(WorkflowError) as caught:
        await run_workflow(compiled, {}, page.call, limits=WorkflowLimits(max_steps=4))
    assert caught.value.code == "limit_exceeded"
    assert caught.value.evidence.items() >= {"steps": 5, "max_steps": 4, "phase": "workflow"}.items()
    assert page.calls == []


def test_compiled_workflow_is_independent_of_its_source_dict() -> None:
    raw = workflow({**FILL, "args": {"text": "a", "target": {"selector": "#name"}}})
    compiled = CompiledWorkflow.compile(raw)
    raw["steps"][0]["args"]["text"] = "changed"
    assert compiled.steps[0].args["text"] == "a"


# -- truthiness -----------------------------------------------------------

@pytest.mark.parametrize(
    ("value", "truthy"),
    [
        (None, False),  # undefined/null
        (0, False),  # zero
        (0.5, True),  # non-zero number
        ("", False),  # empty string
        ("false", True),  # any non-empty string, even "false"
        ([], False),  # empty array
        ([0, ""], False),  # array whose members are all falsy
        ([0, 1], True),  # array with a truthy member
        ({}, False),  # empty object
        ({"a": 0}, True),  # non-empty object
        (True, True),  # booleans are themselves
    ],
)
def test_jsonata_truthy(value, truthy) -> None:
    assert jsonata_truthy(value) is truthy
