"""``browser_screenshot {marks: true}`` against hostile pages (docs/threat-model.md, rows 4, 5 and 6).

Through the MCP SDK's in-process Client on a real headless Chromium. Each badge must be drawn where
the browser lays its element out, whatever the page's scripts say of its box or its CSS does to the
root, and no badge may stay behind its picture:

- a page script says "Delete my account" is where "Save draft" is (its own getBoundingClientRect,
  Element.prototype's, DOMRect's getters): Delete's bounds, badge pixels, a click at its badge and
  page_click by its ref are all Delete's own;
- ``html {transform: translateZ(0)}`` on a scrolled page: each badge is on its element (pixels; bounds
  against Playwright's boxes, a same-origin frame's button and one cut by the viewport's edge included);
- a page that puts back whatever is removed from ``<html>``: a later screenshot has no badge;
- an element that moves while the picture is taken gets no badge (it would sit where the element was).

Positions are checked in the picture (scaled by 0.5) with tests/png_pixels.py, and against the real
boxes Playwright reads through CDP (``bounding_box``), not the page's own scripts.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.dispatch.builtins.tabs.marks_picture import COLOURS
from mcp_actions.server.mcp_server import build_server
from tests.png_pixels import pixels, scanlines

pytestmark = pytest.mark.browser

#: Half the viewport's width (1280): the picture is scaled by 0.5.
WIDTH = 640
SCALE = 0.5


@asynccontextmanager
async def _session(pages_url: str, page: str) -> AsyncIterator[tuple[Client, Any]]:
    """An MCP client on a fresh server whose tab shows ``page``, and that tab's Playwright page (to read real boxes)."""
    app = ActionsApp(AppOptions(browser="auto", headless=True, isolated=True, serve_bridge=False))
    async with Client(build_server(app)) as client:
        navigated = await client.call_tool("browser_navigate", {"url": f"{pages_url}/marks-hostile/{page}"})
        assert not navigated.is_error, navigated.content
        runtime_id = navigated.structured_content["runtime_id"]  # type: ignore[index]
        yield client, app.browser.tab(runtime_id).page  # type: ignore[union-attr]


