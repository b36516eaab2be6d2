"""The agent's overlay and a map's attachments, on both hosts, in real headless Chromium.

Hosts (as in ``test_conformance.py``):
- ``page``: runtime.js run by the bookmarklet's own code, connected over a real
  WebSocket to a real ``BridgeServer``;
- ``browser``: the Playwright browser host (``BrowserHost`` / ``TabRuntime``).

The bridge is real and is given the fixture's attachments through its
``attachment_source``, so ``runtime_config.attachments`` reaches each host the
way it does in production, and the states come back as
``runtime_status.attachments`` (kept in the registry). Fixture:
tests/fixtures/pages/attachments-spa/ (a single-page app whose results section
loads late, comes and goes and is re-rendered several times in a row; its own
script spies on the overlay).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.events import AttachmentOpened
from mcp_actions.bridge.registry import RuntimeInfo
from mcp_actions.errors import ActionError
from tests.bridge.wsclient import eventually
from tests.runtimes.both_hosts import DICTIONARY, KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SECRET_HTML = "<h1>Categories</h1><p>TOP-SECRET findings</p><script>document.title = 'overlay script ran'</script>"
LIFECYCLE = {"install": "when_target_matches", "remove": "when_context_mismatch", "reattach": "on_url_or_dom_change"}
ATTACHMENTS = [
    {
        "id": "results-categories",
        "kind": "overlay_launcher",
        "target": {"selector": "h2", "text_contains": "Results"},
        "affordance": {
            "label": "Categories",
            "placement": "afterend",
            "max_instances": 1,
            "opens": {"tool": "overlay.open", "kind": "primitive", "arguments": {"title": "Result categories", "html": SECRET_HTML}},
        },
        "lifecycle": LIFECYCLE,
    },
    {
        "id": "results-notes",
        "kind": "overlay_launcher",
        "target": {"selector": "section.results ul"},
        "affordance": {"label": "Notes", "placement": "beforebegin", "opens": {"tool": "notes.open", "kind": "tool", "arguments": {}}},
        "lifecycle": LIFECYCLE,
    },
]
VIEWPORT = {"width": 1000, "height": 700}
#: The overlay's close button with the default size in VIEWPORT (panel at the top right, 16 px in, 64 px down).
CLOSE_BUTTON = (1000 - 16 - 1 - 8 - 14, 64 + 1 + 20)


def _attachments_for(info: RuntimeInfo) -> list[dict[str, Any]]:
    return ATTACHMENTS if "attachments-spa" in (info.url or "") else []


@dataclass
class Host:
    kind: str
    bridge: Bridge
    runtime_id: str = ""
    page: Page | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        output = await self.bridge.call(name, arguments or {}, runtime_id=self.runtime_id, timeout_ms=10_000)
        if name in DICTIONARY:
            jsonschema.validate(output, DICTIONARY[name]["output_schema"])
        return output

    async def fails(self, name: str, arguments: dict[str, Any]) -> str:
        with pytest.raises(ActionError) as caught:
            await self.bridge.call(name, arguments, runtime_id=self.runtime_id, timeout_ms=10_000)
        code = caught.value.code
        assert code in set(DICTIONARY[name]["errors"]) | {"invalid_input"}, (name, code)
        return code

    @property
    def p(self) -> Page:
        assert self.page is not None
        return self.page

    def states(self) -> dict[str, str]:
        info = self.bridge.registry.get(self.runtime_id)
        return {s["id"]: s["state"] for s in (info.attachments if info else [])}


async def _open(host: Host, url: str) -> None:
    """A fresh page on ``url`` as the host's runtime (the previous one closed)."""
    previous = host.page
    host.runtime_id, host.page = await open_runtime(host.kind, host.bridge, host.extra, url, VIEWPORT)
    if previous is not None:
        await previous.close()


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[Host]:
    bridge = Bridge(default_timeout_ms=10_000, attachment_source=_attachments_for)
    async with serving(request.param, bridge, chromium) as extra:
        yield Host(request.param, bridge, extra=extra)
    await bridge.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def spa(host: Host, pages_url: str) -> Host:
    """The host with a fresh single-page app open, its results section loaded and its launchers attached."""
    await _open(host, f"{pages_url}/attachments-spa/index.html")
    await eventually(lambda: host.states() == {"results-categories": "attached", "results-notes": "attached"}, timeout=5)
    return host


async def _launcher_count(page: Page, attachment_id: str) -> int:
    return int(await page.evaluate("(id) => document.querySelectorAll(`[data-actions-json-attachment='${id}']`).length", attachment_id))


async def _overlay_hosts(page: Page) -> int:
    return int(await page.evaluate("() => document.querySelectorAll('actions-json-overlay').length"))


# -- overlay primitives ---------------------------------------------------------------


