"""What a person can click, the model can find; fields named by the text beside them; open popup lists;
every kind of control through page_fill/page_click; what an action changed. Real headless Chromium behind
the MCP SDK Client, on fixture pages that follow real ones (tests/fixtures/pages/observe-text/)."""

from __future__ import annotations

import json
import re

from ..protocols.conftest import product


def lines_of(text: str) -> dict[str, str]:
    """name -> line, for page_observe's element lines."""
    out = {}
    for line in text.splitlines():
        m = re.match(r'^@e\d+ \S+ ("(?:[^"\\]|\\.)*")', line)
        if m:
            out[json.loads(m[1])] = line
    return out


async def observe(s) -> str:
    result = await s.client.call_tool("page_observe", {})
    assert not result.is_error, result.content
    return result.content[0].text


async def act(s, tool: str, args: dict) -> str:
    result = await s.client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is None
    return result.content[0].text


async def test_clickable_cover_and_words_are_listed_and_clicked_by_text(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/miniwob.html")
        page = s.tab().page
        seen = lines_of(await observe(s))
        assert re.match(r'@e\d+ clickable "START"$', seen["START"]), seen
        assert seen["banana"].split(" ")[1] == "clickable" and "apple" in seen and "cherry" in seen
        # The bold text inside a pointer word inherits its cursor: the word is listed, not its <b>.
        assert sum(1 for name in seen if name == "banana") == 1
        # Only an addEventListener listener, no cursor: the page cannot see it (the documented limit).
        assert "silent target" not in seen
        covered = await act(s, "page_click", {"text": "apple"})  # under the START cover, like MiniWoB++ before its episode
        assert covered.splitlines()[0].endswith("(something covered its centre: the click went to what was on top)"), covered
        assert await page.text_content("#result") == "" and await page.evaluate("() => window.started === true")
        await page.evaluate("() => { window.started = false; document.getElementById('cover').style.display = ''; }")
        started = await act(s, "page_click", {"text": "START"})
        assert started.startswith('clicked @e') and '- "START"' in started, started
        assert await page.evaluate("() => window.started === true")
        clicked = await act(s, "page_click", {"text": "banana"})
        assert '+ "clicked banana"' in clicked, clicked
        assert await page.text_content("#result") == "clicked banana"


async def test_fields_are_named_by_the_text_beside_them_and_filled_by_it(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/login.html")
        page = s.tab().page
        seen = lines_of(await observe(s))
        assert "Username" in seen and "Password" in seen and "Email" in seen, seen
        assert "Coupon code" in seen and "Not this text" not in seen  # a real name wins over the text beside
        await act(s, "page_fill", {"text": "Username", "value": "alice"})
        await act(s, "page_fill", {"text": "password", "value": "s3cret"})
        await act(s, "page_fill", {"text": "Email", "value": "a@example.com"})
        assert await page.input_value("#username") == "alice" and await page.input_value("#password") == "s3cret"
        assert await page.input_value("#email") == "a@example.com"
        # page_fill by text only considers fields: "Login" names a button, not something to fill.
        refused = await s.client.call_tool("page_fill", {"text": "Login", "value": "x"})
        assert refused.is_error and "target_not_found" in refused.content[0].text
        done = await act(s, "page_click", {"text": "Login"})
        assert '+ "login alice"' in done, done


async def test_an_open_autocomplete_lists_its_items_as_options(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/autocomplete.html")
        page = s.tab().page
        assert "Banana" not in await observe(s)  # closed: nothing to pick
        typed = await act(s, "page_fill", {"text": "Tags", "value": "Ban"})
        assert '+ "Banana"' in typed and '+ "Bandana"' in typed, typed  # the list that opened
        seen = lines_of(await observe(s))
        assert seen["Banana"].split(" ")[1] == "option" and " new" in seen["Bangkok"], seen
        assert "Apple" not in seen
        # One line per item: the item's pointer wrapper is not listed beside it.
        assert sum(1 for line in (await observe(s)).splitlines() if '"Banana"' in line) == 1
        picked = await act(s, "page_click", {"text": "Bandana"})
        assert '- "Banana"' in picked, picked
        assert await page.input_value("#tags") == "Bandana"


async def test_every_kind_of_control(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/controls.html")
        page = s.tab().page
        await act(s, "page_fill", {"text": "Due date", "value": "2026-12-01"})
        assert await page.input_value("#when") == "2026-12-01"
        await act(s, "page_fill", {"text": "Start time", "value": "09:30"})
        assert await page.input_value("#at") == "09:30"
        await act(s, "page_fill", {"text": "Volume", "value": "75"})
        chosen = await act(s, "page_fill", {"text": "Priority", "value": "High"})  # a <select>: its option
        assert chosen.startswith('selected ["High"] in @e'), chosen  # its label, not its value ("high")
        assert await page.input_value("#prio") == "high"
        assert await page.input_value("#vol") == "75"
        clamped = await act(s, "page_fill", {"text": "Volume", "value": "150"})  # past max=100: the browser clamps it
        # What the field holds is said where it is not what was typed: the report's line, as page_observe says it.
        assert clamped.splitlines()[1].endswith('slider "Volume" = "100"'), clamped
        refused = await s.client.call_tool("page_fill", {"text": "Due date", "value": "24/12/2026"})
        assert refused.is_error and "it takes YYYY-MM-DD" in refused.content[0].text, refused.content
        assert await page.input_value("#when") == "2026-12-01"  # what it held before stays
        await act(s, "page_fill", {"text": "Volume", "value": "75"})
        # A range is moved by its keys (issue 53: an app may commit at a key press's end): each press fires input and change.
        events = await page.text_content("#events") or ""
        assert events.startswith("input:when change:when input:at change:at input:vol change:vol"), events
        assert set(events.split(" ")[4:]) == {"input:vol", "change:vol"} and events.count("input:vol") == events.count("change:vol"), events
        await act(s, "page_fill", {"text": "Comment", "value": "Looks good"})
        assert (await page.text_content("#editor")).strip() == "Looks good"
        # Checkbox rows and radios by the text beside them.
        await act(s, "page_click", {"text": "Walk the dog"})
        assert await page.is_checked("#t2") and not await page.is_checked("#t1")
        await act(s, "page_click", {"text": "Large"})
        assert await page.is_checked("input[value=l]")
        seen = lines_of(await observe(s))
        assert seen["Walk the dog"].endswith("checkbox \"Walk the dog\" checked"), seen
        assert seen["Buy milk"].endswith("unchecked")
        assert seen["Volume"].endswith('= "75"')
        assert seen["Comment"].endswith('= "Looks good"')
        assert seen["Green"].split(" ")[1] == "option"  # a listbox's li without role=option
        # A <datalist>'s popup is the browser's: its first options are said beside the field, which page_fill fills.
        assert seen["City"].endswith('combobox "City" suggests "Paris", "London", "Lisbon", "Berlin", "Rome" (+1)'), seen["City"]
        await act(s, "page_fill", {"text": "City", "value": "Lisbon"})
        assert await page.input_value("#city") == "Lisbon"  # a rich-text editor's value is its text
        # ARIA states: a switch's aria-checked, a disclosure's aria-expanded, as they change.
        assert seen["Dark mode"].endswith('switch "Dark mode" unchecked') and seen["Filters"].endswith("collapsed"), seen
        await act(s, "page_click", {"text": "Dark mode"})
        opened = await act(s, "page_click", {"text": "Filters"})
        assert '+ "Only mine"' in opened, opened
        seen = lines_of(await observe(s))
        assert seen["Dark mode"].endswith("\"Dark mode\" checked") and seen["Filters"].endswith("expanded") and "Only mine" in seen


async def test_a_hover_menu_opens_under_page_hover_and_says_what_appeared(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/controls.html")
        assert "Profile" not in lines_of(await observe(s))  # closed until hovered
        hovered = await act(s, "page_hover", {"text": "Account"})
        assert hovered.startswith('hovered @e') and "Profile" in hovered and "Log out" in hovered, hovered
        assert "Log out" in lines_of(await observe(s))
        out = await act(s, "page_click", {"text": "Profile"})
        assert f"now at {pages_url}/observe-text/controls.html#profile" in out, out


async def test_page_scroll_loads_what_a_feed_loads_when_scrolled(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/feed.html")
        page = s.tab().page
        assert await page.locator(".post").count() == 5
        down = await act(s, "page_scroll", {"to": "bottom"})
        assert down.startswith("scrolled the page bottom by ") and '+ "Post 6"' in down, down
        assert await page.locator(".post").count() == 10
        # A list that scrolls in its own box, named by an element in it.
        boxed = await act(s, "page_scroll", {"text": "Reply 1", "to": "bottom"})
        assert boxed.startswith("scrolled the list of @e") and '+ "Message 5"' in boxed, boxed
        bad = await s.client.call_tool("page_scroll", {"to": "sideways"})
        assert bad.is_error and "invalid_input" in bad.content[0].text
