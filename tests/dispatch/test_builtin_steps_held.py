"""A page tool's steps are held to the origin its call was judged for (issue 29: the policy holds through the whole call).

``page_fill`` finds its field (``refs.resolve``), then types (``text.insert``): two round trips. A page that
moved to a denied origin between them (here the memory runtime's page navigates as the field is brought
into view) is judged again before the typing, which is refused (``permission_denied``) and never reaches
the page; to an allowed origin, the typing goes on there. Before, a map's workflow steps were held this
way but a built-in was judged once, before its first round trip.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_actions.dispatch.call.policy import Policy, PolicyGuard, PolicyHolder, PolicyOriginGuard
from mcp_actions.errors import ActionError, ErrorCode

from .harness import manifest, running

pytestmark = pytest.mark.asyncio

RULES = {"rules": [{"tools": "*", "origins": "https://evil.sim.test", "decision": "deny"}, {"tools": "*", "decision": "allow"}]}


@pytest.mark.parametrize(("moved_to", "typed"), [("https://evil.sim.test/", False), ("https://other.sim.test/", True)])
async def test_a_page_that_moved_between_a_built_ins_steps_is_judged_again_before_the_next(moved_to: str, typed: bool) -> None:
    runtime: dict[str, Any] = {}

    async def resolve(arguments: dict[str, Any]) -> dict[str, Any]:
        # The page navigated while the field came into view, and its runtime says so (runtime_status)
        # before it answers: the bridge's next step finds the page elsewhere.
        runtime["it"].url = moved_to
        await runtime["it"].report(url=moved_to)
        return {"ref": "@e1", "role": "textbox", "name": "Password", "selector": "#password"}

    primitives = {
        "refs.resolve": resolve,
        "text.insert": lambda arguments: {"inserted": True},
        "refs.change_mark": lambda arguments: {},
        "refs.change_report": lambda arguments: {"changed": False},
    }
    async with running(manifest(), primitives=primitives) as h:
        runtime["it"] = h.runtime
        h.runtime.url = "https://bank.sim.test/login"
        await h.runtime.report(url=h.runtime.url)
        holder = PolicyHolder(Policy.parse(RULES))
        h.service.guards.insert(PolicyGuard(holder), before="confirmation")
        h.service.guards.insert(PolicyOriginGuard(), before="page")
        arguments = {"ref": "@e1", "value": "hunter2", "target": {"runtime_id": "sim-1"}}
        if typed:
            await h.service.call("page_fill", arguments)
        else:
            with pytest.raises(ActionError) as caught:
                await h.service.call("page_fill", arguments)
            assert caught.value.code == ErrorCode.PERMISSION_DENIED
        sent = [name for name, _, _ in h.runtime.calls]
    assert sent[0] == "refs.resolve"
    assert ("text.insert" in sent) == typed
