"""Conformance of the primitive dictionary on both hosts, in real headless Chromium.

Hosts:
- ``page``: the page runtime (runtime.js) injected with the bookmarklet's own
  code, connected over a real WebSocket to a real BridgeServer;
- ``browser``: the Playwright browser host (BrowserHost / TabRuntime).

Every call goes through the real ``Bridge.call``; every output is validated
against the primitive's ``output_schema`` in ``runtimes/dictionary.json`` and
every error code must be an ``ErrorCode`` member listed by the primitive (or a
generic one). Fixture: tests/fixtures/pages/conformance/.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Frame, Page

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.errors import ActionError, ErrorCode
from tests.bridge.wsclient import eventually
from tests.runtimes.both_hosts import DICTIONARY, KINDS, open_runtime, serving

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

#: Codes any primitive may answer beside its own list.
GENERIC_CODES = {"invalid_input", "capability_unavailable", "handler_timeout", "transport_failed"}


@dataclass
class Host:
    """One host under test: how to open the fixture and which runtime to call."""

    kind: str
    bridge: Bridge
    runtime_id: str = ""
    page: Page | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    async def call(self, name: str, arguments: dict[str, Any] | None = None, runtime_id: str | None = None) -> Any:
        """Call a primitive and check the output against its output_schema."""
        output = await self.bridge.call(name, arguments or {}, runtime_id=runtime_id or self.runtime_id, timeout_ms=10_000)
        if name in DICTIONARY:
            jsonschema.validate(output, DICTIONARY[name]["output_schema"])
        return output

    async def fails(self, name: str, arguments: dict[str, Any] | None = None, runtime_id: str | None = None) -> ActionError:
        """Call a primitive that must fail; its code must be a listed ErrorCode."""
        with pytest.raises(ActionError) as caught:
            await self.bridge.call(name, arguments or {}, runtime_id=runtime_id or self.runtime_id, timeout_ms=10_000)
        code = caught.value.code
        assert code in {c.value for c in ErrorCode}, code
        if name in DICTIONARY:
            assert code in set(DICTIONARY[name]["errors"]) | GENERIC_CODES, (name, code)
        return caught.value


async def _open(host: Host, url: str) -> None:
    """A fresh page on ``url`` as the host's runtime (the previous one closed)."""
    previous = host.page
    host.runtime_id, host.page = await open_runtime(host.kind, host.bridge, host.extra, url, {"width": 1000, "height": 700})
    if previous is not None:
        await previous.close()


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=KINDS)
async def host(request: pytest.FixtureRequest, chromium: Browser) -> AsyncIterator[Host]:
    bridge = Bridge(default_timeout_ms=10_000)
    async with serving(request.param, bridge, chromium) as extra:
        yield Host(request.param, bridge, extra=extra)
    await bridge.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def fixture(host: Host, pages_url: str) -> Host:
    """The host with a fresh conformance page open and its runtime ready."""
    url = f"{pages_url}/conformance/index.html"
    await _open(host, url)
    return host


async def text_of(host: Host, selector: str) -> str:
    assert host.page is not None
    return await host.page.locator(selector).inner_text()


# -- reading -------------------------------------------------------------------


async def test_page_info(fixture: Host, pages_url: str) -> None:
    assert await fixture.call("page.info") == {"url": f"{pages_url}/conformance/index.html", "title": "Conformance fixture"}


async def test_observe_and_snapshot(fixture: Host) -> None:
    observed = await fixture.call("dom.observe.visible", {"selector": "button", "text_contains": "Open"})
    assert observed["match_count"] >= 3 and all(m["text"] == "Open" for m in observed["matches"])
    # Hidden buttons are never observed; the shadow root's button is.
    names = {m["text"] for m in (await fixture.call("dom.observe.visible", {"selector": "button"}))["matches"]}
    assert "Shadow action" in names and not names & {"Gone", "Ghost", "Flat", "Away", "Inert", "Clipped"}
    snap = await fixture.call("dom.snapshot_text", {"selector": "#rows-section", "max_chars": 12})
    assert snap == {"text": "Rows\nRow 1\n10"[:12], "truncated": True, "match_count": 1}
    assert (await fixture.fails("dom.observe.visible", {"selector": "li[["})).code == "invalid_selector"
    assert (await fixture.fails("dom.snapshot_text", {"selector": "li[["})).code == "invalid_selector"


