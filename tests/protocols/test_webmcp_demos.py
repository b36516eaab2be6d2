"""Pages written as Chrome Labs' WebMCP demos are written, end to end through the SDK Client.

The demos (GoogleChromeLabs/webmcp-tools, demos/) are published as source
only; tests/fixtures/pages/webmcp-demos/ holds pages of our own that behave
toward the API as they do, each naming the demo it follows: registering only
`if (document.modelContext)` without awaiting (coffee shop), deciding once at
start and awaiting registrations with titles and annotations (explainer),
shipping a polyfill of their own and registering with exposedTo options
(pizza maker), declarative doors that load other rooms and a tool withdrawn
by its signal (mystery doors), a declarative form read back through
getTools() and re-registered imperatively (French bistro).
"""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError

from mcp_actions.protocols.exposure import UNTRUSTED_DESCRIPTION

from .conftest import Session, product


def _webmcp(tools: dict) -> set[str]:
    return {t.meta["mcp-actions/tool"].split(".", 1)[1] for t in tools.values() if t.meta.get("mcp-actions/protocol") == "webmcp"}


async def _page(s: Session, script: str):
    return await s.tab().page.evaluate(script)


async def test_a_page_that_registers_only_if_the_api_is_there_and_a_tool_that_leaves_for_another_page(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/coffee.html")
        tools = await s.wait_for_tools(lambda ts: len(_webmcp(ts)) == 3)
        assert _webmcp(tools) == {"search_catalog", "get_order_history", "reorder_product"}

        reorder = await s.page_tool("webmcp", "reorder_product")
        result = await s.client.call_tool(reorder.name, {"item_id": "DR-001"})
        assert result.structured_content == {"status": "success", "item_id": "DR-001", "cart_total": 1}
        assert await s.tab().page.text_content("#cart-count") == "1"

        # The tool answers, then the page goes to the product, whose own tools replace these.
        before = len(s.changes)
        search = await s.page_tool("webmcp", "search_catalog")
        found = await s.client.call_tool(search.name, {"query": "dark roast beans"})
        assert found.structured_content == {"status": "success", "message": "Navigating to dark roast beans"}
        tools = await s.wait_for_tools(lambda ts: _webmcp(ts) == {"select_grind", "get_product_details"})
        assert len(s.changes) > before
        grind = await s.page_tool("webmcp", "select_grind")
        assert (await s.client.call_tool(grind.name, {"grind": "Espresso"})).structured_content == {"grind": "Espresso"}
        assert await s.tab().page.text_content("#grind") == "Espresso"
        with pytest.raises(MCPError, match="unknown tool"):
            await s.client.call_tool(reorder.name, {"item_id": "DR-001"})


async def test_a_page_that_decides_once_at_start_and_awaits_registrations_with_titles(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/explainer.html")
        availability = await s.page_tool("webmcp", "getAvailability")
        book = await s.page_tool("webmcp", "bookSlot")
        assert await s.tab().page.text_content("#mode") == "live"  # it saw document.modelContext when it started
        assert availability.title == "[page] Get booking availability" and availability.annotations and availability.annotations.read_only_hint is True
        assert book.title == "[page] Book a consultation slot" and not (book.annotations and book.annotations.read_only_hint)

        slots = await s.client.call_tool(availability.name, {"startDate": "2026-12-01", "endDate": "2026-12-01"})
        assert slots.structured_content == {"2026-12-01": ["10:00", "11:00"]}
        booked = await s.client.call_tool(book.name, {"date": "2026-12-01", "time": "11:00", "name": "Ada"})
        assert booked.structured_content == {"booked": True, "date": "2026-12-01", "time": "11:00"}
        assert await s.tab().page.text_content("#booked") == "2026-12-01 11:00 Ada"
        again = await s.client.call_tool(availability.name, {"startDate": "2026-12-01", "endDate": "2026-12-02"})
        assert again.structured_content == {"2026-12-01": ["10:00"], "2026-12-02": ["14:00"]}


async def test_a_page_with_its_own_polyfill_defers_to_ours_and_its_exposed_to_tools_are_listed(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/pizza.html")
        tools = await s.wait_for_tools(lambda ts: len(_webmcp(ts)) == 3)
        assert _webmcp(tools) == {"set_pizza_size", "set_pizza_style", "add_topping"}
        # Its polyfill found document.modelContext taken and stood aside.
        assert await _page(s, "() => [window.demoPolyfillInstalled, document.body.classList.contains('webmcp-supported')]") == [False, True]

        size = await s.page_tool("webmcp", "set_pizza_size")
        assert (await s.client.call_tool(size.name, {"number_of_persons": 6})).structured_content == {"result": "Set pizza size to Large."}
        topping = await s.page_tool("webmcp", "add_topping")
        assert not (await s.client.call_tool(topping.name, {"topping": "olive", "count": 2})).is_error
        style = await s.page_tool("webmcp", "set_pizza_style")
        assert not (await s.client.call_tool(style.name, {"style": "Pesto"})).is_error
        assert await _page(s, "() => pizzaForTest()") == {"size": "Large", "style": "Pesto", "toppings": ["olive", "olive"]}
        assert await s.tab().page.text_content("#style") == "Pesto"
        refused = await s.client.call_tool(style.name, {"style": "Hawaii"})
        assert refused.structured_content["error"]["code"] == "invalid_input"


async def test_doors_that_load_rooms_and_a_tool_withdrawn_by_its_signal(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/doors.html")
        await s.wait_for_tools(lambda ts: _webmcp(ts) == {"openDoor1", "openDoor2"})
        door = await s.page_tool("webmcp", "openDoor1")
        assert door.description == UNTRUSTED_DESCRIPTION + "Open the first mystery door. Only one door can be chosen."
        opened = await s.client.call_tool(door.name, {})
        assert not opened.is_error, opened.structured_content
        assert opened.structured_content["navigated"] is True and opened.structured_content["page"]["title"] == "Mystery Doors - Magic Room"

        # In the magic room: castLight, registered with a signal; using it aborts the signal.
        cast = await s.page_tool("webmcp", "castLight")
        assert _webmcp(await s.tools()) == {"castLight"}
        before = len(s.changes)
        lit = await s.client.call_tool(cast.name, {})
        assert lit.structured_content == {"result": "The owl blinks at the sudden light!"}
        await s.wait_for_tools(lambda ts: _webmcp(ts) == {"returnToHallway"})
        assert len(s.changes) > before
        with pytest.raises(MCPError, match="unknown tool"):
            await s.client.call_tool(cast.name, {})

        back = await s.page_tool("webmcp", "returnToHallway")
        returned = await s.client.call_tool(back.name, {})
        assert returned.structured_content["page"]["title"] == "Mystery Doors - Hallway"
        await s.wait_for_tools(lambda ts: _webmcp(ts) == {"openDoor1", "openDoor2"})


async def test_a_declarative_form_and_its_imperative_twin_read_back_through_get_tools(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/bistro.html?toolautosubmit")
        book = await s.page_tool("webmcp", "book_table_le_petit_bistro")
        props = book.input_schema["properties"]
        assert book.input_schema["required"] == ["name", "date", "guests"]
        assert props["name"]["description"] == "Customer's full name (min 2 chars)" and props["name"]["minLength"] == 2
        assert props["guests"]["enum"] == ["1", "2", "4"] and props["date"]["format"] == "date"
        assert await _page(s, "() => window.demoPolyfillInstalled") is False

        booked = await s.client.call_tool(book.name, {"name": "Ada Lovelace", "date": "2026-12-24", "guests": "4"})
        assert booked.structured_content == {"result": "Table for 4 on 2026-12-24, under Ada Lovelace."}
        # The form's own constraints (minlength) are checked before anything reaches the page.
        invalid = await s.client.call_tool(book.name, {"name": "A", "date": "2026-12-24", "guests": "4"})
        assert invalid.structured_content["error"]["code"] == "invalid_input" and invalid.structured_content["error"]["evidence"]["path"] == "/name"

        # ?imperative: the page reads the form's tool with getTools() (JSON.parse(tool.inputSchema)),
        # takes the attributes off the form and registers the same tool imperatively.
        await s.navigate(f"{pages_url}/webmcp-demos/bistro.html?imperative&toolautosubmit")
        await s.tab().page.wait_for_function("() => window.bistroReady === true")
        twin = await s.page_tool("webmcp", "book_table_le_petit_bistro")
        assert await _page(s, "() => document.getElementById('reservationForm').hasAttribute('toolname')") is False
        assert twin.input_schema["properties"]["guests"]["enum"] == ["1", "2", "4"]
        assert twin.input_schema["properties"]["name"]["description"] == "Customer's full name (min 2 chars)"
        done = await s.client.call_tool(twin.name, {"name": "Grace Hopper", "date": "2026-12-31", "guests": "2"})
        assert done.structured_content == {"result": "Table for 2 on 2026-12-31, under Grace Hopper."}
        assert await s.tab().page.text_content("#confirmation") == "Table for 2 on 2026-12-31, under Grace Hopper."


async def test_a_declarative_form_without_autosubmit_answers_at_once_that_it_waits_for_the_user(pages_url):
    # The bistro as Chrome Labs serves it (no ?toolautosubmit): the form is the user's to send. At 5735e83
    # the call waited for that submit until its time ran out (handler_timeout after 8 s, issue 44).
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/bistro.html")
        book = await s.page_tool("webmcp", "book_table_le_petit_bistro")
        filled = await s.client.call_tool(book.name, {"name": "Ada Lovelace", "date": "2026-12-24", "guests": "4", "timeout_ms": 8000})
        assert not filled.is_error, filled.content
        assert filled.structured_content == {"filled": True, "submitted": False, "waiting_for": 'the user to submit the form ("Request Reservation")'}
        page = s.tab().page
        assert await page.evaluate("() => [document.getElementById('name').value, document.activeElement.id]") == ["Ada Lovelace", "submitBtn"]
        assert await page.text_content("#confirmation") == ""  # nothing was sent: the user sends it
        await page.click("#submitBtn")
        assert await page.text_content("#confirmation") == "Table for 4 on 2026-12-24, under Ada Lovelace."


async def test_a_wrong_choice_is_said_specifically_and_names_the_tool_as_called(pages_url):
    # At 5735e83: "invalid arguments for x127_0_0_1.book_table_le_petit_bistro at /guests: '7' is not valid
    # under any of the given schemas" (issue 44): the dotted name no host called, and the select's anyOf
    # of {const, title} hid the enum's own words.
    async with product() as s:
        await s.navigate(f"{pages_url}/webmcp-demos/bistro.html?toolautosubmit")
        book = await s.page_tool("webmcp", "book_table_le_petit_bistro")
        refused = await s.client.call_tool(book.name, {"name": "Ada Lovelace", "date": "2026-12-24", "guests": "7"})
        error = refused.structured_content["error"]
        assert error["code"] == "invalid_input" and error["evidence"]["path"] == "/guests"
        assert error["message"] == f"invalid arguments for {book.name} at /guests: '7' is not one of ['1', '2', '4']", error
