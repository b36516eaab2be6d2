"""WebMCP pages end to end: our document.modelContext in real headless Chromium, through the SDK Client.

Fixtures in tests/fixtures/pages/webmcp/: imperative.html is written to
today's draft (document.modelContext.registerTool with a signal, title and
annotations, execute(input, client) with requestUserInteraction),
legacy.html to the first drafts (navigator.modelContext, provideContext,
unregisterTool), declarative.html to the declarative explainer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_actions.protocols.exposure import UNTRUSTED_DESCRIPTION

from .conftest import product


async def test_imperative_tools_become_mcp_tools_and_run_the_pages_execute(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        add = await s.page_tool("webmcp", "add_todo")
        listing = await s.page_tool("webmcp", "list_todos")
        # One naming rule: <site>.<tool>, host-safe MCP name, protocol in _meta.
        assert add.meta["mcp-actions/tool"] == "x127_0_0_1.add_todo" and add.name == "x127_0_0_1_add_todo"
        assert add.meta["mcp-actions/protocol"] == "webmcp"
        assert add.meta["mcp-actions/runtime_id"] == s.tab().runtime_id
        assert add.input_schema["required"] == ["title"] and {"target", "timeout_ms"} <= set(add.input_schema["properties"])
        assert listing.annotations is not None and listing.annotations.read_only_hint is True
        # The page's title is the tool's title; a tool without readOnlyHint is not called read-only.
        assert add.title == "[page] Add a todo" and (add.annotations is None or not add.annotations.read_only_hint)
        builtins = await s.tools()
        assert builtins["browser_navigate"].meta["mcp-actions/protocol"] == "actions.json"

        result = await s.client.call_tool(add.name, {"title": "Water the plants", "priority": 1})
        assert not result.is_error
        assert result.structured_content == {"content": [{"type": "text", "text": 'Added "Water the plants" (1 items)'}]}
        assert result.meta and result.meta.get("mcp-actions/untrusted") is True
        assert await s.tab().page.evaluate("() => todosForTest().map(t => t.title)") == ["Water the plants"]

        # The page's schema is checked before anything reaches the page.
        refused = (await s.client.call_tool(add.name, {"title": "x", "priority": 7})).structured_content["error"]
        assert refused["code"] == "invalid_input" and refused["evidence"]["path"] == "/priority"
        refused = (await s.client.call_tool(add.name, {"title": "x", "colour": "red"})).structured_content["error"]
        assert refused["code"] == "invalid_input" and refused["evidence"]["path"] == "/colour"
        assert await s.tab().page.evaluate("() => todosForTest().length") == 1

        listed = await s.client.call_tool(listing.name, {})
        assert json.loads(listed.structured_content["content"][0]["text"])[0]["title"] == "Water the plants"


async def test_a_tool_registered_later_arrives_with_list_changed_and_leaves_when_its_signal_aborts(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        await s.page_tool("webmcp", "add_todo")
        assert not any(n.endswith("archive_done") for n in await s.tools())
        before = len(s.changes)
        await s.tab().page.click("#enable-archive")
        archive = await s.page_tool("webmcp", "archive_done")
        assert len(s.changes) > before, "no tools/list_changed was sent"
        result = await s.client.call_tool(archive.name, {})
        assert result.structured_content == {"archived": 0}

        # registerTool(tool, {signal}): aborting the signal withdraws the tool.
        before = len(s.changes)
        await s.tab().page.click("#disable-archive")
        await s.wait_for_tools(lambda ts: not any(n.endswith("archive_done") for n in ts))
        assert len(s.changes) > before
        with pytest.raises(MCPError, match="unknown tool"):  # a withdrawn tool is no tool at all
            await s.client.call_tool(archive.name, {})
        # Navigating away withdraws the page's tools.
        await s.navigate(f"{pages_url}/webmcp/booked.html")
        await s.wait_for_tools(lambda ts: not any(t.meta.get("mcp-actions/protocol") == "webmcp" for t in ts.values()))


async def test_a_page_written_to_the_first_drafts_keeps_working(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/legacy.html")
        # navigator.modelContext.provideContext({tools}) lists its tools ...
        add = await s.page_tool("webmcp", "add_todo")
        listing = await s.page_tool("webmcp", "list_todos")
        assert listing.annotations is not None and listing.annotations.read_only_hint is True
        assert not (await s.client.call_tool(add.name, {"title": "Old page"})).is_error
        assert await s.tab().page.evaluate("() => todosForTest().map(t => t.title)") == ["Old page"]
        # ... navigator.modelContext.registerTool adds one, unregisterTool takes it away.
        await s.tab().page.click("#enable-archive")
        archive = await s.page_tool("webmcp", "archive_done")
        assert (await s.client.call_tool(archive.name, {})).structured_content == {"archived": 0}
        await s.tab().page.evaluate("() => disableArchive()")
        await s.wait_for_tools(lambda ts: not any(n.endswith("archive_done") for n in ts))
        # Both names lead to the one context.
        assert await s.tab().page.evaluate("() => document.modelContext === navigator.modelContext")


async def _clear_with_the_pages_dialog(s: Any, name: str, answer: str | None) -> types.CallToolResult:
    """Call clear_todos; when ``answer`` is a button id, click it once the page's dialog shows, as its user would."""
    call = asyncio.create_task(s.client.call_tool(name, {}))
    if answer is not None:
        await s.tab().page.click(answer, timeout=10_000)
    return await call


