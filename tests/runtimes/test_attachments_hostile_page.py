"""A map's attachment and the bridge's frames never reach a page's patched built-ins, in real headless Chromium.

The page is tests/fixtures/pages/hostile-overlay/ (test_overlay_hostile_page.py says what it
patches and what ``pry()`` looks for). Here the secret travels the other ways an overlay reaches a
page (docs/overlays.md, "What a page can reach"):

- as a map's attachment: the launcher's ``opens`` holds the overlay's HTML and data, handed to the
  page's engine with the runtime's configuration and opened by the user's click. On the browser
  host the engine and the attachment channel are in before the page's scripts, so nothing of it
  reaches the page (the list never passes through the page's Array, JSON or Object.prototype
  members, nor through a Playwright binding result), and no binding hands a page script the list;
- as bridge frames on the page runtime: a page that patches JSON.parse, MessageEvent.data and
  puts a ``handler`` getter on Object.prototype *after* the runtime loaded sees no call (its frames
  are parsed with the captured JSON.parse, its fields read by own property).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.registry import RuntimeInfo
from tests.bridge.wsclient import eventually
from tests.runtimes.both_hosts import open_runtime, serving
from tests.runtimes.test_overlay_hostile_page import HTML, NOTHING, SECRET, VIEWPORT, _use_the_overlay

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

LIFECYCLE = {"install": "when_target_matches", "remove": "when_context_mismatch", "reattach": "on_url_or_dom_change"}
#: The overlay a map gives the user from a launcher: the secret in its title, HTML and data.
ATTACHMENTS = [
    {
        "id": "findings",
        "kind": "overlay_launcher",
        "target": {"selector": "h1"},
        "description": "Open the findings",
        "affordance": {
            "label": "Findings",
            "placement": "afterend",
            "opens": {
                "tool": "overlay.open",
                "kind": "primitive",
                "arguments": {"title": f"{SECRET} title", "html": HTML, "data_json": {"rows": [SECRET, 1, None, True], "note": {"deep": SECRET}}},
            },
        },
        "lifecycle": LIFECYCLE,
    },
    {
        "id": "notes",
        "kind": "overlay_launcher",
        "target": {"selector": "p"},
        "affordance": {"label": "Notes", "placement": "beforeend", "opens": {"tool": "notes.open", "kind": "tool", "arguments": {"note": SECRET}}},
        "lifecycle": LIFECYCLE,
    },
]


def _attachments_for(info: RuntimeInfo) -> list[dict[str, Any]]:
    return ATTACHMENTS if "hostile-overlay" in (info.url or "") else []


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=["browser", "page"])
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[tuple[str, Bridge, dict[str, Any]]]:
    bridge = Bridge(default_timeout_ms=10_000, attachment_source=_attachments_for)
    async with serving(request.param, bridge, chromium) as extra:
        yield request.param, bridge, extra
    await bridge.stop()


def _states(bridge: Bridge, runtime_id: str) -> dict[str, str]:
    info = bridge.registry.get(runtime_id)
    return {s["id"]: s["state"] for s in (info.attachments if info else [])}


async def test_an_attachments_overlay_never_reaches_a_page_that_patched_everything_first(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> None:
    kind, bridge, extra = host
    if kind != "browser":
        pytest.skip("the page runtime loads after page scripts: docs/overlays.md says what holds there")
    runtime_id, page = await open_runtime(kind, bridge, extra, f"{pages_url}/hostile-overlay/index.html", VIEWPORT)
    await eventually(lambda: _states(bridge, runtime_id) == {"findings": "attached", "notes": "attached"}, timeout=5)
    # No binding hands a page script the runtime's attachments.
    assert await page.evaluate("() => typeof window.__mcpActionsAttachments") == "undefined"
    # The user opens the map's overlay from its launcher: it shows the map's HTML.
    await page.get_by_role("button", name="Findings").click()
    await eventually(lambda: any(f.url == "about:srcdoc" for f in page.frames), timeout=3)
    frame = next(f for f in page.frames if f.url == "about:srcdoc")
    assert SECRET in await frame.evaluate("() => document.body.innerText")
    found = await page.evaluate("() => window.pry()")
    assert {k: found[k] for k in NOTHING} == NOTHING, found
    await page.close()


async def test_bridge_frames_never_reach_a_page_that_patches_the_wire_after_the_page_runtime_loaded(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> None:
    kind, bridge, extra = host
    runtime_id, page = await open_runtime(kind, bridge, extra, f"{pages_url}/hostile-overlay/index.html?late&wire", VIEWPORT)
    await eventually(lambda: _states(bridge, runtime_id) == {"findings": "attached", "notes": "attached"}, timeout=5)
    await page.evaluate("() => window.arm()")
    # The overlay call's frame (and, on the page runtime, a runtime_config with the attachments: the
    # bridge sends one when the page changes) arrive while JSON.parse, MessageEvent.data and an
    # Object.prototype "handler" getter are the page's.
    await page.evaluate("() => history.pushState({}, '', location.href + '&moved')")
    await _use_the_overlay(page, bridge, runtime_id)
    found = await page.evaluate("() => window.pry()")
    assert {k: found[k] for k in NOTHING} == NOTHING, found
    await page.close()
