"""Attachments and overlays through the whole product: a map, the server's own browser, the SDK ``Client``.

The agent navigates to a single-page app whose results section arrives late
and re-renders; the map's launcher stays beside it, one and only one; the
user clicks it (a real click) and the map's HTML opens in an overlay that the
page's scripts cannot read, while the click reaches the agent as the map's
signal; the agent closes the overlay. A second launcher opens a map tool,
which the server runs on that tab. Then the reference extension's published
overlay map runs its overlay, transfer and clipboard tools on our browser host.

With ``MCP_ACTIONS_SCREENSHOTS=DIR`` the overlay test saves ``overlay.png`` there
(how ``docs/images/overlay.png`` was made).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from mcp import Client
from playwright.async_api import Frame, Page

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
OVERLAY_MAP = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "valid" / "extension_overlay.json"
SECRET = "TOP-" + "SECRET"  # the SPA's spy looks for this word in everything a page script can read
LAUNCHER_SIGNAL = {
    "name": "overlay.launcher_opened",
    "description": "A user opened an overlay launcher.",
    "direction": "html_to_agent",
    "event": "actions-json:overlay-launcher-opened",
    "ingestion": "enabled",
    "payload": {"type": "object", "required": ["launcher_id"], "properties": {"launcher_id": {"type": "string"}}},
}
LIFECYCLE = {"install": "when_target_matches", "remove": "when_context_mismatch", "reattach": "on_url_or_dom_change"}


def spa_map(origin: str) -> dict[str, Any]:
    """The SPA's map, as a site owner would write it from the spec: two launchers, a signal, tools to close and refresh."""
    return {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin},
        "tools": [
            {
                "name": "spa.refresh_results",
                "description": "Render the results section again.",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                "x_actions": {"handler": "spa.show"},
            },
            {"name": "overlay.close", "description": "Close the overlay the agent opened.", "input_schema": {"type": "object", "properties": {}, "additionalProperties": False}},
        ],
        "attachments": [
            {
                "id": "results-categories-launcher",
                "kind": "overlay_launcher",
                "target": {"selector": "h2", "text_contains": "Results"},
                "affordance": {
                    "label": "Categories",
                    "placement": "afterend",
                    "max_instances": 1,
                    "opens": {"tool": "overlay.open", "arguments": {"title": "Result categories", "html_source": "overlays/categories.html"}},
                },
                "lifecycle": LIFECYCLE,
            },
            {
                "id": "results-refresh-launcher",
                "kind": "overlay_launcher",
                "target": {"selector": "h2", "text_contains": "Results"},
                "affordance": {"label": "Refresh results", "placement": "beforebegin", "max_instances": 1, "opens": {"tool": "spa.refresh_results"}},
                "lifecycle": LIFECYCLE,
            },
        ],
        "signals": [LAUNCHER_SIGNAL],
    }


CATEGORIES = f"""<h1>Result categories</h1>
<table><tr><th>Category</th><th>Results</th></tr><tr><td>Books</td><td>12</td></tr><tr><td>Music</td><td>4</td></tr></table>
<p>{SECRET}: only the user sees this.</p>
<script>document.title = "scripts ran"; parent.postMessage("scripts ran", "*");</script>
"""