def _png(result: types.CallToolResult) -> bytes:
    assert not result.is_error, result.content
    images = [c for c in result.content if isinstance(c, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    return base64.b64decode(images[0].data)


async def _marked(client: Client) -> tuple[list[list[tuple[int, int, int]]], list[dict[str, Any]]]:
    """The marked picture's rows and the marks list."""
    result = await client.call_tool("browser_screenshot", {"max_width": WIDTH, "marks": True})
    width, _, rows = pixels(_png(result))
    assert width == WIDTH
    return rows, result.structured_content["marks"]  # type: ignore[index]


def _near(pixel: tuple[int, int, int], colour: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 40 for a, b in zip(pixel, colour, strict=True))


def _badge_at(rows: list[list[tuple[int, int, int]]], bounds: dict[str, Any], n: int) -> bool:
    """Whether badge ``n``'s colour fills the top left corner of ``bounds`` (CSS pixels of the viewport) where it is seen."""
    x = int(max(0, bounds["x"]) * SCALE) + 1
    y = int(max(0, bounds["y"]) * SCALE) + 1
    return _near(rows[y][x], COLOURS[(n - 1) % len(COLOURS)])


def _same_box(mark: dict[str, Any], real: dict[str, float] | None) -> bool:
    assert real is not None
    return all(abs(mark["bounds"][key] - real[key]) <= 1 for key in ("x", "y", "width", "height"))


def _by_name(marks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in marks}


@pytest.mark.parametrize("forge", ["own", "proto", "rect"])
async def test_a_forged_box_does_not_move_a_badge_or_a_click(pages_url: str, forge: str) -> None:
    async with _session(pages_url, f"forged-rect.html?forge={forge}") as (client, page):
        rows, marks = await _marked(client)
        found = _by_name(marks)
        save, delete = found["Save draft"], found["Delete my account"]
        # The list says where the browser put each button, not where the page's script says.
        assert _same_box(delete, await page.locator("#delete").bounding_box()), delete
        assert _same_box(save, await page.locator("#save").bounding_box()), save
        # The picture: Delete's badge on Delete, Save's on Save (and not Delete's).
        assert _badge_at(rows, delete["bounds"], delete["n"]) and _badge_at(rows, save["bounds"], save["n"])
        assert not _badge_at(rows, save["bounds"], delete["n"])

        # A click where the badge is hits the element the badge names...
        b = delete["bounds"]
        await page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        assert await page.locator("#out").text_content() == "Deleted"
        # ...and a click by the ref (trusted input at the element's centre) lands on it too.
        clicked = await client.call_tool("page_click", {"ref": save["ref"]})
        assert not clicked.is_error and await page.locator("#out").text_content() == "Saved"
        clicked = await client.call_tool("page_click", {"ref": delete["ref"]})
        assert not clicked.is_error and await page.locator("#out").text_content() == "Deleted"


async def test_a_transformed_root_on_a_scrolled_page_does_not_move_the_badges(pages_url: str) -> None:
    async with _session(pages_url, "transformed-root.html") as (client, page):
        await page.evaluate("() => window.scrollTo(0, 600)")
        rows, marks = await _marked(client)
        found = _by_name(marks)
        assert set(found) == {"Second", "Third", "Edge", "Inside"}  # "First" is above the viewport
        real = {
            "Second": await page.locator("#second").bounding_box(),
            "Third": await page.locator("#third").bounding_box(),
            "Edge": await page.locator("#edge").bounding_box(),
            "Inside": await page.frame_locator("iframe").locator("button").bounding_box(),
        }
        for name, mark in found.items():
            assert _same_box(mark, real[name]), (name, mark, real[name])
            # Each badge on its own element in the picture; the one cut by the viewport's bottom edge too.
            if name != "Edge":
                assert _badge_at(rows, mark["bounds"], mark["n"]), (name, mark)
        edge = found["Edge"]
        assert edge["bounds"]["y"] + edge["bounds"]["height"] > 720  # reaches past the viewport
        y = int(edge["bounds"]["y"] * SCALE) + 1
        assert any(_near(rows[yy][int(edge["bounds"]["x"] * SCALE) + 1], COLOURS[(edge["n"] - 1) % len(COLOURS)]) for yy in range(y - 8, y + 2))

        # A click where a badge is hits the element it names (the frame's button included).
        for name, said in (("Third", "Third"), ("Inside", "Inside")):
            b = found[name]["bounds"]
            await page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
            assert await page.locator("#out").text_content() == said


async def test_no_badge_stays_when_the_page_puts_back_what_was_removed(pages_url: str) -> None:
    async with _session(pages_url, "keeps-marks.html") as (client, page):
        plain = _png(await client.call_tool("browser_screenshot", {"max_width": WIDTH}))
        _rows, marks = await _marked(client)
        assert [m["name"] for m in marks] == ["Save", "Send"]
        # A later picture is the plain one: no badge stayed behind.
        assert scanlines(_png(await client.call_tool("browser_screenshot", {"max_width": WIDTH}))) == scanlines(plain)
        # The page never had a marks layer to keep.
        assert await page.evaluate("() => ({added: window.added, kept: window.kept, hosts: document.querySelectorAll('mcp-actions-marks').length})") == {"added": 0, "kept": 0, "hosts": 0}


async def test_an_element_that_moves_while_the_picture_is_taken_gets_no_badge(pages_url: str) -> None:
    async with _session(pages_url, "moving.html") as (client, page):
        result = await client.call_tool("browser_screenshot", {"max_width": WIDTH, "marks": True})
        _png(result)
        marks = result.structured_content["marks"]  # type: ignore[index]
        # The still button keeps its badge, where it is; the one crossing the page has none, and the text says why.
        assert [m["name"] for m in marks] == ["Still"]
        assert _same_box(marks[0], await page.locator("#still").bounding_box())
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.splitlines()[0].startswith('1 @e') and "moved while the picture was taken" in text.splitlines()[-1]