async def test_list_sections(fixture: Host) -> None:
    await fixture.call("locator.wait_for", {"locator": {"text_equals": "Row 5"}})
    out = await fixture.call("dom.list_sections", {"heading_selector": "h2", "item_selector": "li.row"})
    headings = [s["heading"] for s in out["sections"]]
    assert headings == ["Rows", "Form", "Hidden", "Shadow", "Board", "Late", "Frame"]
    assert out["sections"][0]["item_count"] == 5 and out["sections"][1]["item_count"] == 0
    by_container = await fixture.call("dom.list_sections", {"selector": "section", "text_contains": "board", "max_sections": 1})
    assert [s["heading"] for s in by_container["sections"]] == ["Board"] and by_container["section_count"] == 1
    assert (await fixture.fails("dom.list_sections", {"selector": "(("})).code == "invalid_selector"


# -- locators ------------------------------------------------------------------

LOCATORS = [
    ({"selector": "#name"}, "name", "selector"),
    ({"selector": "#drifted", "selectors": ["#nope", "#qty"]}, "qty", "selectors[1]"),
    ({"selector": "#drifted", "fallback_selectors": ["#dbl"]}, "dbl", "fallback_selectors[0]"),
    ({"role": "textbox", "name": "Full name"}, "name", "role+name"),
    ({"text_equals": "Double me"}, "dbl", "text_equals"),
    ({"role": "button", "text_contains": "Double"}, "dbl", "role"),
    ({"text_contains": "Row 2", "closest": "li"}, None, "text_contains"),
    ({"selector": ".row", "text_contains": "Row 3"}, None, "selector"),
]


@pytest.mark.parametrize(("locator", "element_id", "matched_by"), LOCATORS)
async def test_locators_report_what_matched(fixture: Host, locator: dict[str, Any], element_id: str | None, matched_by: str) -> None:
    info = await fixture.call("locator.element_info", {"locator": locator})
    assert info["matched_by"] == matched_by and info["visible"] is True and info["in_viewport"] is True
    if element_id is not None:
        assert info.get("name") or info["tag"]
        assert fixture.page is not None
        box = await fixture.page.locator(f"#{element_id}").bounding_box()
        assert box is not None and abs(info["bounding_box"]["x"] - box["x"]) < 1


async def test_ambiguous_look_alike_rows_fail_instead_of_clicking_the_first(fixture: Host) -> None:
    error = await fixture.fails("locator.element_info", {"locator": {"role": "button", "name": "Open"}})
    assert error.code == "multiple_targets" and error.evidence["count"] >= 3
    assert {c["text"] for c in error.evidence["candidates"]} == {"Open"}
    # A drag or an insert with an ambiguous locator does not act either.
    assert (await fixture.fails("pointer.drag", {"from": {"text_equals": "Open"}, "to": {"selector": "#lane-b"}})).code == "multiple_targets"
    assert (await fixture.fails("locator.text_content", {"locator": {"text_contains": "Row"}})).code == "multiple_targets"
    assert await text_of(fixture, "#opened") == ""
    # The row-specific locator works: click the second row's button at its centre.
    await settled_layout(fixture)
    info = await fixture.call("locator.element_info", {"locator": {"text_equals": "Row 2", "closest": "li"}})
    button = await fixture.call("locator.element_info", {"locator": {"selector": "li.row[data-id='2'] button"}})
    assert info["tag"] == "li"
    assert await fixture.call("pointer.click", button["clickable_center"]) | {"target": None, "button": None, "fidelity": None} == {
        "clicked": True, "target": None, "button": None, "fidelity": None}  # fmt: skip
    assert await text_of(fixture, "#opened") == "opened Row 2"


async def test_click_by_target_resolves_one_visible_element(fixture: Host) -> None:
    # pointer.click with a locator instead of x and y: one step where a map needed element_info and a click.
    await settled_layout(fixture)
    clicked = await fixture.call("pointer.click", {"target": {"selector": "li.row[data-id='3'] button"}})
    assert clicked["clicked"] is True and clicked["matched_by"] == "selector"
    assert await text_of(fixture, "#opened") == "opened Row 3"
    # Look-alike rows are refused, hidden targets say why, and x/y with a target is a mistake.
    assert (await fixture.fails("pointer.click", {"target": {"role": "button", "name": "Open"}})).code == "multiple_targets"
    assert (await fixture.fails("pointer.click", {"target": {"selector": "#ghost"}})).code == "target_not_visible"
    assert (await fixture.fails("pointer.click", {"target": {"selector": "#dbl"}, "x": 5, "y": 5})).code == "invalid_input"
    assert (await fixture.fails("pointer.click", {"button": "left"})).code == "invalid_input"  # neither a point nor a target


