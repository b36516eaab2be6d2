"""Every failure mode of a workflow names where it happened: through dispatch, on MemoryRuntime."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.errors import ActionError

from .harness import manifest, running, workflow_tool
from .sim_page import SimPage
from .test_language_memory import unvalidated

pytestmark = pytest.mark.asyncio


async def forever(_: dict[str, Any]) -> Any:
    await asyncio.Event().wait()


INFO = {"id": "info", "primitive": "page.info"}
# Dictionary primitives this page implements badly: one never answers, one always fails.
HANG = {"id": "hang", "primitive": "dom.snapshot_text"}


@pytest.mark.parametrize(
    ("steps", "output", "arguments", "code", "where"),
    [
        # args: an expression that fails while rendering arguments
        ([{"id": "bad", "primitive": "dom.snapshot_text", "args": {"selector": "{% $number('nope') %}"}}], None, {},
         "expression_failed", {"step": "bad", "phase": "args", "retryable": False}),
        # when: a condition that fails
        ([{**INFO, "when": "{% $number('x') %}"}], None, {}, "expression_failed", {"step": "info", "phase": "when"}),
        # a step's own timeout_ms bounds its call
        ([{**HANG, "timeout_ms": 60}], None, {}, "handler_timeout", {"step": "hang", "phase": "primitive", "primitive": "dom.snapshot_text"}),
        # the call's timeout_ms bounds the whole workflow, naming the step under way
        ([INFO, HANG], None, {"timeout_ms": 150}, "handler_timeout", {"step": "hang", "phase": "primitive"}),
        # after_each failing
        ([{**INFO, "retry_until": "{% false %}", "max_attempts": 3, "after_each": {"primitive": "keyboard.press", "args": {"key": "End"}}}], None, {},
         "handler_failed", {"step": "info", "phase": "after_each", "primitive": "keyboard.press"}),
        # output too large for its bound
        ([INFO], "{% $pad('', 40000, 'x') %}", {}, "limit_exceeded", {"phase": "output", "field": "output"}),
        # a primitive the runtime does not have
        ([{"id": "shot", "primitive": "browser.screenshot"}], None, {}, "capability_unavailable",
         {"step": "shot", "phase": "primitive", "primitive": "browser.screenshot"}),
    ],
    ids=["args", "when", "step-timeout", "workflow-timeout", "after_each", "output-limit", "capability"],
)
async def test_failure_names_step_phase_code_retryable_and_elapsed(steps, output, arguments, code, where) -> None:
    def broken(_: dict[str, Any]) -> Any:
        raise ActionError("the page refused", code="handler_failed")

    tool = workflow_tool("fail.case", *steps, output=output)
    started = time.monotonic()
    async with running(manifest(tool), SimPage(), primitives={"dom.snapshot_text": forever, "keyboard.press": broken}) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("fail.case", arguments)
        assert h.service.bridge.pending_count == 0
    assert time.monotonic() - started < 3
    error = caught.value
    assert error.code == code
    assert error.evidence.items() >= where.items(), error.evidence
    assert {"phase", "retryable", "elapsed_ms"} <= set(error.evidence)


async def test_on_error_continue_goes_on_and_records_the_failure() -> None:
    tool = workflow_tool("lenient", {**HANG, "timeout_ms": 50, "on_error": "continue"}, INFO,
                         output="{% {'error': steps.hang.error.code, 'url': steps.info.output.url} %}")
    async with running(manifest(tool), SimPage(), primitives={"dom.snapshot_text": forever}) as h:
        assert await h.call("lenient") == {"error": "handler_timeout", "url": "https://page.sim.test/"}


async def test_cancellation_between_steps_stops_the_workflow() -> None:
    gate = asyncio.Event()
    reached: list[str] = []

    async def slow(_: dict[str, Any]) -> Any:
        reached.append("slow")
        gate.set()
        await asyncio.sleep(0.05)
        return {"ok": True}

    tool = workflow_tool("two", {"id": "a", "primitive": "dom.snapshot_text"}, {"id": "b", "primitive": "dom.snapshot_text"})
    async with running(manifest(tool), SimPage(), primitives={"dom.snapshot_text": slow}) as h:
        task = asyncio.create_task(h.call("two"))
        await gate.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.1)
        assert reached == ["slow"]  # step b never started
        assert h.service.bridge.pending_count == 0


#: Our copy of the published overlay map (tests/manifest/test_tool_execution.py holds it to the published file).
OVERLAY = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "valid" / "extension_overlay.json"


async def test_reference_overlay_map_tools_run_as_their_hosts_provide_or_are_refused() -> None:
    document = json.loads(OVERLAY.read_text())
    document["surface"] = {"origin": "https://*.sim.test"}
    page = SimPage()
    page.add("#tall", y=0, height=3000)
    typing = {"text.type": lambda a: {"typed": a["text"]}}
    async with running(unvalidated(document), page, primitives=typing) as h:
        # Host-native: no handler, a primitive of the map's own dictionary this runtime has, run with the tool's arguments.
        assert await h.call("text.type", {"text": "hello"}) == {"typed": "hello"}
        # Host-native tools no host of ours provides.
        for name in ("a11y.tree", "clipboard.read", "text.select"):
            with pytest.raises(ActionError) as caught:
                await h.call(name)
            assert caught.value.code == "capability_unavailable", name
        # Named after a primitive of ours: ours runs, whatever extension code its handler names.
        await h.call("viewport.scroll", {"delta_y": 10})
        # A handler that is page code of the reference extension, for no primitive of ours: our page has no such function.
        with pytest.raises(ActionError) as caught:
            await h.call("storage.import_bundle", {"bundle": {}})
        assert caught.value.code == "missing_handler"
        assert h.bridge_calls() == ["text.type", "viewport.scroll", "handler:actionsJsonOverlay.importStorageBundle"]


class NoisyPage(SimPage):
    """A page that never stops changing (a script-driven animation): the DOM never settles."""

    @property  # type: ignore[override]  # a property where the page keeps a plain attribute: the point of this page
    def mutated_at(self) -> float:
        return time.monotonic()  # something moved just now, and always will

    @mutated_at.setter
    def mutated_at(self, _: float) -> None:
        pass


async def test_call_timeout_during_the_settle_between_attempts_names_that_step_and_phase() -> None:
    tool = workflow_tool("noisy.find", {
        "id": "find", "primitive": "locator.element_info", "args": {"locator": {"selector": "#never"}},
        "retry_until": "{% steps.find.output.visible %}", "max_attempts": 10,
        "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": 100}}})
    async with running(manifest(tool), NoisyPage()) as h:
        started = time.monotonic()
        with pytest.raises(ActionError) as caught:
            await h.call("noisy.find", {"timeout_ms": 400})
        assert time.monotonic() - started < 1.2
        assert h.service.bridge.pending_count == 0
    assert caught.value.code == "handler_timeout"
    assert caught.value.evidence.items() >= {"step": "find", "phase": "settle", "primitive": "dom.settle"}.items()
