"""Legacy steps, states, transitions, capabilities, handler forms and postconditions, through dispatch on MemoryRuntime."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.catalog.naming import mcp_tool_name
from mcp_actions.dispatch.call.postconditions import PostconditionRequest
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.manifest.compose import ToolOrigin
from mcp_actions.manifest.load import LoadedManifest, ManifestReport, load_document
from mcp_actions.manifest.model import Manifest

from .harness import manifest, running, workflow_tool
from .sim_page import SimPage

pytestmark = pytest.mark.asyncio

SIMPLE_FORM = json.loads((Path(__file__).parents[1] / "fixtures" / "pages" / "simple-form" / "actions.json").read_text())


def simple_form_map(mode: str = "handler_first") -> dict[str, Any]:
    document = copy.deepcopy(SIMPLE_FORM)
    document["surface"]["origin"] = "https://*.sim.test"
    document["tools"][0]["x_actions"]["execution"]["mode"] = mode
    return document


class SimpleFormPage(SimPage):
    """The published simple form: typing a name and pressing Submit writes 'Submitted <name>'."""

    def __init__(self) -> None:
        super().__init__(url="https://form.sim.test/")
        self.add("#contact-form", "form", y=80, height=100)  # under its fields: added first
        self.name = self.add("#name", "input[name='name']", editable=True, y=100, role="textbox", name="Name")
        self.result = self.add("#result", "output", text="", y=200)
        self.submit = self.add("#submit", "button[type='submit']", text="Submit", y=150, role="button", name="Submit",
                               on_click=self._submitted)

    def _submitted(self) -> None:
        # The page answers a little late, as real forms do.
        self.later(0.05, lambda: setattr(self.result, "text", f"Submitted {self.name.value or 'anonymous'}"))

    def handler(self, args: dict[str, Any]) -> dict[str, Any]:
        self.name.value = args["name"]
        self.result.text = f"Submitted {args['name']}"
        return {"ok": True, "result": self.result.text}


@pytest.mark.parametrize("mode", ["handler_first", "steps_first"])
@pytest.mark.parametrize("with_handler", [True, False], ids=["handler", "no-handler"])
async def test_simple_form_map_runs_in_both_modes_with_and_without_the_handler(mode: str, with_handler: bool) -> None:
    page = SimpleFormPage()
    handlers = {"contactForm.submitName": page.handler} if with_handler else {}
    async with running(simple_form_map(mode), page, handlers=handlers) as h:
        result = await h.call("contact.submit_name", {"name": "Ada"})
        calls = h.bridge_calls()
        assert h.runtime.bridge.registry.get("sim-1").states == ("form_ready", "form_submitted")
    assert result == {"ok": True, "result": "Submitted Ada"}
    used_handler = mode == "handler_first" and with_handler
    assert ("handler:contactForm.submitName" in calls) == (mode == "handler_first")  # handler_first tries it first
    assert ("text.insert" in calls) == (not used_handler)  # the steps ran otherwise
    # One probe round trip diagnosed form_ready before acting, one more after the transition's tool ran.
    assert calls.count("locator.probe") == 2 and calls[0] == "locator.probe"


async def test_a_failed_inspect_assertion_is_a_state_mismatch_naming_the_step() -> None:
    page = SimpleFormPage()
    page.name.enabled = False
    async with running(simple_form_map("steps_first"), page) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("contact.submit_name", {"name": "Ada"})
    assert caught.value.code == "state_mismatch"
    assert caught.value.evidence.items() >= {"step": "inspect_name_input", "phase": "check", "primitive": "locator.element_info"}.items()
    assert "text.insert" not in page.calls


async def test_state_mismatch_refuses_before_acting_with_required_and_current_states() -> None:
    page = SimpleFormPage()
    page.submit.attached = False  # the form is not ready: its submit button is gone
    async with running(simple_form_map(), page, handlers={"contactForm.submitName": page.handler}) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("contact.submit_name", {"name": "Ada"})
        calls = h.bridge_calls()
    error = caught.value
    assert error.code == "state_mismatch"
    assert error.evidence["required_state"] == "form_ready" and error.evidence["current_states"] == []
    assert error.evidence["diagnostics"]["form_ready/submit_button_visible"] is False
    assert calls == ["locator.probe"]  # one round trip, and nothing acted


async def test_states_without_locator_probe_fall_back_to_one_wait_per_diagnostic() -> None:
    page = SimpleFormPage()
    async with running(simple_form_map(), page, handlers={"contactForm.submitName": page.handler},
                       capabilities=[n for n in page.primitives()]) as h:  # advertises no locator.probe
        await h.call("contact.submit_name", {"name": "Ada"})
        calls = h.bridge_calls()
    assert "locator.probe" not in calls and calls.count("locator.wait_for") == 6  # 3 diagnostics, twice


BOARD_STATES = [
    {"name": "board_ready", "diagnostics": [{"name": "board", "target": {"selector": "#board"}}]},
    {"name": "dialog_open", "diagnostics": [{"name": "dialog", "target": {"selector": "[role='dialog']"}}]},
]


def board_map(rate_limit_ms: int = 300, max_attempts: int | None = None) -> dict[str, Any]:
    add = workflow_tool("board.add_card", {"id": "click", "primitive": "page.info"}, output="{% {'ok': true} %}",
                        target={"selector": "#board", "state": "board_ready"})
    transition: dict[str, Any] = {"name": "add_cards", "from": "board_ready", "to": "board_ready",
                                  "tool": "board.add_card", "method": "tool_call", "rate_limit_ms": rate_limit_ms}
    if max_attempts is not None:
        transition["convergence"] = {"complete_when": "no_new_cards", "max_attempts": max_attempts}
    other = workflow_tool("board.read", {"id": "read", "primitive": "page.info"})
    return manifest(add, other, states=BOARD_STATES, transitions=[transition])


def board_page() -> SimPage:
    page = SimPage(url="https://board.sim.test/")
    page.add("#board", y=0, height=400)
    return page


async def test_rate_limit_waits_between_repeated_calls_or_refuses_with_retry_after() -> None:
    async with running(board_map(rate_limit_ms=300), board_page()) as h:
        await h.call("board.add_card")
        first_end = time.monotonic()
        with pytest.raises(ActionError) as caught:  # 100 ms is not enough time to wait 300
            await h.call("board.add_card", {"timeout_ms": 100})
        assert time.monotonic() - first_end < 0.1
        await h.call("board.add_card")  # enough time: it waits
        assert time.monotonic() - first_end >= 0.3
    assert caught.value.code == ErrorCode.RATE_LIMITED
    assert 200 < caught.value.evidence["retry_after_ms"] <= 301 and caught.value.evidence["transition"] == "add_cards"


async def test_convergence_max_attempts_bounds_repeated_traversal() -> None:
    async with running(board_map(rate_limit_ms=0, max_attempts=2), board_page()) as h:
        await h.call("board.add_card")
        await h.call("board.add_card")
        with pytest.raises(ActionError) as caught:
            await h.call("board.add_card")
        await h.call("board.read")  # another tool: a new traversal starts
        await h.call("board.add_card")
    assert caught.value.code == "limit_exceeded" and caught.value.evidence["max_attempts"] == 2


async def test_requires_is_checked_against_advertised_capabilities() -> None:
    tool = workflow_tool("needs.shot", {"id": "info", "primitive": "page.info"}, requires=["browser.screenshot"])
    async with running(manifest(tool), SimPage()) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("needs.shot")
        assert h.bridge_calls() == []
    assert caught.value.code == "capability_unavailable" and caught.value.evidence["missing"] == ["browser.screenshot"]


async def test_a_handler_naming_a_provided_primitive_runs_it_with_bound_arguments_under_the_call() -> None:
    tool = {"name": "feed.down", "description": "scroll", "input_schema": {"type": "object", "properties": {"delta_y": {"type": "number"}}},
            "x_actions": {"handler": "viewport.scroll", "binding": {"arguments": {"delta_y": 100, "delta_x": 0}}}}
    page = SimPage()
    page.add("#tall", y=0, height=5000)
    async with running(manifest(tool), page) as h:
        assert (await h.call("feed.down"))["scroll_y"] == 100
        assert (await h.call("feed.down", {"delta_y": 250}))["scroll_y"] == 350
        assert h.bridge_calls() == ["viewport.scroll", "viewport.scroll"]


def unvalidated(document: dict[str, Any]) -> LoadedManifest:
    """A manifest the validator of this branch refuses (host-native tools are accepted by the manifest branch)."""
    model = Manifest.model_validate(document)
    origins = {tool.name: ToolOrigin(source="test", trust="local") for tool in model.tools}
    return LoadedManifest("test", "test", document, model, origins, ManifestReport(file="test"))


HOST_NATIVE = {"name": "page.info", "description": "What page is this?", "input_schema": {"type": "object"}}
NOBODY_HAS = {"name": "a11y.tree", "description": "The accessibility tree.", "input_schema": {"type": "object"}}


async def test_host_native_tools_run_the_primitive_and_tools_no_host_provides_are_refused() -> None:
    document = manifest(HOST_NATIVE, NOBODY_HAS, primitive_dictionary={"version": 1, "primitives": [{"name": "a11y.tree"}]})
    async with running(unvalidated(document), SimPage()) as h:
        assert await h.call("page.info") == {"url": "https://page.sim.test/", "title": "sim"}
        with pytest.raises(ActionError) as caught:
            await h.call("a11y.tree")
        assert h.bridge_calls() == ["page.info"]
    assert caught.value.code == "capability_unavailable" and caught.value.evidence["capability"] == "a11y.tree"


class CountPostcondition:
    """A minimal checker: the postcondition names a selector whose match count must equal the output's count."""

    def __init__(self) -> None:
        self.requests: list[PostconditionRequest] = []

    async def count(self, request: PostconditionRequest) -> int:
        probe = await request.call("locator.probe", {"probes": [{"id": "p", "locator": {"selector": request.postcondition["selector"]}}]})
        return probe["results"][0]["match_count"]

    async def before(self, request: PostconditionRequest) -> int:
        return await self.count(request)

    async def check(self, request: PostconditionRequest, before: int, output: Any) -> None:
        self.requests.append(request)
        count = await self.count(request)
        assert before == count  # this tool adds nothing: the state before is the state after
        if count != output["expected"]:
            raise ActionError("postcondition failed", code=ErrorCode.STATE_MISMATCH,
                              evidence={"postcondition": request.postcondition, "observed": count})