async def test_missing_targets(fixture: Host) -> None:
    error = await fixture.fails("locator.element_info", {"locator": {"selector": "#nope", "fallback_selectors": [".nope"], "text_equals": "Nope"}})
    assert error.code == "target_not_found"
    assert [t["matched_by"] for t in error.evidence["tried"]] == ["selector", "fallback_selectors[0]", "text_equals"]
    assert (await fixture.fails("locator.element_info", {"locator": {"name": "x"}})).code == "invalid_locator"


@pytest.mark.parametrize(
    ("element_id", "reason"),
    [("gone", "display_none"), ("ghost", "visibility_hidden"), ("flat", "zero_size"), ("away", "off_screen"), ("inert-btn", "inert"), ("clipped", "clipped")],
)
async def test_hidden_targets_fail_with_why(fixture: Host, element_id: str, reason: str) -> None:
    error = await fixture.fails("locator.element_info", {"locator": {"selector": f"#{element_id}"}})
    assert error.code == "target_not_visible"
    assert error.evidence["matched_by"] == "selector"
    assert error.evidence["candidates"][0]["id"] == element_id and error.evidence["candidates"][0]["hidden"]["reason"] == reason
    # Reading a hidden element's text is allowed; clicking it through a locator is not.
    assert (await fixture.call("locator.text_content", {"locator": {"selector": f"#{element_id}"}}))["matched_by"] == "selector"
    assert (await fixture.fails("pointer.drag", {"from": {"selector": f"#{element_id}"}, "to": {"x": 5, "y": 5}})).code == "target_not_visible"


async def test_shadow_dom(fixture: Host) -> None:
    # Rows 4 and 5 arrive 300 ms after the load, above the widget: a click point read before they
    # do lands where the button was (a quicker engine start made that race show).
    await fixture.call("locator.wait_for", {"locator": {"text_equals": "Row 5"}})
    info = await fixture.call("locator.element_info", {"locator": {"role": "button", "name": "Shadow action"}})
    assert info["matched_by"] == "role+name" and info["occluded"] is False
    await fixture.call("pointer.click", info["clickable_center"])
    text = await fixture.call("locator.text_content", {"locator": {"selector": "span.count"}})
    assert text["text"] == "1"
    panel = await fixture.call("locator.element_info", {"locator": {"text_equals": "Shadow action", "closest": ".panel"}})
    assert panel["tag"] == "div"
    extracted = await fixture.call("dom.extract", {"extract": [{"id": "widget", "selector": "x-widget", "many": False, "fields": {"count": {"selector": ".count"}}}]})
    assert extracted["records"]["widget"] == {"count": "1"}


async def test_wait_for_late_content_and_timeout(fixture: Host) -> None:
    out = await fixture.call("locator.wait_for", {"locator": {"selector": "#late"}, "timeout_ms": 5000})
    assert out == {"matched": True, "state": "visible", "matched_by": "selector", "match_count": 1}
    attached = await fixture.call("locator.wait_for", {"locator": {"selector": "#gone"}, "state": "attached", "timeout_ms": 100})
    assert attached["matched"] is True
    assert (await fixture.fails("locator.wait_for", {"locator": {"selector": "#gone"}, "timeout_ms": 200})).code == "timeout"


# -- input ---------------------------------------------------------------------


async def settled_layout(host: Host) -> None:
    """Wait for the late rows, then for quiet: points measured earlier would be stale (rows push content down)."""
    await host.call("locator.wait_for", {"locator": {"text_equals": "Row 5"}})
    await host.call("dom.settle", {"quiet_ms": 100, "timeout_ms": 3000})


