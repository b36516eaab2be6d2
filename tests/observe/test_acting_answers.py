"""Acting answers that tell what happened, completely, in fewer calls (issue 44), on both hosts.

What a model tried on real pages at 5735e83, and what the answers now say:

- a hover that revealed TodoMVC's "Remove Todo" button answered "no visible change": the answer lists
  the control it showed, with its ref;
- closing Chrome Labs' bistro dialog (it fades out for 0.4 s) answered "no visible change": the dialog
  closed and its lines went;
- backbone's TodoMVC, whose script threw, answered "no visible change" to every action and read as a
  normal page: the answers, page_observe, page_read and a page_find that finds nothing say the page's error;
- TodoMVC's filters ran together in a change line (``+ "AllActiveCompleted"``): they are three labels;
- adding a todo took page_fill and page_press: ``page_fill {submit: true}`` is one call.

Fixtures: tests/fixtures/pages/acting/ (todomvc.html follows TodoMVC's lit example and, with ?broken,
its backbone example without backbone.js; bistro-dialog.html follows the bistro demo's dialog).
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest.mark.parametrize("kind", KINDS)
async def test_fill_and_submit_in_one_call_and_a_hover_says_the_control_it_revealed(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/acting/todomvc.html")
        added = await host.call("page_fill", {"text": "What needs to be done?", "value": "Buy milk", "submit": True})
        first, *changes = added.splitlines()
        assert first.endswith(", pressed Enter") and first.startswith("filled @e"), added
        assert '+ "Buy milk"' in changes and '+ "1 item left"' in changes, added
        # The filters (inline items with no whitespace between them) are three labels, not "AllActiveCompleted".
        assert '+ "All" "Active" "Completed"' in changes, added
        assert await page.evaluate("() => document.querySelectorAll('.todo-list li').length") == 1
        if kind == "page":
            return  # the page runtime's hover is the engine's events: CSS :hover never matches them
        # The row's "Remove Todo" button is drawn only under the pointer: hovering the row shows it.
        hovered = await host.call("page_hover", {"text": "Buy milk"})
        assert "no visible change" not in hovered, hovered
        shown = [line for line in hovered.splitlines()[1:] if line.startswith("+ @e")]
        assert len(shown) == 1 and shown[0].endswith(' button "Remove Todo"'), hovered
        removed = await host.call("page_click", {"ref": shown[0].split()[1]})
        assert '- "Buy milk"' in removed, removed


@pytest.mark.parametrize("kind", KINDS)
async def test_a_page_whose_script_threw_says_so(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/acting/todomvc.html?broken")
        if kind == "page":
            # The bookmarklet's engine came after the page loaded: the script's error is re-thrown as
            # a page would when a handler fails later.
            await page.evaluate("() => setTimeout(() => { throw new ReferenceError('Backbone is not defined'); })")
            await page.wait_for_timeout(50)
        observed = await host.call("page_observe", {})
        assert observed.splitlines()[1] == 'page error: "ReferenceError: Backbone is not defined"', observed
        # The tools that read say it too, before the page's text (a note of ours, in brackets), and a find that
        # finds nothing says why that may be; a read of a part, or a find that found, does not repeat it.
        read = await host.call("page_read", {})
        assert read.splitlines()[:2] == ['[page error: "ReferenceError: Backbone is not defined"]', "# todos"], read
        assert "page error" not in await host.call("page_read", {"ref": observed.splitlines()[2].split()[0]})
        assert (await host.call("page_find", {"text": "Clear completed"})).splitlines() == ["no match", 'page error: "ReferenceError: Backbone is not defined"']
        assert "page error" not in await host.call("page_find", {"text": "todos"})
        # An action that changed nothing on that page says what it threw before, not a bare "no visible change".
        dead = await host.call("page_fill", {"text": "What needs to be done?", "value": "Buy milk", "submit": True})
        assert dead.splitlines()[1] == 'no visible change; earlier page error: "ReferenceError: Backbone is not defined"', dead
        # An action whose handler throws: the answer says the new error, not "no visible change".
        await page.evaluate("() => document.querySelector('.new-todo').addEventListener('keydown', () => { throw new TypeError('this.collection is undefined'); })")
        pressed = await host.call("page_fill", {"text": "What needs to be done?", "value": "Buy milk", "submit": True})
        assert pressed.splitlines()[-1] == 'page error: "TypeError: this.collection is undefined"', pressed
        assert "no visible change" not in pressed, pressed


@pytest.mark.parametrize("kind", KINDS)
async def test_closing_a_fading_dialog_says_it_closed_and_not_each_line_that_went(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/acting/bistro-dialog.html")
        await host.call("page_fill", {"text": "Full Name", "value": "Ada Lovelace"})
        opened = await host.call("page_click", {"text": "Request Reservation"})
        assert 'dialog opened: "Reservation Received"' in opened, opened
        closed = await host.call("page_click", {"text": "Close Window"})
        # "dialog closed" says what went with it: its lines and buttons are not listed one by one again.
        assert "dialog closed" in closed.splitlines() and not any(line.startswith("- ") for line in closed.splitlines()), closed


@pytest.mark.parametrize("kind", KINDS)
async def test_page_act_runs_steps_in_one_call_and_says_the_change_once(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/acting/todomvc.html")
        box = {"text": "What needs to be done?"}
        answer = await host.call(
            "page_act",
            {
                "steps": [
                    {"tool": "page_fill", "arguments": {**box, "value": "Buy milk", "submit": True}},
                    {"tool": "page_fill", "arguments": {**box, "value": "Walk the dog", "submit": True}},
                    {"tool": "page_click", "arguments": {"text": "No such button"}, "on_error": "skip"},
                    {"tool": "page_click", "arguments": {"text": "Buy milk"}},
                ]
            },
        )
        lines = answer.splitlines()
        assert lines[0].endswith(", pressed Enter") and lines[1].endswith(", pressed Enter"), answer
        assert lines[2].startswith('step 3 (page_click) failed: target_not_found: ') and lines[2].endswith("(skipped)"), answer
        assert lines[3].startswith("clicked @e") and lines[3].endswith('checkbox "Buy milk"'), answer
        # What the whole call changed, once: both rows, and the count as it ended (not each step's).
        assert '+ "Buy milk"' in lines and '+ "Walk the dog"' in lines and '+ "1 item left"' in lines, answer
        assert '+ "2 items left"' not in lines and answer.count('"Buy milk"') == 2, answer
        # "Mark all as complete" was hidden (and checked) before the first item: it appeared, its state did not
        # change for a person (TodoMVC's Vue, AngularJS and Knockout examples said `~ … "Mark all as complete" unchecked`).
        assert '+ "Mark all as complete"' in lines and not [line for line in lines if line.startswith("~ ") and "Mark all" in line], answer
        assert await page.evaluate("() => [...document.querySelectorAll('.todo-list li')].map((li) => li.className)") == ["completed", ""]
        # Every step went through the service as its own call: the journal has them, the fill's Enter as a step.
        steps = [(step.tool, step.arguments) for step in host.service.journal.since_navigation(host.runtime_id)]
        assert steps == [
            ("page.fill", {"text": "Buy milk"}),
            ("page.press", {"key": "Enter"}),
            ("page.fill", {"text": "Walk the dog"}),
            ("page.press", {"key": "Enter"}),
            ("page.click", {}),
        ], steps
        # A failing step stops the call (the rest is named, not run); a first step that fails is the call's error.
        stopped = await host.call("page_act", {"steps": [{"tool": "page_click", "arguments": {"text": "Walk the dog"}}, {"tool": "page_click", "arguments": {"text": "Nothing"}}, {"tool": "page_click", "arguments": {"text": "All"}}]})
        assert stopped.splitlines()[1].startswith("step 2 (page_click) failed: target_not_found") and stopped.splitlines()[2] == "not run: step 3", stopped


async def test_an_action_that_loads_another_document_says_where_it_landed(chromium: Browser, pages_url: str) -> None:
    # The Playwright tab host: its runtime follows the tab to the next document (a bookmarklet leaves with its page).
    async with hosted("browser", chromium) as host:
        await host.open(f"{pages_url}/acting/search.html")
        landed = 'navigated to "Search results · Python 3.11 documentation" ' + f"{pages_url}/acting/results.html?q=lru_cache"
        # Enter in the docs' search box posts the form: the action worked, the report says where it led.
        searched = await host.call("page_fill", {"text": "Quick search", "value": "lru_cache", "submit": True})
        assert searched.splitlines()[1:] == [landed], searched
        await host.open(f"{pages_url}/acting/search.html")
        await host.call("page_fill", {"text": "Quick search", "value": "lru_cache"})
        pressed = await host.call("page_press", {"text": "Quick search", "key": "Enter"})
        assert pressed.splitlines()[1:] == [landed], pressed
        # Several steps, one of them leaving the page: the whole call says where it ended.
        await host.open(f"{pages_url}/acting/search.html")
        acted = await host.call("page_act", {"steps": [{"tool": "page_fill", "arguments": {"text": "Quick search", "value": "lru_cache"}}, {"tool": "page_click", "arguments": {"text": "Go"}}]})
        assert acted.splitlines()[2:] == [landed], acted


async def test_a_change_line_is_said_whole_or_marked_cut(chromium: Browser, pages_url: str) -> None:
    """bench checkout-selects at b5e9e08: ``+ "Order placed for Ada Lovelace, … SW1Y 4JH, paid by PayPa"``, the
    116-character line cut at 100 with no mark and its order reference lost. A line is said whole up to 240
    characters; a longer one ends in an ellipsis where it was cut."""
    async with hosted("page", chromium) as host:
        await host.open(f"{pages_url}/acting/order-placed.html")
        answer = await host.call("page_click", {"text": "Continue to checkout"})
        # The checkout's alert (role=status) is the application's message: quoted as one, whole up to 240 characters.
        assert "message: \"Order placed for Ada Lovelace, 12 St James's Square, England, United Kingdom SW1Y 4JH, paid by PayPal. Order BS-1056\"" in answer.splitlines(), answer
        answer = await host.call("page_click", {"text": "Delivery note"})
        line = next((line for line in answer.splitlines() if line.startswith('+ "Order BS-1056: your parcel')), answer)
        assert line.endswith('…"') and 200 <= len(line) <= 245 and "Order BS-1056" in line, answer
