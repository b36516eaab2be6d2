"""An acting tool answers once the page has done what the action started, on both hosts.

The settle after an action is adaptive (runtimes/page/observe_settle.js): the DOM quiet for a short
window (40 ms) and no timer or request the action started still pending, at most 1.5 s. A reply the
page gives 300 ms later, or after a debounce, a request and a render, is in the answer; a toast's
one-second hide timer, a poll loop the page runs anyway and a save the page rate-limits after its change
(a timer over 300 ms once the page has changed) are not waited for. Before, the settle
was a fixed 150 ms quiet period: the 300 ms reply and the three-hop search were missed.
Fixture: tests/fixtures/pages/observe-text/late.html.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.runtimes.both_hosts import KINDS

from .page_hosts import hosted

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest.mark.parametrize("kind", KINDS)
async def test_late_replies_are_in_the_answer_and_a_toast_is_not_waited_out(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        await host.open(f"{pages_url}/observe-text/late.html")
        # A save answered by a 300 ms timer: the answer says the final text, not the "Saving…" in between.
        saved = await host.call("page_click", {"text": "Save"})
        assert '+ "Saved after 300 ms"' in saved and "Saving" not in saved, saved
        # A 120 ms debounce, a fetch, then a render 150 ms after the reply: three hops, all followed.
        found = await host.call("page_click", {"text": "Search"})
        assert '+ "Found 3 results"' in found and '+ "Rope ladder"' in found, found
        # An XMLHttpRequest whose load handler renders 200 ms later.
        loaded = await host.call("page_click", {"text": "Load by XHR"})
        assert '+ "Loaded by XHR: 3"' in loaded, loaded
        # A toast hidden by a one-second timer: not the action's reply, so the answer says it appeared.
        copied = await host.call("page_click", {"text": "Copy link"})
        assert '+ "Link copied"' in copied, copied


@pytest.mark.parametrize("kind", KINDS)
async def test_a_poll_loop_the_page_runs_anyway_does_not_hold_the_answer(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/observe-text/late.html?poll")
        await host.call("page_click", {"text": "Do nothing"})  # the first action installs the tracking
        # The tick pending at that install was set before it (not wrapped, observe_settle.js); once
        # it has run, every later tick is known as the page's own.
        ticks = int(await page.evaluate("() => Number(document.getElementById('tick').textContent)"))
        await page.wait_for_function(f"() => Number(document.getElementById('tick').textContent) >= {ticks + 2}")
        for _ in range(4):
            # The page's poll schedules its next tick 550 ms ahead (a delay short enough to be followed):
            # had the settle taken it for the action's, it would have waited about that long.
            await host.run("refs.change_mark", {})
            await page.click("#noop")
            report = await host.run("refs.change_report", {"settle": {"quiet_ms": 40, "timeout_ms": 1500}})
            assert report["settle"]["settled"] is True and report["settle"]["waited_ms"] < 500, report["settle"]
            assert report["added"] == [] and report["removed"] == [], report


@pytest.mark.parametrize("kind", KINDS)
async def test_the_change_mark_describes_for_the_journal_and_a_miss_is_a_note_not_an_error(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/observe-text/late.html")
        # What the journal of acting calls asks, folded into the mark and the report (dispatch/builtins/acting/act_probe.py).
        marked = await host.run("refs.change_mark", {"describe": {"text": "Save"}, "watch": ["Saved after 300 ms"]})
        journal = marked["journal"]
        assert journal["ref"].startswith("@e") and journal["element"]["role"] == "button" and journal["element"]["name"] == "Save", journal
        assert journal["texts"] == {"Saved after 300 ms": 0}, journal
        await page.click("#save")
        report = await host.run("refs.change_report", {"settle": {}, "watch": ["Saved after 300 ms"]})
        assert report["texts"] == {"Saved after 300 ms": 1} and report["settle"]["settled"] is True, report
        # No element has that text: the mark is still taken, and the journal notes why it could not describe.
        missed = await host.run("refs.change_mark", {"describe": {"text": "No such button"}})
        assert missed["marked"] is True and missed["journal"]["why_not"]["code"] == "target_not_found", missed
        await host.run("refs.change_report", {})


@pytest.mark.parametrize("kind", KINDS)
async def test_the_engines_own_rescan_is_not_taken_for_the_actions_work(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/observe-text/late.html")
        await host.call("page_click", {"text": "Do nothing"})  # installs the tracking
        # The click adds a paragraph at once; the engine's declarative-form scanner (webmcp_forms.js)
        # answers that DOM change with a 50 ms rescan timer of its own. Taken for the action's, it held
        # a settle with no quiet window for what was left of those 50 ms (about 40 by the time the
        # report was asked); it is the engine's, so nothing is pending and the settle ends at once.
        await host.run("refs.change_mark", {})
        await page.click("#note")
        report = await host.run("refs.change_report", {"settle": {"quiet_ms": 0, "timeout_ms": 1500}})
        assert report["added"] == ["Note added"], report
        assert report["settle"]["settled"] is True and report["settle"]["waited_ms"] < 25, report["settle"]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_save_the_page_rate_limits_after_its_change_does_not_hold_the_answer(chromium: Browser, pages_url: str, kind: str) -> None:
    async with hosted(kind, chromium) as host:
        page = await host.open(f"{pages_url}/observe-text/late.html")
        await host.call("page_click", {"text": "Do nothing"})  # installs the tracking
        for n in (1, 2):
            # knockoutjs's TodoMVC: the row at once, its localStorage save 500 ms after the changes stop.
            # Before, that 500 ms timer was taken for the reply: each add answered after about 555 ms.
            await host.run("refs.change_mark", {})
            await page.click("#todo")
            report = await host.run("refs.change_report", {"settle": {"quiet_ms": 40, "timeout_ms": 1500}})
            assert report["added"] == [f"Todo {n}"] and report["settle"]["settled"] is True, report
            assert report["settle"]["waited_ms"] < 250, report["settle"]
        # A 500 ms debounce that shows nothing before its reply is still waited for.
        found = await host.call("page_click", {"text": "Search slowly"})
        assert '+ "Found slowly"' in found, found
        assert await page.evaluate("() => localStorage.getItem('late-todos')") == "2"
