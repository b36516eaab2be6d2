"""Same-origin frames of a shared tab are runtimes of their own; frames of another origin are not.

Real headless Chromium with the shipped extension, the real server, the SDK's
``Client``. A shared tab shows a help centre embedding a same-origin widget
whose own document registers a WebMCP tool (tests/fixtures/pages/webmcp-frame/):
the widget's frame announces itself as ``chrome-tab:<tab>/frame-<n>`` with
``frame: true``, its tool is listed and runs in the frame. A frame added while
shared becomes a runtime, keeps it while it navigates within the origin, loses
it when it navigates to another origin, and leaves when it is removed. Another shared tab
embeds the same widget from another origin (``localhost`` beside
``127.0.0.1``): no runtime. Taking the share back ends the frames' runtimes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from .harness import chromium_with_extension, eventually, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser

HELP_TITLE = "Help centre (embeds a WebMCP widget)"
CROSS_TITLE = "Help centre (a widget of another origin)"


async def tab_runtime(client: Client, title: str) -> dict[str, Any] | None:
    return next((r for r in await runtimes(client) if r.get("title") == title and re.fullmatch(r"chrome-tab:\d+", str(r.get("runtime_key")))), None)


async def frame_runtimes(client: Client, tab_key: str) -> list[dict[str, Any]]:
    return [r for r in await runtimes(client) if str(r.get("runtime_key", "")).startswith(tab_key + "/")]


async def ticket_tool(client: Client, tab_key: str) -> types.Tool | None:
    """The widget's open_ticket, as a frame of the tab ``tab_key`` publishes it."""
    frames = {r["runtime_id"] for r in await frame_runtimes(client, tab_key)}
    tools = (await client.list_tools()).tools
    return next(
        (t for t in tools if (t.meta or {}).get("mcp-actions/protocol") == "webmcp" and (t.meta or {}).get("mcp-actions/runtime_id") in frames and str((t.meta or {}).get("mcp-actions/tool", "")).endswith(".open_ticket")),
        None,
    )


async def test_same_origin_frames_of_a_shared_tab_are_runtimes(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = tmp_path / "maps"
    maps.mkdir()
    async with chromium_with_extension(tmp_path / "profile") as context:
        help_page = context.pages[0] if context.pages else await context.new_page()
        await help_page.goto(f"{pages_url}/webmcp-frame/index.html")
        cross = await context.new_page()
        await cross.goto(f"{pages_url}/webmcp-frame/cross.html")
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_role("checkbox", name=f"Share {HELP_TITLE}").check()
            await connect.get_by_role("checkbox", name=f"Share {CROSS_TITLE}").check()
            top = await eventually(lambda: tab_runtime(client, HELP_TITLE), "the help centre's runtime")
            cross_top = await eventually(lambda: tab_runtime(client, CROSS_TITLE), "the other help centre's runtime")
            # Shared after the widgets had loaded, their registrations found no document.modelContext:
            # a reload, with the tabs shared, gives every same-origin frame our context before its scripts run.
            await help_page.reload()
            await cross.reload()

            # The widget's frame: a runtime of its own, with the tab's authorization, its tool listed.
            # (The frame of the page before the reload was one too, and leaves: its iframe is gone.)
            tool = await eventually(lambda: ticket_tool(client, top["runtime_key"]), "the widget's WebMCP tool")
            frame = next(r for r in await runtimes(client) if r["runtime_id"] == (tool.meta or {})["mcp-actions/runtime_id"])
            await eventually(lambda: _only(client, top["runtime_key"], frame["runtime_id"]), "the earlier frame's runtime to leave")
            assert re.fullmatch(re.escape(top["runtime_key"]) + r"/frame-\d+", frame["runtime_key"]), frame
            assert frame["frame"] is True and frame["url"] == f"{pages_url}/webmcp-frame/widget.html"
            assert frame["authorization_id"] == top["authorization_id"] and frame["extension_version"] == top["extension_version"]
            assert not any(c.startswith("browser.") for c in frame["capabilities"]), frame["capabilities"]

            # It runs in the frame's document.
            result = await client.call_tool(tool.name, {"subject": "Broken link"})
            assert not result.is_error, result
            assert result.structured_content == {"content": [{"type": "text", "text": "Ticket 1: Broken link"}]}
            widget = next(f for f in help_page.frames if f.url.endswith("widget.html"))
            assert await widget.text_content("#tickets") == "1 tickets (last: Broken link)"

            # A frame that appears while shared is a runtime; removed, its runtime leaves.
            await help_page.evaluate("() => { const f = document.createElement('iframe'); f.id = 'late'; f.src = 'widget.html?late=1'; document.body.appendChild(f); }")
            late = await eventually(lambda: _with_url(client, top["runtime_key"], "widget.html?late=1"), "the added frame's runtime")
            assert late["frame"] is True and late["runtime_key"] != frame["runtime_key"]
            # It navigates within the origin: the same runtime, at its new URL.
            await help_page.evaluate("() => { document.getElementById('late').src = 'widget.html?late=2'; }")
            moved = await eventually(lambda: _with_url(client, top["runtime_key"], "widget.html?late=2"), "the navigated frame's URL")
            assert moved["runtime_key"] == late["runtime_key"]
            # It navigates to another origin: no longer a runtime.
            away = f"{pages_url}/webmcp-frame/widget.html?away=1".replace("//127.0.0.1:", "//localhost:")
            await help_page.evaluate("(url) => { document.getElementById('late').src = url; }", away)
            await eventually(lambda: _gone(client, late["runtime_key"]), "the frame that left the origin to leave")
            # Back within the origin, then removed: a runtime again, which leaves with its iframe.
            await help_page.evaluate("() => { document.getElementById('late').src = 'widget.html?late=3'; }")
            await eventually(lambda: _with_url(client, top["runtime_key"], "widget.html?late=3"), "the frame back in the origin")
            await help_page.evaluate("() => document.getElementById('late').remove()")
            await eventually(lambda: _gone(client, late["runtime_key"]), "the removed frame's runtime to leave")

            # The widget of another origin is no runtime (its frame loaded long ago: the tab's frames were synced).
            cross_frame = next(f for f in cross.frames if f.url.endswith("widget.html"))
            assert cross_frame.url.startswith("http://localhost:")
            assert await cross_frame.evaluate("() => document.readyState") == "complete"
            assert await frame_runtimes(client, cross_top["runtime_key"]) == []
            tools = (await client.list_tools()).tools
            assert {(t.meta or {}).get("mcp-actions/runtime_id") for t in tools if (t.meta or {}).get("mcp-actions/protocol") == "webmcp"} == {frame["runtime_id"]}

            # Taking the share back: the tab's runtime and its frame's go.
            await connect.reload()
            await connect.get_by_role("checkbox", name=f"Share {HELP_TITLE}").uncheck()
            await eventually(lambda: _gone(client, top["runtime_key"]), "the unshared tab's runtimes to go")
            assert await tab_runtime(client, CROSS_TITLE), "the other shared tab stays"


async def _with_url(client: Client, tab_key: str, suffix: str) -> dict[str, Any] | None:
    return next((r for r in await frame_runtimes(client, tab_key) if str(r.get("url", "")).endswith(suffix)), None)


async def _only(client: Client, tab_key: str, runtime_id: str) -> bool:
    return [r["runtime_id"] for r in await frame_runtimes(client, tab_key)] == [runtime_id]


async def _gone(client: Client, key: str) -> bool:
    return not any(str(r.get("runtime_key", "")) == key or str(r.get("runtime_key", "")).startswith(key + "/") for r in await runtimes(client))
