"""ABP apps end to end: window.abp in real headless Chromium, through the SDK Client.

The fixture (tests/fixtures/pages/abp/app.html) is written to the Agentic
Browser Protocol API text: it exposes window.abp late, reports progress and
elicits through the agent callbacks, and records what the agent did to it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as types

from .conftest import eventually, product


async def _app_log(s: Any) -> dict[str, Any]:
    return await s.tab().page.evaluate("() => abpLogForTest()")


async def test_available_capabilities_become_tools_of_an_initialised_session(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        convert = await s.page_tool("abp", "convert.markdownToHtml")
        assert convert.meta["mcp-actions/protocol"] == "abp"
        assert convert.meta["mcp-actions/tool"] == "x127_0_0_1.convert.markdownToHtml"
        assert convert.meta["mcp-actions/runtime_id"] == s.tab().runtime_id
        assert convert.input_schema["required"] == ["markdown"]
        names = {t.meta["mcp-actions/tool"].split(".", 1)[1] for t in (await s.tools()).values() if t.meta.get("mcp-actions/protocol") == "abp"}
        # Unavailable (share.native) and deprecated (legacy.export) capabilities are not offered.
        assert names == {"convert.markdownToHtml", "export.pdf", "document.delete", "document.print", "job.wait", "camera.capture"}

        log = await _app_log(s)
        (init,) = log["initialize"]
        assert init["agent"]["name"] == "mcp-actions" and init["protocolVersion"] == "0.1"
        assert init["features"] == {"notifications": True, "progress": True, "elicitation": True}
        assert "elicitation/confirm" in init["agentCapabilities"]["allowedRequests"]

        result = await s.client.call_tool(convert.name, {"markdown": "# Hello **World**"})
        assert not result.is_error, result.structured_content
        assert result.structured_content == {"html": "<h1>Hello <strong>World</strong></h1>"}
        assert result.meta and result.meta.get("mcp-actions/untrusted") is True
        (call,) = (await _app_log(s))["calls"]
        # The app's callId is the MCP call's id; progress is keyed by it too.
        assert call["capability"] == "convert.markdownToHtml" and call["params"] == {"markdown": "# Hello **World**"}
        assert call["options"]["callId"].isdigit() and call["options"]["progressToken"] == call["options"]["callId"]

        # Arguments are checked against the app's schema before they reach the app.
        export = await s.page_tool("abp", "export.pdf")
        refused = await s.client.call_tool(export.name, {"pages": 50})
        assert refused.is_error and refused.structured_content["error"]["code"] == "invalid_input"
        assert len((await _app_log(s))["calls"]) == 1


async def test_progress_of_a_call_reaches_the_clients_progress_callback(pages_url):
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        export = await s.page_tool("abp", "export.pdf")
        result = await s.client.call_tool(export.name, {"pages": 4}, progress_callback=on_progress)
        assert not result.is_error, result.structured_content
        assert result.structured_content == {"pages": 4, "bytes": 4096}
        # The SDK client runs each progress callback in a task of its own (its JSON-RPC dispatcher spawns it), so
        # on a busy machine the last may be heard after call_tool returned. Each is waited for (up to 5 s).
        async def all_four() -> bool:
            return len(heard) >= 4

        await eventually(all_four, timeout=5)
        assert [(d, t) for d, t, _ in heard] == [(1, 4), (2, 4), (3, 4), (4, 4)]
        assert heard[-1][2] == "Rendering page 4 of 4"


async def test_elicitation_accepted_and_declined_reaches_the_app(pages_url):
    asked: list[types.ElicitRequestParams] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        if "Delete" in params.message and len(asked) == 1:
            return types.ElicitResult(action="accept", content={"confirmed": True})
        if "page size" in params.message:
            return types.ElicitResult(action="accept", content={"selected": "letter"})
        return types.ElicitResult(action="decline")

    async with product(elicitation_callback=elicit) as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        delete = await s.page_tool("abp", "document.delete")
        accepted = await s.client.call_tool(delete.name, {"id": "doc-1"})
        assert accepted.structured_content == {"deleted": True, "remaining": 1}
        question = asked[0]
        assert 'Delete "Quarterly report"? (this cannot be undone)' in question.message and question.message.startswith("x127_0_0_1 (document.delete) asks:")
        assert question.requested_schema["properties"]["confirmed"]["type"] == "boolean"

        declined = await s.client.call_tool(delete.name, {"id": "doc-2"})
        assert declined.structured_content == {"deleted": False, "refused": "PERMISSION_DENIED"}
        responses = [e["response"] for e in (await _app_log(s))["elicitations"]]
        assert responses[0] == {"success": True, "data": {"confirmed": True}}
        assert responses[1]["success"] is False and responses[1]["error"]["code"] == "PERMISSION_DENIED" and responses[1]["error"]["retryable"] is False

        printing = await s.page_tool("abp", "document.print")
        printed = await s.client.call_tool(printing.name, {"id": "doc-2"})
        assert printed.structured_content == {"printed": True, "pageSize": "letter"}
        options = asked[-1].requested_schema["properties"]["selected"]["oneOf"]
        assert options == [{"const": "letter", "title": "US Letter"}, {"const": "a4", "title": "A4"}]


async def test_a_client_without_elicitation_answers_the_app_with_a_refusal(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        delete = await s.page_tool("abp", "document.delete")
        result = await s.client.call_tool(delete.name, {"id": "doc-1"})
        assert result.structured_content == {"deleted": False, "refused": "NOT_SUPPORTED"}
        (elicitation,) = (await _app_log(s))["elicitations"]
        assert elicitation["method"] == "elicitation/confirm"
        assert elicitation["response"]["success"] is False and elicitation["response"]["error"]["code"] == "NOT_SUPPORTED"


async def test_cancelling_the_mcp_call_reaches_the_apps_cancel(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        wait = await s.page_tool("abp", "job.wait")
        call = asyncio.create_task(s.client.call_tool(wait.name, {}))

        async def started() -> Any:
            calls = (await _app_log(s))["calls"]
            return calls[-1]["options"]["callId"] if calls else None

        call_id = await eventually(started)
        call.cancel()
        try:
            await call
        except asyncio.CancelledError:
            pass

        async def cancelled() -> Any:
            return (await _app_log(s))["cancels"]

        (cancel,) = await eventually(cancelled)
        assert cancel["callId"] == call_id
        assert await s.tab().page.text_content("#status") == f"Job {call_id} cancelled"
        # The server goes on serving calls.
        convert = await s.page_tool("abp", "convert.markdownToHtml")
        assert not (await s.client.call_tool(convert.name, {"markdown": "x"})).is_error


async def test_an_abp_error_maps_onto_a_stable_code_with_the_abp_code_in_evidence(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        capture = await s.page_tool("abp", "camera.capture")
        result = await s.client.call_tool(capture.name, {})
        assert result.is_error
        error = result.structured_content["error"]
        assert error["code"] == "state_mismatch" and error["message"] == "No camera is connected"
        evidence = error["evidence"]
        assert evidence["abp_code"] == "REQUIREMENT_NOT_MET" and evidence["protocol"] == "abp"
        assert evidence["capability"] == "camera.capture" and evidence["retryable"] is True
        assert evidence["alternatives"] == ["document.print"] and evidence["details"] == {"requirement": "hardware"}


async def test_a_capability_made_available_later_arrives_with_list_changed(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        await s.page_tool("abp", "export.pdf")
        assert not any(n.endswith("share_native") for n in await s.tools())
        before = len(s.changes)
        await s.tab().page.click("#enable-share")
        share = await s.page_tool("abp", "share.native")
        assert len(s.changes) > before, "no tools/list_changed was sent"
        result = await s.client.call_tool(share.name, {"id": "doc-1"})
        assert result.structured_content == {"shared": "doc-1"}


async def test_leaving_the_page_shuts_the_session_down_and_withdraws_its_tools(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html")
        await s.page_tool("abp", "export.pdf")
        session_id = await s.tab().page.evaluate("() => abp.sessionId")
        await s.navigate(f"{pages_url}/abp/other.html")
        await s.wait_for_tools(lambda ts: not any(t.meta.get("mcp-actions/protocol") == "abp" for t in ts.values()))
        shutdowns = json.loads(await s.tab().page.evaluate("() => localStorage.getItem('abp-shutdowns')") or "[]")
        assert {"session": session_id, "reason": "page unloading"} in shutdowns


async def test_the_websocket_page_runtime_carries_progress_elicitation_and_cancel(pages_url):
    """The same app with the page runtime embedded (runtime.js over the bridge WebSocket), no browser host."""
    import socket

    from mcp import Client
    from playwright.async_api import async_playwright

    from mcp_actions.actions_app import ActionsApp, AppOptions
    from mcp_actions.runtimes.page_script import runtime_js
    from mcp_actions.server.mcp_server import build_server
    from tests.conftest import connect_chromium

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = ActionsApp(AppOptions(browser="none", bridge_port=port, bridge_token="abp-token", allowed_origins=[pages_url], watch=False))
    heard: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(done)

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirmed": True})

    async with async_playwright() as pw, Client(build_server(app), mode="legacy", elicitation_callback=elicit) as client:
        chromium = await connect_chromium(pw)
        context = await chromium.new_context()
        try:
            page = await context.new_page()
            await page.add_init_script(f"window.__MCP_ACTIONS_BRIDGE__ = {{url: {json.dumps(app.endpoint.url)}, token: 'abp-token'}};\n" + runtime_js())
            await page.goto(f"{pages_url}/abp/app.html")

            async def tools() -> dict[str, types.Tool] | None:
                found = {t.meta["mcp-actions/tool"].split(".", 1)[1]: t for t in (await client.list_tools()).tools if t.meta.get("mcp-actions/protocol") == "abp"}
                return found if "job.wait" in found else None

            found = await eventually(tools)
            assert found["export.pdf"].meta["mcp-actions/runtime_id"] == app.bridge.registry.list()[0].runtime_id
            exported = await client.call_tool(found["export.pdf"].name, {"pages": 3}, progress_callback=on_progress)
            assert exported.structured_content == {"pages": 3, "bytes": 3072}
            await eventually(lambda: asyncio.sleep(0, result=heard == [1, 2, 3]))
            deleted = await client.call_tool(found["document.delete"].name, {"id": "doc-1"})
            assert deleted.structured_content == {"deleted": True, "remaining": 1}

            call = asyncio.create_task(client.call_tool(found["job.wait"].name, {}))

            async def running() -> Any:
                calls = (await page.evaluate("() => abpLogForTest()"))["calls"]
                return calls[-1]["options"]["callId"] if calls and calls[-1]["capability"] == "job.wait" else None

            call_id = await eventually(running)
            call.cancel()
            try:
                await call
            except asyncio.CancelledError:
                pass

            async def cancels() -> Any:
                return (await page.evaluate("() => abpLogForTest()"))["cancels"]

            assert [c["callId"] for c in await eventually(cancels)] == [call_id]
        finally:
            await context.close()
            await chromium.close()


async def test_an_app_its_manifest_link_announces_is_found_when_it_boots_late(pages_url):
    # Watched for window.abp WAIT_MS (10 s) because of the link; a page without one, a quarter of that.
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/app.html?boot=3200")
        convert = await s.page_tool("abp", "convert.markdownToHtml", timeout=15)
        assert convert.meta["mcp-actions/runtime_id"] == s.tab().runtime_id
        assert len((await _app_log(s))["initialize"]) == 1
