"""page_find keeps its caps and says a row by its first cell; blocks of a page stay apart (issue 52, items 5, 9, 10).

Fixtures follow real pages: tests/fixtures/pages/admin/change-author.html (Django 5's admin change page of an author
with a tabular inline of 19 books, each row's Change link), tests/fixtures/pages/manuals/postgres-json.html (the
PostgreSQL manual's functions-json.html, one-column tables whose cells begin with the operator's signature) and
tests/fixtures/pages/miniwob/find-word.html (MiniWoB++'s find-word once its episode started: the body's three
class-less divs). Driven through the MCP SDK's Client in headless Chromium.
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import Session, product

pytestmark = pytest.mark.browser


async def text_of(s: Session, tool: str, arguments: dict[str, object]) -> str:
    result = await s.client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_an_exact_match_is_followed_by_two_partial_ones_at_most(pages_url: str) -> None:
    """On Django's admin a search for "History" answered the exact link, then 19 row links (3.2 KB): asked with a
    role, or with max_results at its default, the cap on partial matches was not applied."""
    async with product() as s:
        await s.navigate(f"{pages_url}/admin/change-author.html")
        for arguments in ({"text": "History"}, {"text": "History", "role": "link"}, {"text": "History", "max_results": 20}):
            found = (await text_of(s, "page_find", arguments)).splitlines()
            assert re.fullmatch(r'@e\d+ link "History" /admin/library/author/3/history/( in: .*)?', found[0]), (arguments, found)
            assert len(found) <= 4 and re.fullmatch(r"\(3 of \d+; raise max_results or narrow with text, role or name\)", found[-1]), (arguments, found)
            assert len("\n".join(found).encode()) < 600, (arguments, found)
        # Asked for more, the partial ones are said.
        more = (await text_of(s, "page_find", {"text": "History", "role": "link", "max_results": 50})).splitlines()
        assert len(more) == 20 and all('link "Change"' in line for line in more[1:]), more


async def test_a_table_cells_match_says_its_rows_first_cell(pages_url: str) -> None:
    """On PostgreSQL's functions-json.html the link in @>'s description answered `in: Additional jsonb Operators ›
    …the first JSON value contain the second? (See Section 8.14.3 …`, without the operator."""
    async with product() as s:
        await s.navigate(f"{pages_url}/manuals/postgres-json.html")
        found = (await text_of(s, "page_find", {"text": "contain the second"})).splitlines()
        assert re.fullmatch(r'@e\d+ link "Section 8\.14\.3" \S+datatype-json\.html#JSON-CONTAINMENT in: Additional jsonb Operators › jsonb @> jsonb → boolean › .*contain the second\?.*', found[0]), found
        assert len(found) == 1, found
        # The row's head is said once, not again when the match is in it.
        head = (await text_of(s, "page_find", {"text": "turned round", "role": "link"})).splitlines()
        assert re.fullmatch(r'@e\d+ link "Section 8\.14\.3" \S+ in: Additional jsonb Operators › jsonb <@ jsonb → boolean › .*turned round.*', head[0]), head


async def test_the_instruction_and_the_paragraph_of_miniwob_read_as_two_lines(pages_url: str) -> None:
    """On MiniWoB++'s find-word the body's #wrap, #reward-display and #sync-task-cover (three class-less divs) were
    taken as look-alike items, and #wrap read as one line: `- Find the 3rd word … press "Submit". Donec ipsum …`."""
    async with product() as s:
        await s.navigate(f"{pages_url}/miniwob/find-word.html")
        read = await text_of(s, "page_read", {})
        lines = read.splitlines()
        assert 'Find the 3rd word in the paragraph, type that into the textbox and press "Submit".' in lines, read
        assert re.search(r"^Donec ipsum porta diam facilisi vitae non\n\[textbox @e\d+\] \[button \"Submit\" @e\d+\]", read, re.M), read
        assert not any(line.startswith("- ") and "Donec" in line for line in lines), read
