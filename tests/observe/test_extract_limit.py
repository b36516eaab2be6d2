"""page_extract {limit} and a long answer's text that stays JSON (docs/mcp-surface.md, "page_extract").

Through the MCP SDK's Client against the whole product (a launched headless Chromium), as a host
that shows only the text would read it. Fixture: tests/fixtures/pages/extract/authors.html (a
database browser's table page: 100 rows of five columns).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

ROWS = {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}, "city": {"type": "string"}, "born": {"type": "integer"}}}}


def texts_of(result) -> list[str]:  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content
    return [block.text for block in result.content if block.type == "text"]


async def test_limit_reads_only_the_first_items_and_counts_them_all(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/extract/authors.html")
        result = await s.client.call_tool("page_extract", {"schema": ROWS, "limit": 1})
        (text,) = texts_of(result)
        answer = json.loads(text)
        assert answer["data"] == [{"name": "Ada Castillo", "email": "ada.castillo1@example.org", "city": "Lisbon", "born": 1900}]
        assert answer["records"] == 100 and [s["path"] for s in answer["sources"]] == ["0.name", "0.email", "0.city", "0.born"]
        assert result.structured_content == answer


async def test_an_answer_cut_for_size_is_still_json_and_says_how_many_items_it_left_out(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/extract/authors.html")
        result = await s.client.call_tool("page_extract", {"schema": ROWS})
        text, *_ = texts_of(result)
        shown, note = text.rsplit("\n", 1)
        answer = json.loads(shown)
        whole = result.structured_content
        assert whole is not None and len(whole["data"]) == 100 and whole["records"] == 100
        kept = len(answer["data"])
        assert 0 < kept < 100 and answer["data"] == whole["data"][:kept]
        found = re.fullmatch(r"\(\+(\d+) more items in data, \+(\d+) in sources; all in structuredContent\)", note)
        assert found, note
        assert int(found.group(1)) == 100 - kept and int(found.group(2)) == len(whole["sources"]) - len(answer["sources"])