async def test_overlay_open_and_close_conform(spa: Host) -> None:
    opened = await spa.call("overlay.open", {"html": "<p>hello</p>", "title": "Notes", "width": 500, "height": 400})
    assert opened["ok"] is True and opened["overlay_id"].startswith("overlay-")
    assert await _overlay_hosts(spa.p) == 1
    # A second open replaces the first: one overlay at a time.
    again = await spa.call("overlay.open", {"html": "<p>second</p>"})
    assert again["overlay_id"] != opened["overlay_id"] and await _overlay_hosts(spa.p) == 1
    assert await spa.call("overlay.close") == {"ok": True}
    assert await _overlay_hosts(spa.p) == 0
    assert await spa.call("overlay.close") == {"ok": True}  # nothing open: still ok


async def test_overlay_errors(spa: Host) -> None:
    # A storage reference the server did not resolve cannot be rendered by a page.
    assert await spa.fails("overlay.open", {"template": {"scope": "public", "path": "sites/x/overlay.html"}}) == "asset_not_found"
    assert await spa.fails("overlay.open", {"title": "no content"}) == "invalid_input"
    bad = {"html": "<p>x</p>", "launchers": [{"selector": "h2[", "label": "Broken"}]}
    assert await spa.fails("overlay.register_launcher", bad) == "launcher_failed"
    assert await spa.fails("overlay.register_launcher", {"html": "<p>x</p>", "launchers": [{"label": "No anchor"}]}) == "launcher_failed"
    assert await _overlay_hosts(spa.p) == 0


async def test_register_launcher_reopens_the_overlay(spa: Host) -> None:
    out = await spa.call(
        "overlay.register_launcher",
        {"html": "<p>report</p>", "title": "Report", "launchers": [{"id": "report-launcher", "selector": "h1", "label": "Report", "placement": "beforeend"}]},
    )
    assert out["ok"] is True and out["launchers"] == [{"id": "report-launcher", "state": "attached"}]
    assert await _overlay_hosts(spa.p) == 0
    await spa.p.get_by_role("button", name="Report").click()
    assert await _overlay_hosts(spa.p) == 1
    seen = await spa.p.evaluate("() => window.seen")
    assert {"type": "actions-json:overlay-launcher-opened", "detail": {"launcher_id": "report-launcher"}} in seen
    # Registering the same id again replaces its button (never two).
    await spa.call("overlay.register_launcher", {"html": "<p>v2</p>", "launchers": [{"id": "report-launcher", "selector": "h1", "label": "Report"}]})
    assert await spa.p.get_by_role("button", name="Report").count() == 1
    await spa.call("overlay.close")


async def test_page_scripts_cannot_read_the_overlay_and_scripts_in_it_do_not_run(spa: Host) -> None:
    await spa.call("overlay.open", {"html": SECRET_HTML, "title": "Secret"})
    spy = await spa.p.evaluate("() => window.spy()")
    assert spy["html_has_secret"] is False and spy["iframes"] == 0
    # window.frames does not even list it (inside a shadow root); were it listed, its document is another origin.
    assert spy["frame_doc"] == "none" or spy["frame_doc"].startswith("blocked: ")
    if spa.kind == "browser":
        # The engine captured attachShadow before the page patched it: the page saw no closed root.
        assert spy["closed_roots_seen"] == 0
    await eventually(lambda: any(f.url == "about:srcdoc" for f in spa.p.frames), timeout=3)
    overlay_frame = next(f for f in spa.p.frames if f.url == "about:srcdoc")
    content = await overlay_frame.content()
    assert "TOP-SECRET" in content and "Content-Security-Policy" in content
    assert await spa.p.title() == "attachments single-page app"
    await spa.call("overlay.close")


async def test_resolved_template_data_is_injected_as_inert_json(spa: Host) -> None:
    data = {"rows": [1, 2], "note": "</script><b>not markup</b>"}
    await spa.call("overlay.open", {"html": "<ul id=rows></ul>", "data_json": data})
    await eventually(lambda: any(f.url == "about:srcdoc" for f in spa.p.frames), timeout=3)
    content = await next(f for f in spa.p.frames if f.url == "about:srcdoc").content()
    opening = '<script type="application/json" data-actions-json-overlay-data="">'
    assert opening in content
    raw = content.split(opening, 1)[1].split("</script>", 1)[0]
    assert json.loads(raw) == data  # the "<" of its text is escaped, so it cannot close the element
    await spa.call("overlay.close")


async def test_the_user_closes_the_overlay_with_its_button(spa: Host) -> None:
    opened = await spa.call("overlay.open", {"html": "<p>x</p>", "title": "Closable"})
    await spa.p.mouse.click(*CLOSE_BUTTON)
    assert await _overlay_hosts(spa.p) == 0
    seen = await spa.p.evaluate("() => window.seen")
    assert {"type": "actions-json:overlay-closed", "detail": {"overlay_id": opened["overlay_id"]}} in seen


