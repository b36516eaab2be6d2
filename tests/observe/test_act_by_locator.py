"""The acting tools take a locator in the call that acts, and page_click {checked} clicks a box only when it needs it.

docs/mcp-surface.md, "Acting by text": ``locator`` names an element as ``page_find {locator}`` does (a
BAP client's css, placeholder or role selector), found by the acting call itself; exactly one
element, several refused with their refs. ``page_click {checked: true|false}`` leaves a box that is
in that state already alone. Through the MCP SDK's Client against the whole product (a launched
headless Chromium), on tests/fixtures/pages/bap/todo.html and form.html.
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

BOX = {"selector": "[placeholder='What needs to be done?']"}


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


def error_of(result) -> str:  # type: ignore[no-untyped-def]
    assert result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_field_named_by_a_locator_is_filled_and_a_box_checked_only_once(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/bap/todo.html")
        said = text_of(await s.client.call_tool("page_fill", {"locator": BOX, "value": "milk", "submit": True}))
        assert re.match(r'filled @e\d+ textbox "What needs to be done\?", pressed Enter', said), said
        checked = text_of(await s.client.call_tool("page_click", {"text": "Mark all as complete", "checked": True}))
        assert checked.startswith("clicked @e") and "milk (done)" in text_of(await s.client.call_tool("page_read", {})), checked
        again = text_of(await s.client.call_tool("page_click", {"text": "Mark all as complete", "checked": True}))
        assert re.match(r'@e\d+ checkbox "Mark all as complete" was already checked', again), again
        read = text_of(await s.client.call_tool("page_read", {}))
        assert "milk (done)" in read and "0 items left" in read, read  # no second click: it would have unchecked it
        unchecked = text_of(await s.client.call_tool("page_click", {"locator": {"selector": "#toggle-all"}, "checked": False}))
        assert unchecked.startswith("clicked @e"), unchecked
        assert "1 item left" in text_of(await s.client.call_tool("page_read", {}))


async def test_a_locator_matching_several_is_refused_with_their_refs(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/bap/form.html")
        message = error_of(await s.client.call_tool("page_click", {"locator": {"selector": "button"}}))
        assert message.startswith("multiple_targets: ") and "elements match the locator; act on one by its ref" in message, message
        assert len(re.findall(r"^@e\d+ button ", message, re.M)) >= 2, message
        both = error_of(await s.client.call_tool("page_click", {"text": "Place order", "locator": {"selector": "button"}}))
        assert both.startswith("invalid_input: give one of ref, text or locator"), both
        missing = error_of(await s.client.call_tool("page_select", {"locator": {"selector": "#no-such-select"}, "values": ["m"]}))
        assert missing.startswith("target_not_found: "), missing
        chosen = text_of(await s.client.call_tool("page_select", {"locator": {"selector": "#size"}, "values": ["m"]}))
        assert chosen.startswith("selected "), chosen
