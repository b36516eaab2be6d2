"""With no map, the surface speaks of any page and says each thing once (issue 44), through the SDK's Client.

At 5735e83 a model on the open web read instructions that began "Tools here are actions that websites
declare in actions.json maps…", saw ``actions_site`` listed with nothing to say, and got
``browser_list_tabs``'s JSON twice (text and structuredContent) with host bookkeeping (``claimed_at``,
``runtime_key``). Fixture: tests/fixtures/pages/acting/search.html.
"""

from __future__ import annotations

import json

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser


async def test_no_map_instructions_listing_and_tabs(pages_url: str) -> None:
    async with product() as s:
        instructions = s.client.instructions or ""
        assert instructions.startswith("Work on any web page: open it with browser_navigate"), instructions[:120]
        assert "actions.json" in instructions  # maps are still explained, after the page tools
        listed = {tool.name for tool in (await s.client.list_tools()).tools}
        assert "actions_site" not in listed and {"page_read", "page_act", "browser_list_tabs"} <= listed
        await s.navigate(f"{pages_url}/acting/search.html")
        result = await s.client.call_tool("browser_list_tabs", {})
        text = "\n".join(block.text for block in result.content if block.type == "text")
        tab = result.structured_content["tabs"][0]
        assert text == f'tab {tab["tab_id"]}: "Search · Python 3.11 documentation (test fixture)" {pages_url}/acting/search.html (active)', text
        assert not {"claimed_at", "runtime_key"} & set(tab) and tab["runtime_id"] and "inventory" not in result.structured_content
        # Said once: the text is not the JSON again.
        assert json.dumps(result.structured_content)[:20] not in text
