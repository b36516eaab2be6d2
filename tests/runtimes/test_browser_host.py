"""BrowserHost against the real bridge: each Playwright tab is a runtime with trusted input.

One headless Chromium per module; each test opens its own tab so tests do not
share page state.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.signals import SignalSpec
from mcp_actions.errors import ActionError
from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions
from mcp_actions.runtimes.page_script import ENGINE_PRIMITIVES
from mcp_actions.runtimes.tab import TAB_CAPABILITIES, normalize_chord

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SUBMITTED = SignalSpec(
    name="contact.submitted",
    event="contact:submitted",
    enabled=True,
    payload_schema={"type": "object", "required": ["name", "result"], "properties": {"name": {"type": "string"}}},
)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bridge() -> AsyncIterator[Bridge]:
    bridge = Bridge(default_timeout_ms=10_000, signal_source=lambda info: {SUBMITTED.name: SUBMITTED})
    yield bridge
    await bridge.stop()


async def open_tab(host: BrowserHost, url: str) -> str:
    return await host.new_tab(url)


async def call(bridge: Bridge, runtime_id: str, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Any:
    return await bridge.call(name, arguments or {}, runtime_id=runtime_id, **kw)


async def test_start_registers_the_first_tab(host: BrowserHost, bridge: Bridge) -> None:
    info = bridge.registry.get("tab-1")
    assert info is not None
    assert (info.url, info.runtime_key, info.transport) == ("about:blank", "playwright:tab-1", "playwright")
    assert info.capabilities == TAB_CAPABILITIES
    assert set(ENGINE_PRIMITIVES) < set(info.capabilities) and "input.trusted" in info.capabilities
    await host.ensure_started()  # idempotent: no second browser, no second tab
    await asyncio.gather(host.ensure_started(), host.ensure_started())
    assert bridge.registry.get("tab-1") is info and host.started


async def test_the_launched_blank_tab_is_warmed_before_it_is_a_runtime(host: BrowserHost, bridge: Bridge) -> None:
    # warm_process ran the first-call path on a throwaway document of ours, then left the tab blank.
    tab = host.tab("tab-1")
    assert tab is not None and tab.process_warmed
    assert tab.page.url == "about:blank"
    assert await tab.page.evaluate("() => document.body.innerHTML") == ""
    assert list(bridge.registry.get("tab-1").events) == []  # nothing of it reached the bridge


async def test_new_tab_registers_with_url_and_title_and_becomes_active(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    info = bridge.registry.get(runtime_id)
    assert info is not None
    assert (info.url, info.title) == (f"{pages_url}/engine/inputs.html", "Input fixture")
    assert bridge.registry.active_id == runtime_id
    assert await call(bridge, runtime_id, "page.info") == {"url": info.url, "title": "Input fixture"}


async def test_trusted_click_at_the_element_center(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    info = await call(bridge, runtime_id, "locator.element_info", {"locator": {"role": "button", "name": "Clicked 0"}})
    output = await call(bridge, runtime_id, "pointer.click", info["clickable_center"])
    page = host.tab(runtime_id).page
    assert output == {"clicked": True, "button": "left", "fidelity": "trusted"}
    assert await page.text_content("#counter") == "Clicked 1"
    assert await page.evaluate("() => window.log") == [{"type": "click", "trusted": True, "button": 0}]
    with pytest.raises(ActionError) as caught:
        await call(bridge, runtime_id, "pointer.click", {"x": 5, "y": 10_000})
    assert caught.value.code == "point_out_of_viewport"


async def test_trusted_text_insert(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    page = host.tab(runtime_id).page
    replaced = await call(bridge, runtime_id, "text.insert", {"text": "Ada", "target": {"selector": "#text"}, "mode": "replace"})
    await call(bridge, runtime_id, "text.insert", {"text": " L.", "target": {"selector": "#text"}})
    await call(bridge, runtime_id, "text.insert", {"text": "4", "target": {"selector": "#number"}})
    await call(bridge, runtime_id, "text.insert", {"text": "2", "target": {"selector": "#number"}})  # no selection API: retyped
    await page.focus("#reactish")
    await call(bridge, runtime_id, "text.insert", {"text": "typed"})  # the focused field
    await call(bridge, runtime_id, "text.insert", {"text": "", "target": {"selector": "#area"}, "mode": "replace"})
    assert replaced == {"inserted": True, "inserted_length": 3, "matched_by": "selector", "fidelity": "trusted"}
    values = await page.evaluate("() => ['text', 'number', 'reactish', 'area'].map((id) => document.getElementById(id).value)")
    assert values == ["Ada L.", "42", "typed", ""]
    assert await page.evaluate("() => window.reactishChanges") == 1  # one trusted input event


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"text": "x", "target": {"selector": "#counter"}}, "target_not_editable"),  # a button
        ({"text": "abc", "target": {"selector": "#number"}}, "insert_failed"),  # letters in a number field
        ({"text": "x", "target": {"selector": "#nope"}}, "target_not_found"),  # locator failure passes through
    ],
)
async def test_trusted_text_insert_errors(host: BrowserHost, bridge: Bridge, pages_url: str, args: dict[str, Any], code: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    with pytest.raises(ActionError) as caught:
        await call(bridge, runtime_id, "text.insert", args)
    assert caught.value.code == code


async def test_trusted_keyboard_press(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    page = host.tab(runtime_id).page
    await page.focus("#text")
    await call(bridge, runtime_id, "keyboard.press", {"key": "End"})
    shifted = await call(bridge, runtime_id, "keyboard.press", {"key": "a", "modifiers": ["Shift"]})
    await call(bridge, runtime_id, "keyboard.press", {"key": "Return"})  # a real Enter submits the form itself
    assert shifted == {"pressed": True, "key": "A", "modifiers": ["Shift"], "fidelity": "trusted"}
    assert await page.input_value("#text") == "HelloA"
    assert await page.evaluate("() => window.submits") == 1
    assert all(entry["trusted"] for entry in await page.evaluate("() => window.log"))
    with pytest.raises(ActionError) as caught:
        await call(bridge, runtime_id, "keyboard.press", {"key": "NotAKey"})
    assert caught.value.code == "invalid_key"


@pytest.mark.parametrize(
    ("key", "modifiers", "chord"),
    [
        ("Ctrl+A", None, ("Control+A", ["Control"])),  # Ctrl alias
        ("Cmd+Option+x", None, ("Meta+Alt+x", ["Meta", "Alt"])),  # Cmd and Option aliases
        ("Enter", ["Command", "Shift"], ("Meta+Shift+Enter", ["Meta", "Shift"])),  # modifiers list
        ("Control++", None, ("Control++", ["Control"])),  # the plus key
        ("Esc", None, ("Escape", [])),  # key alias
        ("shift+a", None, ("Shift+A", ["Shift"])),  # shifted letters are upper case
    ],
)
async def test_normalize_chord(key: str, modifiers: list[str] | None, chord: tuple[str, list[str]]) -> None:
    assert normalize_chord(key, modifiers) == chord


async def test_navigate_keeps_the_runtime_and_reports_the_new_page(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    output = await call(bridge, runtime_id, "browser.navigate", {"url": "locators.html"})  # relative to the page
    assert output == {
        "ok": True,
        "navigated": True,
        "status": 200,
        "tab": {"tab_id": int(runtime_id.split("-")[1]), "runtime_id": runtime_id, "url": f"{pages_url}/engine/locators.html", "title": "Locator fixture"},
    }
    info = bridge.registry.get(runtime_id)
    assert (info.url, info.title) == (f"{pages_url}/engine/locators.html", "Locator fixture")
    # the engine is there in the new document, and reload works
    assert (await call(bridge, runtime_id, "locator.text_content", {"locator": {"selector": "#para"}}))["text"] == "A paragraph with bold text."
    assert (await call(bridge, runtime_id, "browser.navigate", {"reload": True}))["navigated"] is True
    with pytest.raises(ActionError) as caught:
        await call(bridge, runtime_id, "browser.navigate", {})
    assert caught.value.code == "invalid_input"


async def test_page_driven_navigation_is_reported(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    await host.tab(runtime_id).page.evaluate("() => history.pushState({}, '', '#step-2')")
    for _ in range(50):
        if bridge.registry.get(runtime_id).url.endswith("#step-2"):
            break
        await asyncio.sleep(0.02)
    assert bridge.registry.get(runtime_id).url == f"{pages_url}/engine/inputs.html#step-2"


async def test_reference_handler_and_its_signal(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/simple-form/index.html")
    result = await call(bridge, runtime_id, "contact.submit_name", {"name": "Ada"}, handler="contactForm.submitName", call_id="call-ada")
    assert result == {"ok": True, "result": "Submitted Ada"}
    info = bridge.registry.get(runtime_id)
    for _ in range(50):
        if info.events:
            break
        await asyncio.sleep(0.02)
    event = info.events[-1]
    assert (event["name"], event["event"], event["payload"]) == ("contact.submitted", "contact:submitted", {"name": "Ada", "result": "Submitted Ada"})
    assert event["previous_call_id"] == "call-ada"


@pytest.mark.parametrize(
    ("name", "handler", "code"),
    [
        ("contact.submit_name", "contactForm.missing", "missing_handler"),  # no such handler on the page
        ("contact.submit_name", "contactForm.submitName()", "invalid_input"),  # source is never evaluated
        ("transfer.read", None, "capability_unavailable"),  # dictionary primitive a tab lacks (the server runs it, for map tools)
        ("made.up", None, "unknown_action"),  # not a primitive at all
    ],
)
async def test_call_errors(host: BrowserHost, bridge: Bridge, pages_url: str, name: str, handler: str | None, code: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/simple-form/index.html")
    with pytest.raises(ActionError) as caught:
        await call(bridge, runtime_id, name, {"name": "Ada"}, handler=handler)
    assert caught.value.code == code


async def test_screenshot_is_capped(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/locators.html")
    shot = await call(bridge, runtime_id, "browser.screenshot", {"max_width": 320})
    image = base64.b64decode(shot["image"])
    width = int.from_bytes(image[16:20], "big")  # PNG IHDR width
    assert image[:8] == b"\x89PNG\r\n\x1a\n" and shot["mime_type"] == "image/png"
    assert width == shot["width"] == 320


async def test_popups_become_runtimes_and_close_tab_closes(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    before = {t.runtime_id for t in host.tabs}
    await host.tab(runtime_id).page.evaluate("(url) => { window.open(url); }", f"{pages_url}/engine/locators.html")
    for _ in range(100):
        popup = [t for t in host.tabs if t.runtime_id not in before and bridge.registry.get(t.runtime_id)]
        if popup and bridge.registry.get(popup[0].runtime_id).title == "Locator fixture":
            break
        await asyncio.sleep(0.02)
    popup_id = popup[0].runtime_id
    assert bridge.registry.get(popup_id).url == f"{pages_url}/engine/locators.html"
    closed = await call(bridge, popup_id, "browser.close_tab")
    assert closed["closed_runtime_id"] == popup_id
    for _ in range(100):
        if bridge.registry.get(popup_id) is None:
            break
        await asyncio.sleep(0.02)
    assert bridge.registry.get(popup_id) is None and host.tab(popup_id) is None


async def test_closing_a_tab_fails_its_pending_call_at_once(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    waiting = asyncio.create_task(
        call(bridge, runtime_id, "locator.wait_for", {"locator": {"selector": "#never"}, "timeout_ms": 8000}, timeout_ms=9000)
    )
    await asyncio.sleep(0.2)
    started = time.monotonic()
    await host.tab(runtime_id).page.close()
    with pytest.raises(ActionError) as caught:
        await waiting
    assert caught.value.code == "transport_failed"
    assert time.monotonic() - started < 2
    assert bridge.registry.get(runtime_id) is None


async def test_stop_disconnects_every_tab(bridge: Bridge, pages_url: str) -> None:
    host = BrowserHost(bridge, BrowserOptions(headless=True))
    runtime_id = await host.new_tab(f"{pages_url}/engine/inputs.html")  # starts the browser on demand
    assert host.started and bridge.registry.get(runtime_id) is not None
    waiting = asyncio.create_task(call(bridge, runtime_id, "locator.wait_for", {"locator": {"selector": "#never"}, "timeout_ms": 8000}))
    await asyncio.sleep(0.2)
    await host.stop()
    with pytest.raises(ActionError) as caught:
        await waiting
    assert caught.value.code == "transport_failed"
    assert not host.started
    assert all(bridge.registry.get(t) is None for t in (runtime_id,))


async def test_only_the_main_document_emits_signals(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    runtime_id = await open_tab(host, f"{pages_url}/simple-form/index.html")
    page = host.tab(runtime_id).page
    await page.evaluate("() => new Promise((r) => { const f = document.createElement('iframe'); f.onload = r; f.src = '/engine/handlers.html'; document.body.append(f); })")
    dispatch = "() => document.dispatchEvent(new CustomEvent('contact:submitted', {detail: {name: 'Eve', result: 'x'}}))"
    await page.frames[1].evaluate(dispatch)  # an embedded frame: ignored
    await asyncio.sleep(0.2)
    info = bridge.registry.get(runtime_id)
    assert list(info.events) == []
    await page.evaluate(dispatch)  # the tab's own document: forwarded
    for _ in range(50):
        if info.events:
            break
        await asyncio.sleep(0.02)
    assert [e["payload"]["name"] for e in info.events] == ["Eve"]


async def test_a_call_whose_page_navigates_away_ends_as_navigated(host: BrowserHost, bridge: Bridge, pages_url: str) -> None:
    # Engine calls run over the tab's CDP session (main_world.py): the document going away under a
    # pending evaluation still ends the call at once with the navigation named, never leaves it pending.
    runtime_id = await open_tab(host, f"{pages_url}/engine/inputs.html")
    tab = host.tab(runtime_id)
    assert tab is not None
    await tab.page.evaluate(
        "(next) => { window.leaveSoon = () => { setTimeout(() => { location.href = next; }, 20); return new Promise(() => {}); }; }",
        f"{pages_url}/engine/inputs.html?after",
    )
    with pytest.raises(ActionError) as caught:
        await call(bridge, runtime_id, "page.leave", {}, handler="leaveSoon", timeout_ms=10_000)
    assert caught.value.code == "handler_failed" and caught.value.evidence.get("navigated") is True
    assert bridge.pending_count == 0
    # The tab keeps working in its new document.
    await tab.page.wait_for_url("**/inputs.html?after", wait_until="load")
    assert (await call(bridge, runtime_id, "page.info"))["url"].endswith("inputs.html?after")
