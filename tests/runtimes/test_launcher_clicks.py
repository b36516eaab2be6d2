"""A launcher opens only on a click the page did not forge, on both hosts, in real headless Chromium.

docs/overlays.md, "Launcher clicks": launchers are buttons in open shadow roots, so a page
script can reach one. Its ``click()`` or a ``MouseEvent`` it dispatches opens nothing: no overlay,
no ``attachment_open`` to the bridge (so no map tool runs), no opened signal. The user's click
(trusted input: Playwright's, which is CDP input) and the agent's (``pointer.click`` and
``keyboard.press``: CDP input on the browser host, the engine's own synthetic click on the page
runtime) still open it. On the browser host a page script cannot fake a launcher's report to the
host either: the host reads opens from the engine's own queue, never from what the page sends.

Fixture: tests/fixtures/pages/attachments-spa/ with two attachments, one opening the agent's
overlay (a primitive, run in the page) and one a map tool (sent to the bridge).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.events import AttachmentOpened
from mcp_actions.bridge.registry import RuntimeInfo
from tests.bridge.wsclient import eventually
from tests.runtimes.both_hosts import KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

LIFECYCLE = {"install": "when_target_matches", "remove": "when_context_mismatch", "reattach": "on_url_or_dom_change"}
ATTACHMENTS = [
    {
        "id": "categories",
        "kind": "overlay_launcher",
        "target": {"selector": "h2", "text_contains": "Results"},
        "affordance": {"label": "Categories", "placement": "afterend", "opens": {"tool": "overlay.open", "kind": "primitive", "arguments": {"title": "Categories", "html": "<p>books</p>"}}},
        "lifecycle": LIFECYCLE,
    },
    {
        "id": "notes",
        "kind": "overlay_launcher",
        "target": {"selector": "section.results ul"},
        "affordance": {"label": "Notes", "placement": "beforebegin", "opens": {"tool": "notes.open", "kind": "tool", "arguments": {}}},
        "lifecycle": LIFECYCLE,
    },
]
VIEWPORT = {"width": 1000, "height": 700}
#: How long a forged click is given to (wrongly) reach the bridge before we say it did not.
QUIET_S = 0.8

#: What a page script can do to a launcher button without any patch, by name.
FORGERIES = {
    "click": "(b) => b.click()",
    "mouse_event": "(b) => b.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, cancelable: true }))",
    "pointer_event": "(b) => b.dispatchEvent(new PointerEvent('click', { bubbles: true, composed: true, cancelable: true }))",
}


def _attachments_for(info: RuntimeInfo) -> list[dict[str, Any]]:
    return ATTACHMENTS if "attachments-spa" in (info.url or "") else []


@dataclass
class Spa:
    kind: str
    bridge: Bridge
    extra: dict[str, Any]
    runtime_id: str = ""
    page: Page | None = None
    opened: list[AttachmentOpened] = field(default_factory=list)

    @property
    def p(self) -> Page:
        assert self.page is not None
        return self.page

    def states(self) -> dict[str, str]:
        info = self.bridge.registry.get(self.runtime_id)
        return {s["id"]: s["state"] for s in (info.attachments if info else [])}

    async def overlays(self) -> int:
        return int(await self.p.evaluate("() => document.querySelectorAll('actions-json-overlay').length"))

    async def signals(self) -> int:
        return int(await self.p.evaluate("() => window.seen.filter((s) => s.type === 'actions-json:overlay-launcher-opened').length"))

    async def center(self, label: str) -> dict[str, float]:
        """The centre of a launcher's button in the viewport (read in the page's world, as the agent's observe tools do)."""
        return dict(
            await self.p.evaluate(
                """(label) => {
                  const b = [...document.querySelectorAll('[data-actions-json-attachment]')].map((h) => h.shadowRoot.querySelector('button')).find((x) => x && x.textContent === label);
                  const r = b.getBoundingClientRect();
                  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
                }""",
                label,
            )
        )


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[tuple[str, Bridge, dict[str, Any]]]:
    bridge = Bridge(default_timeout_ms=10_000, attachment_source=_attachments_for)
    async with serving(request.param, bridge, chromium) as extra:
        yield request.param, bridge, extra
    await bridge.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def spa(host: tuple[str, Bridge, dict[str, Any]], pages_url: str) -> AsyncIterator[Spa]:
    kind, bridge, extra = host
    spa = Spa(kind, bridge, extra)
    spa.runtime_id, spa.page = await open_runtime(kind, bridge, extra, f"{pages_url}/attachments-spa/index.html", VIEWPORT)
    await eventually(lambda: spa.states() == {"categories": "attached", "notes": "attached"}, timeout=5)
    unsubscribe = bridge.events.subscribe(AttachmentOpened, spa.opened.append)
    try:
        yield spa
    finally:
        unsubscribe()
        await spa.p.close()


