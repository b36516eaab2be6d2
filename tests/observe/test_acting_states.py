"""Acting answers say the state a control took and the page's own message (issue 52, items 3 and 7), on both hosts.

What a model saw in Django's admin at 2002379, and what the answers now say:

- ticking "Staff status" answered "no visible change" (4 times) though the box toggled: the answer says
  ``~ @e29 checkbox "Staff status" checked``, and page_find says a checkbox's state as page_observe does;
- choosing an author answered ``selected ["3"] in @e22``, the option's value: it says the label, "Ada Castillo";
- page_act's fill steps answered ``filled @e21``: a fill names its field, and the value the field holds when
  that is not what was typed (a maxlength cut, a React-style mask, a number field that refused letters);
- a message the application showed in answer (a toast in a live region) is quoted, once.

Fixtures: tests/fixtures/pages/acting/django-user-change.html and django-book-change.html follow Django 5's
admin change forms; controlled-form.html a React controlled form with a phone mask and a toast region.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_checkbox_toggle_says_its_new_state_and_page_find_says_it_too(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/acting/django-user-change.html")
        found = await host.call("page_find", {"text": "Staff status"})
        line = found.splitlines()[0]
        assert 'checkbox "Staff status" unchecked in: Permissions' in line, found
        ref = line.split()[0]
        ticked = await host.call("page_click", {"ref": ref})
        assert ticked.splitlines() == [f"clicked {ref}", f'~ {ref} checkbox "Staff status" checked'], ticked
        assert await page.evaluate("() => document.getElementById('id_is_staff').checked") is True
        unticked = await host.call("page_click", {"ref": ref})
        assert unticked.splitlines()[1:] == [f'~ {ref} checkbox "Staff status" unchecked'], unticked
        assert 'checkbox "Active" checked' in await host.call("page_find", {"text": "Active", "role": "checkbox"})
        # A disclosure says it opened, beside the text it showed.
        opened = await host.call("page_click", {"text": "Groups"})
        assert "expanded" in opened.splitlines()[1] and '+ "No groups."' in opened.splitlines(), opened


@pytest.mark.parametrize("kind", KINDS)
async def test_a_choice_is_said_by_its_label_and_a_fill_names_its_field_and_what_it_holds(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/acting/django-book-change.html")
        chosen = await host.call("page_select", {"text": "Author:", "values": ["3"]})
        lines = chosen.splitlines()
        assert lines[0].startswith('selected ["Ada Castillo"] in @e') and len(lines) == 2 and lines[1] == "no visible change", chosen
        refilled = await host.call("page_fill", {"text": "Author:", "value": "Alan Turing"})
        assert refilled.splitlines()[0].startswith('selected ["Alan Turing"] in @e') and refilled.splitlines()[0].endswith('"Author:"'), refilled
        # A radio chosen says so; the one it un-chose is implied, not said.
        paperback = await host.call("page_click", {"text": "Paperback"})
        assert paperback.splitlines()[1:] == [paperback.splitlines()[0].replace("clicked", "~", 1) + " checked"], paperback
        observed = await host.call("page_observe", {})
        title, isbn = (next(line.split()[0] for line in observed.splitlines() if f'"{label}"' in line) for label in ("Title:", "ISBN:"))
        acted = await host.call(
            "page_act",
            {"steps": [{"tool": "page_fill", "arguments": {"ref": title, "value": "Notes on the Analytical Engine"}}, {"tool": "page_fill", "arguments": {"ref": isbn, "value": "978-0-13-468599-1"}}]},
        )
        lines = acted.splitlines()
        assert lines[:2] == [f'filled {title} textbox "Title:"', f'filled {isbn} textbox "ISBN:"'], acted
        # The title holds what was typed: not said again. The ISBN's maxlength (13) cut what was typed, as it cuts a
        # person's typing (on the page runtime too): what it holds is said.
        held = await page.evaluate("() => document.getElementById('id_isbn').value")
        assert held == "978-0-13-4685" and lines[2:] == [f'~ {isbn} textbox "ISBN:" = "978-0-13-4685"'], acted


@pytest.mark.parametrize("kind", KINDS)
async def test_a_formatted_field_a_pressed_button_and_a_toast_are_said(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/acting/controlled-form.html")
        phone = await host.call("page_fill", {"text": "Phone", "value": "5551234567"})
        first, *rest = phone.splitlines()
        assert first.startswith("filled @e") and first.endswith('textbox "Phone"') and rest == [first.replace("filled", "~", 1) + ' = "(555) 123-4567"'], phone
        handle = await host.call("page_fill", {"text": "Handle", "value": "Ada Lovelace!"})
        assert handle.splitlines()[1].endswith('textbox "Handle" = "adalovelace"'), handle
        bold = await host.call("page_click", {"text": "Bold"})
        assert bold.splitlines()[1].endswith('button "Bold" pressed'), bold
        saved = await host.call("page_click", {"text": "Save"})
        # The page's answer, quoted once: as its message, not again as a line that appeared.
        assert saved.splitlines()[1:] == ['message: "Contact details saved."'], saved
        # A live region that holds content (eight rows of history) is no message: its lines are said as lines.
        history = await host.call("page_click", {"text": "Show history"})
        assert "message" not in history and history.splitlines()[1].startswith('+ "Change 1: phone number'), history
