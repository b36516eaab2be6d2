"""The workflow language end to end through dispatch, on the shipped MemoryRuntime over simulated pages."""

from __future__ import annotations

import asyncio
import time

import pytest

from mcp_actions.errors import ActionError

from .harness import manifest, running, workflow_tool
from .sim_page import FeedPage, SimPage

pytestmark = pytest.mark.asyncio

# The spec's scroll-until-visible pattern, verbatim in shape.
FIND_ITEM = workflow_tool(
    "feed.find",
    {"id": "find", "primitive": "locator.element_info", "args": {"locator": {"selector": "{% '#item-' & $string(input.n) %}"}},
     "retry_until": "{% steps.find.output.visible = true %}", "max_attempts": 15,
     "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": 2000}}},
    output="{% {'text': steps.find.output.text, 'attempts': steps.find.attempts} %}",
    properties={"n": {"type": "integer"}},
)


@pytest.mark.parametrize("dom_settle", [True, False], ids=["dom.settle", "fallback-delay"])
async def test_scroll_until_visible_reaches_item_57_of_an_infinite_feed(dom_settle: bool) -> None:
    page = FeedPage(has_dom_settle=dom_settle)
    async with running(manifest(FIND_ITEM), page) as h:
        result = await h.call("feed.find", {"n": 57})
    assert result["text"] == "Item 57"
    assert page.loads >= 2 and result["attempts"] <= 15
    # The page was given time to answer: a settle (or the fallback delay) after every scroll.
    settles = h.bridge_calls().count("dom.settle")
    assert settles == (h.bridge_calls().count("viewport.scroll") if dom_settle else 0)


async def test_feed_exhaustion_fails_naming_step_phase_and_attempts() -> None:
    page = FeedPage(batch=2)  # appends 2 at a time: item 57 is out of reach in 3 attempts
    tool = {**FIND_ITEM, "name": "feed.find3"}
    tool["workflow"] = {**tool["workflow"], "steps": [{**tool["workflow"]["steps"][0], "max_attempts": 3}]}
    async with running(manifest(tool), page) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("feed.find3", {"n": 57})
    error = caught.value
    assert error.code == "retry_exhausted"
    assert error.evidence.items() >= {"step": "find", "phase": "retry_until", "primitive": "locator.element_info",
                                      "attempts": 3, "retryable": True}.items()
    assert error.evidence["last_error"]["code"] == "target_not_found" and error.evidence["elapsed_ms"] > 0


def form_page() -> SimPage:
    page = SimPage(url="https://form.sim.test/")
    for n, name in enumerate(("first", "last", "email")):
        page.add(f"#{name}", f"input[name='{name}']", editable=True, y=100 + 40 * n)
    return page


FILL_FORM = workflow_tool(
    "form.fill",
    {"id": "fill", "primitive": "text.insert", "for_each": "{% input.fields %}", "max_items": 5,
     "args": {"target": {"selector": "{% '#' & item.name %}"}, "text": "{% item.value %}", "mode": "replace"}},
    {"id": "note", "primitive": "text.insert", "when": "{% $exists(input.note) %}",
     "args": {"target": {"selector": "#note"}, "text": "{% input.note %}"}},
    output="{% {'filled': $count(steps.fill.output), 'last_index': steps.fill.items[-1].name, 'note_skipped': steps.note.skipped} %}",
    properties={"fields": {"type": "array"}, "note": {"type": "string"}},
)


async def test_for_each_fills_a_form_and_when_skips_with_exists() -> None:
    page = form_page()
    fields = [{"name": "first", "value": "Ada"}, {"name": "last", "value": "Lovelace"}, {"name": "email", "value": "ada@example.com"}]
    async with running(manifest(FILL_FORM), page) as h:
        result = await h.call("form.fill", {"fields": fields})
    assert result == {"filled": 3, "last_index": "email", "note_skipped": True}
    assert [e.value for e in page.elements] == ["Ada", "Lovelace", "ada@example.com"]


async def test_for_each_over_max_items_is_limit_exceeded_before_acting() -> None:
    page = form_page()
    async with running(manifest(FILL_FORM), page) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("form.fill", {"fields": [{"name": "first", "value": str(n)} for n in range(6)]})
    assert caught.value.code == "limit_exceeded"
    assert caught.value.evidence.items() >= {"step": "fill", "phase": "for_each", "max_items": 5, "retryable": True}.items()
    assert "text.insert" not in page.calls


async def test_a_failing_item_names_its_index_and_on_error_continue_records_it() -> None:
    page = form_page()
    stop = workflow_tool("form.strict", FILL_FORM["workflow"]["steps"][0], properties={"fields": {"type": "array"}})
    lenient = workflow_tool("form.lenient", {**FILL_FORM["workflow"]["steps"][0], "on_error": "continue"},
                            output="{% steps.fill.error %}", properties={"fields": {"type": "array"}})
    fields = [{"name": "first", "value": "A"}, {"name": "nope", "value": "B"}]
    async with running(manifest(stop, lenient), page) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("form.strict", {"fields": fields})
        recorded = await h.call("form.lenient", {"fields": fields})
    assert caught.value.code == "target_not_found"
    assert caught.value.evidence.items() >= {"step": "fill", "index": 1, "phase": "primitive", "primitive": "text.insert"}.items()
    assert recorded["code"] == "target_not_found" and recorded["index"] == 1