async def test_request_user_interaction_asks_the_user_through_elicitation_first(pages_url):
    asked: list[types.ElicitRequestParams] = []
    answers = ["accept", "decline", "cancel"]

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        action = answers[len(asked) - 1]
        return types.ElicitResult(action=action, content={"allow": True} if action == "accept" else None)

    async with product(elicitation_callback=elicit) as s:
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        add = await s.page_tool("webmcp", "add_todo")
        clear = await s.page_tool("webmcp", "clear_todos")
        await s.client.call_tool(add.name, {"title": "One"})
        await s.client.call_tool(add.name, {"title": "Two"})

        # Allowed: the page's own dialog shows, the user answers there, the tool goes on.
        done = await _clear_with_the_pages_dialog(s, clear.name, "#clear-yes")
        assert not done.is_error, done.structured_content
        assert done.structured_content == {"cleared": 2, "confirmed": True}
        assert await s.tab().page.evaluate("() => todosForTest().length") == 0
        (question,) = asked
        assert question.message.startswith("x127_0_0_1 (clear_todos) wants to ask you something on its page")
        assert question.requested_schema["properties"]["allow"]["type"] == "boolean"

        # Declined or cancelled: the callback never runs (no dialog), the call is refused.
        await s.client.call_tool(add.name, {"title": "Three"})
        for reason in ("declined", "cancelled"):
            refused = await _clear_with_the_pages_dialog(s, clear.name, None)
            assert refused.is_error
            error = refused.structured_content["error"]
            assert error["code"] == "permission_denied" and error["evidence"]["reason"] == reason and error["evidence"]["protocol"] == "webmcp"
        assert len(asked) == 3
        assert await s.tab().page.evaluate("() => [todosForTest().length, document.getElementById('confirm-clear').open]") == [1, False]


