"""page_drag {from, to} on both hosts: an HTML5 sortable list and a pointer-events kanban board.

Fixtures: tests/fixtures/pages/frames/sortable.html (draggable items, dragover/drop handlers) and
kanban.html (cards moved with pointerdown/pointermove/pointerup, as dnd-kit does; the cards are no
controls, the columns are known by their headings).
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from mcp_actions.errors import ActionError
from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_sortable_list_item_is_dragged_before_another(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/frames/sortable.html")
        answer = await host.call("page_drag", {"from": "Outro", "to": "Verse"})
        assert answer.startswith("dragged @e") and '"Outro" onto @e' in answer, answer
        assert '+ "Order: Intro, Outro, Verse, Chorus"' in answer, answer
        assert await page.inner_text("#order") == "Order: Intro, Outro, Verse, Chorus"
        # By ref: the refs the answer gave.
        outro, verse = answer.split()[1], answer.split(" onto ")[1].split()[0]
        await host.call("page_drag", {"from": verse, "to": outro})
        assert await page.inner_text("#order") == "Order: Intro, Verse, Outro, Chorus"


@pytest.mark.parametrize("kind", KINDS)
async def test_a_kanban_card_moves_to_another_column_with_pointer_events(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/frames/kanban.html")
        answer = await host.call("page_drag", {"from": "Fix login", "to": "Done"})
        assert '+ "Moved \\"Fix login\\" to Done"' in answer, answer
        assert await page.eval_on_selector_all("section[aria-label=Done] .card", "(cards) => cards.map((c) => c.textContent)") == ["Ship v1", "Fix login"]
        with pytest.raises(ActionError) as same:
            await host.call("page_drag", {"from": "Write tests", "to": "Write tests"})
        assert same.value.code == "invalid_input"
        with pytest.raises(ActionError) as nowhere:
            await host.call("page_drag", {"from": "Write tests", "to": "Archive"})
        assert nowhere.value.code == "target_not_found"
