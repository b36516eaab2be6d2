"""BAP's action/type types key by key, its text selector reaches a plain span, and element errors name their selector (docs/bap.md).

With the released client (``browser-agent-protocol`` 0.9.0) against real Chromium. Fixture:
tests/fixtures/pages/bap/typing.html: a city search box that counts each key and input event (as a
box that suggests while it is typed does), already holding "New", and a tooltip trigger that is a
plain span.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import css, text  # after the skip
from browseragentprotocol.errors import BAPError

from tests.bap.bap_server import Server, client


async def _page(c) -> str:  # type: ignore[no-untyped-def]  # the client
    return (await c.content()).content


async def test_type_presses_one_key_a_character_after_what_the_field_holds(server: Server) -> None:
    async with client(server, "typing") as c:
        await c.create_page(url=server.page("typing.html"))
        await c.type(css("#city"), "cas")
        read = await _page(c)
        assert 'value="Newcas"' in read or '= "Newcas"' in read, read
        # One input event a character (the keys count Control and End too, which put the caret at the end).
        assert ", 3 inputs" in read and "0 keys" not in read, read
        assert "Newcastle" in read and "New York" not in read, read


async def test_type_honours_its_delay_and_clear(server: Server) -> None:
    async with client(server, "typing-delay") as c:
        await c.create_page(url=server.page("typing.html"))
        began = time.monotonic()
        await c.type(css("#city"), "Yo", {"delay": 400, "clear": True})
        assert time.monotonic() - began >= 0.4
        read = await _page(c)
        assert '= "Yo"' in read or 'value="Yo"' in read, read


async def test_a_plain_span_is_hovered_by_its_text(server: Server) -> None:
    async with client(server, "typing-hover") as c:
        await c.create_page(url=server.page("typing.html"))
        await c.hover(text("Hover for help"))
        assert "Open from 9 to 17." in await _page(c)


async def test_an_element_error_names_the_selector(server: Server) -> None:
    async with client(server, "typing-missing") as c:
        await c.create_page(url=server.page("typing.html"))
        for selector in (text("No such words here"), css("#nowhere")):
            with pytest.raises(BAPError) as caught:
                await c.click(selector)
            assert caught.value.code == -32012, caught.value  # ElementNotFound
            assert caught.value.details and caught.value.details.get("selector") == selector.model_dump(exclude_none=True), caught.value.details
