"""A saved tool waits for what the first time saw appear and answers what its call changed (issue 31).

The page (``tests/fixtures/pages/learn-booking``) answers "Book" after a round trip: "Checking
availability…", then 100-300 ms later (a random delay) a confirmation naming the values booked and
a random reference. The agent books once with the page tools and saves ``booking.book(guest, date,
size)``; a new server process (``mcp-actions serve`` over stdio, driven by the SDK's ``Client``, its
own headless Chromium, the same learned-maps folder) loads the page afresh and books with other
values in one call: the call returns once the confirmation is there, and its answer is that
confirmation, so the agent needs no read of the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcp_actions.manifest.expressions import render_args

from .test_save_tool_e2e import serve

pytestmark = [pytest.mark.browser]

FIRST = {"guest": "Ada Lovelace", "date": "2026-12-24", "size": "3"}
LATER = {"guest": "Zoë O'Neil", "date": "2027-02-03", "size": "5"}


async def test_a_saved_booking_waits_for_its_confirmation_and_answers_it_in_a_new_server(tmp_path: Path, pages_url: str) -> None:
    learned = tmp_path / "learned"
    url = f"{pages_url}/learn-booking/index.html"
    async with serve(tmp_path, learned, name="first") as agent:
        await agent.ok("browser_navigate", {"url": url})
        await agent.ok("page_fill", {"text": "Guest name", "value": FIRST["guest"]})
        await agent.ok("page_fill", {"text": "Date", "value": FIRST["date"]})
        await agent.ok("page_select", {"text": "Party size", "values": [FIRST["size"]]})
        answer = await agent.ok("page_click", {"text": "Book"})
        # The acting tool waited for the page's reply and said it: what the journal learns from.
        assert "Table for 3 on 2026-12-24, under Ada Lovelace. Reference R" in str(answer), answer
        saved = await agent.ok("actions_save_tool", {"name": "booking.book", "description": "Book a table.", "parameters": FIRST})

    tool = next(t for t in json.loads(Path(saved["map"]).read_text())["tools"] if t["name"] == "booking.book")
    click = next(s for s in tool["workflow"]["steps"] if s["primitive"] == "pointer.click")
    # The settle is the confirmation's template: the call's values in it, the random reference left out.
    waited = render_args(click["settle_after"]["locator"]["text_contains"], {"input": LATER, "steps": {}})
    assert waited == "5 on 2027-02-03, under Zoë O'Neil"

    async with serve(tmp_path, learned, name="second") as agent:
        await agent.ok("browser_navigate", {"url": url})  # a learned tool is listed on its own origin's pages
        listed = next(t for t in (await agent.client.list_tools()).tools if t.name == saved["tool"])
        assert listed.output_schema is not None and "added" in listed.output_schema["properties"]  # it says what it answers
        booked = await agent.ok(saved["tool"], LATER)
        # One call: its answer is what the booking changed, the confirmation with its new reference.
        assert isinstance(booked, dict), booked
        assert [line for line in booked["added"] if re.fullmatch(r"Table for 5 on 2027-02-03, under Zoë O'Neil\. Reference R\d{6}\.", line)], booked
        assert "Checking availability…" not in booked["added"]