async def test_postcondition_hook_rechecks_the_page_after_the_action() -> None:
    tool = workflow_tool("cards.count", {"id": "info", "primitive": "page.info"}, output="{% {'expected': input.n} %}",
                         properties={"n": {"type": "integer"}})
    tool["workflow"]["postcondition"] = {"selector": "[data-card]"}
    page = SimPage()
    for n in range(3):
        page.add("[data-card]", y=40 * n)
    checker = CountPostcondition()
    loaded = unvalidated(manifest(tool))  # the postcondition's shape is the projection branch's to validate
    async with running(loaded, page, postconditions=checker) as h:
        assert await h.call("cards.count", {"n": 3}) == {"expected": 3}
        with pytest.raises(ActionError) as caught:
            await h.call("cards.count", {"n": 4})
    assert caught.value.code == "state_mismatch" and caught.value.evidence["observed"] == 3
    assert checker.requests[0].tool == "cards.count" and checker.requests[0].runtime_id == "sim-1"


async def test_legacy_steps_are_translated_once_at_load_and_a_step_no_host_runs_is_refused_when_reached() -> None:
    """The plan decides (issue 29): a map's legacy steps are a workflow on its binding from the moment it loads,
    and calls run that workflow; steps this server cannot run are known at load and refused, naming the
    step, only when a call reaches them (handler_first still runs its handler first)."""
    page = SimpleFormPage()
    async with running(simple_form_map("steps_first"), page) as h:
        binding = h.service.catalog.get(mcp_tool_name("contact.submit_name"))
        assert binding is not None and binding.legacy_workflow is not None and binding.legacy_refusal is None
        assert [step.id for step in binding.legacy_workflow.steps][:2] == ["inspect_name_input", "type_name"]
        assert await h.call("contact.submit_name", {"name": "Ada"}) == {"ok": True, "result": "Submitted Ada"}

    document = simple_form_map("handler_first")
    document["tools"][0]["x_actions"]["execution"]["steps"][0]["type"] = "hover"
    loaded = load_document(document, source="test")
    if not isinstance(loaded, LoadedManifest):
        pytest.skip("the validator refuses a step type this server does not run; nothing reaches a call")
    page = SimpleFormPage()
    async with running(loaded, page, handlers={"contactForm.submitName": page.handler}) as h:
        binding = h.service.catalog.get(mcp_tool_name("contact.submit_name"))
        assert binding is not None and binding.legacy_workflow is None and binding.legacy_refusal is not None
        assert await h.call("contact.submit_name", {"name": "Ada"}) == {"ok": True, "result": "Submitted Ada"}  # the handler ran
    page = SimpleFormPage()
    async with running(loaded, page) as h:  # no handler: handler_first falls back to the steps, which cannot run
        with pytest.raises(ActionError) as caught:
            await h.call("contact.submit_name", {"name": "Ada"})
    assert caught.value.code == ErrorCode.CAPABILITY_UNAVAILABLE and caught.value.evidence["step"] == "inspect_name_input"
    assert "text.insert" not in page.calls
