"""A page that patches every built-in before the overlay opens gets nothing of it, in real headless Chromium.

The fixture (tests/fixtures/pages/hostile-overlay/) replaces Function.prototype.call/apply/bind,
Reflect, DOM methods, getters and setters, Event getters, JSON, Array and String methods and
members missing from Object.prototype, defines the overlay host's tag as its own custom element,
records everything those replacements are handed, and ``pry()`` looks through it for the closed
root, its nodes and the overlay's text (and clicks any button it got hold of); it also tries what
needs no patch (activeElement, the selection, window.find, getHTML, cloneNode, ElementInternals,
events leaving the shadow root, a MutationObserver on the host).

What each host promises is docs/overlays.md, "What a page can reach":
- the browser host installs the engine before page scripts: nothing reaches the page;
- the page runtime installs after them: a page that patches afterwards gets nothing through the
  overlay, and one that replaced Function.prototype.call before is refused (render_failed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError
from tests.bridge.wsclient import eventually
from tests.runtimes.both_hosts import open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SECRET = "TOP-" + "SECRET"
HTML = f"<h1>Findings</h1><p>{SECRET} text</p><label>Code <input id=code value='{SECRET}-value'></label><button id=ok>OK</button>"
VIEWPORT = {"width": 1000, "height": 700}
#: The overlay's close button with the default size in VIEWPORT (as in test_overlay_attachments.py).
CLOSE_BUTTON = (1000 - 16 - 1 - 8 - 14, 64 + 1 + 20)
#: Nothing of the overlay: what pry() reports on a page that learnt nothing.
NOTHING = {
    "closed_nodes": 0,
    "closed_roots": 0,
    "secret_in_loot": 0,
    "buttons_clicked": 0,
    "host_shadow_root": False,
    "internals_roots": 0,
    "active_is_closed": False,
    "selection_secret": False,
    "find_secret": False,
    "html_secret": False,
    "clone_secret": False,
    "events_closed": 0,
    "events_secret_keys": "",
    "mutations_closed": 0,
    "leaked_through": [],  # the replaced built-ins that were handed any of it
}


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=["browser", "page"])
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[tuple[str, Bridge, dict[str, Any]]]:
    bridge = Bridge(default_timeout_ms=10_000)
    async with serving(request.param, bridge, chromium) as extra:
        yield request.param, bridge, extra
    await bridge.stop()


async def _open(host: tuple[str, Bridge, dict[str, Any]], url: str) -> tuple[str, Page]:
    kind, bridge, extra = host
    return await open_runtime(kind, bridge, extra, url, VIEWPORT)


async def _use_the_overlay(page: Page, bridge: Bridge, runtime_id: str, *, from_launcher: bool = False) -> None:
    """Open the overlay with the secret in its title, HTML and data; click, type and drag in it as a user would."""
    await bridge.call("overlay.open", {"html": HTML, "title": f"{SECRET} title", "data_json": {"rows": [SECRET, 1, None, True], "note": {"deep": SECRET}}}, runtime_id=runtime_id, timeout_ms=10_000)
    assert await page.evaluate("() => window.watchHost()") is True
    await eventually(lambda: any(f.url == "about:srcdoc" for f in page.frames), timeout=3)
    frame = next(f for f in page.frames if f.url == "about:srcdoc")
    # The overlay works: its HTML shows, its input takes the user's typing. (Read and focused from
    # inside its own document: Playwright's element handles would touch the iframe element in the
    # page's world, where this page's replacements would see it.)
    assert SECRET in await frame.evaluate("() => document.body.innerText")
    await frame.evaluate("() => document.querySelector('#code').focus()")
    await page.keyboard.type("typed")
    typed = await frame.evaluate("() => document.querySelector('#code').value")
    assert "typed" in typed and SECRET in typed
    # A drag by the title bar runs our pointer listeners while the page's Event getters are replaced.
    await page.mouse.move(CLOSE_BUTTON[0] - 200, CLOSE_BUTTON[1])
    await page.mouse.down()
    await page.mouse.move(CLOSE_BUTTON[0] - 260, CLOSE_BUTTON[1] + 30, steps=3)
    await page.mouse.up()


async def test_a_page_that_patched_everything_first_gets_nothing_on_the_browser_host(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> None:
    kind, bridge, _extra = host
    if kind != "browser":
        pytest.skip("the page runtime loads after page scripts: see the two tests below")
    runtime_id, page = await _open(host, f"{pages_url}/hostile-overlay/index.html")
    await _use_the_overlay(page, bridge, runtime_id)
    found = await page.evaluate("() => window.pry()")
    assert {k: found[k] for k in NOTHING} == NOTHING, found
    assert found["host"].startswith("actions-json-overlay-")  # the page defined our tag: another one, undefined, is used
    # The user's own close still works (and is the user's: the page clicked nothing); the panel was dragged by (-60, 30).
    await page.mouse.click(CLOSE_BUTTON[0] - 60, CLOSE_BUTTON[1] + 30)
    await eventually(lambda: all(f.url != "about:srcdoc" for f in page.frames), timeout=3)
    await page.close()


async def test_a_page_that_patches_after_the_page_runtime_loaded_gets_nothing(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> None:
    kind, bridge, _extra = host
    runtime_id, page = await _open(host, f"{pages_url}/hostile-overlay/index.html?late")
    await page.evaluate("() => window.arm()")
    await _use_the_overlay(page, bridge, runtime_id)
    found = await page.evaluate("() => window.pry()")
    assert {k: found[k] for k in NOTHING} == NOTHING, found
    await page.close()


async def test_the_page_runtime_refuses_an_overlay_where_call_was_replaced_first(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> None:
    kind, bridge, _extra = host
    if kind != "page":
        pytest.skip("the browser host's engine is in before any page script")
    runtime_id, page = await _open(host, f"{pages_url}/hostile-overlay/index.html")
    with pytest.raises(ActionError) as refused:
        await bridge.call("overlay.open", {"html": HTML, "title": "x"}, runtime_id=runtime_id, timeout_ms=10_000)
    assert refused.value.code == "render_failed"
    evidence = refused.value.evidence or {}
    assert evidence.get("reason") == "page_patched_builtins" and "Function.prototype.call" in evidence.get("builtins", [])
    assert await page.evaluate("() => document.querySelectorAll('[data-pry-host], actions-json-overlay').length") == 0
    await page.close()
