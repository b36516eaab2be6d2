"""A page's own tool is held to the origin the policy judged, as a map's steps are (issue 29: the policy holds through the whole call).

The call of a WebMCP, ABP or WAB tool carries the judged origin on its
``action_call`` (``PageToolCall.origin``, from dispatch's ``judged_origin``).
A runtime whose page moved since its last report (here the memory runtime,
whose URL changes before it reports) refuses it before acting:
``permission_denied``, reason ``origin_changed``, and the page's tool never
runs. The same call without an origin to hold (no rule depends on the page)
runs, so it is the origin that stops it. Through the whole server, a call
judged by an origin rule reaches the runtime with that origin.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.catalog.catalog import Catalog, ToolBinding
from mcp_actions.deadline import Deadline
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.protocols.exposure import PageToolExposure
from mcp_actions.protocols.registry import PAGE_PROTOCOLS
from mcp_actions.protocols.runner import PageToolRunner
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server
from tests.bridge.wsclient import TOKEN, WsRuntime

from .test_registry import REPORTED, URL


def _binding(name: str) -> ToolBinding:
    """The catalogue's binding of the page tool ``REPORTED[name]`` declares on tab-1 at ``URL``."""
    catalog = Catalog()
    exposure = PageToolExposure(catalog, fetcher=None, changed=lambda _: None)
    declared = RuntimeInfo(runtime_id="tab-1", url=URL, transport="test", page_tools={name: REPORTED[name]})
    if PAGE_PROTOCOLS[name].discovery.site_document:
        exposure.site_found(declared, None, REPORTED[name], protocol=name)
    else:
        exposure.page_reported(declared)
    (binding,) = [b for b in catalog.tools.values() if b.runtime_id == "tab-1"]
    return binding


@pytest.mark.asyncio
@pytest.mark.parametrize("name", list(PAGE_PROTOCOLS))
async def test_a_page_tool_is_not_sent_to_a_page_that_moved_from_the_judged_origin(name: str) -> None:
    bridge = Bridge()
    runtime = MemoryRuntime(bridge, runtime_id="tab-1", url=URL, primitives={PAGE_PROTOCOLS[name].primitive: lambda arguments: {"ran": True}})
    await runtime.start()
    try:
        info = bridge.registry.get("tab-1")
        assert info is not None
        binding, runner = _binding(name), PageToolRunner(bridge)
        runtime.url = "https://evil.test/"  # navigated; its runtime_status has not reached the bridge yet
        with pytest.raises(ActionError) as caught:
            await runner.run(binding, {}, info, Deadline.after_ms(2000), origin="https://shop.test")
        assert caught.value.code == ErrorCode.PERMISSION_DENIED
        assert caught.value.evidence["reason"] == "origin_changed" and caught.value.evidence["origin"] == "https://evil.test"
        assert runtime.calls == []  # the page's tool never ran
        # Nothing to hold (no rule depends on the page): the same call runs there.
        await runner.run(binding, {}, info, Deadline.after_ms(2000), origin=None)
        assert [call[0] for call in runtime.calls] == [PAGE_PROTOCOLS[name].primitive]
    finally:
        await runtime.stop()
        await bridge.stop()


@pytest.mark.asyncio
async def test_through_the_server_a_page_tools_call_carries_the_judged_origin(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"tools": "*", "origins": "https://evil.test", "decision": "deny"}]}), encoding="utf-8")
    app = ActionsApp(AppOptions(browser="none", bridge_port=0, bridge_token=TOKEN, watch=False, policy=str(policy)))
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-shop", url=URL, page_tools={"webmcp": REPORTED["webmcp"]}).open()

        async def answer(call: dict[str, Any]) -> Any:
            return {"result": {"found": 0}}

        runtime.serve(answer)
        for _ in range(100):
            if any((t.meta or {}).get("mcp-actions/protocol") == "webmcp" for t in (await client.list_tools()).tools):
                break
            await asyncio.sleep(0.05)
        result = await client.call_tool("shop_test_search", {"q": "tea"})
        assert not result.is_error, result.content
        assert [(c["name"], c.get("origin")) for c in runtime.calls] == [("webmcp.call", "https://shop.test")]
        await runtime.close()
