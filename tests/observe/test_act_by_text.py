"""Any visible element is acted on by its own text (docs/mcp-surface.md, "Acting by text").

Through the MCP SDK's Client against the whole product (a launched headless Chromium). Fixture:
tests/fixtures/pages/text-targets/help.html: a tooltip trigger that is a plain span, a clickable
card holding a span of its own ("Export as CSV"), two plain "Remove" spans, all inside a main that
takes focus (a skip link's target).
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_plain_span_is_hovered_by_its_text(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/text-targets/help.html")
        said = text_of(await s.client.call_tool("page_hover", {"text": "Hover for help"}))
        assert said.startswith("hovered @e") and "Use at least 12 characters." in said, said


async def test_the_smallest_element_holding_the_words_is_clicked_not_its_container(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/text-targets/help.html")
        said = text_of(await s.client.call_tool("page_click", {"text": "Export as CSV"}))
        assert "Exported weekly-report.csv" in said and "Report opened" not in said, said
        read = text_of(await s.client.call_tool("page_read", {}))
        assert "Exported weekly-report.csv" in read


async def test_words_that_several_elements_hold_are_refused_with_their_refs(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/text-targets/help.html")
        result = await s.client.call_tool("page_click", {"text": "Remove"})
        assert result.is_error
        message = "\n".join(block.text for block in result.content if block.type == "text")
        assert message.startswith('multiple_targets: 2 elements match the text "Remove"'), message
        assert len(re.findall(r"^@e\d+ ", message, re.M)) == 2, message
        assert "Removed" not in text_of(await s.client.call_tool("page_read", {}))


async def test_words_a_control_has_win_over_the_same_words_in_plain_text(pages_url: str) -> None:
    """tests/fixtures/pages/bap/form.html: a heading "Order" and a button "Place order"."""
    async with product() as s:
        await s.navigate(f"{pages_url}/bap/form.html")
        said = text_of(await s.client.call_tool("page_click", {"text": "Order"}))
        assert re.match(r'clicked @e\d+ button "Place order"', said), said
