"""Drafts of real pages, served: what ``init`` reads in headless Chromium becomes tools that run there.

Each draft is made by ``draft_page`` (the command's own code: the browser
host, the page reader, the drafter), must pass ``validate`` with no error and
no warning, and is then served the way a host runs it (the SDK's in-process
``Client`` over ``build_server``): the agent navigates to the page and calls
the drafted tools, and the page changes as a user's hands would change it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.authoring import draft_page
from mcp_actions.demo.static import StaticSite, demo_site_dir
from mcp_actions.manifest import check_manifest
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"

#: The spec's safe identifier (dotted names), as validate reads it.
SAFE_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]*(\.[a-zA-Z][a-zA-Z0-9_-]*)*$")
#: Selectors that pick by position, which init must never write.
POSITIONAL = re.compile(r"nth-|:first|:last|:only|:eq\(|\[\d+\]")


async def drafted(url: str) -> dict[str, Any]:
    """The draft of ``url``, checked: valid, no warnings, names safe and unique, no positional locator."""
    manifest = (await draft_page(url, created_at="2026-01-01T00:00:00Z")).manifest
    report = check_manifest(manifest)
    assert report.errors == () and report.warnings == (), (report.errors, report.warnings)
    names = [tool["name"] for tool in manifest["tools"]]
    assert len(set(names)) == len(names) and all(SAFE_NAME.match(name) for name in names), names
    for selector in selectors(manifest):
        assert not POSITIONAL.search(selector), selector
    assert "/" not in manifest["surface"]["origin"].split("://", 1)[1]  # an origin, never a page
    return manifest


def selectors(node: Any) -> Iterator[str]:
    """Every CSS selector the draft writes, in locators and inside expressions that build one."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("selector", "closest") and isinstance(value, str):
                yield value
            elif key in ("selectors", "fallback_selectors", "xpath"):
                raise AssertionError(f"init writes no {key}: {value}")
            else:
                yield from selectors(value)
    elif isinstance(node, list):
        for item in node:
            yield from selectors(item)
    elif isinstance(node, str) and "$lookup(" in node:
        yield from selectors(json.loads(node[node.index("{", node.index("$lookup(")) : node.rindex("}, input") + 1]))


def tool_named(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    return next(tool for tool in manifest["tools"] if tool["name"] == name)


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


@contextlib.asynccontextmanager
async def served(tmp_path: Path, manifest: dict[str, Any], *, asked: list[str] | None = None) -> AsyncIterator[Client]:
    """The draft served as a host runs it; a user who says yes to every question (and notes it) when ``asked`` is given."""
    path = tmp_path / "draft.actions.json"
    path.write_text(json.dumps(manifest, indent=2))

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert asked is not None
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": True})

    app = ActionsApp(AppOptions(manifests=[str(path)], headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app), elicitation_callback=elicit if asked is not None else None) as client:
        yield client


async def navigate(client: Client, url: str) -> None:
    opened = ok(await client.call_tool("browser_navigate", {"url": url}))
    assert opened["tab"]["url"] == url


async def test_the_simple_form_draft_fills_and_sends_the_form(tmp_path, pages_url):
    page = f"{pages_url}/simple-form/index.html"
    manifest = await drafted(page)
    [tool] = manifest["tools"]
    assert tool["name"] == "x127_0_0_1.contact_form"
    assert tool["input_schema"] == {"type": "object", "properties": {"name": {"type": "string", "description": "Name"}}, "additionalProperties": False}
    assert tool["target"] == {"selector": "#contact-form"}
    assert "x_actions" not in tool  # "Submit" alone is no risky word
    async with served(tmp_path, manifest) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"browser_navigate", "x127_0_0_1_contact_form"} <= tools
        await navigate(client, page)
        out = ok(await client.call_tool("x127_0_0_1_contact_form", {"name": "Ada"}))
        assert out == {"submitted": True, "status": "Submitted Ada", "url": page, "title": "actions.json simple form example"}


async def test_the_signup_draft_waits_for_the_late_form_and_reads_the_late_answer(tmp_path, pages_url):
    page = f"{pages_url}/signup/index.html"
    manifest = await drafted(page)
    [tool] = manifest["tools"]
    # Read once rendered (300 ms after load); the hidden honeypot with the same label is left out.
    assert tool["input_schema"]["properties"] == {
        "first_name": {"type": "string", "description": "First name"},
        "last_name": {"type": "string", "description": "Last name"},
        "email": {"type": "string", "format": "email", "description": "Email"},
        "city": {"type": "string", "description": "City"},
    }
    steps = tool["workflow"]["steps"]
    assert steps[0]["primitive"] == "locator.wait_for"  # the tool waits for the form too
    assert steps[1]["args"]["target"] == {"role": "textbox", "name": "First name"}  # role and name first
    async with served(tmp_path, manifest) as client:
        await navigate(client, page)  # and calls at once: the form is not there yet
        out = ok(await client.call_tool("x127_0_0_1_signup", {"first_name": "Ada", "email": "ada@example.com"}))
        # "Creating…" first, "Welcome, Ada!" 250 ms later: the tool let the page finish answering.
        assert out["status"] == "Welcome, Ada!" and out["submitted"] is True


