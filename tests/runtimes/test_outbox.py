"""A document's outbox (outbox.py): what a page tells its runtime travels without a Playwright binding.

One headless Chromium per module, as test_browser_host; each test opens its own tab.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.runtimes.browser import BrowserHost
from mcp_actions.runtimes.outbox import OUTBOX_LIMIT

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SUBMITTED = SignalSpec(name="contact.submitted", event="contact:submitted", enabled=True, payload_schema={"type": "object"})
DISPATCH = "(name) => document.dispatchEvent(new CustomEvent('contact:submitted', {detail: {name: name, result: 'x'}}))"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bridge() -> AsyncIterator[Bridge]:
    bridge = Bridge(default_timeout_ms=10_000, signal_source=lambda info: {SUBMITTED.name: SUBMITTED})
    yield bridge
    await bridge.stop()


async def _events(bridge: Bridge, runtime_id: str, count: int) -> list[Any]:
    info = bridge.registry.get(runtime_id)
    assert info is not None
    for _ in range(100):
        if len(info.events) >= count:
            break
        await asyncio.sleep(0.02)
    return [e["payload"]["name"] for e in info.events]


async def test_no_document_of_ours_carries_playwrights_bindings(host: BrowserHost, pages_url: str) -> None:
    # Playwright's bindings controller (an init script in every document) and its utility script
    # (compiled in a document at the first binding call) are what the outbox replaced.
    runtime_id = await host.new_tab(f"{pages_url}/simple-form/index.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    assert await tab.evaluate("() => [typeof window.__playwright__binding__controller__, typeof window.__mcpActionsOutbox]") == ["undefined", "object"]


async def _heard(bridge: Bridge, tab: Any, name: str) -> bool:
    """Fire the declared event until the bridge has it (a document is configured a moment after its commit)."""
    info = bridge.registry.get(tab.runtime_id)
    assert info is not None
    for _ in range(40):
        await tab.evaluate(DISPATCH, name)
        await asyncio.sleep(0.05)
        if any(e["payload"]["name"] == name for e in info.events):
            return True
    return False


async def test_every_new_document_of_the_same_site_forwards_its_signals(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # The bridge sends runtime_config only when it changes: a second document of the same page gets
    # the listen list from its runtime when it is configured (before: the document asked for it).
    url = f"{pages_url}/simple-form/index.html"
    runtime_id = await host.new_tab(url)
    tab = host.tab(runtime_id)
    assert tab is not None
    assert await _heard(bridge, tab, "first")
    await tab.page.goto(url)
    assert await _heard(bridge, tab, "after a navigation")
    await tab.page.reload()
    assert await _heard(bridge, tab, "after a reload")


async def test_a_page_can_neither_drain_nor_replace_its_outbox(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await host.new_tab(f"{pages_url}/simple-form/index.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    attempts = await tab.page.evaluate(
        """() => {
          const outbox = window.__mcpActionsOutbox;
          const out = { take: outbox.take('a guess'), configure: outbox.configure('a guess', 'a guess', 'a key of sixteen characters', []), frozen: Object.isFrozen(outbox) };
          try { Object.defineProperty(window, '__mcpActionsOutbox', { value: { post() {}, take() { return []; } } }); out.redefined = true; } catch (_e) { out.redefined = false; }
          try { window.__mcpActionsOutbox = null; } catch (_e) { /* strict mode */ }
          out.same = window.__mcpActionsOutbox === outbox;
          return out;
        }"""
    )
    assert attempts == {"take": None, "configure": None, "frozen": True, "redefined": False, "same": True}
    await tab.evaluate(DISPATCH, "still heard")
    assert await _events(bridge, runtime_id, 1) == ["still heard"]


async def test_an_undrained_outbox_keeps_the_latest_and_at_most_its_limit(host: BrowserHost, pages_url: str) -> None:
    # A frame of another origin is no runtime: nothing drains its outbox, and it must not grow without end.
    runtime_id = await host.new_tab(f"{pages_url}/simple-form/index.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    other = pages_url.replace("127.0.0.1", "localhost")
    await tab.page.evaluate(
        "(src) => new Promise((r) => { const f = document.createElement('iframe'); f.onload = r; f.src = src; document.body.append(f); })",
        f"{other}/engine/handlers.html",
    )
    frame = tab.page.frames[1]
    assert host.frames_of(tab) == []  # not a runtime
    taken = await frame.evaluate(
        """([secret, count]) => {
          const outbox = window.__mcpActionsOutbox, key = 'the key of this test, long enough';
          outbox.configure(secret, null, key, []);  // as the host would, to read it below
          outbox.post('page_tools', { webmcp: [{ name: 'old' }] });
          for (let i = 0; i < count; i++) outbox.post('event', { name: 'n', payload: { i } });
          outbox.post('page_tools', { webmcp: [{ name: 'new' }] });
          return outbox.take(key).batch;
        }""",
        [host.frame_outbox_secret, OUTBOX_LIMIT + 50],
    )
    assert len(taken) == OUTBOX_LIMIT
    assert taken[-1] == {"kind": "page_tools", "data": {"webmcp": [{"name": "new"}]}}
    assert [m["kind"] for m in taken].count("page_tools") == 1  # the older snapshot was replaced
    assert taken[-2]["data"]["payload"]["i"] == OUTBOX_LIMIT + 49  # the newest events were kept


async def test_a_document_that_opens_a_dialog_while_it_loads_is_taken_over_once_it_is_answered(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # The configuring evaluation waits behind the dialog; before, the document's own ask did.
    runtime_id = await host.new_tab(f"{pages_url}/simple-form/index.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    page = "<title>Asks first</title><script>confirm('Stay?')</script><p>after the question</p>"
    await tab.page.goto("data:text/html," + page, wait_until="commit")
    for _ in range(100):
        if tab.watch.dialog is not None:
            break
        await asyncio.sleep(0.02)
    assert tab.watch.dialog is not None
    await tab.watch.dismiss(accept=True, prompt_text=None)
    await tab.page.wait_for_load_state("load")
    await tab.evaluate(DISPATCH, "after the dialog")
    assert await _events(bridge, runtime_id, 1) == ["after the dialog"]
    info = bridge.registry.get(runtime_id)
    for _ in range(100):
        if info is not None and info.title == "Asks first":
            break
        await asyncio.sleep(0.02)
    assert info is not None and info.title == "Asks first"


_REPORT = "() => { \"use strict\"; const el = document.getElementById('report'); return el ? el.textContent : ''; }"


async def _thief_report(tab: Any) -> dict[str, Any]:
    """The hostile page's report, once its rounds of attempts are over (tests/fixtures/pages/outbox-thief)."""
    for _ in range(200):
        text = await tab.evaluate(_REPORT)
        if text:
            report: dict[str, Any] = json.loads(text)
            return report
        await asyncio.sleep(0.05)
    raise AssertionError("the hostile page never finished its attempts")


