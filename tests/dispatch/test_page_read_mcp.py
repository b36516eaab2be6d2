"""page_read and page_find through the MCP SDK's Client against the server: the text the model reads.

The board task of issue 30 ("add a card 'Buy ladders' to Doing, then say which Doing
cards mention ladders") done with the page tools alone on a page with no map, at 300
and 3,000 cards, counting every byte the model is handed (text content and
structuredContent both). Fixture: tests/fixtures/pages/read/board.html.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.protocols.conftest import Session, eventually, product

pytestmark = pytest.mark.browser


def answer_bytes(result: Any) -> int:
    """What a host may hand the model: every text block, and structuredContent when there is one."""
    size = sum(len(block.text.encode()) for block in result.content if block.type == "text")
    if result.structured_content is not None:
        size += len(json.dumps(result.structured_content, ensure_ascii=False).encode())
    return size


class Agent:
    """A scripted agent that reads only the tools' answers and counts their bytes."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.bytes = 0
        self.calls = 0

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        result = await self.session.client.call_tool(name, arguments)
        self.bytes += answer_bytes(result)
        self.calls += 1
        assert not result.is_error, result.content
        return "\n".join(block.text for block in result.content if block.type == "text")


def one_ref(text: str) -> str:
    refs = re.findall(r"@e\d+", text)
    assert len(refs) == 1, text
    return refs[0]


async def board_task(s: Session, url: str) -> Agent:
    agent = Agent(s)
    await s.navigate(url)
    outline = await agent.call("page_read", {})
    assert outline.startswith("[banner]\n# Team board\n## To do\n100 cards\n") or "cards" in outline
    add = one_ref(await agent.call("page_find", {"text": "Doing", "name": "Add a card"}))
    await agent.call("page_click", {"ref": add})
    box = one_ref(await agent.call("page_find", {"text": "Doing", "role": "textbox"}))
    await agent.call("page_fill", {"ref": box, "text": "Buy ladders"})
    await agent.call("page_press", {"ref": box, "key": "Enter"})
    page = s.tab().page
    await eventually(lambda: page.evaluate("() => [...document.querySelectorAll('a.title')].some((a) => a.textContent === 'Buy ladders')"))
    found = await agent.call("page_find", {"text": "Doing", "name": "ladders"})
    assert re.findall(r'link "([^"]+)"', found) == ["Buy ladders"]  # no seeded card mentions ladders
    assert all("in: Doing" in line for line in found.splitlines())
    return agent


async def test_the_board_task_costs_a_few_kilobytes_at_300_and_3000_cards(pages_url: str) -> None:
    async with product() as s:
        small = await board_task(s, f"{pages_url}/read/board.html?cards=300")
        big = await board_task(s, f"{pages_url}/read/board.html?cards=3000")
    # The peers spent 49 and 69 KB on this task at 300 cards (issue 30); a quarter of the best is 12 KB.
    assert small.bytes < 12_000, small.bytes
    assert big.bytes < 3 * small.bytes, (small.bytes, big.bytes)
    assert small.calls == big.calls == 7


async def test_the_answers_are_plain_text_said_once_and_continue_by_cursor(pages_url: str) -> None:
    async with product() as s:
        tools = await s.tools()
        for name in ("page_read", "page_find"):
            assert tools[name].output_schema is None and tools[name].annotations is not None and tools[name].annotations.read_only_hint
        await s.navigate(f"{pages_url}/read/todos.html")
        result = await s.client.call_tool("page_read", {})
        assert result.structured_content is None and [block.type for block in result.content] == ["text"]
        text = result.content[0].text
        assert text.startswith('## Groceries\n- [checkbox "Done" @e1] Buy bread [button "Delete" @e2]\n')
        found = await s.client.call_tool("page_find", {"text": "buy milk", "role": "checkbox"})
        assert found.structured_content is None
        assert found.content[0].text == '@e3 checkbox "Done" unchecked in: Groceries › Buy milk\n@e7 checkbox "Done" unchecked in: Chores › Buy milk crate'
        # The ref works in the acting tools.
        clicked = await s.client.call_tool("page_click", {"ref": "@e3"})
        assert not clicked.is_error, clicked.content
        assert '[checkbox "Done" @e3 checked] Buy milk' in (await s.client.call_tool("page_read", {})).content[0].text

        await s.navigate(f"{pages_url}/read/article.html")
        whole = (await s.client.call_tool("page_read", {"max_bytes": 1_000_000})).content[0].text
        first = (await s.client.call_tool("page_read", {"max_bytes": 2000})).content[0].text
        assert len(first.encode()) <= 2000
        body, trailer = first.rsplit("\n", 1)
        cursor = re.fullmatch(r'\[cut, \d+ more bytes: page_read (\{"cursor": "p\.\d+"\})\]', trailer)
        assert cursor is not None, trailer
        second = (await s.client.call_tool("page_read", json.loads(cursor.group(1)))).content[0].text
        assert whole.startswith(body + "\n" + second.rsplit("\n", 1)[0])

        stale = await s.client.call_tool("page_read", {"ref": "@e99999"})
        assert stale.is_error and stale.content[0].text.startswith("target_not_found")
        bad = await s.client.call_tool("page_find", {"max_results": 0})
        assert bad.is_error and "invalid_input" in bad.content[0].text


async def test_page_find_finds_a_sentence_no_control_or_heading_says(pages_url: str) -> None:
    """A text query that matches no control or heading finds the innermost paragraph holding it, named by
    the words around the match; role "paragraph" takes <p> elements; and the ref reads the paragraph."""
    async with product() as s:
        await s.navigate(f"{pages_url}/read/article.html")
        found = (await s.client.call_tool("page_find", {"text": "Section 3 paragraph 4."})).content[0].text
        lines = found.splitlines()
        assert len(lines) == 1 and re.match(r'@e\d+ paragraph "Section 3 paragraph 4\. Ladders have two rails', lines[0]), found
        assert '\u2026"' in lines[0] and len(lines[0].encode()) < 250, lines[0]
        by_role = (await s.client.call_tool("page_find", {"text": "paragraph 4.", "role": "paragraph"})).content[0].text
        assert [line.split('"')[1].split(" Ladders")[0] for line in by_role.splitlines() if line.startswith("@")] == [f"Section {n} paragraph 4." for n in range(1, 1 + by_role.count("@e"))]
        read = (await s.client.call_tool("page_read", {"ref": one_ref(lines[0])})).content[0].text
        assert read.startswith("Section 3 paragraph 4. Ladders"), read
        none = (await s.client.call_tool("page_find", {"text": "no such words anywhere"})).content[0].text
        assert "@e" not in none, none