async def test_the_demo_site_draft_adds_and_searches_tasks(tmp_path):
    with StaticSite(demo_site_dir()) as site:
        manifest = await drafted(site.url)
        assert manifest["surface"] == {
            "origin": site.url.rstrip("/"),
            "name": "Task board · mcp-actions demo",
            "description": "Drafted by mcp-actions init from /; review before publishing.",
        }
        assert [t["name"] for t in manifest["tools"]] == ["x127_0_0_1.add_form", "x127_0_0_1.search"]
        add = tool_named(manifest, "x127_0_0_1.add_form")
        assert add["input_schema"]["properties"] == {"title": {"type": "string", "description": "New task"}}
        async with served(tmp_path, manifest) as client:
            await navigate(client, site.url)
            first = ok(await client.call_tool("x127_0_0_1_add_form", {"title": "Write the README"}))
            assert first["status"] == {"search_summary": "All tasks (1)", "status": "Added Write the README"}
            ok(await client.call_tool("x127_0_0_1_add_form", {"title": "Ship the bridge"}))
            found = ok(await client.call_tool("x127_0_0_1_search", {"query": "README"}))
            assert found["searched"] is True and found["status"]["search_summary"] == '1 of 2 tasks match "README"'


async def test_the_order_page_draft_covers_every_kind_of_field_and_asks_before_risky_actions(tmp_path, pages_url):
    page = f"{pages_url}/authoring/index.html"
    manifest = await drafted(page)
    assert [t["name"] for t in manifest["tools"]] == [
        "x127_0_0_1.find",
        "x127_0_0_1.pizza_order",
        "x127_0_0_1.newsletter",
        "x127_0_0_1.click_refresh_prices",
        "x127_0_0_1.click_delete_my_account",
        "x127_0_0_1.click_close",
        "x127_0_0_1.open_menu",
        "x127_0_0_1.open_about_us",
    ]  # the link to this page, the skip link and the partner site's are not tools
    find = tool_named(manifest, "x127_0_0_1.find")
    assert find["description"] == "Search Pizza Palace with its search form. Fields: Find a pizza. Returns the page it loads (URL, title, heading)."
    assert [step["primitive"] for step in find["workflow"]["steps"]][:5] == ["locator.wait_for", "text.insert", "webmcp.page_result", "keyboard.press", "webmcp.page_result"]
    order = tool_named(manifest, "x127_0_0_1.pizza_order")
    assert order["input_schema"] == {
        "type": "object",
        "properties": {
            "customer": {"type": "string", "minLength": 2, "description": "Your name"},
            "email": {"type": "string", "format": "email", "description": "Email (e.g. you@example.com)"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 12, "description": "How many pizzas"},
            "size": {"type": "string", "enum": ["s", "m", "l"], "description": "Size: s (Small), m (Medium), l (Large)"},
            "crust": {"type": "string", "enum": ["thin", "thick"], "description": "Crust: thin (Thin), thick (Thick)"},
            "toppings": {"type": "array", "items": {"type": "string", "enum": ["olives", "basil"]}, "uniqueItems": True, "description": "Toppings: olives (Olives), basil (Basil)"},
            "gift": {"type": "boolean", "description": "It is a gift"},
            "notes": {"type": "string", "maxLength": 200, "description": "Notes for the kitchen"},
        },
        "additionalProperties": False,
        "required": ["customer", "quantity"],
    }  # no csrf (hidden), no honeypot (not displayed), no date (no primitive sets one: said in the review)
    assert order["target"] == {"role": "form", "name": "Pizza order"}
    assert order["x_actions"]["confirm"] == "“Place order” on Pizza Palace may place an order. Go ahead?"
    delete = tool_named(manifest, "x127_0_0_1.click_delete_my_account")
    assert delete["x_actions"] == {"confirm": "“Delete my account” on Pizza Palace may delete something. Go ahead?", "annotations": {"destructiveHint": True}}
    assert "x_actions" not in tool_named(manifest, "x127_0_0_1.click_refresh_prices")
    review = manifest["x_init_review"]
    assert {"topic": "field", "tool": "x127_0_0_1.pizza_order", "message": "“Delivery date” (date) is left out: no primitive of the dictionary sets a date field; fill it another way"} in review
    assert {(item.get("tool"), item["topic"]) for item in review if item["topic"] == "confirm"} == {
        ("x127_0_0_1.pizza_order", "confirm"), ("x127_0_0_1.newsletter", "confirm"), ("x127_0_0_1.click_delete_my_account", "confirm"),
    }
    asked: list[str] = []
    async with served(tmp_path, manifest, asked=asked) as client:
        await navigate(client, page)
        full = {"customer": "Ada", "quantity": 2, "size": "l", "crust": "thick", "toppings": ["basil"], "gift": True, "notes": "well done"}
        out = ok(await client.call_tool("x127_0_0_1_pizza_order", full))
        assert out["status"] == "Ordered 2 l thick (basil) as a gift for Ada"  # typed, chosen, clicked, checked; the late answer read
        await navigate(client, page)
        out = ok(await client.call_tool("x127_0_0_1_pizza_order", {"customer": "Bo", "quantity": 1, "gift": False}))
        assert out["status"] == "Ordered 1 m thin (none) for Bo"  # the page's defaults kept; an unchecked box left unchecked
        assert asked == ["“Place order” on Pizza Palace may place an order. Go ahead?"] * 2
        deleted = ok(await client.call_tool("x127_0_0_1_click_delete_my_account", {}))
        assert deleted["clicked"] is True and deleted["status"] == "Account deleted"
        refreshed = ok(await client.call_tool("x127_0_0_1_click_refresh_prices", {}))
        assert refreshed["status"] == "Prices refreshed" and len(asked) == 3
        # A form that loads another page: the read-back is that page's.
        subscribed = ok(await client.call_tool("x127_0_0_1_newsletter", {"address": "ada@example.com"}))
        assert subscribed == {
            "submitted": True, "navigated": True, "heading": "Thanks for subscribing", "status": "You are on the list.",
            "url": f"{pages_url}/authoring/thanks.html?address=ada%40example.com", "title": "Thanks · Pizza Palace",
        }
        await navigate(client, page)
        opened = ok(await client.call_tool("x127_0_0_1_open_menu", {}))
        assert opened == {"opened": True, "url": f"{pages_url}/authoring/menu.html", "title": "Menu · Pizza Palace"}
        # A form without a submit button: Enter in its one field sends it.
        await navigate(client, page)
        found = ok(await client.call_tool("x127_0_0_1_find", {"q": "margherita"}))
        assert found == {"submitted": True, "navigated": True, "heading": "Menu", "url": f"{pages_url}/authoring/menu.html?q=margherita", "title": "Menu · Pizza Palace"}


