"""page_read and page_find in the page engine (refs.read, refs.find), on both hosts, in real headless Chromium.

Every test runs on the Playwright browser host and on the page runtime (the
bookmarklet's runtime.js over a real WebSocket to a real bridge): the same
fixture page gives the same text, so the exact-text assertions hold on both.
Fixture pages: tests/fixtures/pages/read/ (each says what real page it follows).
docs/mcp-surface.md, "page_read" and "page_find".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.dispatch.builtins.reading.read_tools import read_text
from mcp_actions.errors import ActionError
from tests.runtimes.both_hosts import DICTIONARY, KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

VIEWPORT = {"width": 1200, "height": 800}
READ_SCHEMA = DICTIONARY["refs.read"]["output_schema"]


class Tab:
    """One fixture page open as a runtime of one host."""

    def __init__(self, bridge: Bridge, runtime_id: str, page: Page) -> None:
        self.bridge, self.runtime_id, self.page = bridge, runtime_id, page

    async def run(self, name: str, arguments: dict[str, Any], timeout_ms: int = 20_000) -> Any:
        return await self.bridge.call(name, arguments, runtime_id=self.runtime_id, timeout_ms=timeout_ms)

    async def read(self, **arguments: Any) -> dict[str, Any]:
        out = await self.run("refs.read", arguments)
        assert set(out) <= set(READ_SCHEMA["properties"]) and set(READ_SCHEMA["required"]) <= set(out)
        return dict(out)

    async def text(self, **arguments: Any) -> str:
        return str((await self.read(max_bytes=1_000_000, **arguments))["text"])

    async def find(self, **arguments: Any) -> dict[str, Any]:
        return dict(await self.run("refs.find", arguments))

    async def error(self, name: str, arguments: dict[str, Any]) -> ActionError:
        with pytest.raises(ActionError) as caught:
            await self.run(name, arguments)
        return caught.value


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[tuple[str, Bridge, dict[str, Any]]]:
    bridge = Bridge(default_timeout_ms=20_000)
    async with serving(request.param, bridge, chromium) as extra:
        yield request.param, bridge, extra
    await bridge.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def opened(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> AsyncIterator[Any]:
    kind, bridge, extra = host
    pages: list[Page] = []

    async def open_page(name: str) -> Tab:
        runtime_id, page = await open_runtime(kind, bridge, extra, f"{pages_url}/read/{name}", VIEWPORT)
        pages.append(page)
        return Tab(bridge, runtime_id, page)

    yield open_page
    for page in pages:
        await page.close()


CONTROLS = """[navigation "Site"]
[link "Home" @e1 /] [link "Help" @e2 /help]
[main]
# Sign in
[form "Login"]
[textbox "Username" @e3 = "bob"] [textbox "Password" @e4 = "••••"] [checkbox "Remember me" @e5 checked] [combobox "Plan" @e6 = "Team" options "Free", "Team"]
Theme
[radio "Light" @e7] [radio "Dark" @e8 checked]
[textbox "Bio" @e9 = "Likes ladders"] [button "Sign in" @e10] [button "Reset" @e11 disabled]
New here? [link "Create an account" @e12 /signup] in a minute.
[button "Why sign in?" @e13 collapsed]"""


async def test_controls_read_with_their_values_and_states(opened: Any) -> None:
    tab = await opened("controls.html")
    assert await tab.text() == CONTROLS  # the same text, byte for byte, on both hosts
    # Values are read as they are now, refs stay; a password never shows its value.
    await tab.page.fill("input[name=user]", "alice")
    await tab.page.click("summary")
    again = await tab.text()
    assert '[textbox "Username" @e3 = "alice"]' in again and "secret" not in again
    assert '[button "Why sign in?" @e13 expanded]' in again and "Hidden until opened." in again


async def test_hidden_off_screen_and_decorative_content_is_left_out(opened: Any) -> None:
    tab = await opened("hidden.html")
    assert await tab.text() == '# Visible title\nShown text\nbut this child shows\n[img "Team photo"] [button "Shown button" @e1]'
    # page_find does not offer what the reader leaves out either.
    found = await tab.find(role="button")
    assert [m["name"] for m in found["matches"]] == ["Shown button"]
    assert (await tab.find(text="Skip to content"))["total"] == 0


async def test_a_table_reads_as_rows_with_its_header_once(opened: Any) -> None:
    tab = await opened("table.html")
    assert await tab.text() == (
        '[table "Users"]\n| Name | Role | Active |\n| Ada | [link "Admin" @e1 /u/ada] | [checkbox "Active Ada" @e2 checked] |\n| Bob | Editor \\| Writer | [checkbox "Active Bob" @e3] |\n| Cy | Viewer | [checkbox "Active Cy" @e4] |'
    )
    bob = await tab.find(text="Bob", role="checkbox")
    assert bob["matches"][0] == {"ref": "@e3", "role": "checkbox", "name": "Active Bob", "checked": False, "context": "Users › Bob Editor | Writer"}


async def test_shadow_roots_and_same_origin_frames_are_read_where_they_are(opened: Any) -> None:
    tab = await opened("shadow.html")
    text = await tab.text()
    assert text == (
        "# Account\n## Card in shadow\nShadow text Slotted note\n"
        '[button "Shadow button" @e1]\n'
        '[frame "Settings"]\n### Frame settings\n[textbox "Email" @e2 = "a@b.c"] [button "Save settings" @e3]\n[/frame]\n'
        '[frame "Ad" (another site\'s, not read)]\n'
        "After frames"
    )
    assert "Advert text" not in text  # a cross-origin document is never read
    found = await tab.find(name="save settings")
    assert found["matches"] == [{"ref": "@e3", "role": "button", "name": "Save settings", "context": "Frame settings"}]
    shadow = await tab.find(text="shadow button")
    assert shadow["matches"][0]["ref"] == "@e1"


async def test_an_open_dialog_is_marked(opened: Any) -> None:
    tab = await opened("dialog.html")
    before = await tab.text()
    assert "Delete card?" not in before  # a closed <dialog> is not shown
    assert '[dialog "Cookies"]\nWe use cookies. [button "Accept" @e2]\n[/dialog]' in before
    await tab.page.click("#open")
    after = await tab.text()
    assert '[dialog "Delete card?" modal]\n## Delete card?\nThis cannot be undone.\n[button "Cancel" @e3] [button "Delete" @e4]\n[/dialog]' in after
    # Reading the dialog alone: find it by role, read its ref.
    dialogs = await tab.find(role="dialog")
    modal = next(m for m in dialogs["matches"] if m.get("name") == "Delete card?")
    assert (await tab.text(ref=modal["ref"])).startswith('[dialog "Delete card?" modal]')


async def test_a_lazily_rendered_list_reads_what_is_there_and_keeps_refs(opened: Any) -> None:
    tab = await opened("lazy.html")
    await tab.page.wait_for_function("document.querySelectorAll('#feed a').length === 3")
    first = await tab.text()
    assert first == '# Feed\n- [link "Post 1" @e1] [button "Like" @e2]\n- [link "Post 2" @e3] [button "Like" @e4]\n- [link "Post 3" @e5] [button "Like" @e6]\n[button "Load more" @e7]'
    await tab.page.click("#more")
    second = await tab.text()
    assert second.startswith(first.rsplit("\n", 1)[0])  # the items read before keep their refs
    assert '- [link "Post 6" @e12] [button "Like" @e13]' in second


async def test_look_alike_cards_read_as_one_line_each_and_long_lists_as_an_outline(opened: Any) -> None:
    small = await opened("board.html?cards=300")
    text = (await small.read())["text"]
    lines = text.split("\n")
    # Three columns, each: heading, count, its first 20 cards one line each, the line that reads the rest, its button.
    assert [line for line in lines if line.startswith("## ")] == ["## To do", "## Doing", "## Done"]
    assert lines[4] == '- [link "Ship roadmap #1" @e1] 1 comments'
    mores = [line for line in lines if line.startswith("- … ")]
    assert mores == ['- … 80 more: page_read {"ref":"@e21"}', '- … 80 more: page_read {"ref":"@e43"}', '- … 80 more: page_read {"ref":"@e65"}']
    assert lines.count('[button "+ Add a card" @e44]') == 1
    # The list's ref reads all of it (cursor continuation is tested on the article).
    doing = await small.text(ref="@e43")
    assert doing.count("\n") + 1 == 100 and doing.startswith('- [link "Plan search #2" @e23]')
    big = await opened("board.html?cards=3000")
    big_text = (await big.read())["text"]
    size, big_size = len(text.encode()), len(big_text.encode())
    assert big_size < 3 * size, (size, big_size)  # ten times the cards, about the same bytes
    assert size < 4000
    # A text that only a column's heading or nothing matches looks at all 3,000 cards' sections: each
    # column's headings are listed once per search, not once per card (that took 15 s; now well under 1 s).
    missing = await big.run("refs.find", {"text": "no card says this"}, timeout_ms=8_000)
    assert missing == {"matches": [], "total": 0}
    doing = await big.run("refs.find", {"text": "Doing", "role": "link", "max_results": 1}, timeout_ms=8_000)
    assert doing["total"] == 1000 and doing["matches"][0]["context"].startswith("Doing › ")


async def test_find_answers_which_add_a_card_is_doings(opened: Any) -> None:
    tab = await opened("board.html?cards=300")
    one = await tab.find(text="Doing", name="Add a card")
    assert one == {"matches": [{"ref": one["matches"][0]["ref"], "role": "button", "name": "+ Add a card", "context": "Doing"}], "total": 1}
    three = await tab.find(name="add a card")
    assert [m["context"] for m in three["matches"]] == ["To do", "Doing", "Done"]
    # The refs are those page_read and page_observe give the same elements.
    text = await tab.text()
    assert f'[button "+ Add a card" {one["matches"][0]["ref"]}]' in text
    observed = await tab.run("refs.observe", {"max_bytes": 1_000_000})
    assert one["matches"][0]["ref"] in {e["ref"] for e in observed["elements"] if e.get("name") == "+ Add a card"}
    roadmaps = await tab.find(text="Doing", name="roadmap", max_results=50)
    assert roadmaps["total"] == 20 and all(m["context"].startswith("Doing › ") for m in roadmaps["matches"])
    capped = await tab.find(text="roadmap", max_results=5)
    assert len(capped["matches"]) == 5 and capped["total"] == 60


async def test_find_a_rows_checkbox_by_the_rows_text(opened: Any) -> None:
    tab = await opened("todos.html")
    found = await tab.find(text="Buy milk", role="checkbox")
    # The row whose text is exactly "Buy milk" first, then the row that only contains it.
    assert found["matches"] == [
        {"ref": found["matches"][0]["ref"], "role": "checkbox", "name": "Done", "checked": False, "context": "Groceries › Buy milk"},
        {"ref": found["matches"][1]["ref"], "role": "checkbox", "name": "Done", "checked": False, "context": "Chores › Buy milk crate"},
    ]
    text = await tab.text()
    assert f'- [checkbox "Done" {found["matches"][0]["ref"]}] Buy milk [button "Delete"' in text
    assert (await tab.find(text="no such thing")) == {"matches": [], "total": 0}


async def test_budget_and_cursor_give_the_whole_page_back_in_parts(opened: Any) -> None:
    tab = await opened("article.html")
    whole = await tab.text()
    assert len(whole.encode()) > 14_000 and "ünïcödé" in whole
    for budget in (700, 256):  # 256: every paragraph is longer, so parts also end inside lines
        parts, cursor, offset = [], None, 0
        while True:
            out = await tab.read(max_bytes=budget, **({"cursor": cursor} if cursor else {}))
            assert out["offset"] == offset
            assert len(read_text(out).encode()) <= budget  # the answer, trailer included, fits
            parts.append(out["text"])
            if "cursor" not in out:
                break
            cursor = out["cursor"]
            offset = int(cursor.split(".")[1])
            # The next part starts right after this one, or after the newline that ended it.
            assert offset in (out["offset"] + len(out["text"]), out["offset"] + len(out["text"]) + 1)
            joiner = "\n" if offset == out["offset"] + len(out["text"]) + 1 else ""
            parts.append(joiner)
        assert "".join(parts) == whole
        assert len(parts) > 10


async def test_bad_arguments_and_stale_refs_are_clear_errors(opened: Any) -> None:
    tab = await opened("lazy.html")
    await tab.page.wait_for_function("document.querySelectorAll('#feed a').length === 3")
    await tab.text()
    # A ref whose element is gone: target_not_found saying to read again.
    await tab.page.evaluate("() => document.querySelector('#feed li').remove()")
    gone = await tab.error("refs.read", {"ref": "@e1"})
    assert gone.code == "target_not_found" and "page_read" in gone.message and gone.evidence["ref"] == "@e1"
    never = await tab.error("refs.read", {"ref": "@e9999"})
    assert never.code == "target_not_found"
    # A cursor of another scope, a forged cursor, an empty find.
    out = await tab.read(ref="@e3", max_bytes=256)
    assert out == {"text": '[link "Post 2" @e3]', "offset": 0}
    other = await tab.error("refs.read", {"ref": "@e3", "cursor": "p.10"})
    assert other.code == "invalid_input" and other.evidence.get("field") == "cursor"
    forged = await tab.error("refs.read", {"cursor": "x.1"})
    assert forged.code == "invalid_input"
    assert (await tab.error("refs.find", {})).code == "invalid_input"
    assert (await tab.error("refs.read", {"max_bytes": 10})).code == "invalid_input"
    await asyncio.sleep(0)


async def test_what_is_clickable_by_handler_or_cursor_reads_as_a_token(opened: Any) -> None:
    tab = await opened("clickable.html")
    text = await tab.text()
    # A small clickable is one token named by its text; a large one is its token, then its content.
    assert text == ('[clickable "START" @e1]\n[clickable "Lamp" @e2]\n[clickable @e3]\nDesk with a long description: solid oak, two drawers, cable tray, adjustable feet, ships flat in two boxes within a week.')
    assert (await tab.find(text="start"))["matches"] == [{"ref": "@e1", "role": "clickable", "name": "START"}]


async def test_a_long_table_reads_as_its_header_and_first_rows_and_its_ref_reads_it_all(opened: Any) -> None:
    tab = await opened("report.html")
    lines = (await tab.text()).split("\n")
    assert lines[:3] == ["# Orders", "| Order | Customer | Total |", '| [link "#1001" @e1] | Customer 1 | 3.50 |']
    assert lines[-2:] == ['| … 100 more rows: page_read {"ref":"@e21"} |', "Totals include tax."]
    whole = (await tab.text(ref="@e21")).split("\n")
    assert len(whole) == 1 + 120 and whole[-1] == '| [link "#1120" @e121] | Customer 120 | 420.00 |'
    # The row found by its text is the row's link, with the row as context.
    found = await tab.find(text="Customer 77", role="link")
    assert found["matches"] == [{"ref": "@e78", "role": "link", "name": "#1077", "context": "#1077 Customer 77 269.50"}]
