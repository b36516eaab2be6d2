"""An agent with default options and maps that name only their origin, through the SDK's ``Client``.

A map's ``surface.origin`` is its site's origin, as the spec shows it (scheme,
host, port), not the page its tools work on. With the server's defaults the
agent must still do every task of our fixtures through the tools ``tools/list``
shows it: navigate first, then call. Real headless Chromium, fixture pages
that render late, look-alike lists, a page no map covers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

from ..dispatch.test_chromium_e2e import WF, failed, feed_map, ok, signup_map

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
OBSERVE = {"page_observe", "page_click", "page_fill", "page_press", "page_select", "page_hover", "page_scroll"}


class Notifications:
    """``tools/list_changed`` notifications a handshake-era client heard."""

    def __init__(self) -> None:
        self.tools_changed = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed" or isinstance(message, types.ToolListChangedNotification):
            self.tools_changed.set()


@contextlib.asynccontextmanager
async def agent(tmp_path: Path, *documents: dict[str, Any], heard: Notifications | None = None) -> AsyncIterator[tuple[ActionsApp, Client]]:
    """The server with its default options over these maps (headless, a throwaway profile, no bridge port)."""
    for number, document in enumerate(documents):
        (tmp_path / f"map{number}.actions.json").write_text(json.dumps(document))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app), mode="legacy", message_handler=heard) as client:
        yield app, client


async def listed(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


def fixture_map(name: str, origin: str) -> dict[str, Any]:
    """A fixture page's own map, naming only ``origin`` as its site."""
    document = json.loads((PAGES / name / "actions.json").read_text())
    document.setdefault("surface", {})["origin"] = origin
    return document


def board_add(list_id: str, title: str) -> dict[str, Any]:
    return {"list_id": list_id, "title": title}


#: Every task of our fixture pages: the map, the page the agent navigates to, a call and what it must answer.
TASKS = [
    # An infinite feed that loads late: scroll until item 12 is there.
    ("feed", feed_map, "/feed/index.html", "feed_find_item", {"n": 12}, lambda out: out["text"] == "Item 12"),
    # A form that appears late; four fields filled, the late answer waited for.
    ("signup", signup_map, "/signup/index.html", "signup_create_account",
     {"fields": [{"id": "first_name", "value": "Ada"}, {"id": "email", "value": "ada@example.com"}]},
     lambda out: out["status"] == "Welcome, Ada!"),
    # Three look-alike lists; the card lands in the one named, the postcondition reads the projection.
    ("board", lambda origin: fixture_map("board", origin), "/board/index.html", "board_add_card", board_add("doing", "Ship it"),
     lambda out: out == {"added": True, "list_id": "doing", "title": "Ship it"}),
    # The published simple-form map (its origin is a file: URL in the original).
    ("simple-form", lambda origin: fixture_map("simple-form", origin), "/simple-form/index.html", "contact_submit_name", {"name": "Ada"},
     lambda out: out == {"ok": True, "result": "Submitted Ada"}),
]


@pytest.mark.parametrize(("name", "make_map", "path", "tool", "arguments", "expect"), TASKS, ids=[task[0] for task in TASKS])
async def test_every_fixture_task_through_the_listed_tools_alone(tmp_path, pages_url, name, make_map, path, tool, arguments, expect):
    async with agent(tmp_path, make_map(pages_url)) as (app, client):
        tools = await listed(client)
        assert {"browser_navigate", tool} <= tools  # the way to the page, and the task
        opened = ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}{path}"}))
        # The answer is small: the page, its title, its status and the runtime.
        assert opened["tab"]["url"] == f"{pages_url}{path}" and opened["status"] == 200 and opened["runtime_id"]
        assert set(opened) == {"ok", "tab", "status", "runtime_id"}
        assert len(json.dumps(opened, ensure_ascii=False, separators=(",", ":"))) <= 200, opened
        for attempt in range(20):
            result = await client.call_tool(tool, arguments)
            # A page that renders late may refuse the first call (state or target not there yet);
            # what it says must be worth retrying, never a routing or argument error.
            if not result.is_error or attempt == 19:
                break
            assert failed(result)["code"] in ("state_mismatch", "target_not_found"), result.structured_content
            await asyncio.sleep(0.25)
        assert expect(ok(result)), result.structured_content


async def test_a_first_call_off_the_tools_page_opens_the_front_page_and_says_to_navigate(tmp_path, pages_url):
    async with agent(tmp_path, fixture_map("board", pages_url)) as (app, client):
        # No tab on the site yet: the server opens its front page (the origin's root) for the call,
        # where the board is not. The model hears where it is and what to do, not just "not found".
        error = failed(await client.call_tool("board_add_card", board_add("todo", "Too soon")))
        assert error["evidence"]["front_page"] == f"{pages_url}/" and error["evidence"]["next"] == "browser_navigate"
        assert "browser_navigate" in error["message"]
        ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/board/index.html"}))
        for _ in range(20):
            result = await client.call_tool("board_add_card", board_add("todo", "In time"))
            if not result.is_error:
                break
            await asyncio.sleep(0.25)
        assert ok(result)["title"] == "In time"


