"""Acting answers tell single-page changes (issue 53, finding 7 and 9).

Fixture: tests/fixtures/pages/acting/spa-editor.html: an editor whose autosave moves the address with
history.replaceState on a timer of its own, a "Run query" that sends the click over a WebSocket (a server of the
test's own answers 300 ms later, as a data app's server reruns), a rich-text editor, and a form part whose
revealed fields are two optional ones before three required ones. Through the MCP SDK's Client against the whole
product with headless Chromium.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import websockets

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

PAGE = "acting/spa-editor.html"


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.fixture
async def slow_socket() -> AsyncIterator[str]:
    """A socket server that answers "run" 300 ms later, as a data app's server reruns its script."""

    async def answer(socket: Any) -> None:
        async for message in socket:
            if message == "run":
                await asyncio.sleep(0.3)
                await socket.send("Result: 321 rows")

    async with websockets.serve(answer, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/"


async def test_an_address_the_page_moved_between_two_actions_is_said_by_the_next(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        text_of(await s.client.call_tool("page_click", {"text": "Start autosave"}))
        await asyncio.sleep(1.3)  # the autosave's timer moved the address meanwhile
        said = text_of(await s.client.call_tool("page_fill", {"text": "Title", "value": "Winter sale"}))
        assert f"now at {pages_url}/acting/posts/34/edit/" in said, said
        again = text_of(await s.client.call_tool("page_fill", {"text": "Title", "value": "Winter sale!"}))
        assert "now at" not in again, again  # said once


async def test_what_a_socket_reply_renders_is_in_the_click_answer(pages_url: str, slow_socket: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}?ws={slow_socket}")
        await asyncio.sleep(0.3)  # the page's socket is open
        said = text_of(await s.client.call_tool("page_click", {"text": "Run query"}))
        assert '+ "Result: 321 rows"' in said, said


async def test_revealed_required_fields_are_said_before_optional_ones(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        said = text_of(await s.client.call_tool("page_click", {"text": "Add a shipping address"}))
        for field in ("Street", "City", "Postcode"):
            assert re.search(rf'\+ @e\d+ textbox "{field}" required', said), (field, said)


async def test_a_key_chord_is_said_as_pressed(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        said = text_of(await s.client.call_tool("page_press", {"text": "Body", "key": "Control+b"}))
        assert said.startswith("pressed Control+B on @e"), said


async def test_a_formatting_chord_on_selected_words_is_said_not_no_visible_change(pages_url: str) -> None:
    # Wagtail's Draftail: a word selected, Control+B, and the word is bold: the text is the same, what a person sees is not.
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        text_of(await s.client.call_tool("page_click", {"text": "Body"}))
        text_of(await s.client.call_tool("page_press", {"text": "Body", "key": "End"}))
        text_of(await s.client.call_tool("page_press", {"text": "Body", "key": "Shift+Control+ArrowLeft"}))
        said = text_of(await s.client.call_tool("page_press", {"text": "Body", "key": "Control+b"}))
        assert "no visible change" not in said, said
        # The editor's marked text around what changed: the selected word (here ".") now bold.
        assert re.search(r'~ @e\d+ textbox "Body" = "… .*\*\*\.\*\*"$', said, flags=re.MULTILINE), said


async def test_rich_text_is_read_with_its_formatting(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        read = text_of(await s.client.call_tool("page_read", {}))
        assert 'textbox "Body"' in read, read
        # A link's text after "[" is page text: its lowercase start keeps the full-width bracket of any page "[" (core.js pageText).
        assert re.search(r"Intro with \*\*bold words\*\*, \*a soft aside\*, `x = 1` and [\[\uff3b]the docs\]\(/docs/\)\.", read), read


async def test_the_selection_a_key_press_made_in_an_editor_is_said(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        said = text_of(await s.client.call_tool("page_press", {"text": "Body", "key": "Control+a"}))
        assert 'selected "Intro with bold words' in said, said