async def test_pointer_move_click_double_click(fixture: Host) -> None:
    await settled_layout(fixture)
    hover = await fixture.call("locator.element_info", {"locator": {"selector": "#hover-target"}})
    assert await fixture.call("pointer.move", hover["clickable_center"]) == hover["clickable_center"]
    assert await text_of(fixture, "#hovered") == "yes"
    dbl = await fixture.call("locator.element_info", {"locator": {"selector": "#dbl"}})
    assert (await fixture.call("pointer.double_click", dbl["clickable_center"]))["double_clicked"] is True
    assert await text_of(fixture, "#dbl-count") == "1"
    for name in ("pointer.move", "pointer.click", "pointer.double_click"):
        assert (await fixture.fails(name, {"x": 5000, "y": 5})).code == "point_out_of_viewport"


async def test_pointer_drag(fixture: Host) -> None:
    await settled_layout(fixture)
    out = await fixture.call("pointer.drag", {"from": {"selector": "#card"}, "to": {"locator": {"selector": "#lane-b"}}, "steps": 5})
    assert out["dragged"] is True and out["steps"] == 5
    assert out["diagnostics"]["fidelity"] == ("trusted" if fixture.kind == "browser" else "synthetic")
    assert await text_of(fixture, "#board-status") == "card in b"
    # Back by points and by text.
    lane_a = await fixture.call("locator.element_info", {"locator": {"selector": "#lane-a"}})
    await fixture.call("pointer.drag", {"from": {"text_equals": "Card"}, "to": lane_a["clickable_center"]})
    assert await text_of(fixture, "#board-status") == "card in a"
    assert (await fixture.fails("pointer.drag", {"from": {"x": -5, "y": 5}, "to": {"x": 5, "y": 5}})).code == "point_out_of_viewport"
    assert (await fixture.fails("pointer.drag", {"from": {"x": 5, "y": 5}, "to": {"x": 5, "y": 5}, "steps": 0})).code == "invalid_input"


async def test_viewport_scroll(fixture: Host) -> None:
    await fixture.call("viewport.scroll", {"delta_y": -10_000})
    out = await fixture.call("viewport.scroll", {"delta_y": 300})
    assert out == {"scroll_x": 0, "scroll_y": 300}


async def test_text_insert(fixture: Host) -> None:
    out = await fixture.call("text.insert", {"text": "Ada", "target": {"role": "textbox", "name": "Full name"}})
    assert out["inserted"] is True and out["inserted_length"] == 3 and out["matched_by"] == "role+name"
    await fixture.call("text.insert", {"text": " Lovelace"})  # the focused field
    assert fixture.page is not None
    assert await fixture.page.input_value("#name") == "Ada Lovelace"
    await fixture.call("text.insert", {"text": "Grace", "target": {"selector": "#name"}, "mode": "replace"})
    assert await fixture.page.input_value("#name") == "Grace"
    assert (await fixture.fails("text.insert", {"text": "x", "target": {"selector": "#dbl"}})).code == "target_not_editable"
    assert (await fixture.fails("text.insert", {"text": "abc", "target": {"selector": "#qty"}})).code == "insert_failed"
    assert (await fixture.fails("text.insert", {"text": "x", "target": {"selector": "#gone"}})).code == "target_not_visible"


async def test_keyboard_press(fixture: Host) -> None:
    await fixture.call("text.insert", {"text": "", "target": {"selector": "#name"}})  # focus
    out = await fixture.call("keyboard.press", {"key": "Shift+Enter"})
    assert out["pressed"] is True and out["key"] == "Enter" and out["modifiers"] == ["Shift"]
    assert "Enter" in await text_of(fixture, "#keys")
    assert (await fixture.fails("keyboard.press", {"key": "Hyper+q"})).code == "invalid_key"


# -- extraction and quiet ------------------------------------------------------


