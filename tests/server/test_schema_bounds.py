"""Nothing a page sends can stall the server with schema work either (issue 28, docs/threat-model.md).

The regex stalls are ``test_regex_bounds.py``; these need no regex. A page's ABP
capability declares its own ``outputSchema`` and answers it:

- ``uniqueItems`` over 3,000 distinct objects and then the first one again: jsonschema
  compared every pair before it found it (about 20 s holding the event loop; a 1 MiB answer,
  hours). Now linear: ``invalid_result`` at once, naming both items. (The answer is not a
  valid one on purpose: the SDK's client, in this process, checks a valid result against
  the advertised ``outputSchema`` with jsonschema itself, and would stall this test's loop.)
- ``items: {enum: [4,000 numbers]}`` over 4,000 elements that are all the last one: each
  element scans the enum, seconds of work for an answer that is valid in the end. Now the
  check runs off the event loop and gives up at the call's deadline; the page's action ran,
  so the answer is its output, with the check said to be unknown (``_meta["mcp-actions/unchecked"]``,
  reason ``handler_timeout``; issue 42), never a timeout of the call.

The page runtime runs in headless Chromium, the bridge on a real port, the MCP SDK's
``Client`` makes the calls. While each hostile call runs, ``/healthz``, ``tools/list`` and
another call each answer within a second, and the call ends by its deadline.
"""

from __future__ import annotations

import asyncio

import pytest

from .test_regex_bounds import ANSWER_WITHIN_S, DEADLINE_MS, END_WITHIN_S, _error_code, _healthz, _probe_while, _timed, abp_page


@pytest.mark.parametrize("capability", ["list.unique", "list.enum"])
async def test_schema_work_on_a_pages_answer_stalls_nothing(pages_url: str, capability: str) -> None:
    async with abp_page(pages_url, "abp/heavy.html", {capability, "time.now"}) as (app, client, found):
        assert app.endpoint is not None
        heavy, now = found[capability], found["time.now"]

        async def other_call() -> None:
            answered = await client.call_tool(now.name, {})
            assert not answered.is_error and answered.structured_content == {"n": 7}, answered

        call = asyncio.create_task(_timed(client.call_tool(heavy.name, {"timeout_ms": DEADLINE_MS})))
        slowest = await _probe_while(call, {"healthz": _healthz(app.endpoint.http_url), "tools/list": client.list_tools, "other call": other_call})
        elapsed, result = await call

        assert all(seconds < ANSWER_WITHIN_S for seconds in slowest.values()), slowest
        assert elapsed < END_WITHIN_S, elapsed
        if capability == "list.unique":
            # Linear now: refused well within the deadline.
            assert result.is_error and _error_code(result) == "invalid_result", result
            assert result.structured_content is not None and "items 0 and 3000 are equal" in result.structured_content["error"]["message"]
        else:
            assert not result.is_error, result
            [unchecked] = (result.meta or {})["mcp-actions/unchecked"]
            assert unchecked["check"] == "result_schema" and unchecked["reason"] == "handler_timeout" and unchecked["action_ran"] is True
            assert any("the action ran" in getattr(block, "text", "") for block in result.content)


async def test_a_page_tools_schema_is_not_handed_to_the_host_to_run(pages_url: str) -> None:
    """A page tool is listed without its page's outputSchema, so the host's client (here the MCP SDK's, which
    checks results with jsonschema: about 20 s for 3,000 distinct objects under uniqueItems) runs nothing a
    page wrote; the server held the valid answer to the page's schema itself, and it reaches the host at once."""
    async with abp_page(pages_url, "abp/heavy.html", {"list.distinct"}) as (_app, client, found):
        tool = found["list.distinct"]
        assert tool.output_schema is None and tool.meta is not None and tool.meta["mcp-actions/untrusted"] is True
        elapsed, result = await _timed(client.call_tool(tool.name, {"timeout_ms": DEADLINE_MS}))
        assert not result.is_error, result
        assert result.structured_content is not None and len(result.structured_content["items"]) == 3000
        assert elapsed < ANSWER_WITHIN_S * 3, elapsed
