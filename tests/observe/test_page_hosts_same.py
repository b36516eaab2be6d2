"""The same short task through the Playwright tab and through the page runtime gives the same answers.

Each task (observe -> click by text -> fill -> read, then click again so the report shows the fill)
runs through the real ActionService with the shipped built-ins on each host
(tests/observe/page_hosts.py: the page runtime is the bookmarklet's runtime.js over a real
WebSocket), and every answer the model would read is compared, text for text. Fixtures:
tests/fixtures/pages/observe-text/login.html (MiniWoB++ login-user) and the checkout page with a
same-origin frame and a shadow-DOM widget (tests/fixtures/pages/frames/index.html).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

LOGIN: list[tuple[str, dict[str, Any]]] = [
    ("page_observe", {}),
    ("page_click", {"text": "Username"}),
    ("page_fill", {"text": "Username", "value": "ada"}),
    ("page_click", {"text": "Login"}),
    ("page_read", {}),
    ("page_find", {"role": "textbox"}),
]
CHECKOUT: list[tuple[str, dict[str, Any]]] = [
    ("page_observe", {}),
    ("page_click", {"text": "More copies"}),
    ("page_fill", {"text": "City", "value": "Lyon"}),
    ("page_click", {"text": "Save address"}),
    ("page_read", {}),
]


async def answers(kind: str, chromium: Browser, url: str, task: list[tuple[str, dict[str, Any]]]) -> list[str]:
    async with hosted(kind, chromium) as host:
        await host.open(url, {"width": 1000, "height": 700})
        return [await host.call(tool, arguments) for tool, arguments in task]


@pytest.mark.parametrize(("page", "task"), [("observe-text/login.html", LOGIN), ("frames/index.html", CHECKOUT)], ids=["login", "checkout"])
async def test_both_hosts_answer_the_same_task_the_same(chromium: Browser, pages_url: str, page: str, task: list[tuple[str, dict[str, Any]]]) -> None:
    by_host = {kind: await answers(kind, chromium, f"{pages_url}/{page}", task) for kind in KINDS}
    for step, (tool, arguments) in enumerate(task):
        assert by_host["page"][step] == by_host["browser"][step], (tool, arguments, by_host["page"][step], by_host["browser"][step])
    # And the task did what it says (so "the same" is not "the same failure").
    last = by_host["browser"]
    if page.startswith("observe-text"):
        assert '+ "login ada"' in last[3] and 'textbox "Username"' in last[0], last
    else:
        assert '+ "Saved: , Lyon"' in last[3] and "Quantity 2" in last[4], last
