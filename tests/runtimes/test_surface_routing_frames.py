"""Routing by a map's surface on a page with same-origin iframes, through the SDK Client in headless Chromium.

The browser host makes each same-origin frame its own runtime. A tool routed
only by its map's ``surface.origin`` must still land on the tab (the top-level
document), never be ``ambiguous_runtime`` because the page embeds a frame of
its own origin; explicit routing fields still reach a frame.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.bridge.routing import Route, select_runtime
from mcp_actions.errors import ActionError
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser


def whoami_map(origin: str) -> dict[str, Any]:
    """A map for the fixture origin with one read-only tool answering where it ran."""
    return {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": origin, "surface_id": "frames", "name": "Frames fixture"},
        "tools": [
            {
                "name": "frames.where",
                "description": "Say which document the call ran in.",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [{"id": "info", "primitive": "page.info", "args": {}}],
                    "output": "{% {'url': steps.info.output.url, 'title': steps.info.output.title} %}",
                },
            }
        ],
    }


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def test_surface_routing_prefers_the_tab_over_its_same_origin_frames(pages_url: str, tmp_path: Path) -> None:
    (tmp_path / "frames.actions.json").write_text(json.dumps(whoami_map(pages_url)))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="launch", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        page = ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/browserhost/frames.html"}))
        tab_runtime = page["tab"]["runtime_id"]
        # Another tab, of another origin (localhost is not 127.0.0.1), becomes the active runtime:
        # the active runtime cannot break the tie between the tab and its frames any more.
        other = f"{pages_url.replace('127.0.0.1', 'localhost')}/browserhost/inner.html?which=other"
        ok(await client.call_tool("browser_open_tab", {"url": other}))
        registry = app.bridge.registry
        deadline = asyncio.get_running_loop().time() + 5
        while len([r for r in registry.list() if r.frame and r.runtime_id.startswith(tab_runtime + ".")]) < 2:
            assert asyncio.get_running_loop().time() < deadline, [r.describe() for r in registry.list()]
            await asyncio.sleep(0.05)
        assert registry.active_id != tab_runtime
        frames = [r for r in registry.list() if r.frame]
        assert all(r.runtime_id.startswith(tab_runtime + ".frame-") for r in frames)

        # No routing fields: the surface matches the tab and both of its frames; the tab takes the call.
        where = ok(await client.call_tool("frames_where", {}))
        assert where["url"] == f"{pages_url}/browserhost/frames.html" and where["title"] == "Frames fixture"

        # Explicit routing still picks a frame: by key, and by a predicate only the frame matches.
        named = next(r for r in frames if r.runtime_key and r.runtime_key.endswith("/frame:inner"))
        by_key = ok(await client.call_tool("frames_where", {"target_runtime_key": named.runtime_key}))
        assert by_key["url"].endswith("inner.html?which=named")
        by_url = ok(await client.call_tool("frames_where", {"target_url_contains": "which=late"}))
        assert by_url["url"].endswith("inner.html?which=late")
        # A predicate matching the tab and its frames alike stays ambiguous: the caller asked for all of them.
        ambiguous = await client.call_tool("frames_where", {"target_url_contains": "/browserhost/"})
        assert ambiguous.is_error and ambiguous.structured_content["error"]["code"] == "ambiguous_runtime"
        candidates = ambiguous.structured_content["error"]["evidence"]["candidates"]
        assert {c.get("frame", False) for c in candidates} == {True, False}


def _info(runtime_id: str, url: str, *, frame: bool = False) -> RuntimeInfo:
    return RuntimeInfo(runtime_id=runtime_id, url=url, transport="test", frame=frame)


def test_select_runtime_frame_rules() -> None:
    origin = "http://127.0.0.1:9"
    tab, frame = _info("t1", f"{origin}/a"), _info("t1.f1", f"{origin}/b", frame=True)
    assert select_runtime([frame, tab], Route(surface_origin=origin)) is tab
    # Only frames left: a single one takes the call; two are ambiguous unless one is active.
    frame2 = _info("t1.f2", f"{origin}/c", frame=True)
    assert select_runtime([frame], Route(surface_origin=origin)) is frame
    assert select_runtime([frame, frame2], Route(surface_origin=origin), active_id="t1.f2") is frame2
    with pytest.raises(ActionError) as caught:
        select_runtime([frame, frame2], Route(surface_origin=origin))
    assert caught.value.code == "ambiguous_runtime"
    # Two tabs of the origin: the active one, else ambiguous (frames never break that tie).
    tab2 = _info("t2", f"{origin}/d")
    assert select_runtime([tab, frame, tab2], Route(surface_origin=origin), active_id="t2") is tab2
    with pytest.raises(ActionError):
        select_runtime([tab, frame, tab2], Route(surface_origin=origin), active_id="t1.f1")
    assert select_runtime([tab, frame], Route(runtime_id="t1.f1", surface_origin=origin)) is frame
