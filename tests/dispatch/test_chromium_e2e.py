"""The action language end to end: real headless Chromium, fixture apps that behave like real ones,
the MCP server through the SDK's in-process ``Client``.

Progress is observed through dispatch (``ActionService.call(progress=...)``) on the same app: the MCP
adapter forwarding it as MCP progress notifications belongs to the server branch.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.demo.static import StaticSite
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.asyncio

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"

WF = {"version": 1, "expression_language": "jsonata"}


def tool(name: str, steps: list[dict[str, Any]], output: str, properties: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"{name} (fixture app)", "input_schema": {"type": "object", "properties": properties or {}},
            "workflow": {**WF, "steps": steps, "output": output}, **extra}


def feed_map(origin: str) -> dict[str, Any]:
    find = tool("feed.find_item", [
        {"id": "find", "primitive": "locator.element_info",
         "args": {"locator": {"selector": "{% '#item-' & $string(input.n) %}"}},
         "retry_until": "{% steps.find.output.visible = true %}", "max_attempts": 15,
         "after_each": {"primitive": "viewport.scroll", "args": {"delta_y": 4000}}},
        {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "{% '#item-' & $string(input.n) %}"}}},
    ], "{% {'text': steps.read.output.text, 'attempts': steps.find.attempts, 'in_viewport': steps.find.output.in_viewport} %}",
        {"n": {"type": "integer", "minimum": 1}},
        result_schema={"type": "object", "required": ["text", "attempts"], "properties": {"text": {"type": "string"}, "attempts": {"type": "integer"}}})
    return {"protocol": "actions.json", "version": 1, "surface": {"origin": origin, "name": "Feed"}, "tools": [find]}


def signup_map(origin: str) -> dict[str, Any]:
    fill = tool("signup.create_account", [
        {"id": "form", "primitive": "locator.wait_for", "args": {"locator": {"selector": "#signup"}, "state": "visible", "timeout_ms": 3000}},
        {"id": "fill", "primitive": "text.insert", "for_each": "{% input.fields %}", "max_items": 8,
         "args": {"target": {"selector": "{% '#' & item.id %}"}, "text": "{% item.value %}", "mode": "replace"}},
        {"id": "locate", "primitive": "locator.element_info", "args": {"locator": {"selector": "#create", "role": "button"}}},
        {"id": "submit", "primitive": "pointer.click",
         "args": {"x": "{% steps.locate.output.clickable_center.x %}", "y": "{% steps.locate.output.clickable_center.y %}"},
         "settle_after": {"locator": {"selector": "#status", "text_contains": "Welcome"}, "state": "visible", "timeout_ms": 3000}},
        {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#status"}}},
        {"id": "values", "primitive": "locator.text_content", "for_each": "{% input.fields %}", "max_items": 8,
         "args": {"locator": {"selector": "{% '#' & item.id %}"}}},
    ], "{% {'status': steps.read.output.text, 'filled': $count(steps.fill.output), 'settled': steps.submit.settled, "
       "'values': steps.values.output.value} %}",
        {"fields": {"type": "array", "items": {"type": "object", "required": ["id", "value"]}}})
    return {"protocol": "actions.json", "version": 1, "surface": {"origin": origin, "name": "Sign up"}, "tools": [fill]}


def click(step_id: str, selector: str, settle: dict[str, Any]) -> list[dict[str, Any]]:
    center = f"steps.{step_id}_at.output.clickable_center"
    return [{"id": f"{step_id}_at", "primitive": "locator.element_info", "args": {"locator": {"selector": selector}}},
            {"id": step_id, "primitive": "pointer.click", "args": {"x": f"{{% {center}.x %}}", "y": f"{{% {center}.y %}}"},
             "settle_after": settle}]


def board_map(origin: str) -> dict[str, Any]:
    add = tool("board.add_card", [
        *click("open", "#add-card", {"locator": {"selector": "#card-title"}, "timeout_ms": 2000}),
        {"id": "title", "primitive": "text.insert", "args": {"target": {"selector": "#card-title"}, "text": "{% input.title %}", "mode": "replace"}},
        *click("save", "#save-card", {"locator": {"selector": "[data-card]", "text_equals": "{% input.title %}"}, "timeout_ms": 2000}),
    ], "{% {'added': input.title, 'settled': steps.save.settled} %}", {"title": {"type": "string"}},
        target={"selector": "#board", "state": "board_ready"})
    open_dialog = tool("board.open_dialog", click("open", "#add-card", {"locator": {"selector": "[role='dialog']"}, "timeout_ms": 2000}),
                       "{% {'open': steps.open.settled} %}")
    wait_ready = tool("board.wait_ready", [{"id": "board", "primitive": "locator.wait_for",
                                             "args": {"locator": {"selector": "#board"}, "timeout_ms": 8000}}],
                      "{% steps.board.output.matched %}")
    return {
        "protocol": "actions.json", "version": 1, "surface": {"origin": origin, "name": "Board"},
        "states": [
            {"name": "board_ready", "description": "The board is loaded and not busy.",
             "diagnostics": [{"name": "board_idle", "target": {"selector": "#board:not([aria-busy='true'])"}}]},
            {"name": "dialog_open", "description": "The new-card dialog is open.",
             "diagnostics": [{"name": "dialog", "target": {"selector": "[role='dialog']"}}]},
        ],
        "transitions": [{"name": "add_cards", "from": "board_ready", "to": "board_ready", "tool": "board.add_card",
                         "method": "tool_call", "rate_limit_ms": 800}],
        "tools": [add, open_dialog, wait_ready],
    }


@contextlib.asynccontextmanager
async def app_with(tmp_path: Path, document: dict[str, Any]) -> AsyncIterator[tuple[ActionsApp, Client]]:
    (tmp_path / "actions.json").write_text(json.dumps(document))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="launch", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        yield app, client


async def navigate(client: Client, url: str) -> None:
    result = await client.call_tool("browser_navigate", {"url": url})
    assert not result.is_error, result.structured_content


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


def failed(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error, result.structured_content
    return result.structured_content["error"]  # type: ignore[index]  # an isError result always carries structuredContent.error


async def test_infinite_feed_is_walked_to_item_57_with_retry_until_and_after_each(tmp_path: Path, pages_url: str) -> None:
    async with app_with(tmp_path, feed_map(pages_url)) as (app, client):
        await navigate(client, f"{pages_url}/feed/index.html")
        result = ok(await client.call_tool("feed_find_item", {"n": 57}))
        assert result["text"] == "Item 57" and result["in_viewport"] is True
        assert 3 <= result["attempts"] <= 15
        # Out of reach within 15 attempts? No: but a far item exhausts and says where.
        error = failed(await client.call_tool("feed_find_item", {"n": 5000}))
        assert error["code"] == "retry_exhausted"
        assert error["evidence"]["step"] == "find" and error["evidence"]["phase"] == "retry_until"
        assert error["evidence"]["primitive"] == "locator.element_info" and error["evidence"]["elapsed_ms"] > 0


async def test_a_late_form_is_filled_with_for_each_and_the_late_answer_is_settled_on(tmp_path: Path, pages_url: str) -> None:
    fields = [{"id": "first_name", "value": "Ada"}, {"id": "last_name", "value": "Lovelace"},
              {"id": "email", "value": "ada@example.com"}, {"id": "city", "value": "London"}]
    async with app_with(tmp_path, signup_map(pages_url)) as (app, client):
        await navigate(client, f"{pages_url}/signup/index.html")
        result = ok(await client.call_tool("signup_create_account", {"fields": fields}))
        assert result == {"status": "Welcome, Ada!", "filled": 4, "settled": True,
                          "values": ["Ada", "Lovelace", "ada@example.com", "London"]}
        # A field the form does not have fails naming the step and the loop index.
        error = failed(await client.call_tool("signup_create_account", {"fields": [*fields[:2], {"id": "phone", "value": "1"}]}))
        assert error["code"] == "target_not_found"
        assert error["evidence"]["step"] == "fill" and error["evidence"]["index"] == 2 and error["evidence"]["phase"] == "primitive"


async def test_board_state_mismatch_progress_and_rate_limit(tmp_path: Path, pages_url: str) -> None:
    async with app_with(tmp_path, board_map(pages_url)) as (app, client):
        await navigate(client, f"{pages_url}/sprint-board/index.html")
        # The board is still loading: refused before acting, with the required and current states.
        error = failed(await client.call_tool("board_add_card", {"title": "Too early"}))
        assert error["code"] == "state_mismatch"
        assert error["evidence"]["required_state"] == "board_ready" and error["evidence"]["current_states"] == []

        assert ok(await client.call_tool("board_wait_ready", {}))["result"] is True  # the board arrives (1.5 s)
        reports: list[tuple[float, float | None, str]] = []
        first = await app.service.call("board_add_card", {"title": "Ship it"},
                                       progress=lambda p, t, m: reports.append((p, t, m)))
        first_end = time.monotonic()
        assert first == {"added": "Ship it", "settled": True}
        messages = [m for _, _, m in reports]
        assert messages[:2] == ["step open_at (locator.element_info)", "step open (pointer.click)"] and messages[-1] == "done"
        assert [p for p, _, _ in reports] == sorted(p for p, _, _ in reports) and reports[-1][:2] == (5, 5)

        # Repeating the human-visible movement at once: refused when the call cannot wait 800 ms...
        error = failed(await client.call_tool("board_add_card", {"title": "Again", "timeout_ms": 300}))
        assert error["code"] == "rate_limited" and 0 < error["evidence"]["retry_after_ms"] <= 800
        # ...and waited out when it can.
        second = ok(await client.call_tool("board_add_card", {"title": "Again"}))
        assert second["added"] == "Again" and time.monotonic() - first_end >= 0.8

        # The dialog left open makes the board busy: the states say so, and the tool refuses.
        assert ok(await client.call_tool("board_open_dialog", {}))["open"] is True
        error = failed(await client.call_tool("board_add_card", {"title": "Busy"}))
        assert error["code"] == "state_mismatch" and error["evidence"]["current_states"] == ["dialog_open"]
        runtimes = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)
        assert runtimes["runtimes"][0]["states"] == ["dialog_open"]


SIMPLE_FORM = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "simple-form" / "actions.json"


@pytest.mark.parametrize("mode", ["handler_first", "steps_first"])
async def test_published_simple_form_map_in_both_modes_with_and_without_the_page_handler(tmp_path: Path, pages_url: str, mode: str) -> None:
    document = json.loads(SIMPLE_FORM.read_text())
    document["surface"]["origin"] = pages_url
    document["tools"][0]["x_actions"]["execution"]["mode"] = mode
    async with app_with(tmp_path, document) as (app, client):
        for number, page in enumerate(["simple-form", "simple-form-nohandler"]):
            # A fresh URL each time: the map's convergence allows one submission per page.
            await navigate(client, f"{pages_url}/{page}/index.html?visit={number}")
            result = ok(await client.call_tool("contact_submit_name", {"name": f"Ada {number}"}))
            assert result == {"ok": True, "result": f"Submitted Ada {number}"}
        runtimes = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)
        assert runtimes["runtimes"][0]["states"] == ["form_ready", "form_submitted"]


@pytest.fixture
def feed_site() -> Iterator[str]:
    """The feed fixture served as a site of its own: its front page is the feed (the origin's root)."""
    with StaticSite(PAGES / "feed") as site:
        yield site.url.rstrip("/")


async def test_first_calls_at_once_open_the_site_their_map_names_once(tmp_path: Path, feed_site: str) -> None:
    # The map names its site; the agent's first calls (hosts send parallel calls) find no tab
    # there, and the server opens the site's front page once for both.
    async with app_with(tmp_path, feed_map(feed_site)) as (app, client):
        assert "browser_navigate" in {t.name for t in (await client.list_tools()).tools}  # listed anyway
        first, second = await asyncio.gather(client.call_tool("feed_find_item", {"n": 2}), client.call_tool("feed_find_item", {"n": 3}))
        assert ok(first)["text"] != ok(second)["text"]
        tabs = ok(await client.call_tool("browser_list_tabs", {}))["tabs"]
        assert [tab["url"] for tab in tabs] == [f"{feed_site}/"]


async def test_a_site_its_map_names_that_cannot_be_opened_fails_the_call_naming_that_site(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    async with app_with(tmp_path, feed_map(closed)) as (app, client):
        error = failed(await client.call_tool("feed_find_item", {"n": 2}))
        assert error["code"] == "handler_failed" and error["evidence"]["surface_origin"] == closed
        assert error["evidence"]["url"] == f"{closed}/"  # the front page: only the origin is relied on
        assert error["message"].startswith(f"could not open {closed}/, the site its map names") and "ERR_CONNECTION_REFUSED" in error["message"]


@pytest.mark.parametrize("tab", ["blank", "new"])
async def test_opening_a_maps_page_that_never_answers_ends_within_the_calls_time_limit(tmp_path: Path, pages_url: str, tab: str) -> None:
    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        hanging = f"http://127.0.0.1:{silent.getsockname()[1]}/feed/"
        async with app_with(tmp_path, feed_map(hanging)) as (app, client):
            if tab == "new":  # the browser's tab is on another page: the map's page gets a tab of its own
                await navigate(client, f"{pages_url}/feed/index.html")
            error = failed(await client.call_tool("feed_find_item", {"n": 2, "timeout_ms": 1500}))
            assert error["code"] == "handler_timeout" and error["evidence"]["surface_origin"] == hanging
            assert 0 < error["evidence"]["timeout_ms"] <= 1500  # the call's own limit, not the bridge's default


async def test_a_call_waiting_for_another_to_open_its_page_waits_no_longer_than_its_own_time_limit(tmp_path: Path, feed_site: str) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        hanging = feed_map(f"http://127.0.0.1:{silent.getsockname()[1]}")
        reachable = feed_map(feed_site)
        reachable["tools"][0]["name"] = "news.find_item"  # a second map, on a page that does load
        (tmp_path / "feed.actions.json").write_text(json.dumps(hanging))
        (tmp_path / "news.actions.json").write_text(json.dumps(reachable))
        app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="launch", headless=True, isolated=True, serve_bridge=False))
        async with Client(build_server(app)) as client:
            slow = asyncio.ensure_future(client.call_tool("feed_find_item", {"n": 2, "timeout_ms": 4000}))
            await asyncio.sleep(0.3)  # the first call now holds the opening (its page never answers)
            waiting = failed(await client.call_tool("news_find_item", {"n": 2, "timeout_ms": 1000}))
            assert waiting["code"] == "handler_timeout" and waiting["evidence"]["phase"] == "opening"
            assert failed(await slow)["code"] == "handler_timeout"
            # Once the opening is free, the other map's page opens as usual.
            assert ok(await client.call_tool("news_find_item", {"n": 2}))["text"]
