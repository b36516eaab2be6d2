"""``browser_screenshot {marks: true}`` (contract §6): numbered badges on the elements page_observe lists in view.

Through the MCP SDK's in-process Client on a real headless Chromium: the answer is the picture
plus ``1 @e3 button "Save"`` lines in page_observe's order, only for elements in the viewport; the
picture really has the badges where the elements are (pixels compared with a plain screenshot),
and the page never had them (they are drawn onto the picture: the page's own observer saw nothing
added, a later screenshot is the plain one again). The hostile pages are tests/runtimes/test_marks_hostile.py.
"""

from __future__ import annotations

import base64
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server
from tests.png_pixels import pixels, scanlines

pytestmark = pytest.mark.browser

#: Half the viewport's width (1280): the picture is scaled by 0.5.
WIDTH = 640
#: The rows of the picture the elements in view are on (their boxes end at y 330 in the page, 165 in it).
ROWS = 170


def _png(result: types.CallToolResult) -> bytes:
    assert not result.is_error, result.content
    images = [c for c in result.content if isinstance(c, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    return base64.b64decode(images[0].data)


def _picture(png: bytes) -> list[list[tuple[int, int, int]]]:
    """The rows of the picture the elements are on (reading every row in Python would take seconds)."""
    width, _, rows = pixels(png, ROWS)
    assert width == WIDTH
    return rows


def _changed(a: list[list[tuple[int, int, int]]], b: list[list[tuple[int, int, int]]], box: dict[str, Any]) -> int:
    """How many pixels differ between two pictures inside ``box`` (CSS pixels of the viewport, scaled by 0.5)."""
    x0, y0 = int(box["x"]) // 2, int(box["y"]) // 2
    x1, y1 = int(box["x"] + box["width"]) // 2, int(box["y"] + box["height"]) // 2
    return sum(1 for y in range(y0, y1) for x in range(x0, x1) if a[y][x] != b[y][x])


async def test_marks_are_drawn_onto_the_picture_listed_in_observe_order_and_never_in_the_page(pages_url: str) -> None:
    app = ActionsApp(AppOptions(browser="auto", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["browser_screenshot"].input_schema["properties"]["marks"]["type"] == "boolean"
        navigated = await client.call_tool("browser_navigate", {"url": f"{pages_url}/bap/marks.html"})
        runtime_id = navigated.structured_content["runtime_id"]  # type: ignore[index]
        plain_png = _png(await client.call_tool("browser_screenshot", {"max_width": WIDTH}))
        plain = _picture(plain_png)
        observed = await client.call_tool("page_observe", {"viewport_only": True})
        observed_refs = [line.split(" ", 1)[0] for line in observed.content[0].text.splitlines() if line.startswith("@e")]  # type: ignore[union-attr]

        result = await client.call_tool("browser_screenshot", {"max_width": WIDTH, "marks": True})
        marked_png = _png(result)
        marked = _picture(marked_png)
        text = result.content[0]
        assert isinstance(text, types.TextContent)
        lines = text.text.splitlines()
        # Numbered in page_observe's order, under its refs; the button below the fold has no badge.
        assert [line.split(" ")[1] for line in lines] == observed_refs
        assert lines == [f'1 {observed_refs[0]} button "Save"', f'2 {observed_refs[1]} textbox "Name"', f'3 {observed_refs[2]} link "Help"', f'4 {observed_refs[3]} button "Rename"']
        assert "Far away" not in text.text
        assert result.meta is not None and result.meta["mcp-actions/untrusted"] is True  # the names are the page's words
        structured = result.structured_content
        assert structured is not None and "image" not in structured and structured["bytes"] > 0
        marks = structured["marks"]
        assert [m["n"] for m in marks] == [1, 2, 3, 4] and marks[0]["bounds"] == {"x": 40, "y": 40, "width": 160, "height": 60}

        # The badges are in the picture where the elements are; the rest of the page is untouched.
        for mark in marks:
            assert _changed(plain, marked, mark["bounds"]) > 20, mark
        assert _changed(plain, marked, {"x": 700, "y": 0, "width": 580, "height": 2 * ROWS}) == 0
        assert scanlines(plain_png)[-20000:] == scanlines(marked_png)[-20000:]  # the rows below them, unchanged

        # Never in the page: drawn onto the picture, so the page's own observer saw nothing come or go.
        page = app.browser.tab(runtime_id).page  # type: ignore[union-attr]
        left = await page.evaluate("() => ({hosts: document.querySelectorAll('mcp-actions-marks').length, children: document.documentElement.children.length, seen: window.seen})")
        assert left == {"hosts": 0, "children": 2, "seen": {"added": 0, "removed": 0}}
        assert scanlines(_png(await client.call_tool("browser_screenshot", {"max_width": WIDTH}))) == scanlines(plain_png)

        # A badge's ref is one to act on.
        clicked = await client.call_tool("page_click", {"ref": marks[0]["ref"]})
        assert not clicked.is_error and "Saved" in clicked.content[0].text  # type: ignore[union-attr]
