"""Look-alike siblings are said once, whatever their tags (issue 44): a board of 300 <div> cards clickable by
their cursor reads as its outline, each list's first cards and the ref that reads the rest, as <li> rows do
(at 5735e83 the first page_read was 7.9 KB of one list's cards, cut there).

Fixture: tests/fixtures/pages/read/board-clickable.html (board.html's Trello-like board, cards opened by a click
on the card). Headless Chromium through the MCP SDK's Client.
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser


async def test_a_board_of_clickable_div_cards_reads_as_its_outline(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/read/board-clickable.html?cards=300")
        text = (await s.client.call_tool("page_read", {})).content[0].text
        assert len(text.encode()) < 5_000, len(text.encode())
        assert "[cut," not in text, text[-300:]
        mores = re.findall(r'- … 80 more: page_read \{"ref":"(@e\d+)"\}', text)
        assert len(mores) == 3, text
        assert re.search(r'\n- \[clickable "Ship roadmap #1 1 comments" @e\d+\]', text), text[:600]
        for heading in ("## To do", "## Doing", "## Done"):
            assert heading in text
        # The ref reads that list whole.
        doing = (await s.client.call_tool("page_read", {"ref": mores[1], "max_bytes": 100_000})).content[0].text
        assert doing.count("[clickable ") == 100, doing[:400]
