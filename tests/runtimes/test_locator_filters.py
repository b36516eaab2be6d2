"""The locator extension filters ``within``, ``has`` and ``has_text`` (docs/manifest-language.md, "Extensions").

First the page engine alone in a real headless Chromium (installed as the
browser host installs it), on the TodoMVC-like fixture seeded with rows whose
titles hold an apostrophe, quotes and non-ASCII text; then both hosts through
a real bridge (the page runtime over its WebSocket, and the Playwright
browser host), clicking "the checkbox of the row whose text is X".
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError
from mcp_actions.runtimes.page_script import engine_js
from tests.runtimes.both_hosts import KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

RUN = "([n, a]) => window.__mcpActions.run(n, a)"
TITLES = ["Buy milk", "Don't forget", 'Say "hi"', "Straße über Köln", "Buy milk and bread"]


def seeded(pages_url: str) -> str:
    return f"{pages_url}/todomvc/index.html?seed=" + quote("|".join(TITLES))


def row(title: str) -> dict[str, Any]:
    return {"selector": "ul.todo-list li", "has_text": title}


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def page(chromium: Browser, pages_url: str) -> AsyncIterator[Page]:
    context = await chromium.new_context(viewport={"width": 1000, "height": 700})
    await context.add_init_script(script=engine_js())
    page = await context.new_page()
    await page.goto(seeded(pages_url))
    yield page
    await context.close()


async def run(page: Page, name: str, args: Any) -> dict[str, Any]:
    envelope: dict[str, Any] = await page.evaluate(RUN, [name, args])
    return envelope


async def row_index(page: Page, info: dict[str, Any]) -> int:
    """Which row (0-based) holds the centre the engine resolved to."""
    point = info["clickable_center"]
    index: int = await page.evaluate(
        "([x, y]) => [...document.querySelectorAll('ul.todo-list li')].findIndex(li => li.contains(document.elementFromPoint(x, y)))",
        [point["x"], point["y"]],
    )
    return index


@pytest.mark.parametrize(
    ("locator", "index"),
    [
        ({"role": "checkbox", "within": row("Don't forget")}, 1),
        ({"selector": ".toggle", "within": row('Say "hi"')}, 2),
        ({"selector": ".destroy", "within": row("Straße über Köln")}, 3),
        # whitespace in the wanted text is normalised
        ({"role": "checkbox", "within": row("  Straße   über Köln ")}, 3),
        # has: the row that contains a label with exactly this text ("Buy milk" alone is in two rows)
        ({"selector": "ul.todo-list li", "has": {"selector": "label", "text_equals": "Buy milk"}}, 0),
        ({"role": "checkbox", "within": {"selector": "ul.todo-list li", "has": {"selector": "label", "text_equals": "Buy milk"}}}, 0),
        # has_text on the element itself, after closest
        ({"selector": "label", "closest": "li", "has_text": "bread"}, 4),
    ],
)
async def test_filters_find_the_one_element(page: Page, locator: dict[str, Any], index: int) -> None:
    envelope = await run(page, "locator.element_info", {"locator": locator})
    assert envelope["ok"], envelope
    assert envelope["output"]["match_count"] == 1
    assert await row_index(page, envelope["output"]) == index


async def test_several_rows_with_the_text_are_ambiguous_never_an_arbitrary_pick(page: Page) -> None:
    envelope = await run(page, "locator.element_info", {"locator": {"role": "checkbox", "within": row("Buy milk")}})
    assert envelope["ok"] is False and envelope["error"]["code"] == "multiple_targets"
    assert envelope["error"]["evidence"]["count"] == 2
    # has_text is case-sensitive
    lower = await run(page, "locator.element_info", {"locator": {"role": "checkbox", "within": row("buy milk")}})
    assert lower["ok"] is False and lower["error"]["code"] == "target_not_found"


async def test_nothing_with_the_text_says_so_and_lists_what_is_there(page: Page) -> None:
    envelope = await run(page, "locator.element_info", {"locator": {"role": "checkbox", "within": row("nope")}})
    error = envelope["error"]
    assert error["code"] == "target_not_found"
    assert error["message"].startswith("no ul.todo-list li with the text 'nope'; there are: 'Buy milk")
    assert "'Don't forget" in error["message"]
    assert len(error["message"].encode()) < 400  # a small budget, whatever the page holds
    candidates = error["evidence"]["candidates"]
    assert 0 < len(candidates) <= 5 and candidates[0]["tag"] == "li" and candidates[0]["text"].startswith("Buy milk")
    # has that matches inside no row
    envelope = await run(page, "locator.element_info", {"locator": {"selector": "ul.todo-list li", "has": {"selector": "label", "text_equals": "nope"}}})
    assert envelope["error"]["code"] == "target_not_found"
    assert envelope["error"]["message"].startswith("no label with the text 'nope'; there are: 'Mark all as complete', 'Buy milk'")


async def test_the_whole_descriptor_is_probed_and_waited_for(page: Page) -> None:
    probes = [{"id": "one", "locator": {"role": "checkbox", "within": row("Don't forget")}, "state": "visible"},
              {"id": "none", "locator": {"role": "checkbox", "within": row("nope")}, "state": "attached"}]
    envelope = await run(page, "locator.probe", {"probes": probes})
    assert envelope["ok"], envelope
    results = {r["id"]: r for r in envelope["output"]["results"]}
    assert results["one"]["matched"] is True and results["one"]["match_count"] == 1
    assert results["none"]["matched"] is False


@pytest.mark.parametrize(
    ("locator", "message"),
    [
        ({"role": "checkbox", "within": "li"}, "within must be a target descriptor object"),
        ({"role": "checkbox", "has": [1]}, "has must be a target descriptor object"),
        ({"role": "checkbox", "has_text": "   "}, "has_text must be a non-empty string"),
        ({"role": "checkbox", "within": {"has_text": "x"}}, "the locator names no selector"),
    ],
)
async def test_bad_shapes_are_invalid_locator(page: Page, locator: dict[str, Any], message: str) -> None:
    envelope = await run(page, "locator.element_info", {"locator": locator})
    assert envelope["ok"] is False and envelope["error"]["code"] == "invalid_locator"
    assert envelope["error"]["message"].startswith(message)


async def test_deep_nesting_is_refused(page: Page) -> None:
    locator: dict[str, Any] = {"selector": "li"}
    for _ in range(9):
        locator = {"selector": "*", "within": locator}
    envelope = await run(page, "locator.element_info", {"locator": locator})
    assert envelope["error"]["code"] == "invalid_locator" and "nests more than 8" in envelope["error"]["message"]


# -- both hosts -------------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[tuple[str, Bridge, dict[str, Any]]]:
    bridge = Bridge(default_timeout_ms=10_000)
    async with serving(request.param, bridge, chromium) as extra:
        yield request.param, bridge, extra
    await bridge.stop()


async def test_both_hosts_click_the_checkbox_of_the_named_row(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> None:
    kind, bridge, extra = host
    runtime_id, tab = await open_runtime(kind, bridge, extra, seeded(pages_url), {"width": 1000, "height": 700})
    try:
        for title in ("Don't forget", "Straße über Köln"):
            await bridge.call("pointer.click", {"target": {"role": "checkbox", "within": row(title)}}, runtime_id=runtime_id, timeout_ms=10_000)
        done = await tab.evaluate("[...document.querySelectorAll('ul.todo-list li.completed label')].map(l => l.textContent)")
        assert done == ["Don't forget", "Straße über Köln"]
        with pytest.raises(ActionError) as caught:
            await bridge.call("pointer.click", {"target": {"role": "checkbox", "within": row("nope")}}, runtime_id=runtime_id, timeout_ms=10_000)
        assert caught.value.code == "target_not_found"
        assert caught.value.message.startswith("no ul.todo-list li with the text 'nope'; there are: ")
        assert caught.value.evidence["candidates"]
    finally:
        await tab.close()