class _SlowHandler(http.server.SimpleHTTPRequestHandler):
    """The fixture pages, with every page but the order page answered late (a server under load)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if "/authoring/index.html" not in self.path:
            time.sleep(SLOW_S)
        super().do_GET()


SLOW_S = 1.2


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the browser drops requests it no longer needs (a page left while it loads)


@pytest.fixture
def slow_pages_url() -> Iterator[str]:
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_SlowHandler, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_a_submission_or_a_link_that_loads_a_slow_page_is_read_back_from_that_page(tmp_path, slow_pages_url):
    # The old page stays, quiet, until the next one answers (1.2 s): the tools wait for the next
    # document (the form) or the next URL (the link) rather than read the old page again.
    page = f"{slow_pages_url}/authoring/index.html"
    manifest = await drafted(page)
    async with served(tmp_path, manifest, asked=[]) as client:
        await navigate(client, page)
        subscribed = ok(await client.call_tool("x127_0_0_1_newsletter", {"address": "ada@example.com"}))
        assert subscribed["navigated"] is True and subscribed["heading"] == "Thanks for subscribing"
        assert subscribed["url"] == f"{slow_pages_url}/authoring/thanks.html?address=ada%40example.com"
        await navigate(client, page)
        opened = ok(await client.call_tool("x127_0_0_1_open_menu", {}))
        assert opened == {"opened": True, "url": f"{slow_pages_url}/authoring/menu.html", "title": "Menu · Pizza Palace"}


async def test_webmcp_declarative_forms_become_tools_with_their_declared_names(tmp_path, pages_url):
    page = f"{pages_url}/webmcp/declarative.html"
    manifest = await drafted(page)
    search, book = manifest["tools"]
    assert (search["name"], search["description"]) == ("x127_0_0_1.search_flights", "Search flights between two cities.")
    assert (book["name"], book["description"]) == ("x127_0_0_1.book_flight", "Book a flight by its number.")
    # The page's own schema (the engine reads the form as the WebMCP explainer says).
    assert search["input_schema"]["required"] == ["from", "to"]
    assert search["input_schema"]["properties"]["passengers"] == {"type": "number", "minimum": 1, "maximum": 9, "description": "How many people travel"}
    assert book["input_schema"]["properties"]["flight"]["pattern"] == "^(?:[A-Z]{2}[0-9]{2,4})$"
    assert book["x_actions"]["confirm"] == "“book_flight” on Flights (WebMCP declarative) may make a booking. Go ahead?"
    asked: list[str] = []
    async with served(tmp_path, manifest, asked=asked) as client:
        await navigate(client, page)
        found = ok(await client.call_tool("x127_0_0_1_search_flights", {"from": "Paris", "to": "Rome", "cabin": "business"}))
        assert found["agent"] is True and [f["price"] for f in found["flights"]] == [900, 1200]  # the page's respondWith answer
        booked = ok(await client.call_tool("x127_0_0_1_book_flight", {"flight": "AB12", "passenger": "Ada"}))
        assert booked["navigated"] is True and booked["page"]["url"].endswith("/webmcp/booked.html?flight=AB12&passenger=Ada")
        assert len(asked) == 1
