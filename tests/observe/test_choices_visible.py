"""Choices are visible (issue 44): a select's and a combobox's options (the first ones, with a count), a field's
placeholder, options found by page_find {role: "option"}, and a wrong pick that lists what is allowed; a
select chosen with submit submits its form (contract §6 page_fill {submit}), or says why it could not.

Fixture: tests/fixtures/pages/read/bistro-choices.html, following Chrome Labs' bistro booking form. Driven
through the MCP SDK's Client in headless Chromium.
"""

from __future__ import annotations

import re

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser


async def test_options_and_placeholders_are_said_by_every_tool(pages_url: str) -> None:
    """At 5735e83 page_read said only `[combobox "Guests" @e3 = "2 People"]`, page_find {role: option} found
    nothing and a wrong pick answered `no enabled option of @e3 matches`."""
    async with product() as s:
        await s.navigate(f"{pages_url}/read/bistro-choices.html")
        read = (await s.client.call_tool("page_read", {})).content[0].text
        guests = re.search(r'\[combobox "Guests" (@e\d+) = "2 People" options "1 Person", "2 People", "3 People", "4 People", "5 People", "6 People"\]', read)
        assert guests is not None, read
        assert re.search(r'\[textbox "Phone" @e\d+ placeholder "\(555\) 000-0000"\]', read), read
        assert re.search(r'\[combobox "Seating" @e\d+ collapsed options "Indoor", "Terrace", "Bar"\]', read), read
        # A placeholder that is the field's name already is not said twice; one the label names is said.
        assert re.search(r'\[textbox "Full Name" @e\d+ placeholder "Jean Dupont"\]', read), read
        ref = guests.group(1)
        listing = (await s.client.call_tool("page_observe", {})).content[0].text
        assert f'{ref} combobox "Guests" = "2 People" options "1 Person", "2 People", "3 People", "4 People", "5 People", "6 People"' in listing, listing
        assert re.search(r'@e\d+ textbox "Phone" placeholder "\(555\) 000-0000"', listing), listing
        options = (await s.client.call_tool("page_find", {"role": "option", "text": "people"})).content[0].text
        assert [re.sub(r"@e\d+", "@", line) for line in options.splitlines()] == [f'@ option "{n} People" in: Guests' for n in range(2, 7)], options
        wrong = await s.client.call_tool("page_select", {"ref": ref, "values": ["7"]})
        assert wrong.is_error
        assert 'no enabled option of ' + ref + ' matches; its options: "1 Person", "2 People", "3 People", "4 People", "5 People", "6 People"' in wrong.content[0].text, wrong.content[0].text
        picked = await s.client.call_tool("page_select", {"ref": ref, "values": ["5 People"]})
        assert not picked.is_error, picked.content
        typed = await s.client.call_tool("page_fill", {"text": "Phone", "value": "(555) 123-4567"})
        assert not typed.is_error, typed.content
        read = (await s.client.call_tool("page_read", {})).content[0].text
        # Filled, the field shows its value, not its placeholder.
        assert re.search(r'\[textbox "Phone" @e\d+ = "\(555\) 123-4567"\]', read), read
        # A choice that submits: a select has no Enter that submits, its form is submitted as its button would.
        # At 7ed4fed page_fill {submit} pressed Enter in the select and answered "pressed Enter / no visible change".
        stopped = (await s.client.call_tool("page_fill", {"text": "Guests", "value": "4 People", "submit": True})).content[0].text
        assert stopped.startswith(f'selected ["4 People"] in {ref} combobox "Guests"; the form was not submitted, "Full Name" is not valid: "'), stopped
        await s.client.call_tool("page_fill", {"text": "Full Name", "value": "Ada Lovelace"})
        sent = (await s.client.call_tool("page_select", {"ref": ref, "values": ["3 People"], "submit": True})).content[0].text
        assert sent.splitlines() == [f'selected ["3 People"] in {ref}, submitted its form ("Request Reservation")', 'message: "Requested: a table for 3"'], sent
        # A select in no form: refused before anything is chosen, saying so.
        alone = await s.client.call_tool("page_fill", {"text": "Language", "value": "Français", "submit": True})
        assert alone.is_error and ' combobox "Language" is in no form: there is nothing to submit' in alone.content[0].text, alone.content
        assert re.search(r'\[combobox "Language" @e\d+ = "English"', (await s.client.call_tool("page_read", {})).content[0].text)