def confirm_page(reveal_after: float) -> SimPage:
    page = SimPage()
    confirmation = page.add("[data-confirmation]", text="Thanks!", visible=False, y=300)
    page.add("#go", text="Go", y=100, on_click=lambda: page.later(reveal_after, lambda: setattr(confirmation, "visible", True)))
    return page


CLICK_AND_SETTLE = workflow_tool(
    "confirm.go",
    {"id": "locate", "primitive": "locator.element_info", "args": {"locator": {"selector": "#go"}}},
    {"id": "click", "primitive": "pointer.click",
     "args": {"x": "{% steps.locate.output.clickable_center.x %}", "y": "{% steps.locate.output.clickable_center.y %}"},
     "settle_after": {"locator": {"selector": "[data-confirmation]"}, "state": "visible", "timeout_ms": 400}},
    {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "[data-confirmation]"}}},
    output="{% {'settled': steps.click.settled, 'settle_error': steps.click.settle_error.code, 'text': steps.read.output.text} %}",
)


@pytest.mark.parametrize(("reveal_after", "settled"), [(0.05, True), (1.0, False)])
async def test_settle_after_waits_for_the_locator_and_its_timeout_is_pacing(reveal_after: float, settled: bool) -> None:
    async with running(manifest(CLICK_AND_SETTLE), confirm_page(reveal_after)) as h:
        result = await h.call("confirm.go")
    assert result["settled"] is settled and result["text"] == "Thanks!"
    assert result.get("settle_error") == (None if settled else "timeout")


async def test_call_timeout_during_settle_names_the_settling_step() -> None:
    tool = {**CLICK_AND_SETTLE, "name": "confirm.slow"}
    steps = [dict(s) for s in tool["workflow"]["steps"]]
    steps[1]["settle_after"] = {"locator": {"selector": "[data-confirmation]"}, "timeout_ms": 5000}
    tool["workflow"] = {**tool["workflow"], "steps": steps}
    async with running(manifest(tool), confirm_page(10)) as h:
        started = time.monotonic()
        with pytest.raises(ActionError) as caught:
            await h.call("confirm.slow", {"timeout_ms": 300})
    assert time.monotonic() - started < 1.5
    assert caught.value.code == "handler_timeout"
    assert caught.value.evidence.items() >= {"step": "click", "phase": "settle", "primitive": "locator.wait_for"}.items()


async def test_settle_after_delay_paces() -> None:
    tool = workflow_tool("pace.delay", {"id": "info", "primitive": "page.info", "settle_after": {"delay_ms": 120}},
                         output="{% steps.info.settled %}")
    async with running(manifest(tool), SimPage()) as h:
        started = time.monotonic()
        assert await h.call("pace.delay") is True
    assert time.monotonic() - started >= 0.12


async def test_result_schema_is_checked_on_every_output_naming_the_path() -> None:
    tool = workflow_tool("bad.result", {"id": "info", "primitive": "page.info"}, output="{% {'count': 'many'} %}",
                         result_schema={"type": "object", "properties": {"count": {"type": "integer"}}})
    async with running(manifest(tool), SimPage()) as h:
        with pytest.raises(ActionError) as caught:
            await h.call("bad.result")
    assert caught.value.code == "invalid_result" and caught.value.evidence["path"] == "/count"


async def test_progress_names_each_step_and_only_grows() -> None:
    reports: list[tuple[float, float | None, str]] = []

    async def progress(value: float, total: float | None, message: str) -> None:  # async, as MCP's is
        reports.append((value, total, message))

    async with running(manifest(FIND_ITEM), FeedPage()) as h:
        await h.call("feed.find", {"n": 30}, progress=progress)
    messages = [m for _, _, m in reports]
    assert messages[0] == "step find (locator.element_info)" and messages[-1] == "done"
    assert any(m.startswith("step find attempt 2/15") for m in messages)
    values = [v for v, _, _ in reports]
    assert values == sorted(values) and reports[-1][:2] == (1, 1)


async def test_cancelling_the_call_stops_inside_a_wait_and_leaves_nothing_pending() -> None:
    page = FeedPage(delay_s=60)  # the feed never answers: the loop waits on the page
    async with running(manifest(FIND_ITEM), page) as h:
        task = asyncio.create_task(h.call("feed.find", {"n": 57}))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        calls_at_cancel = len(h.bridge_calls())
        await asyncio.sleep(0.3)
        assert len(h.bridge_calls()) == calls_at_cancel  # nothing more reached the page
        assert h.service.bridge.pending_count == 0
