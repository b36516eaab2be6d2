"""A text target is the smallest thing that holds the words, never a landmark through its descendants' text (issue 53).

Fixture: tests/fixtures/pages/text-targets/app-main.html, a data app as Streamlit draws one: a main that takes focus
(tabindex 0) holds a Base Web checkbox ("Express shipping"), a line "Total quantity: 42", and at its centre a
dropdown a stray click opens. Through the MCP SDK's Client against the whole product with headless Chromium.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

PAGE = "text-targets/app-main.html"


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_click_by_a_checkbox_label_text_reaches_the_checkbox_not_the_main(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        said = text_of(await s.client.call_tool("page_click", {"text": "Express shipping"}))
        assert " main" not in said.splitlines()[0] and "Bolts" not in said, said
        read = text_of(await s.client.call_tool("page_read", {}))
        assert "Shipping: express" in read and "Bolts" not in read, read


async def test_find_by_text_gives_the_line_that_holds_the_words_not_the_main(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        found = text_of(await s.client.call_tool("page_find", {"text": "Total quantity"}))
        assert not re.search(r"@e\d+ main", found), found
        assert "Total quantity: 42" in found, found
        observed = text_of(await s.client.call_tool("page_observe", {}))
        # The main is listed (it takes focus) by its own name only: it has none, so none of its words.
        main = [line for line in observed.splitlines() if re.match(r"@e\d+ main", line)]
        assert main and all('"' not in line for line in main), observed


async def test_words_only_a_landmark_holds_are_refused_naming_the_line(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        result = await s.client.call_tool("page_click", {"text": "42 Unit"})
        message = "\n".join(block.text for block in result.content if block.type == "text")
        assert result.is_error and message.startswith("target_not_found"), message
        assert "Total quantity: 42" in message and "Bolts" not in message, message
        assert "Bolts" not in text_of(await s.client.call_tool("page_read", {}))