async def test_our_clicks_reach_the_page_under_an_open_overlay(spa: Host) -> None:
    await spa.call("overlay.open", {"html": "<p>covering</p>", "title": "Cover"})
    box = await spa.p.locator("#corner").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    # A user's click there lands on the overlay: the corner button is covered.
    await spa.p.mouse.click(x, y)
    assert await spa.p.evaluate("() => window.cornerClicks") == 0
    info = await spa.call("locator.element_info", {"locator": {"selector": "#corner"}})
    assert info["occluded"] is False
    await spa.call("pointer.click", {"target": {"selector": "#corner"}})
    await spa.call("pointer.click", {"x": x, "y": y})
    assert await spa.p.evaluate("() => window.cornerClicks") == 2
    assert await _overlay_hosts(spa.p) == 1  # still open, and still in the user's way afterwards
    await spa.p.mouse.click(x, y)
    assert await spa.p.evaluate("() => window.cornerClicks") == 2
    await spa.call("overlay.close")


# -- attachments ------------------------------------------------------------------------


async def test_one_launcher_follows_the_section_through_rerenders(spa: Host) -> None:
    assert await _launcher_count(spa.p, "results-categories") == 1
    await spa.p.evaluate("() => window.spa.rerender(6, 15)")
    await asyncio.sleep(0.6)  # reattach delay is at most 250 ms after a burst starts
    assert await _launcher_count(spa.p, "results-categories") == 1
    assert await _launcher_count(spa.p, "results-notes") == 1
    # The launcher sits right after the (new) heading, as placed.
    assert await spa.p.evaluate("() => document.querySelector('h2').nextElementSibling.getAttribute('data-actions-json-attachment')") == "results-categories"
    max_seen = await spa.p.evaluate("() => window.maxLaunchers")
    assert max_seen == {"results-categories": 1, "results-notes": 1}  # never a duplicate, even mid-burst


async def test_no_launcher_is_left_behind_or_copied(spa: Host) -> None:
    # The heading alone re-rendered three times: the launcher after the old one must not stay beside the new one.
    await spa.p.evaluate("() => window.spa.retitle(3)")
    await asyncio.sleep(0.5)
    assert await _launcher_count(spa.p, "results-categories") == 1
    assert await spa.p.evaluate("() => document.querySelector('h2').nextElementSibling.getAttribute('data-actions-json-attachment')") == "results-categories"
    # A copy of the section carries copies of our hosts: they go, the originals stay.
    await spa.p.evaluate("() => window.spa.cloneSection()")
    await asyncio.sleep(0.5)
    assert await _launcher_count(spa.p, "results-categories") == 1 and await _launcher_count(spa.p, "results-notes") == 1
    assert await spa.p.evaluate("() => document.querySelectorAll('section.copy [data-actions-json-attachment]').length") == 0


async def test_launchers_go_with_the_section_and_come_back(spa: Host) -> None:
    await spa.p.evaluate("() => window.spa.go('/attachments-spa/other')")
    await eventually(lambda: spa.states() == {"results-categories": "removed", "results-notes": "removed"}, timeout=3)
    assert await _launcher_count(spa.p, "results-categories") == 0
    await spa.p.evaluate("() => window.spa.go('/attachments-spa/results')")
    await eventually(lambda: spa.states() == {"results-categories": "attached", "results-notes": "attached"}, timeout=3)
    assert await _launcher_count(spa.p, "results-categories") == 1


async def test_launchers_are_buttons_our_observe_tools_list(spa: Host) -> None:
    assert await spa.p.get_by_role("button", name="Categories").count() == 1
    visible = await spa.call("dom.observe.visible", {})
    assert any(m.get("role") == "button" and m.get("name") == "Categories" for m in visible["matches"])
    refs = await spa.call("refs.observe", {})
    assert any(e.get("name") == "Categories" for e in refs["elements"])
    snapshot = await spa.call("dom.snapshot_text", {})
    assert "[launcher button] Categories" in snapshot["text"] and "[launcher button] Notes" in snapshot["text"]
    # Keyboard reachable: Tab lands on it (from the heading before it).
    await spa.p.evaluate("() => { const h = document.querySelector('h2'); h.tabIndex = -1; h.focus(); }")
    await spa.p.keyboard.press("Tab")
    assert await spa.p.evaluate("() => document.activeElement && document.activeElement.getAttribute('data-actions-json-attachment')") == "results-categories"


async def test_a_launcher_opening_a_primitive_renders_it_and_signals(spa: Host) -> None:
    await spa.p.get_by_role("button", name="Categories").click()
    assert await _overlay_hosts(spa.p) == 1
    seen = await spa.p.evaluate("() => window.seen")
    assert {"type": "actions-json:overlay-launcher-opened", "detail": {"launcher_id": "results-categories"}} in seen
    assert (await spa.p.evaluate("() => window.spy()"))["html_has_secret"] is False
    await spa.call("overlay.close")


async def test_a_launcher_opening_a_map_tool_asks_the_bridge(spa: Host) -> None:
    opened: list[AttachmentOpened] = []
    unsubscribe = spa.bridge.events.subscribe(AttachmentOpened, opened.append)
    try:
        await spa.p.get_by_role("button", name="Notes").click()
        await eventually(lambda: len(opened) == 1, timeout=3)
    finally:
        unsubscribe()
    assert opened[0].opens.tool == "notes.open" and opened[0].launcher_id == "results-notes"
    assert opened[0].runtime.runtime_id == spa.runtime_id
    assert await _overlay_hosts(spa.p) == 0
