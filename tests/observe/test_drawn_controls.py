"""A control a page draws itself is listed, found, named and acted on by its real control (issue 53).

Fixture: tests/fixtures/pages/drawn-controls/filters.html, the real patterns: React Aria's range slider (each
thumb's <input type=range aria-label="Minimum price"> in a 1px clipped visually hidden box, committed on a key
press's end), Base Web's checkbox as Streamlit draws it (a visually hidden native checkbox of no size inside a
<label> with a drawn box) and Base Web's slider thumb (a div with role=slider and aria-valuenow, moved by keys,
committed on keyup); beside them hidden controls that must stay out (HIDDEN-…). Through the MCP SDK's Client
against the whole product with headless Chromium.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.protocols.conftest import product

pytestmark = pytest.mark.browser

PAGE = "drawn-controls/filters.html"


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


def ref_in(answer: str, pattern: str) -> str:
    found = re.search(r"(@e\d+) " + pattern, answer)
    assert found, (pattern, answer)
    return found.group(1)


async def test_a_drawn_control_is_listed_found_and_named_by_its_real_control(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        observed = text_of(await s.client.call_tool("page_observe", {}))
        read = text_of(await s.client.call_tool("page_read", {}))
        sliders = text_of(await s.client.call_tool("page_find", {"role": "slider"}))
        checkboxes = text_of(await s.client.call_tool("page_find", {"role": "checkbox"}))
        # React Aria's thumbs, by their accessible names (aria-labelledby: the thumb's own label, then the slider's), with their values.
        assert re.search(r'@e\d+ slider "Minimum price Price range" = "0"', observed), observed
        # Streamlit's: named by its group's aria-label, once, not by the digits drawn in the group.
        assert re.search(r'@e\d+ slider "Discount" = "0"', observed), observed
        assert re.search(r'@e\d+ slider "Maximum price Price range" = "500"', observed), observed
        assert re.search(r'\[slider "Minimum price Price range" @e\d+ = "0"\]', read), read
        assert "Minimum price" in sliders and "Maximum price" in sliders and "Total quantity" in sliders, sliders
        # Base Web's checkbox, named by its label.
        assert re.search(r'@e\d+ checkbox "Express shipping" unchecked', observed), observed
        assert re.search(r'\[checkbox "Express shipping" @e\d+ unchecked\]', read) or re.search(r'\[checkbox "Express shipping"[^\]]*\]', read), read
        assert "Express shipping" in checkboxes, checkboxes
        # Base Web's slider thumb: its value is aria-valuenow, not the digits drawn in it.
        assert re.search(r'@e\d+ slider "Total quantity" = "10"', observed), observed
        # Streamlit's thumb, with no name of its own: named by the widget's label before it, as a field is.
        assert re.search(r'@e\d+ slider "Minimum order" = "0"', observed), observed
        assert re.search(r'\[slider "Total quantity" @e\d+ = "10"\]', read), read
        # Hidden controls stay out: placed where no scroll reaches, hidden with no drawn control, under display:none.
        for name, answer in {"observe": observed, "read": read, "sliders": sliders, "checkboxes": checkboxes}.items():
            assert "HIDDEN-" not in answer, (name, answer)


async def test_a_drawn_checkbox_is_clicked_through_what_a_person_clicks(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        found = text_of(await s.client.call_tool("page_find", {"role": "checkbox"}))
        ref = ref_in(found, r'checkbox "Express shipping"')
        said = text_of(await s.client.call_tool("page_click", {"ref": ref}))
        assert said.startswith(f"clicked {ref}") and "checked" in said, said
        assert "Shipping: express" in text_of(await s.client.call_tool("page_read", {}))


async def test_a_range_is_filled_by_the_keys_a_person_presses_so_the_app_commits_it(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        said = text_of(await s.client.call_tool("page_fill", {"text": "Minimum price", "value": "250"}))
        assert said.startswith("filled @e") and "Minimum price" in said, said
        read = text_of(await s.client.call_tool("page_read", {}))
        assert "Committed price: 250 – 500" in read, read
        said = text_of(await s.client.call_tool("page_fill", {"text": "Maximum price", "value": "500"}))
        said = text_of(await s.client.call_tool("page_fill", {"text": "Maximum price", "value": "320"}))
        assert "Committed price: 250 – 320" in text_of(await s.client.call_tool("page_read", {})), said


async def test_an_aria_slider_is_filled_by_keys_and_its_app_commits_the_value(pages_url: str) -> None:
    async with product() as s:
        await s.navigate(f"{pages_url}/{PAGE}")
        said = text_of(await s.client.call_tool("page_fill", {"text": "Total quantity", "value": "37"}))
        assert said.startswith("filled @e"), said
        read = text_of(await s.client.call_tool("page_read", {}))
        assert "Committed quantity: 37" in read, read
        said = text_of(await s.client.call_tool("page_fill", {"text": "Total quantity", "value": "0"}))
        assert "Committed quantity: 0" in text_of(await s.client.call_tool("page_read", {})), said
