"""A runtime that follows the protocol text, not our runtime.js, is understood end to end.

The scripted runtime (``spec_runtime.py``) answers with the spec's
``{"ok": true, "result": …}`` envelope and announces the spec's manifest
summary. Through the real app (catalogue, dispatch, bridge, WebSocket
endpoint) and the SDK's in-process MCP ``Client``, a workflow tool runs on it
from start to end, with nothing logged as a warning.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.errors import ActionError
from mcp_actions.server.mcp_server import build_server

from .spec_runtime import SUMMARY, ScriptedShop, SpecRuntime
from .wsclient import eventually

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bridge"
TOKEN = "spec-runtime-token"


def _app() -> ActionsApp:
    return ActionsApp(AppOptions(manifests=[str(FIXTURES)], browser="none", bridge_port=0, bridge_token=TOKEN))


async def test_a_spec_runtime_runs_a_workflow_tool_end_to_end_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcp_actions")
    app = _app()
    shop = ScriptedShop()
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        async with SpecRuntime(app.endpoint.url, TOKEN, runtime_id="spec-1", url="https://basket.test/products", page=shop) as runtime:
            await eventually(lambda: app.bridge.registry.get("spec-1") is not None)
            info = app.bridge.registry.get("spec-1")
            # The summary says which map the runtime loaded; it is recorded, not taken for an inline manifest.
            assert info.manifest is None and info.manifest_summary == SUMMARY
            assert info.snapshot()["manifest_summary"] == SUMMARY and info.snapshot()["has_manifest"] is False
            assert "spec-1" not in app.inline_reports

            result = await client.call_tool("basket_add_first", {"product": "Coffee"})

            assert not result.is_error, result
            # Each step read the envelope's result: the click used find's centre, the count its text.
            assert result.structured_content == {"clicked": True, "count": 1}
            assert [(c["name"], c["arguments"]) for c in runtime.calls] == [
                ("locator.element_info", {"locator": {"selector": "[data-product] button", "text_contains": "Coffee"}}),
                ("pointer.click", {"x": 120, "y": 90}),
                ("locator.text_content", {"locator": {"selector": "#basket-count"}}),
            ]
            assert shop.basket == 1
            # ok: false with an error is that structured error, code and evidence kept.
            failed = await client.call_tool("basket_add_first", {"product": "Milk"})
            assert failed.is_error
            assert failed.structured_content is None or "clicked" not in failed.structured_content
            text = " ".join(getattr(block, "text", "") for block in failed.content)
            assert "target_not_found" in text
            assert shop.basket == 1 and len(runtime.calls) == 4  # the workflow stopped at the failed step
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [], [r.getMessage() for r in warnings]
    assert any("runtime spec-1 ready" in r.getMessage() for r in caplog.records)  # the log was really captured


async def test_the_dispatch_gets_an_envelope_error_as_that_structured_error() -> None:
    app = _app()
    await app.start()
    try:
        assert app.endpoint is not None
        async with SpecRuntime(app.endpoint.url, TOKEN, runtime_id="spec-2", url="https://basket.test/", page=ScriptedShop()) as runtime:
            await eventually(lambda: app.bridge.registry.get("spec-2") is not None)
            with pytest.raises(ActionError) as caught:
                await app.service.call("basket_add_first", {"product": "e"})  # Tea and Coffee both match
            assert caught.value.code == "multiple_targets"
            assert caught.value.message == "2 elements match"
            assert [c["name"] for c in runtime.calls] == ["locator.element_info"]  # nothing was clicked
    finally:
        await app.stop()


async def test_a_primitive_the_spec_runtime_lacks_fails_naming_host_and_capability_before_sending() -> None:
    app = _app()
    shop = ScriptedShop()
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        capabilities = ["locator.element_info", "locator.text_content"]  # no pointer
        async with SpecRuntime(app.endpoint.url, TOKEN, runtime_id="spec-3", url="https://basket.test/", page=shop, capabilities=capabilities) as runtime:
            await eventually(lambda: app.bridge.registry.get("spec-3") is not None)
            result = await client.call_tool("basket_add_first", {"product": "Tea"})
            assert result.is_error
            error = result.structured_content["error"]
            assert error["code"] == "capability_unavailable"
            assert error["evidence"]["capability"] == "pointer.click" and error["evidence"]["host"] == "spec-tab"
            assert [c["name"] for c in runtime.calls] == ["locator.element_info"]  # the click never left the bridge
            assert shop.basket == 0
