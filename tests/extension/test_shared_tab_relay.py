"""What a shared tab's page says on its own reaches the server, and the server's answers reach the page.

Real headless Chromium with the shipped extension, the real server, the SDK's
``Client``. The simple form's map declares a signal (``contact:submitted``)
and an attachment: the signal arrives as a dom_event naming the call that
caused it, before and after a navigation, and the attachment's state is
reported. A WebMCP page (tests/fixtures/pages/webmcp/imperative.html) in a
shared tab publishes its tools to ``tools/list``; they run, and a tool that
asks its user (requestUserInteraction) goes through the MCP client's
elicitation and back to the page.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from .harness import FORM_TITLE, chromium_with_extension, eventually, form_map, free_port, pair, runtimes, server, submit

pytestmark = pytest.mark.browser

WEBMCP_TITLE = "Todo board (WebMCP imperative)"


async def events(client: Client, runtime_id: str) -> list[dict[str, Any]]:
    text = (await client.read_resource(f"actions://runtimes/{runtime_id}/events")).contents[0].text  # type: ignore[union-attr]
    data = json.loads(text)
    listed: list[dict[str, Any]] = data["events"] if isinstance(data, dict) else data
    return listed


async def runtime_titled(client: Client, title: str) -> dict[str, Any] | None:
    return next((r for r in await runtimes(client) if r.get("title") == title and str(r.get("runtime_key", "")).startswith("chrome-tab:")), None)


async def page_tool(client: Client, name: str) -> types.Tool | None:
    tools = (await client.list_tools()).tools
    return next((t for t in tools if (t.meta or {}).get("mcp-actions/protocol") == "webmcp" and str((t.meta or {}).get("mcp-actions/tool", "")).endswith("." + name)), None)


async def test_signals_attachments_webmcp_tools_and_call_messages_in_shared_tabs(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = form_map(tmp_path, pages_url)
    form_url = f"{pages_url}/simple-form/index.html"
    asked: list[types.ElicitRequestParams] = []

    async def elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"allow": True})

    async with chromium_with_extension(tmp_path / "profile") as context:
        form = context.pages[0] if context.pages else await context.new_page()
        await form.goto(form_url)
        todo = await context.new_page()
        await todo.goto(f"{pages_url}/webmcp/imperative.html")
        async with server(maps, free_port(), elicitation_callback=elicit) as (app, client):
            connect = await pair(context, app)
            # Trusted input is the user's to allow (the debugger permission is optional): off until then.
            await connect.get_by_role("button", name="Allow trusted input").wait_for()
            await connect.get_by_text("Trusted input is off").wait_for()
            await connect.get_by_role("checkbox", name=f"Share {FORM_TITLE}").check()
            await connect.get_by_role("checkbox", name=f"Share {WEBMCP_TITLE}").check()
            runtime = await eventually(lambda: runtime_titled(client, FORM_TITLE), "the form's runtime")
            assert "input.trusted" not in runtime["capabilities"]

            # The map's attachment reaches the page's engine, whose state of it comes back (runtime_status.attachments).
            async def attached() -> bool:
                info = app.bridge.registry.get(runtime["runtime_id"])
                return bool(info and any(a.get("id") == "contact-result-status" for a in info.attachments))

            await eventually(attached, "the attachment's state")

            # The map's signal: the page's contact:submitted event, naming the call that caused it.
            tool = next(t.name for t in (await client.list_tools()).tools if (t.meta or {}).get("mcp-actions/tool", "").endswith("contact.submit_name"))
            await submit(client, tool, "Ada")
            event = await eventually(lambda: _named(events(client, runtime["runtime_id"]), "Ada"), "the submitted event")
            assert event["name"] == "contact.submitted" and event["previous_call_id"] and event["event_id"]
            assert event["url"] == form_url

            # A new document: the events are listened to again.
            await form.goto(form_url + "?again=1")
            await eventually(lambda: _url_is(client, form_url + "?again=1"), "the navigated URL")
            await submit(client, tool, "Grace")
            await eventually(lambda: _named(events(client, runtime["runtime_id"]), "Grace"), "the event after a navigation")

            # WebMCP: the page's tools are MCP tools and run in the page. (Shared after the page had
            # loaded, the page's first registrations found no document.modelContext: a reload, with the
            # tab shared, gives the page our context before its scripts run.)
            await todo.reload()
            add = await eventually(lambda: page_tool(client, "add_todo"), "the WebMCP tool add_todo")
            result = await client.call_tool(add.name, {"title": "Water the plants"})
            assert not result.is_error, result
            assert result.structured_content == {"content": [{"type": "text", "text": 'Added "Water the plants" (1 items)'}]}
            assert await todo.evaluate("() => todosForTest().map(t => t.title)") == ["Water the plants"]

            # Call messages both ways: requestUserInteraction asks the MCP client (input_request),
            # the answer goes back to the page (input_response), the page's dialog shows.
            clear = await eventually(lambda: page_tool(client, "clear_todos"), "the WebMCP tool clear_todos")
            call = asyncio.create_task(client.call_tool(clear.name, {}))
            await todo.locator("#clear-yes").click(timeout=10_000)
            done = await call
            assert not done.is_error, done
            assert done.structured_content == {"cleared": 1, "confirmed": True}
            assert len(asked) == 1


async def _named(pending: Any, name: str) -> dict[str, Any] | None:
    return next((e for e in await pending if (e.get("payload") or {}).get("name") == name), None)


async def _url_is(client: Client, url: str) -> bool:
    return any(r.get("url") == url for r in await runtimes(client))