async def test_a_call_on_a_blank_tab_says_no_page_is_open_and_to_navigate_first(tmp_path, pages_url):
    document = fixture_map("board", pages_url)
    del document["surface"]["origin"]  # a map for any page: the server cannot open anything for it
    async with agent(tmp_path, document) as (app, client):
        # The browser starts on a blank tab; the call is refused before it reaches the tab.
        result = await client.call_tool("board_add_card", board_add("todo", "Nowhere"))
        error = failed(result)
        assert error["code"] == "runtime_not_found" and error["recoverable"] is False
        assert error["evidence"]["retryable"] is False and error["evidence"]["url"] == "about:blank"
        assert error["evidence"]["site"] == "Board fixture"  # the map's surface name, since it has no origin
        assert "no page of Board fixture is open" in result.content[0].text and "browser_navigate" in result.content[0].text


async def test_observe_tools_are_listed_while_the_active_tab_shows_a_page_no_map_covers(tmp_path, pages_url):
    port = pages_url.rsplit(":", 1)[1]
    covered = f"http://localhost:{port}"  # the same pages under another host name: the map's site
    heard = Notifications()
    async with agent(tmp_path, fixture_map("board", covered), heard=heard) as (app, client):
        assert not (await listed(client)) & OBSERVE  # no page yet

        async def moved_to(url: str) -> set[str]:
            heard.tools_changed.clear()
            ok(await client.call_tool("browser_navigate", {"url": url}))
            await asyncio.wait_for(heard.tools_changed.wait(), 10)
            return await listed(client)

        assert OBSERVE <= await moved_to(f"{pages_url}/observe/big.html")  # a page no map covers
        observed = await client.call_tool("page_observe", {})
        assert not observed.is_error and "@e1 " in observed.content[0].text  # a text answer (page tools)
        assert not (await moved_to(f"{covered}/board/index.html")) & OBSERVE  # the map's own site: its tools
        assert OBSERVE <= await moved_to(f"{pages_url}/feed/index.html")
        assert not (await moved_to("about:blank")) & OBSERVE  # a blank tab


async def test_a_mapped_page_without_projections_lists_page_read_alone(tmp_path, pages_url):
    # What a model needs to read on a mapped page stays reachable without a screenshot: the board's map
    # projects its state (actions_site reads it), the simple form's map projects nothing, so page_read
    # (and no other page tool) is listed on its pages. The two maps name two host names of one server.
    port = pages_url.rsplit(":", 1)[1]
    covered = f"http://localhost:{port}"
    heard = Notifications()
    async with agent(tmp_path, fixture_map("board", pages_url), fixture_map("simple-form", covered), heard=heard) as (app, client):

        async def moved_to(url: str) -> set[str]:
            heard.tools_changed.clear()
            ok(await client.call_tool("browser_navigate", {"url": url}))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(heard.tools_changed.wait(), 5)
            return await listed(client)

        form_page = await moved_to(f"{covered}/simple-form/index.html")
        assert "page_read" in form_page and not form_page & OBSERVE and "page_find" not in form_page
        read = await client.call_tool("page_read", {})
        assert not read.is_error and "textbox" in read.content[0].text
        board_page = await moved_to(f"{pages_url}/board/index.html")
        assert "page_read" not in board_page and "actions_site" in board_page


OPEN_FILL = {
    "protocol": "actions.json",
    "version": 1,
    "surface": {"name": "Any form"},
    "tools": [
        {
            "name": "form.type_into",
            "description": "Type text into the field that target locates.",
            "input_schema": {"type": "object"},  # open: the workflow reads input.target and input.text
            "workflow": {
                **WF,
                "steps": [
                    {"id": "type", "primitive": "text.insert", "args": {"target": "{% input.target %}", "text": "{% input.text %}", "mode": "replace"}},
                    {"id": "read", "primitive": "locator.text_content", "args": {"locator": "{% input.target %}"}},
                ],
                "output": "{% {'value': steps.read.output.value} %}",
            },
        }
    ],
}


async def test_an_open_schema_tools_target_argument_is_the_tools_own_locator(tmp_path, pages_url):
    async with agent(tmp_path, OPEN_FILL) as (app, client):
        ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/signup/index.html"}))
        await asyncio.sleep(1.2)  # the form renders late
        # A locator under `target` is the tool's own argument (a routing object has only routing keys).
        typed = ok(await client.call_tool("form_type_into", {"target": {"selector": "#first_name"}, "text": "Ada"}))
        assert typed["value"] == "Ada"
        # With routing beside it, through the flat fields.
        routed = ok(await client.call_tool("form_type_into", {"target": {"selector": "#city"}, "text": "London", "target_url_contains": "signup"}))
        assert routed["value"] == "London"
        # A routing object still routes: here it names no page, and says so.
        error = failed(await client.call_tool("form_type_into", {"target": {"url_contains": "nowhere"}, "text": "x"}))
        assert error["code"] == "runtime_not_found" and error["evidence"]["asked"] == {"url_contains": "nowhere"}