async def test_request_user_interaction_is_refused_when_the_client_cannot_ask(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        add = await s.page_tool("webmcp", "add_todo")
        clear = await s.page_tool("webmcp", "clear_todos")
        await s.client.call_tool(add.name, {"title": "Keep me"})
        refused = await s.client.call_tool(clear.name, {})
        assert refused.is_error
        error = refused.structured_content["error"]
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "no_elicitation"
        assert "cannot ask the user" in error["message"]
        assert await s.tab().page.evaluate("() => [todosForTest().length, document.getElementById('confirm-clear').open]") == [1, False]


async def test_cancelling_the_mcp_call_fires_toolcancel_at_the_page(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        export = await s.page_tool("webmcp", "export_todos")
        call = asyncio.create_task(s.client.call_tool(export.name, {}))
        await s.tab().page.wait_for_function("() => document.getElementById('status').textContent === 'exporting'")
        call.cancel()
        try:
            await call
        except asyncio.CancelledError:
            pass
        await s.tab().page.wait_for_function("() => document.getElementById('status').textContent === 'export stopped'")
        assert await s.tab().page.evaluate("() => cancelsForTest()") == ["export_todos"]


async def test_our_model_context_answers_pages_and_in_page_agents_as_the_draft_says(pages_url):
    """registerTool's rejections, the signal, exposedTo, and the consumer side (getTools, executeTool), in the page itself."""
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        await s.page_tool("webmcp", "clear_todos")
        page = s.tab().page
        refusals = await page.evaluate(
            """async () => {
              const mc = document.modelContext, out = {};
              const reason = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name; } };
              const tool = (name, extra) => ({ name, description: "d", execute: () => name, ...extra });
              out.duplicate = await reason(mc.registerTool(tool("add_todo")));
              out.badName = await reason(mc.registerTool(tool("has space")));
              out.noDescription = await reason(mc.registerTool({ name: "nodesc", execute() {} }));
              out.emptyDescription = await reason(mc.registerTool({ name: "nodesc", description: "", execute() {} }));
              out.noExecute = await reason(mc.registerTool({ name: "noexec", description: "d" }));
              out.insecureExposedTo = await reason(mc.registerTool(tool("insecure"), { exposedTo: ["http://example.com"] }));
              out.preAborted = await reason(mc.registerTool(tool("early"), { signal: AbortSignal.abort() }));
              window.changes = 0;
              mc.ontoolchange = () => window.changes++;
              window.sharing = new AbortController();
              out.exposed = await reason(mc.registerTool(tool("shared", { annotations: { readOnlyHint: true } }), { exposedTo: ["https://partner.example"], signal: window.sharing.signal }));
              return out;
            }"""
        )
        assert refusals == {
            "duplicate": "InvalidStateError",
            "badName": "InvalidStateError",
            "noDescription": "TypeError",
            "emptyDescription": "InvalidStateError",
            "noExecute": "TypeError",
            "insecureExposedTo": "SecurityError",
            "preAborted": "AbortError",
            "exposed": "resolved",
        }
        # A tool exposed to other origins is still this document's: its own agent lists it.
        shared = await s.page_tool("webmcp", "shared")
        assert shared.annotations is not None and shared.annotations.read_only_hint is True

        consumer = await page.evaluate(
            """async () => {
              const mc = document.modelContext, out = {};
              const listed = await mc.getTools();
              const shared = listed.find((t) => t.name === "shared");
              out.names = listed.map((t) => t.name);
              out.shape = { schemaType: typeof shared.inputSchema, parsed: JSON.parse(shared.inputSchema), origin: shared.origin === location.origin, window: shared.window === window, annotations: shared.annotations };
              out.executed = await mc.executeTool(shared, {});
              out.executedFromJson = await mc.executeTool(listed.find((t) => t.name === "list_todos"), "{}");
              window.sharing.abort();
              await new Promise((r) => setTimeout(r, 10));
              out.afterAbort = (await mc.getTools()).map((t) => t.name).includes("shared");
              out.changes = window.changes;
              return out;
            }"""
        )
        assert consumer["names"] == ["add_todo", "clear_todos", "export_todos", "list_todos", "shared"]
        assert consumer["shape"] == {"schemaType": "object", "parsed": {"type": "object", "properties": {}}, "origin": True, "window": True, "annotations": {"readOnlyHint": True, "untrustedContentHint": False}}
        assert consumer["executed"] == '"shared"' and consumer["executedFromJson"] == '{"content":[{"type":"text","text":"[]"}]}'
        assert consumer["afterAbort"] is False and consumer["changes"] == 2  # registered, then withdrawn
        await s.wait_for_tools(lambda ts: shared.name not in ts)


async def test_declarative_form_compiles_to_a_schema_and_answers_through_respond_with(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/declarative.html")
        search = await s.page_tool("webmcp", "search_flights")
        schema = search.input_schema
        assert search.description == UNTRUSTED_DESCRIPTION + "Search flights between two cities."
        assert schema["required"] == ["from", "to"]
        props = schema["properties"]
        assert props["from"] == {"type": "string", "description": "Departure city"}
        assert props["to"]["description"] == "Arrival city"
        assert props["passengers"] == {"type": "number", "minimum": 1, "maximum": 9, "description": "How many people travel"}
        assert props["cabin"]["enum"] == ["economy", "business"] and props["cabin"]["description"] == "Cabin class"
        assert props["trip"] == {"type": "string", "enum": ["oneway", "return"], "description": "Trip"}
        assert "csrf" not in props  # hidden controls are the page's, not the agent's

        result = await s.client.call_tool(search.name, {"from": "Paris", "to": "Oslo", "passengers": 2, "cabin": "business", "trip": "return"})
        assert not result.is_error, result.structured_content
        out = result.structured_content
        assert out["agent"] is True and out["passengers"] == 2 and out["trip"] == "return"
        assert [f["price"] for f in out["flights"]] == [900, 1200] and out["flights"][0]["from"] == "Paris"
        assert await s.tab().page.text_content("#status") == "2 flights found"

        assert (await s.client.call_tool(search.name, {"from": "Paris", "to": "Oslo", "cabin": "first"})).is_error


async def test_declarative_form_that_navigates_answers_with_the_next_pages_json_ld(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp/declarative.html")
        book = await s.page_tool("webmcp", "book_flight")
        assert book.input_schema["properties"]["flight"]["pattern"] == "^(?:[A-Z]{2}[0-9]{2,4})$"
        assert (await s.client.call_tool(book.name, {"flight": "nope", "passenger": "Ada"})).structured_content["error"]["code"] == "invalid_input"
        result = await s.client.call_tool(book.name, {"flight": "AB12", "passenger": "Ada Lovelace"})
        assert not result.is_error, result.structured_content
        out = result.structured_content
        assert out["navigated"] is True and out["page"]["title"] == "Booking confirmed"
        assert "booked.html?flight=AB12" in out["page"]["url"]
        (ld,) = out["page"]["json_ld"]
        assert ld["reservationFor"]["flightNumber"] == "AB12" and ld["underName"]["name"] == "Ada Lovelace"