async def test_a_page_that_hooks_every_built_in_learns_no_secret_and_cannot_silence_its_document(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # Findings 7 and 8 of docs/threat-model.md: the page replaces what the host's configure step might
    # call (getOwnPropertyDescriptor handing out a lookalike outbox, a title getter, Array, JSON, Function
    # and Promise members), walks callers and stacks, reconfigures itself with pushState, then takes.
    runtime_id = await host.new_tab(f"{pages_url}/outbox-thief/index.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    report = await _thief_report(tab)
    assert report["hooked"] > 0  # its probes ran while the host configured it
    assert not {host.outbox_secret, host.frame_outbox_secret} & set(report["found"])
    assert report["lookalike"] == 0  # no evaluation of the host's called the page's lookalike outbox
    assert report["stolen"] == 0 and report["configured"] == 0
    # What the document says after the attempts still reaches the agent: a signal and a tool it declares.
    assert await _heard(bridge, tab, "after the attempts")
    info = bridge.registry.get(runtime_id)
    assert info is not None
    for _ in range(100):
        if "after_the_attempts" in [t.get("name") for t in info.page_tools.get("webmcp", [])]:
            break
        await asyncio.sleep(0.05)
    assert "after_the_attempts" in [t.get("name") for t in info.page_tools.get("webmcp", [])]


async def test_a_leaked_host_secret_neither_takes_over_a_configured_document_nor_steals_its_reader(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # Even with the host's secret (the test hands it over, as a leak would), a page cannot reconfigure a
    # document the host configured, take from it, or end the host's pending take: the host keeps hearing it.
    runtime_id = await host.new_tab(f"{pages_url}/simple-form/index.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    assert await _heard(bridge, tab, "before")
    attempts = await tab.page.evaluate(
        """(secret) => {
          const outbox = window.__mcpActionsOutbox, mine = 'a key the page chose itself';
          const answer = (value) => value === null || value === undefined ? null : 'answered';
          return {
            configure: answer(outbox.configure(secret, secret, mine, [])),
            take: answer(outbox.take(secret)),
            again: answer(outbox.take(mine)),
            listen: outbox.listen(secret, []),
          };
        }""",
        host.outbox_secret,
    )
    assert attempts == {"configure": None, "take": None, "again": None, "listen": -1}
    assert await _heard(bridge, tab, "after")


async def test_a_hostile_same_origin_frame_learns_no_secret_and_is_still_heard(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # The same thief in a same-origin frame: a frame is its own runtime, and Playwright's evaluation (its
    # utility script, made after the page's scripts, parsing arguments with the page's built-ins) never
    # carries the frame's secret or keys (frame.py, evaluate_unwatched).
    runtime_id = await host.new_tab(f"{pages_url}/outbox-thief/frame.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    framed = None
    for _ in range(100):
        framed = next(iter(host.frames_of(tab)), None)
        if framed is not None:
            break
        await asyncio.sleep(0.05)
    assert framed is not None
    report: dict[str, Any] = {}
    for _ in range(200):
        text = await framed.frame.evaluate(_REPORT)
        if text:
            report = json.loads(text)
            break
        await asyncio.sleep(0.05)
    assert report.get("done") and report["hooked"] > 0
    assert not {host.outbox_secret, host.frame_outbox_secret} & set(report["found"])
    assert report["lookalike"] == 0 and report["stolen"] == 0 and report["configured"] == 0
    info = bridge.registry.get(framed.runtime_id)
    assert info is not None
    for _ in range(40):
        await framed.frame.evaluate(DISPATCH, "framed")
        await asyncio.sleep(0.05)
        if any(e["payload"]["name"] == "framed" for e in info.events):
            break
    assert any(e["payload"]["name"] == "framed" for e in info.events)
    for _ in range(100):
        if "after_the_attempts" in [t.get("name") for t in info.page_tools.get("webmcp", [])]:
            break
        await asyncio.sleep(0.05)
    assert "after_the_attempts" in [t.get("name") for t in info.page_tools.get("webmcp", [])]