async def _forge(spa: Spa, label: str, how: str) -> None:
    await spa.p.evaluate(
        """([label, forge]) => {
          const b = [...document.querySelectorAll('[data-actions-json-attachment]')].map((h) => h.shadowRoot.querySelector('button')).find((x) => x && x.textContent === label);
          (0, eval)(forge)(b);
        }""",
        [label, FORGERIES[how]],
    )


@pytest.mark.parametrize("how", sorted(FORGERIES))
async def test_a_page_scripts_click_on_a_launcher_opens_nothing(spa: Spa, how: str) -> None:
    await _forge(spa, "Notes", how)
    await _forge(spa, "Categories", how)
    await asyncio.sleep(QUIET_S)
    assert spa.opened == []  # no attachment_open: the bridge runs no map tool
    assert await spa.overlays() == 0
    assert await spa.signals() == 0


async def test_a_page_script_cannot_fake_the_launchers_report_on_the_browser_host(spa: Spa) -> None:
    if spa.kind != "browser":
        pytest.skip("the page runtime's page owns its WebSocket: docs/overlays.md says what holds there")
    # The document's outbox is the page's to post into (outbox.py): what it says of an open is never believed.
    await spa.p.evaluate("() => window.__mcpActionsOutbox.post('attachment', { type: 'open', attachment_id: 'notes', launcher_id: 'notes' })")
    # Nor can the page put an open into the engine's queue: the channel is frozen and not replaceable.
    replaced = await spa.p.evaluate(
        """() => {
          try { window.__mcpActionsLaunchers = { take: () => [{ attachment_id: 'notes' }] }; } catch (_e) { /* strict */ }
          try { Object.defineProperty(window, '__mcpActionsLaunchers', { value: { take: () => [{ attachment_id: 'notes' }] } }); } catch (_e) { /* refused */ }
          return Object.isFrozen(window.__mcpActionsLaunchers) && !('attachment_id' in (window.__mcpActionsLaunchers.take()[0] || {}));
        }"""
    )
    assert replaced is True
    await spa.p.evaluate("() => window.__mcpActionsOutbox.post('attachment', { type: 'open' })")
    await asyncio.sleep(QUIET_S)
    assert spa.opened == []


async def test_the_agents_click_opens_a_launcher(spa: Spa) -> None:
    # pointer.click: CDP input on the browser host, the engine's own synthetic click on the page runtime.
    await spa.bridge.call("pointer.click", await spa.center("Notes"), runtime_id=spa.runtime_id, timeout_ms=10_000)
    await eventually(lambda: len(spa.opened) == 1, timeout=3)
    assert spa.opened[0].opens.attachment_id == "notes" and spa.opened[0].opens.tool == "notes.open"
    await spa.bridge.call("pointer.click", await spa.center("Categories"), runtime_id=spa.runtime_id, timeout_ms=10_000)
    assert await spa.overlays() == 1
    await spa.bridge.call("overlay.close", {}, runtime_id=spa.runtime_id, timeout_ms=10_000)
    # keyboard.press on the focused launcher: the engine's own click() on the page runtime.
    await spa.p.evaluate("() => document.querySelector(\"[data-actions-json-attachment='notes']\").shadowRoot.querySelector('button').focus()")
    await spa.bridge.call("keyboard.press", {"key": "Enter"}, runtime_id=spa.runtime_id, timeout_ms=10_000)
    await eventually(lambda: len(spa.opened) == 2, timeout=3)
    assert await spa.signals() == 3


async def test_the_users_click_opens_a_launcher(spa: Spa) -> None:
    await spa.p.get_by_role("button", name="Notes").click()  # trusted input (CDP)
    await eventually(lambda: len(spa.opened) == 1, timeout=3)
    await spa.p.get_by_role("button", name="Categories").click()
    assert await spa.overlays() == 1
    assert await spa.signals() == 2
