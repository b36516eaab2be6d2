"""refs.describe in a real headless Chromium: what it proposes finds exactly the element it described.

For every element ``refs.observe`` lists on the learning fixtures
(``tests/fixtures/pages/learn-todos``: look-alike rows re-rendered on every
change; ``settings.html``: look-alike fields and buttons that only their
section's heading tells apart, rows and headings that carry counts), the locator ``refs.describe`` proposes
(``scoped`` when there is one, else its unique ``locator``) is resolved by the
page engine's own resolver (``locator.element_info``, which refuses several
matches) and must land on the same element (the same box). An element with
nothing a person could name is described with the reason instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.runtimes.page_script import engine_js

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

RUN = "([n, a]) => window.__mcpActions.run(n, a)"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def page(chromium: Browser) -> AsyncIterator[Page]:
    context = await chromium.new_context(viewport={"width": 1000, "height": 900})
    await context.add_init_script(script=engine_js())
    page = await context.new_page()
    yield page
    await context.close()


async def ok(page: Page, name: str, args: dict[str, Any]) -> Any:
    envelope = await page.evaluate(RUN, [name, args])
    assert envelope["ok"], (name, args, envelope)
    return envelope["output"]


async def proposals(page: Page) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    observed = await ok(page, "refs.observe", {"bounds": True, "max_bytes": 1000000})
    out = []
    for entry in observed["elements"]:
        described = (await ok(page, "refs.describe", {"ref": entry["ref"]}))["element"]
        out.append((entry, described))
    return out


@pytest.mark.parametrize("fixture", ["index.html", "settings.html"])
async def test_every_proposed_locator_finds_exactly_the_described_element(page: Page, pages_url: str, fixture: str) -> None:
    await page.goto(f"{pages_url}/learn-todos/{fixture}")
    await page.wait_for_function("document.querySelectorAll('li[data-id], form').length >= 2")
    checked = 0
    for entry, described in await proposals(page):
        locator = described.get("scoped") or (described["locator"] if described["unique"] else None)
        if locator is None:
            assert described["reason"], described  # nothing proposed: the reason says why
            continue
        info = await ok(page, "locator.element_info", {"locator": locator})
        box, found = entry["bounds"], info["bounding_box"]
        assert (round(box["x"]), round(box["y"])) == (round(found["x"]), round(found["y"])), (entry, locator)
        checked += 1
    assert checked >= 5


async def test_look_alikes_are_told_apart_by_their_row_or_their_section(page: Page, pages_url: str) -> None:
    await page.goto(f"{pages_url}/learn-todos/settings.html")
    described = {(e.get("name"), round(e["bounds"]["y"])): d for e, d in await proposals(page)}
    saves = sorted((y, d) for (name, y), d in described.items() if name == "Save")
    assert [d["scoped"]["within"] for _, d in saves] == [
        {"selector": "section", "has": {"role": "heading", "name": "Shipping address"}},
        {"selector": "section", "has": {"role": "heading", "name": "Billing address"}},
        {"selector": "section", "has": {"role": "heading", "name": "Payment cards"}},  # not its count "(2 saved)"
        {"selector": "[role=dialog]", "has": {"role": "heading", "name": "Café 'notes'"}},
    ]

    opens = sorted((y, d["scoped"]["within"]) for (name, y), d in described.items() if name == "Open")
    assert [w for _, w in opens] == [{"selector": "li", "has_text": "Ship status page —"}, {"selector": "li", "has_text": "Fix login form —"}]

    await page.goto(f"{pages_url}/learn-todos/index.html")
    await page.wait_for_function("document.querySelectorAll('li[data-id]').length >= 3")
    rows = {d["container"]["text"]: d for e, d in await proposals(page) if e["role"] == "checkbox" and d.get("container")}
    assert rows["Walk the dog"]["scoped"] == {"role": "checkbox", "within": {"selector": "li", "text_equals": "Walk the dog"}}
    assert rows["Walk the dog twice"]["scoped"]["within"]["text_equals"] == "Walk the dog twice"
    sparkle = next(d for e, d in await proposals(page) if d["tag"] == "div")
    assert sparkle["locator"] is None and sparkle["reason"] == "this click has no name, role or text to find it by"


async def test_locator_set_value_sets_a_date_input_and_refuses_a_text_field(page: Page) -> None:
    await page.set_content(
        '<label>Day <input type="date" name="day"></label><label>Name <input name="who"></label><p id="heard"></p>'
        "<script>document.querySelector('[name=day]').addEventListener('change', e => document.getElementById('heard').textContent = e.target.value)</script>"
    )
    out = await ok(page, "locator.set_value", {"locator": {"selector": "input[name=day]"}, "value": "2026-12-24"})
    assert out["value"] == "2026-12-24" and await page.inner_text("#heard") == "2026-12-24"
    refused = await page.evaluate(RUN, ["locator.set_value", {"locator": {"selector": "input[name=who]"}, "value": "x"}])
    assert not refused["ok"] and refused["error"]["code"] == "target_not_editable"
    wrong = await page.evaluate(RUN, ["locator.set_value", {"locator": {"selector": "input[name=day]"}, "value": "24/12/2026"}])
    assert not wrong["ok"] and wrong["error"]["code"] == "invalid_input"