@contextlib.asynccontextmanager
async def server(maps: Path) -> AsyncIterator[tuple[ActionsApp, Client]]:
    """The server with its defaults over ``maps``: its own headless browser, no bridge port."""
    app = ActionsApp(AppOptions(manifests=[str(maps)], headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        yield app, client


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    result = await client.call_tool(name, arguments or {})
    assert not result.is_error, result.content
    return result.structured_content


async def eventually(check: Callable[[], Awaitable[Any]], *, timeout: float = 5.0) -> Any:
    """The first truthy answer of ``check``, polled; fails after ``timeout`` seconds."""
    async with asyncio.timeout(timeout):
        while True:
            answer = await check()
            if answer:
                return answer
            await asyncio.sleep(0.05)


async def resource(client: Client, uri: str) -> Any:
    return json.loads((await client.read_resource(uri)).contents[0].text)


def page_of(app: ActionsApp, runtime_id: str) -> Page:
    """The Playwright page of one of the server's tabs."""
    assert app.browser is not None
    tab = app.browser.tab(runtime_id)
    assert tab is not None
    return tab.page


async def _gone(locator: Any) -> bool:
    return await locator.count() == 0


async def overlay_frame(page: Page) -> Frame | None:
    """The overlay's sandboxed frame (Playwright reaches it over CDP; page scripts cannot)."""
    return next((f for f in page.frames if f is not page.main_frame and f.url in ("about:srcdoc", "about:blank")), None)


async def test_a_launcher_stays_beside_a_rerendering_section_and_opens_the_maps_overlay(tmp_path: Path, pages_url: str) -> None:
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(pages_url))
    (tmp_path / "spa.actions.json").write_text(json.dumps(spa_map(origin)))
    (tmp_path / "overlays").mkdir()
    (tmp_path / "overlays" / "categories.html").write_text(CATEGORIES)
    async with server(tmp_path) as (app, client):
        navigated = await call(client, "browser_navigate", {"url": f"{pages_url}/attachments-spa/index.html"})
        runtime_id = navigated["runtime_id"]
        page = page_of(app, runtime_id)
        categories = page.get_by_role("button", name="Categories", exact=True)
        # The section arrives late: the launcher follows it, and the runtime says it is attached.
        await eventually(lambda: categories.count())

        async def attached() -> bool:
            runtimes = await resource(client, "actions://runtimes")
            entry = next(r for r in runtimes["runtimes"] if r["runtime_id"] == runtime_id)
            return {a["id"]: a["state"] for a in entry["attachments"]} == {"results-categories-launcher": "attached", "results-refresh-launcher": "attached"}

        await eventually(attached)
        # The framework renders the section five times in a row: one launcher beside it, never two.
        await page.evaluate("spa.rerender(5, 40)")
        await eventually(lambda: page.evaluate("document.querySelector('li').textContent === 'Render 6'"))
        await asyncio.sleep(1.2)  # reattaching takes at most a second
        assert await categories.count() == 1
        assert await page.evaluate("window.maxLaunchers") == {"results-categories-launcher": 1, "results-refresh-launcher": 1}
        # The user clicks it: the map's HTML opens in an overlay, and the click reaches the agent as the map's signal.
        await categories.click()

        async def launcher_event() -> Any:
            events = (await resource(client, f"actions://runtimes/{runtime_id}/events"))["events"]
            return next((e for e in events if e["name"] == "overlay.launcher_opened"), None)

        event = await eventually(launcher_event)
        assert event["payload"] == {"launcher_id": "results-categories-launcher"}
        frame = await eventually(lambda: overlay_frame(page))
        assert "Books" in await frame.inner_text("body")
        if os.environ.get("MCP_ACTIONS_SCREENSHOTS"):
            await page.screenshot(path=str(Path(os.environ["MCP_ACTIONS_SCREENSHOTS"]) / "overlay.png"))
        # The page's own scripts learn nothing of it, and the overlay's scripts did not run.
        spy = await page.evaluate("spy()")
        assert spy["html_has_secret"] is False and spy["iframes"] == 0
        assert await page.title() != "scripts ran"
        # The agent closes it.
        assert await call(client, "overlay_close") == {"ok": True}

        async def closed() -> bool:
            return await overlay_frame(page) is None

        await eventually(closed)
        # The other launcher opens a map tool: the server runs it on this tab (the section renders again).
        await page.get_by_role("button", name="Refresh results", exact=True).click()
        await eventually(lambda: page.evaluate("document.querySelector('li').textContent === 'Render 7'"))
        recent = (await resource(client, "actions://audit/recent"))["entries"]
        assert any(e["tool"] == "spa.refresh_results" and e["client"] == "page-launcher" and e["status"] == "ok" for e in recent)
        # The section goes: so do its launchers; it comes back: so do they.
        await page.evaluate("spa.hide()")
        await eventually(lambda: page.evaluate("document.querySelectorAll('[data-actions-json-attachment]').length === 0"))
        await page.evaluate("spa.show()")
        await eventually(lambda: categories.count())


def copier_map(origin: str) -> dict[str, Any]:
    """A site's own map that copies a page's total into the transfer buffer (the reference map has no transfer.write)."""
    return {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin},
        "tools": [
            {
                "name": "report.copy_total",
                "description": "Copy the report's total for use in another tab.",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [
                        {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#total"}}},
                        {"id": "keep", "primitive": "transfer.write", "args": {"label": "total", "format": "text/plain", "value": "{% steps.read.output.text %}"}},
                    ],
                    "output": "{% {'label': steps.keep.output.label, 'size_bytes': steps.keep.output.size_bytes} %}",
                },
            }
        ],
    }


