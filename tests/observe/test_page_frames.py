"""Acting inside same-origin iframes and shadow roots (issue #30, "Every kind of control"), on both hosts.

The fixture (tests/fixtures/pages/frames/index.html) is a checkout page whose address step is a
same-origin iframe (scrolled below the fold, with a border and padding, so the top-viewport
point must be translated right) and whose quantity stepper is an open shadow root. Before
observe_frames.js, page_observe did not list the frame's fields and page_click/page_fill
answered target_not_found for their refs (the locator searches the top document only).
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from mcp_actions.errors import ActionError
from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SMALL = {"width": 800, "height": 400}


@pytest.mark.parametrize("kind", KINDS)
async def test_a_form_in_a_frame_is_filled_and_submitted_and_the_answer_says_so(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/frames/index.html", SMALL)
        observed = await host.call("page_observe")
        assert 'textbox "Street"' in observed and 'button "Save address"' in observed, observed
        street = await host.call("page_fill", {"text": "Street", "value": "1 Main St"})
        assert street.startswith('filled @e') and '"Street" (in a frame)' in street, street
        # By ref too (the ref page_read hands out for the frame's field).
        city_ref = next(line.split()[0] for line in observed.splitlines() if '"City"' in line)
        await host.call("page_fill", {"ref": city_ref, "value": "Lyon"})
        saved = await host.call("page_click", {"text": "Save address"})
        assert '+ "Saved: 1 Main St, Lyon"' in saved, saved
        frame = page.frame(url=f"{pages_url}/frames/address.html")
        assert frame is not None
        assert await frame.input_value("input[name=city]") == "Lyon"
        # The browser host clicked with real input at the translated point; the page runtime dispatched the engine's events.
        assert await frame.evaluate("window.lastClickTrusted") is (kind == "browser")
        tip = await host.call("page_hover", {"text": "Help"})
        assert "Street and city only" in tip, tip
        read = await host.call("page_read")
        assert '[textbox "Street" @e' in read and 'Saved: 1 Main St, Lyon' in read, read


async def test_a_button_at_the_bottom_of_a_frame_taller_than_the_viewport_gets_a_real_click(chromium: Browser, pages_url: str) -> None:
    async with hosted("browser", chromium) as host:
        await host.open(f"{pages_url}/frames/tall.html", SMALL)
        # The page (not the frame) scrolls to the button; the real click lands at the frame's scrolled offset.
        agreed = await host.call("page_click", {"text": "I agree"})
        assert '+ "Confirmed by a person"' in agreed, agreed


@pytest.mark.parametrize("kind", KINDS)
async def test_a_shadow_dom_widget_is_clicked_by_text_and_by_ref(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/frames/index.html", SMALL)
        count = "() => document.querySelector('qty-stepper').shadowRoot.getElementById('n').textContent"
        clicked = await host.call("page_click", {"text": "More copies"})
        assert clicked.startswith('clicked @e') and "(in a frame)" not in clicked, clicked
        # The widget's text is in its shadow root, which the change report reads too.
        assert '+ "Quantity 2"' in clicked and '- "Quantity 1"' in clicked, clicked
        ref = clicked.split()[1]
        await host.call("page_click", {"ref": ref})
        assert await page.evaluate(count) == "3"


@pytest.mark.parametrize("kind", KINDS)
async def test_a_key_pressed_in_a_frame_field_reaches_it(kind: str, chromium: Browser, pages_url: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/frames/index.html", SMALL)
        await host.call("page_fill", {"text": "City", "value": "Lyon"})
        # Focus moves into the frame: the real Enter (Playwright tab), or the engine's keys sent to the frame's focused
        # field with HTML's implicit submission emulated (page runtime), submits the frame's form.
        pressed = await host.call("page_press", {"text": "City", "key": "Enter"})
        assert '+ "Saved: , Lyon"' in pressed, pressed


async def test_a_frame_element_is_not_learned_and_frame_act_refuses_a_top_element(chromium: Browser, pages_url: str) -> None:
    async with hosted("browser", chromium) as host:
        await host.open(f"{pages_url}/frames/index.html", SMALL)
        await host.call("page_fill", {"text": "Street", "value": "x"})
        # The journal notes why a frame step cannot be saved (its locator would search the top document only).
        steps = host.service.journal.since_navigation(host.runtime_id)
        assert steps and steps[-1].element is None and steps[-1].why_not, steps
        top = await host.run("refs.resolve", {"text": "More copies"})
        with pytest.raises(ActionError) as refused:
            await host.run("refs.frame_act", {"ref": top["ref"], "action": "click"})
        assert refused.value.code == "invalid_input"
