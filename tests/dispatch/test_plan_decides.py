"""The plan made at load decides how a map's tool runs; run time only reads it (issue 29, finding 5).

- A handler naming a dictionary primitive is a ``primitive_handler`` from the
  moment its map loads: on a runtime that does not provide that primitive it
  is refused (``capability_unavailable``), never sent as a page function of
  that name. (Before, ``ToolRun._handler`` chose from the runtime's
  capabilities at run time: the same tool became a page-function call there
  and failed ``missing_handler`` on the page.)
- The bound arguments a primitive handler runs with are the plan's
  (``ExecutionPlan.bound_arguments``), not read again from the tool's
  ``x_actions`` at run time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mcp_actions.deadline import Deadline
from mcp_actions.dispatch.call.execution import ToolRun
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.manifest.execution import ToolKind

from .harness import manifest, running
from .sim_page import SimPage

pytestmark = pytest.mark.asyncio

SCROLL = {
    "name": "feed.down",
    "description": "Scroll the feed down.",
    "input_schema": {"type": "object", "properties": {"delta_y": {"type": "number"}}},
    "x_actions": {"handler": "viewport.scroll", "binding": {"arguments": {"delta_y": 100, "delta_x": 0}}},
}


def _tall_page() -> SimPage:
    page = SimPage()
    page.add("#tall", y=0, height=5000)
    return page


async def test_a_handler_naming_a_primitive_is_refused_where_it_is_not_provided_never_sent_as_a_page_function() -> None:
    page = _tall_page()
    async with running(manifest(SCROLL), page, capabilities=["page.info", "locator.wait_for"]) as h:
        assert h.service.binding("feed_down").kind is ToolKind.PRIMITIVE_HANDLER  # decided at load
        with pytest.raises(ActionError) as caught:
            await h.call("feed.down")
        calls = h.bridge_calls()
    assert caught.value.code == ErrorCode.CAPABILITY_UNAVAILABLE and caught.value.evidence["capability"] == "viewport.scroll"
    assert calls == []  # nothing reached the page, least of all a call of a page function named viewport.scroll


async def test_a_primitive_handler_runs_with_the_plans_bound_arguments() -> None:
    page = _tall_page()
    async with running(manifest(SCROLL), page) as h:
        binding = h.service.binding("feed_down")
        runtime = h.service.bridge.registry.get(h.runtime.runtime_id)
        assert runtime is not None
        # The plan is what runs: a plan bound to 700 scrolls 700, whatever the tool's x_actions says (100).
        planned = dataclasses.replace(binding, execution=dataclasses.replace(binding.execution, bound_arguments={"delta_y": 700, "delta_x": 0}))
        output: Any = await ToolRun(h.service.bridge, planned, runtime, Deadline.after_ms(2000), None).run({})
        assert output["scroll_y"] == 700
        # And the call's own arguments still lie over the plan's.
        output = await ToolRun(h.service.bridge, planned, runtime, Deadline.after_ms(2000), None).run({"delta_y": 50})
        assert output["scroll_y"] == 750
