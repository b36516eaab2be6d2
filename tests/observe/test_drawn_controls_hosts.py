"""Drawn controls on both hosts (issue 53): the page runtime (synthetic input) and the Playwright tab (trusted input).

Fixture: tests/fixtures/pages/drawn-controls/filters.html (see tests/observe/test_drawn_controls.py). Base Web's
checkbox is clicked through its label, and Base Web's slider thumb (role=slider) is moved by its keys until its
app commits the value, on either host.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_drawn_checkbox_and_an_aria_slider_are_acted_on_as_a_person_would(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/drawn-controls/filters.html")
        found = await host.call("page_find", {"role": "checkbox"})
        ref = re.search(r'(@e\d+) checkbox "Express shipping"', found)
        assert ref, found
        said = await host.call("page_click", {"ref": ref.group(1)})
        assert said.startswith(f"clicked {ref.group(1)}"), said
        assert await page.text_content("#shipping") == "express"
        await host.call("page_fill", {"text": "Total quantity", "value": "42"})
        assert await page.text_content("#qty-committed") == "42"