async def test_the_reference_extensions_overlay_map_runs_on_our_browser_host(tmp_path: Path, pages_url: str) -> None:
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(pages_url))
    (tmp_path / "overlay.actions.json").write_text(OVERLAY_MAP.read_text(encoding="utf-8"))
    (tmp_path / "copier.actions.json").write_text(json.dumps(copier_map(origin)))
    async with server(tmp_path) as (app, client):
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert {"overlay_open", "overlay_close", "transfer_insert", "clipboard_read", "clipboard_write"} <= listed
        source = (await call(client, "browser_navigate", {"url": f"{pages_url}/transfer/source.html"}))["runtime_id"]
        # Overlay tools: the map names the extension's handlers; our host runs the same primitives.
        opened = await call(client, "overlay_open", {"html": f"<p>{SECRET}</p>", "title": "Report", "target_runtime_id": source})
        assert opened["ok"] is True and opened["overlay_id"]
        page = page_of(app, source)
        frame = await eventually(lambda: overlay_frame(page))
        assert SECRET in await frame.inner_text("body")
        assert SECRET not in await page.evaluate("document.documentElement.outerHTML")
        assert await call(client, "overlay_close", {"target_runtime_id": source}) == {"ok": True}
        # Transfer: copied in one tab, inserted by the reference map's tool into another tab's textarea.
        copied = await client.call_tool("report_copy_total", {"target_runtime_id": source})
        notes = (await call(client, "browser_navigate", {"url": f"{pages_url}/transfer/notes.html", "new_tab": True}))["runtime_id"]
        assert notes != source
        inserted = await client.call_tool("transfer_insert", {"label": "total", "target": {"selector": "#notes"}, "mode": "replace", "target_runtime_id": notes})
        assert not copied.is_error and not inserted.is_error, (copied.content, inserted.content)
        assert await page_of(app, notes).input_value("#notes") == "Quarterly total: 1 234,56 EUR (secret-7f3a)"
        for result in (copied, inserted):  # the payload never passed through a tool result
            assert "secret-7f3a" not in json.dumps([c.model_dump() for c in result.content]) + json.dumps(result.structured_content)
        # Clipboard: written and read back on the browser host, with the permission it needs.
        assert (await call(client, "clipboard_write", {"text": "from the agent", "target_runtime_id": notes}))["written"] is True
        assert (await call(client, "clipboard_read", {"target_runtime_id": notes}))["text"] == "from the agent"


async def test_the_published_simple_form_maps_status_badge_follows_its_state(tmp_path: Path, pages_url: str) -> None:
    """The spec's own example map: a status badge after ``#result`` while ``form_ready`` holds, written as published."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(pages_url))
    document = json.loads((PAGES / "simple-form" / "actions.json").read_text(encoding="utf-8"))
    document["surface"]["origin"] = origin
    (tmp_path / "simple-form.actions.json").write_text(json.dumps(document))
    async with server(tmp_path) as (app, client):
        runtime_id = (await call(client, "browser_navigate", {"url": f"{pages_url}/simple-form/index.html"}))["runtime_id"]
        page = page_of(app, runtime_id)
        badge = page.locator("[data-actions-json-attachment='contact-result-status']")

        async def state() -> str | None:
            runtimes = await resource(client, "actions://runtimes")
            entry = next(r for r in runtimes["runtimes"] if r["runtime_id"] == runtime_id)
            return next((a["state"] for a in entry["attachments"] if a["id"] == "contact-result-status"), None)

        # The result <output> is empty (rendered, zero-sized): the badge still goes right after it.
        await eventually(lambda: badge.count())
        assert await eventually(state) == "attached"
        assert await page.evaluate("document.getElementById('result').nextElementSibling.getAttribute('data-actions-json-attachment')") == "contact-result-status"
        # A badge opens nothing: no button, its label readable, the page's own controls untouched.
        assert await page.get_by_role("button", name="actions.json").count() == 0
        assert await badge.locator("span").inner_text() == "actions.json"
        # form_ready stops holding (its submit button goes): the badge goes; the button comes back: so does the badge.
        await page.evaluate("window.submitButton = document.getElementById('submit'); submitButton.remove()")
        await eventually(lambda: _gone(badge))
        assert await eventually(state) in ("removed", "waiting")
        await page.evaluate("document.getElementById('contact-form').append(window.submitButton)")
        await eventually(lambda: badge.count())

        # The map names the badge's lifecycle signals: each move reached the agent under its name.
        async def lifecycle() -> list[str] | None:
            events = (await resource(client, f"actions://runtimes/{runtime_id}/events"))["events"]
            names = [e["name"] for e in events if e["name"].startswith("attachment.")]
            return names if len(names) >= 2 else None

        names = await eventually(lifecycle)
        assert names[0] == "attachment.attached" and "attachment.reattached" in names
