"""Observe with stable refs and acting on refs, on a page of 2,000 interactive elements.

page_observe answers compact text (one ``@eN role "name" ...`` line per element, docs/mcp-surface.md);
the engine's refs.observe still answers JSON elements to workflows (checked through the engine here).
"""

from __future__ import annotations

import json
import re

from .conftest import product

LINE = re.compile(r'^(@e\d+) (\S+)(?: ("(?:[^"\\]|\\.)*"))?(.*)$')


def parse(text: str) -> list[dict[str, str]]:
    """page_observe's element lines as {ref, role, name, rest}; the page line and the cut line are skipped."""
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out.append({"ref": m[1], "role": m[2], "name": json.loads(m[3]) if m[3] else "", "rest": m[4].strip()})
    return out


def by_name(elements, name):
    return next(e for e in elements if e.get("name") == name)


async def observe(s, **args):
    result = await s.client.call_tool("page_observe", args)
    assert not result.is_error and result.structured_content is None, result  # text only, sent once
    assert result.meta and result.meta.get("mcp-actions/runtime_id"), result.meta  # runtime_id in _meta only
    return result.content[0].text


async def test_observe_stays_under_budget_excludes_hidden_and_keeps_refs_stable(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe/big.html")
        tools = await s.tools()
        assert tools["page_observe"].meta["mcp-actions/protocol"] == "actions.json"
        assert tools["page_observe"].output_schema is None
        first_text = await observe(s, max_bytes=20000)
        first = parse(first_text)
        assert first_text.startswith('page: "Inventory (2,000 elements)" http')
        # 2,000 row controls plus 5 toolbar controls (one in a shadow root), minus 40 hidden rows of 5.
        assert f"({len(first)} of {2000 + 5 - 40 * 5} shown;" in first_text
        body = "\n".join(line for line in first_text.splitlines()[1:] if line.startswith("@"))
        assert len(body.encode()) <= 20000
        names = [e["name"] for e in first]
        assert "Shadow action" in names and "Search items" in names
        # Hidden rows (display:none, visibility:hidden, zero size) are excluded.
        full_text = await observe(s, max_bytes=1000000)
        full = parse(full_text)
        assert len(full) == 2000 + 5 - 40 * 5 and " shown;" not in full_text
        all_names = {e["name"] for e in full}
        assert "Item 8" in all_names and "Item 9" not in all_names and "Add item 19" not in all_names and "Item 29" not in all_names
        # Refs are stable across observations; nothing is new on a second look.
        refs_first = {e["ref"]: e["name"] for e in first}
        refs_full = {e["ref"]: e["name"] for e in full}
        assert all(refs_full[r] == n for r, n in refs_first.items())
        again = parse(await observe(s, max_bytes=1000000, bounds=True))
        assert [e["ref"] for e in again] == [e["ref"] for e in full]
        assert not any(" new" in e["rest"] for e in again)
        qty = by_name(again, "Quantity of item 3")
        assert qty["role"] == "spinbutton" and qty["rest"].startswith('= "3" [')
        fav = by_name(again, "Favourite 3")
        assert fav["role"] == "checkbox" and fav["rest"].startswith("unchecked")
        # No field that tells nothing: no per-element actions or "stable".
        assert "stable" not in full_text and "actions" not in full_text
        # The engine's JSON form (workflows) still says change and actions.
        await s.tab().page.evaluate("() => moveTarget()")
        engine = await s.tab().page.evaluate("() => window.__mcpActions.run('refs.observe', {max_bytes: 1000000})")
        moving = by_name(engine["output"]["elements"], "Moving target")
        assert moving["change"] == "moved" and moving["actions"] == ["click", "press"]


async def test_acting_on_refs(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe/big.html")
        seen = parse(await observe(s, max_bytes=8000))
        button = by_name(seen, "Clicked 0 times")
        clicked = await s.client.call_tool("page_click", {"ref": button["ref"]})
        assert not clicked.is_error, clicked.content
        assert clicked.structured_content is None and clicked.content[0].text.startswith(f'clicked {button["ref"]}\n')  # by ref: the ref alone (the model just read it)
        page = s.tab().page
        assert await page.text_content("#count-btn") == "Clicked 1 times"
        # The same ref after the name changed.
        again = parse(await observe(s, max_bytes=8000))
        assert by_name(again, "Clicked 1 times")["ref"] == button["ref"]

        search = by_name(seen, "Search items")
        filled = await s.client.call_tool("page_fill", {"ref": search["ref"], "text": "lamp"})  # the first form: text is typed
        assert not filled.is_error, filled.content
        assert await page.input_value("#search") == "lamp"
        filled = await s.client.call_tool("page_fill", {"ref": search["ref"], "value": "desk"})
        assert not filled.is_error and await page.input_value("#search") == "desk"
        pressed = await s.client.call_tool("page_press", {"ref": search["ref"], "key": "Enter"})
        assert not pressed.is_error and await page.text_content("#last-key") == "Enter"

        sort = by_name(seen, "Sort by")
        # Its value, then its options (issue 44: choices are visible without trying them).
        assert sort["role"] == "combobox" and sort["rest"] == '= "Name" options "Name", "Price", "Stock"'
        chosen = await s.client.call_tool("page_select", {"ref": sort["ref"], "values": ["Price"]})
        assert chosen.content[0].text.startswith(f'selected ["Price"] in {sort["ref"]}')
        assert await page.input_value("#sort") == "price"

        shadow = by_name(seen, "Shadow action")
        assert not (await s.client.call_tool("page_click", {"ref": shadow["ref"]})).is_error

        missing = await s.client.call_tool("page_click", {"ref": "@e999999"})
        assert missing.is_error and missing.structured_content is None and missing.meta["mcp-actions/error"]["code"] == "target_not_found"
        assert "never gave out the ref @e999999" in missing.content[0].text

        # A ref whose element left the page: gone, observe again.
        await page.evaluate("() => document.getElementById('count-btn').remove()")
        stale = await s.client.call_tool("page_click", {"ref": button["ref"]})
        assert stale.is_error and "is gone from the page" in stale.content[0].text and "page_observe" in stale.content[0].text
