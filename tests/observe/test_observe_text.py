"""Acting by visible text (page_click/page_fill/page_press/page_select {text}): one match acts, several are
refused with their refs and contexts, none says so; a stale ref says to observe again."""

from __future__ import annotations

from ..protocols.conftest import product


async def test_text_names_one_element_or_is_refused_with_the_candidates(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/board.html")
        page = s.tab().page
        several = await s.client.call_tool("page_click", {"text": "Add a card"})
        assert several.is_error
        message = several.content[0].text
        assert "multiple_targets" in message and "Doing" in message and "To do" in message and "Done" in message, message
        assert await page.locator("li").count() == 5  # nothing was clicked
        none = await s.client.call_tool("page_click", {"text": "Launch rocket"})
        assert none.is_error and "target_not_found" in none.content[0].text
        box = await s.client.call_tool("page_click", {"text": "Remember me"})
        assert not box.is_error, box.content
        assert await page.is_checked("#remember")
        milk = await s.client.call_tool("page_click", {"text": "buy milk"})
        assert not milk.is_error and await page.is_checked("#milk")
        chosen = await s.client.call_tool("page_select", {"text": "Size", "values": ["Large"]})
        assert not chosen.is_error, chosen.content
        assert await page.input_value("#size") == "Large"
        both = await s.client.call_tool("page_click", {"text": "Remember me", "ref": "@e1"})
        assert both.is_error and "invalid_input" in both.content[0].text
