"""A rich-text editor that stands in for a hidden field is named by that field's label (issue 52: editors are
found by role and label; the Wagtail bench: Draftail's body was a nameless textbox on both servers).

Fixture: tests/fixtures/pages/acting/cms-field.html, Wagtail's field markup around a Draft.js editor. Through the
MCP SDK's Client against the whole product with headless Chromium.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

PAGE = "acting/cms-field.html"


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_draftail_body_is_named_found_and_filled_by_its_label(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        found = text_of(await s.client.call_tool("page_find", {"role": "textbox"}))
        assert re.search(r'@e\d+ textbox "Body"', found), found
        filled = text_of(await s.client.call_tool("page_fill", {"text": "Body", "value": "Tides change daily."}))
        assert filled.startswith("filled @e") and 'textbox "Body"' in filled, filled
        read = text_of(await s.client.call_tool("page_read", {}))
        assert "Tides change daily." in read and "About Seaside Walk 06." not in read, read
