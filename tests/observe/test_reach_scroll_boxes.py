"""What a person reaches by scrolling any box, the page tools reach (issue 53; docs/mcp-surface.md, "What page_observe lists").

On a content management system's admin (tests/fixtures/pages/reach/admin-panel.html follows Wagtail's: a
window-high wrapper, a sidebar that clips its overflow, a `main` that scrolls on its own, a sticky header
over a 31-page listing), a model found the rows past the fold of `main` "not visible": page_observe
stopped at the rows on screen, a click by ref answered target_not_visible and a click by text on a field
one wheel-turn down target_not_found. A click on a row under the sticky header went to the header, and a
link in the explorer's fixed slide-out panel, drawn inside the sidebar, was "not visible". Each is tried
here on both hosts (the page runtime's engine events, the browser tab's trusted input) with headless
Chromium, through the real ActionService and bridge.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser

from mcp_actions.errors import ActionError
from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

VIEWPORT = {"width": 1000, "height": 600}


def ref_of(listing: str, role: str, name: str) -> str:
    found = re.search(rf'(@e\d+) {role} "{re.escape(name)}"', listing)
    assert found, (name, listing)
    return found[1]


@pytest.mark.parametrize("kind", KINDS)
async def test_rows_past_the_fold_of_a_scrolling_main_are_listed_found_and_clicked(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        assert await page.evaluate("() => document.getElementById('main').getBoundingClientRect().height") == 600
        observed = await host.call("page_observe", {"max_bytes": 100000})
        # All 31 rows and the editor's fields below them: a person brings each into view with the wheel.
        for n in (1, 10, 20, 31):
            assert f'button "Publish Page {n}"' in observed, observed
        assert 'textbox "Post date"' in observed, observed
        found = await host.call("page_find", {"text": "Publish Page 31"})
        assert re.search(r'@e\d+ button "Publish Page 31"', found), found
        # Acted on after being scrolled into view, as Playwright does.
        clicked = await host.call("page_click", {"ref": ref_of(observed, "button", "Publish Page 20")})
        assert clicked.startswith("clicked @e"), clicked
        assert await page.text_content("#status") == "published Page 20"
        filled = await host.call("page_fill", {"text": "Post date", "value": "2026-12-07"})
        assert filled.startswith("filled @e"), filled
        assert await page.input_value("#post-date") == "2026-12-07"


@pytest.mark.parametrize("kind", KINDS)
async def test_a_row_under_the_sticky_header_is_brought_out_before_the_click(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        observed = await host.call("page_observe", {"max_bytes": 100000})
        # Row 5's button (its row starts 250 px down main's content) now sits under the 72 px header.
        await page.evaluate("() => { document.getElementById('main').scrollTop = 225; }")
        under = await page.evaluate(
            "() => { const b = [...document.querySelectorAll('button')].find(b => b.textContent === 'Publish Page 5');"
            " const r = b.getBoundingClientRect(); return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).closest('header') !== null; }"
        )
        assert under, "the fixture must put the row under the header"
        clicked = await host.call("page_click", {"ref": ref_of(observed, "button", "Publish Page 5")})
        assert "covered" not in clicked, clicked
        assert await page.text_content("#status") == "published Page 5"
        assert await page.text_content("#header-clicks") == "0"


@pytest.mark.parametrize("kind", KINDS)
async def test_fixed_and_absolute_boxes_escape_the_clipping_boxes_that_do_not_contain_them(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        # An absolute box escapes a clipping box between it and the positioned ancestor it is placed from.
        clicked = await host.call("page_click", {"text": "Sort by title"})
        assert clicked.startswith("clicked @e"), clicked
        assert await page.text_content("#status") == "sorted by title"
        await host.call("page_click", {"text": "Pages explorer"})
        observed = await host.call("page_observe", {"max_bytes": 100000})
        assert 'link "Explore Home"' in observed, observed
        clicked = await host.call("page_click", {"text": "Explore Home"})
        assert clicked.startswith("clicked @e"), clicked
        assert await page.text_content("#status") == "explored Home"


@pytest.mark.parametrize("kind", KINDS)
async def test_page_scroll_scrolls_the_box_that_scrolls_and_says_what_came_into_view(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        # The document cannot scroll: the page's own scrolling is main's.
        down = await host.call("page_scroll", {"to": "down"})
        first, *rest = down.splitlines()
        assert first.startswith("scrolled main down by ") and "by 0px" not in first, down
        assert 'button "Publish Page 13"' in first and "more below" in first, down
        assert "no visible change" not in rest, down
        assert await page.evaluate("() => document.getElementById('main').scrollTop") > 0
        # A row's ref scrolls the box it scrolls in.
        observed = await host.call("page_observe", {"max_bytes": 100000})
        row = ref_of(observed, "button", "Publish Page 30")
        listed = await host.call("page_scroll", {"ref": row, "to": "bottom"})
        assert listed.startswith(f"scrolled the list of {row} (main) bottom by ") and "(at its end)" in listed, listed


@pytest.mark.parametrize("kind", KINDS)
async def test_a_data_apps_column_and_its_canvas_grid_are_reached(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/data-app.html", VIEWPORT)
        main = "() => document.querySelector('.stMain').scrollTop"
        # The order form one wheel-turn down the column, inside an app view that hides its overflow.
        filled = await host.call("page_fill", {"text": "Customer name", "value": "Ada"})
        assert filled.startswith("filled @e"), filled
        await host.call("page_click", {"text": "Place order"})
        assert await page.text_content("#said") == "ordered for Ada"
        # The grid draws 8 of its 100 rows: a read and a find say so, and which ref scrolls it.
        read = await host.call("page_read", {})
        canvas = re.search(r"\[canvas (@e\d+)\]", read)
        assert canvas and f'| rows 2-9 of 101 shown: page_scroll {{"ref":"{canvas[1]}"}}' in read, read
        missing = await host.call("page_find", {"text": "Product 350"})
        assert missing.splitlines() == ["no match", f'(a grid {canvas[1]} shows rows 2-9 of 101: page_scroll {{"ref": "{canvas[1]}"}} for others)'], missing
        column_before = await page.evaluate(main)
        scrolled = await host.call("page_scroll", {"ref": canvas[1]})
        assert scrolled.startswith(f"scrolled the grid of {canvas[1]} down by "), scrolled
        shown = re.search(r"rows (\d+)-(\d+) of 101 shown", scrolled)
        assert shown and int(shown[1]) > 2, scrolled
        # The grid itself scrolled, not the column around it.
        assert await page.evaluate("() => document.getElementById('grid-scroller').scrollTop") > 0
        assert await page.evaluate(main) == column_before
        found = await host.call("page_find", {"text": f"Product {300 + int(shown[1])}"})
        assert found.startswith(f"{canvas[1]} canvas"), found
        # The grid found by its role is the canvas a person sees: hovered and clicked there, its scroller taking
        # the click as the grid's own (not "something covered its centre").
        grid = await host.call("page_find", {"role": "grid"})
        assert grid.startswith(f"{canvas[1]} grid"), grid
        await host.call("page_hover", {"ref": canvas[1]})
        clicked = await host.call("page_click", {"ref": canvas[1]})
        assert "covered" not in clicked, clicked
        assert await page.evaluate("() => window.gridClicks") == 1


@pytest.mark.parametrize("kind", KINDS)
async def test_a_control_a_fixed_bar_always_covers_is_refused_not_clicked_through(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        # A fixed bar over the bottom of the window, taller than what main can still scroll past its last field.
        await page.evaluate(
            "() => { const bar = document.createElement('div'); bar.id = 'bar'; bar.textContent = 'Cookie notice';"
            " bar.style.cssText = 'position:fixed; left:0; right:0; bottom:0; height:200px; background:#ffd; z-index:9';"
            " bar.onclick = () => { window.barClicks = (window.barClicks || 0) + 1; }; document.body.appendChild(bar); }"
        )
        with pytest.raises(ActionError) as failed:
            await host.call("page_click", {"text": "Post date"})
        assert failed.value.code == "target_not_visible", failed.value
        assert "fixed <div>" in str(failed.value) and "Cookie notice" in str(failed.value), failed.value
        assert await page.evaluate("() => window.barClicks || 0") == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_viewport_only_counts_what_lies_past_the_fold_and_rows_scrolled_above_are_reached(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        first = await host.call("page_observe", {"viewport_only": True})
        assert first.splitlines()[-1] == "+23 more below the fold of main: page_scroll", first
        row1 = ref_of(first, "button", "Publish Page 1")
        await host.call("page_scroll", {"to": "down"})
        later = await host.call("page_observe", {"viewport_only": True})
        assert '+10 more above the fold of main: page_scroll {"to": "up"}' in later.splitlines(), later
        # Row 1 now lies above the window inside main: a person scrolls back up to it.
        clicked = await host.call("page_click", {"ref": row1})
        assert clicked.startswith(f"clicked {row1}"), clicked
        assert await page.text_content("#status") == "published Page 1"


@pytest.mark.parametrize("kind", KINDS)
async def test_a_click_waits_for_a_fixed_backdrop_on_its_way_out(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/reach/admin-panel.html", VIEWPORT)
        # A chooser dialog's backdrop (position: fixed, the whole window) still there for 400 ms after it closed (Wagtail's).
        await page.evaluate(
            "() => { const b = document.createElement('div'); b.style.cssText = 'position:fixed; inset:0; background:#0003; z-index:20';"
            " b.onclick = () => { window.backdropClicks = (window.backdropClicks || 0) + 1; }; document.body.appendChild(b);"
            " setTimeout(() => b.remove(), 400); }"
        )
        clicked = await host.call("page_click", {"text": "Add child page"})
        assert clicked.startswith("clicked @e") and "covered" not in clicked, clicked
        assert await page.text_content("#header-clicks") == "1"
        assert await page.evaluate("() => window.backdropClicks || 0") == 0
