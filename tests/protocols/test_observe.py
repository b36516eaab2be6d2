"""Observe with stable refs and acting on refs, on a page of 2,000 interactive elements."""

from __future__ import annotations

import json

from .conftest import product


def by_name(elements, name):
    return next(e for e in elements if e.get("name") == name)


async def test_observe_stays_under_budget_excludes_hidden_and_keeps_refs_stable(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe/big.html")
        tools = await s.tools()
        assert tools["page_observe"].meta["mcp-actions/protocol"] == "actions.json"
        first = (await s.client.call_tool("page_observe", {"max_bytes": 20000})).structured_content
        # 2,000 row controls plus 5 toolbar controls (one in a shadow root), minus 40 hidden rows of 5.
        assert first["total"] == 2000 + 5 - 40 * 5
        assert first["truncated"] is True and first["returned"] < first["total"]
        assert len(json.dumps(first["elements"], separators=(",", ":"), ensure_ascii=False).encode()) <= 20000
        names = [e.get("name") for e in first["elements"]]
        assert "Shadow action" in names and "Search items" in names
        # Hidden rows (display:none, visibility:hidden, zero size) are excluded.
        full = (await s.client.call_tool("page_observe", {"max_bytes": 1000000})).structured_content
        assert full["truncated"] is False and full["returned"] == full["total"]
        all_names = {e.get("name") for e in full["elements"]}
        assert "Item 8" in all_names and "Item 9" not in all_names and "Add item 19" not in all_names and "Item 29" not in all_names
        # Refs are stable across observations; nothing moved, so every change is "stable".
        refs_first = {e["ref"]: e.get("name") for e in first["elements"]}
        refs_full = {e["ref"]: e.get("name") for e in full["elements"]}
        assert all(refs_full[r] == n for r, n in refs_first.items())
        again = (await s.client.call_tool("page_observe", {"max_bytes": 1000000, "bounds": True})).structured_content
        assert [e["ref"] for e in again["elements"]] == [e["ref"] for e in full["elements"]]
        assert {e["change"] for e in again["elements"]} == {"stable"}
        qty = by_name(again["elements"], "Quantity of item 3")
        assert qty["value"] == "3" and qty["actions"][0] == "fill" and set(qty["bounds"]) == {"x", "y", "width", "height"}
        await s.tab().page.evaluate("() => moveTarget()")
        moved = (await s.client.call_tool("page_observe", {"max_bytes": 1000000})).structured_content
        assert by_name(moved["elements"], "Moving target")["change"] == "moved"


async def test_acting_on_refs(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe/big.html")
        seen = (await s.client.call_tool("page_observe", {"max_bytes": 8000})).structured_content["elements"]
        button = by_name(seen, "Clicked 0 times")
        clicked = await s.client.call_tool("page_click", {"ref": button["ref"]})
        assert not clicked.is_error, clicked.structured_content
        page = s.tab().page
        assert await page.text_content("#count-btn") == "Clicked 1 times"
        # The same ref after the name changed.
        again = (await s.client.call_tool("page_observe", {"max_bytes": 8000})).structured_content["elements"]
        assert by_name(again, "Clicked 1 times")["ref"] == button["ref"]

        search = by_name(seen, "Search items")
        filled = await s.client.call_tool("page_fill", {"ref": search["ref"], "text": "lamp"})
        assert not filled.is_error, filled.structured_content
        assert await page.input_value("#search") == "lamp"
        pressed = await s.client.call_tool("page_press", {"ref": search["ref"], "key": "Enter"})
        assert not pressed.is_error and await page.text_content("#last-key") == "Enter"

        sort = by_name(seen, "Sort by")
        assert sort["actions"] == ["select"] and sort["value"] == "Name"
        chosen = await s.client.call_tool("page_select", {"ref": sort["ref"], "values": ["Price"]})
        assert chosen.structured_content == {"ref": sort["ref"], "selected": ["price"]}
        assert await page.input_value("#sort") == "price"

        shadow = by_name(seen, "Shadow action")
        assert not (await s.client.call_tool("page_click", {"ref": shadow["ref"]})).is_error

        missing = await s.client.call_tool("page_click", {"ref": "@e999999"})
        assert missing.is_error and missing.structured_content["error"]["code"] == "target_not_found"
