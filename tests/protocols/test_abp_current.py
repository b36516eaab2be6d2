"""ABP apps written to the current ABP documentation, end to end through the SDK Client.

The fixture (tests/fixtures/pages/abp/current.html) follows what the current
documentation adds to the API reference our adapter was first built from:
``on*`` members as registration methods (the MCP bridge's wiring), cancelling
through ``CallOptions.signal`` (an AbortSignal) with no ``cancel()``, the
Error Handling reference's wider code table, and a session that expires
(``SESSION_EXPIRED``) and is initialised again.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .conftest import eventually, product


async def _app_log(s: Any) -> dict[str, Any]:
    return await s.tab().page.evaluate("() => abpLogForTest()")


async def test_registration_methods_hear_the_agent_and_an_expired_session_is_renewed(pages_url):
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    async with product() as s:
        await s.navigate(f"{pages_url}/abp/current.html")
        add = await s.page_tool("abp", "note.add")
        log = await _app_log(s)
        # The agent's callbacks were handed to the app's on* methods, once each, not written over them.
        assert sorted(log["registered"]) == ["capabilities", "elicitation", "notification", "progress"]
        assert await s.tab().page.evaluate("() => typeof abp.onProgress === 'function' && abp.onProgress.length === 1")

        # Progress the app reports to its registered listeners reaches the MCP call.
        export = await s.page_tool("abp", "notes.export")
        exported = await s.client.call_tool(export.name, {"steps": 3}, progress_callback=on_progress)
        assert not exported.is_error, exported.structured_content
        await asyncio.sleep(0.1)
        assert [(d, t) for d, t, _ in heard] == [(1, 3), (2, 3), (3, 3)]

        # The session allows two calls; the third is refused SESSION_EXPIRED and run again on a new session.
        assert (await s.client.call_tool(add.name, {"text": "first"})).structured_content == {"notes": 1}
        renewed = await s.client.call_tool(add.name, {"text": "second"})
        assert not renewed.is_error, renewed.structured_content
        assert renewed.structured_content == {"notes": 2}
        log = await _app_log(s)
        assert [c["session"] for c in log["calls"]] == ["sess-1", "sess-1", "sess-1", "sess-2"]
        assert len(log["initialize"]) == 2 and log["initialize"][1]["name"] == "mcp-actions"
        assert sorted(log["registered"]) == ["capabilities", "elicitation", "notification", "progress"]  # not again
        assert all(c["hasSignal"] for c in log["calls"])

        # A capabilities change the app tells its registered listeners about lists the new tool.
        enable = await s.page_tool("abp", "archive.enable")
        assert not (await s.client.call_tool(enable.name, {})).is_error
        archive = await s.page_tool("abp", "archive.run")
        assert (await s.client.call_tool(archive.name, {})).structured_content == {"archived": 2}


async def test_cancelling_the_mcp_call_aborts_the_calls_signal(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/current.html")
        wait = await s.page_tool("abp", "job.wait")
        call = asyncio.create_task(s.client.call_tool(wait.name, {}))

        async def running() -> Any:
            return await s.tab().page.text_content("#status") == "Job running"

        await eventually(running)
        call.cancel()
        try:
            await call
        except asyncio.CancelledError:
            pass

        async def aborted() -> Any:
            return (await _app_log(s))["aborts"]

        (abort,) = await eventually(aborted)
        (started,) = [c for c in (await _app_log(s))["calls"] if c["capability"] == "job.wait"]
        assert abort["callId"] == started["callId"] and abort["callId"].isdigit()  # the MCP request's id
        assert await s.tab().page.text_content("#status") == "Job aborted"
        # The server goes on serving calls.
        add = await s.page_tool("abp", "note.add")
        assert (await s.client.call_tool(add.name, {"text": "after"})).structured_content == {"notes": 1}


async def test_the_wider_error_table_maps_onto_stable_codes(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/abp/current.html")
        expected = {
            "note.lock": ("state_mismatch", "PRECONDITION_FAILED"),
            "note.print": ("missing_handler", "NOT_IMPLEMENTED"),
            "note.add": ("invalid_input", "MISSING_PARAM"),
        }
        for capability, (code, abp_code) in expected.items():
            tool = await s.page_tool("abp", capability)
            result = await s.client.call_tool(tool.name, {})
            assert result.is_error, (capability, result.structured_content)
            error = result.structured_content["error"]
            assert (error["code"], error["evidence"]["abp_code"], error["evidence"]["protocol"]) == (code, abp_code, "abp"), capability
