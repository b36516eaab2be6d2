"""Acting by visible text (page_click/page_fill/page_press/page_select {text}): one match acts, several are
refused with their refs and contexts, none says so; a stale ref says to observe again."""

from __future__ import annotations

from ..protocols.conftest import product


async def test_text_names_one_element_or_is_refused_with_the_candidates(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/board.html")
        page = s.tab().page
        several = await s.client.call_tool("page_click", {"text": "Add a card"})
        assert several.is_error
        message = several.content[0].text
        assert "multiple_targets" in message and "Doing" in message and "To do" in message and "Done" in message, message
        # Text once; the structured error (with the candidates) is for the host, in _meta.
        assert several.structured_content is None and len(several.content) == 1
        assert several.meta["mcp-actions/error"]["code"] == "multiple_targets"
        assert [c["context"] for c in several.meta["mcp-actions/error"]["evidence"]["candidates"]] == ["To do", "Doing", "Done"]
        assert await page.locator("li").count() == 5  # nothing was clicked
        none = await s.client.call_tool("page_click", {"text": "Launch rocket"})
        assert none.is_error and "target_not_found" in none.content[0].text
        box = await s.client.call_tool("page_click", {"text": "Remember me"})
        assert not box.is_error, box.content
        assert await page.is_checked("#remember")
        milk = await s.client.call_tool("page_click", {"text": "buy milk"})
        assert not milk.is_error and await page.is_checked("#milk")
        chosen = await s.client.call_tool("page_select", {"text": "Size", "values": ["Large"]})
        assert not chosen.is_error, chosen.content
        assert await page.input_value("#size") == "Large"
        # page_observe says which list each look-alike is in, and only for look-alikes.
        observed = (await s.client.call_tool("page_observe", {})).content[0].text
        adds = [line for line in observed.splitlines() if '"Add a card"' in line]
        assert [line.rsplit(" in: ", 1)[1] for line in adds] == ["To do", "Doing", "Done"], observed
        assert not any(" in: " in line for line in observed.splitlines() if "Remember me" in line)
        # The engine's JSON form (workflows) carries the same context.
        engine = await page.evaluate("() => window.__mcpActions.run('refs.observe', {})")
        contexts = [e.get("context") for e in engine["output"]["elements"] if e.get("name") == "Add a card"]
        assert contexts == ["To do", "Doing", "Done"]
        both = await s.client.call_tool("page_click", {"text": "Remember me", "ref": "@e1"})
        assert both.is_error and "invalid_input" in both.content[0].text


async def test_acting_tools_say_what_changed(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/changes.html")
        page = s.tab().page

        async def act(args: dict) -> str:
            result = await s.client.call_tool("page_click", args)
            assert not result.is_error, result.content
            return result.content[0].text

        before = (await s.client.call_tool("page_observe", {})).content[0].text
        assert "Frozen" not in before and "Cancel order" in before  # inert: nothing a click reaches
        opened = await act({"text": "Delete card"})
        assert opened.splitlines()[0].startswith('clicked @e') and 'dialog opened: "Delete card?"' in opened, opened
        assert '+ "This cannot be undone."' in opened
        # While the modal is open the rest of the page is inert: only the dialog's controls are listed,
        # and "Cancel" is the dialog's, not "Cancel order" behind it.
        during = (await s.client.call_tool("page_observe", {})).content[0].text
        assert "Cancel order" not in during and '"Cancel"' in during and "Delete card" not in during, during
        closed = await act({"text": "Cancel"})
        assert "dialog closed" in closed and '- "This cannot be undone."' not in closed, closed
        moved = await act({"text": "Go to settings"})
        assert f"now at {pages_url}/observe-text/changes.html#settings" in moved, moved
        nothing = await act({"text": "Go to settings"})
        assert nothing.endswith("no visible change"), nothing
        away = await act({"text": "Open the board"})
        # A full navigation says where it landed (issue 44), not only that it happened.
        assert away.splitlines()[1].startswith('navigated to "') and away.endswith(f"{pages_url}/observe-text/board.html"), away
        await page.wait_for_url("**/board.html")
        assert "Add a card" in (await s.client.call_tool("page_observe", {})).content[0].text


async def test_a_native_confirm_is_answered_with_browser_dismiss_dialog(pages_url):
    async with product() as s:
        await s.navigate(f"{pages_url}/observe-text/changes.html")
        page = s.tab().page
        clicked = await s.client.call_tool("page_click", {"text": "Remove all"})
        text = clicked.content[0].text
        # The confirm blocks the page: the click or its report says so, and the dialog is answered by the tool made for it.
        assert clicked.is_error and text.startswith("dialog_open: a confirm dialog blocks") and "dismiss_dialog" in text, text
        answered = await s.client.call_tool("browser_dismiss_dialog", {"accept": True})
        assert not answered.is_error, answered.content
        await page.wait_for_function("document.getElementById('answer').textContent === 'removed'")
