"""A call judged for one origin never acts on a page of another (action_call.origin).

The bridge does not send it to a runtime whose last report shows another
origin; a runtime that knows its page moved since its last report (here the
memory runtime, whose URL changes before it reports) refuses it itself,
before acting. Either way: ``permission_denied`` with ``reason:
"origin_changed"`` and where the page is now.
"""

from __future__ import annotations

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.runtimes.memory import MemoryRuntime


async def _runtime(bridge: Bridge, url: str) -> MemoryRuntime:
    runtime = MemoryRuntime(bridge, runtime_id="m1", url=url, primitives={"probe": lambda arguments: {"ran": True}})
    await runtime.start()
    return runtime


async def test_a_call_for_the_origin_shown_runs():
    bridge = Bridge()
    runtime = await _runtime(bridge, "https://bank.test/login")
    assert await bridge.call("probe", {}, runtime_id="m1", origin="https://bank.test") == {"ran": True}
    await runtime.stop()


async def test_the_bridge_refuses_a_call_for_an_origin_the_runtime_reported_leaving():
    bridge = Bridge()
    runtime = await _runtime(bridge, "https://bank.test/login")
    await runtime.report(url="https://evil.test/")
    with pytest.raises(ActionError) as caught:
        await bridge.call("probe", {}, runtime_id="m1", origin="https://bank.test")
    assert caught.value.code == ErrorCode.PERMISSION_DENIED
    assert caught.value.evidence["reason"] == "origin_changed" and caught.value.evidence["origin"] == "https://evil.test"
    assert runtime.calls == []
    await runtime.stop()


async def test_a_runtime_whose_page_moved_before_it_reported_refuses_before_acting():
    bridge = Bridge()
    runtime = await _runtime(bridge, "https://bank.test/login")
    runtime.url = "https://evil.test/"  # navigated; its runtime_status has not reached the bridge yet
    with pytest.raises(ActionError) as caught:
        await bridge.call("probe", {}, runtime_id="m1", origin="https://bank.test")
    assert caught.value.code == ErrorCode.PERMISSION_DENIED and caught.value.evidence["origin"] == "https://evil.test"
    assert runtime.calls == []
    await runtime.stop()
