"""A chooser modal's answers tell what a person sees (issue 52; the Wagtail bench's "Misled" 2-3), on both hosts.

- The page chooser's "Choose a page" turns `disabled` while its modal loads and stays so while it is open:
  said as a state (`~ … disabled`), not left out.
- The modal's one choice is among the controls said when it opens: its title link was left out because a
  line past the cap ("+ … N more lines", never read) named it.
- Choosing a page closes the modal and the field shows the chosen title, a text that was in the modal before:
  counted by region (page, dialog), it is said (`+ "Harbour Guide"`), where the whole page's count missed it.
- What the page draws right after its load (Wagtail's minimap, ~100 ms after it) is the page, not the first
  click's change: read and acting calls wait, for a second after the load, until the DOM is quiet.
- The rich-text toolbar's Link button requests its chooser from a render in its mousedown's dispatch, long
  after the event began, and the request's load handler renders before it starts the fade: the answer waits
  for the chooser (work done while the action's event or its request's event is dispatched is the action's).

Fixture: tests/fixtures/pages/acting/cms-chooser.html (Wagtail 8's chooser widget, ModalWorkflow and the
Draftail toolbar's Link) and cms-chooser-modal.html (the chooser's listing, as the server sends it).
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

PAGE = "acting/cms-chooser.html"


def refs_of(answer: str, role: str, name: str) -> list[str]:
    """The refs the answer says a control of role and name appeared with (`+ @e4 link "Home"`)."""
    return [line.split()[1] for line in answer.splitlines() if line.startswith("+ @e") and line.endswith(f' {role} "{name}"')]


@pytest.mark.parametrize("kind", KINDS)
async def test_the_page_chooser_says_its_choice_its_disabled_button_and_what_was_chosen(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/{PAGE}")
        opened = await host.call("page_click", {"text": "Choose a page"})
        assert 'dialog opened: "Choose a page Page"' in opened.splitlines(), opened
        # The button a person clicked is disabled while the modal is open.
        assert [line for line in opened.splitlines() if line.startswith("~ @e") and line.endswith('button "Choose a page" disabled')], opened
        # The one page to choose is said with its ref, though its line is past the lines said.
        chosen = refs_of(opened, "link", "Harbour Guide")
        assert chosen, opened
        picked = await host.call("page_click", {"ref": chosen[0]})
        assert "dialog closed" in picked.splitlines(), picked
        # What the modal held went with it ("dialog closed"), not line by line; the field's own button that the
        # title replaced is still said as gone.
        assert not any(line.startswith(("- \"Page 1 of 1", "- \"Search term", "- \"Blog page")) for line in picked.splitlines()), picked
        assert '- "Choose a page"' in picked.splitlines(), picked
        # The field shows the title that was in the modal: said as come to the page.
        assert '+ "Harbour Guide"' in picked.splitlines(), picked
        assert await page.evaluate("() => document.getElementById('id_related').value") == "3"


@pytest.mark.parametrize("kind", KINDS)
async def test_a_chooser_a_long_handler_requests_is_waited_for(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/{PAGE}")
        opened = await host.call("page_click", {"text": "Link"})
        assert 'dialog opened: "Choose a page Page"' in opened.splitlines(), opened
        assert refs_of(opened, "link", "Harbour Guide"), opened


@pytest.mark.parametrize("kind", KINDS)
async def test_what_the_page_draws_after_its_load_is_not_said_as_the_clicks(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/{PAGE}")
        # At once after the load: the minimap the page draws then is there before the click, not its change.
        opened = await host.call("page_click", {"text": "Choose a page"})
        assert 'dialog opened: "Choose a page Page"' in opened.splitlines(), opened
        assert not [line for line in opened.splitlines() if "Collapse all" in line or "Toggle side panel" in line or line == '+ "Title*"'], opened