async def test_dom_extract(fixture: Host) -> None:
    await fixture.call("locator.wait_for", {"locator": {"text_equals": "Row 5"}})
    extract = [
        {
            "id": "rows",
            "selector": "li.row",
            "fields": {
                "id": {"attribute": "data-id"},
                "label": {"selector": ".label"},
                "price": {"selector": ".price", "required": True},
                "missing": {"selector": ".nope", "required": True},
                "note": {"selector": ".nope", "default": "n/a"},
                "section": {"closest": "section", "attribute": "id"},
                "parts": {"selector": "span", "many": True, "fields": {"text": {"property": "textContent"}}},
            },
        },
        {"id": "title", "selector": "h1", "many": False, "fields": {"text": {}}},
        {"id": "none", "selector": ".nothing", "many": False},
    ]
    out = await fixture.call("dom.extract", {"extract": extract})
    rows = out["records"]["rows"]
    assert len(rows) == 5
    assert rows[1] | {"parts": None} == {"id": "2", "label": "Row 2", "price": "20", "missing": None, "note": "n/a", "section": "rows-section", "parts": None}
    assert rows[1]["parts"] == [{"text": "Row 2"}, {"text": "20"}]
    assert out["records"]["title"] == {"text": "Conformance"} and out["records"]["none"] is None
    counts = out["diagnostics"]["selector_counts"]
    assert counts["rows"] == 5 and counts["rows.price"] == 5 and counts["rows.missing"] == 0 and counts["rows.parts"] == 10
    assert out["diagnostics"]["missing_required_fields"] == [{"entry": "rows", "record": i, "field": "missing"} for i in range(5)]
    assert (await fixture.fails("dom.extract", {"extract": [{"id": "x", "selector": "(("}]})).code == "invalid_selector"


async def test_dom_settle(fixture: Host) -> None:
    settled = await fixture.call("dom.settle", {"quiet_ms": 150, "timeout_ms": 3000})
    assert settled["settled"] is True and settled["waited_ms"] >= 150
    assert fixture.page is not None
    assert await text_of(fixture, "#ticker") == "12"  # quiet only once the ticker stopped
    assert (await fixture.call("dom.settle", {"quiet_ms": 500, "timeout_ms": 100}))["settled"] is False


# -- unsupported and frames ----------------------------------------------------


async def test_unsupported_primitives_name_the_host(fixture: Host) -> None:
    name = "browser.screenshot" if fixture.kind == "page" else "storage.read_file"
    error = await fixture.fails(name)
    assert error.code == "capability_unavailable" and error.evidence["capability"] == name
    assert error.evidence["host"] == ("page" if fixture.kind == "page" else "playwright")
    # The clipboard needs the browser host; transfer.* run in the server (for map tools), never in a runtime.
    assert (await fixture.fails("clipboard.read" if fixture.kind == "page" else "transfer.read")).code == "capability_unavailable"


async def test_same_origin_iframe(fixture: Host) -> None:
    # The page's own runtime does not reach into the frame's document.
    assert (await fixture.fails("locator.element_info", {"locator": {"selector": "#in-frame"}})).code == "target_not_found"
    assert fixture.page is not None
    frame: Frame | None = None
    await eventually(lambda: any(f.url.endswith("/frame.html") for f in fixture.page.frames), timeout=5)  # type: ignore[union-attr]  # the fixture page is open by now
    frame = next(f for f in fixture.page.frames if f.url.endswith("/frame.html"))
    await frame.wait_for_load_state()
    if fixture.kind == "page":
        # The bookmarklet run inside the frame: the frame is a runtime of its own.
        server: BridgeServer = fixture.extra["server"]
        before = {i.runtime_id for i in fixture.bridge.registry.list()}
        await frame.evaluate(unquote(server.bookmarklet().removeprefix("javascript:")))
        await eventually(lambda: any(i.runtime_id not in before for i in fixture.bridge.registry.list()), timeout=10)
        framed = next(i for i in fixture.bridge.registry.list() if i.runtime_id not in before)
        top = fixture.bridge.registry.get(fixture.runtime_id)
        assert top is not None and framed.runtime_key == f"{top.runtime_key}/frame/0"
        info = await fixture.call("locator.element_info", {"locator": {"role": "button", "name": "Inside frame"}}, runtime_id=framed.runtime_id)
        assert info["matched_by"] == "role+name"
        await asyncio.sleep(0.5)
        assert fixture.bridge.registry.get(fixture.runtime_id) is not None  # both stay connected
    else:
        # Per-frame runtimes of the browser host are not built yet: the engine the host's
        # init script installed in the frame answers directly.
        envelope = await frame.evaluate("() => window.__mcpActions.run('locator.element_info', {locator: {text_equals: 'Inside frame'}})")
        assert envelope["ok"] is True and envelope["output"]["matched_by"] == "text_equals"
        jsonschema.validate(envelope["output"], DICTIONARY["locator.element_info"]["output_schema"])
