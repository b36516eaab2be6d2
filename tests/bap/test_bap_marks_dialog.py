"""``agent/observe {annotateScreenshot}`` (numbered badges, the annotation map) and ``dialog/handle``, with the released client (docs/bap.md)."""

from __future__ import annotations

import base64

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPError, role  # after the skip

from tests.bap.bap_server import Server, client


async def test_annotated_screenshot_numbers_the_elements_in_view_in_observe_order(server: Server) -> None:
    async with client(server, "marks") as c:
        await c.create_page(url=server.page("marks.html"))
        plain = await c.observe(include_screenshot=True)
        assert plain.screenshot is not None and plain.screenshot.annotated is False and plain.annotation_map is None

        marked = await c.observe(include_screenshot=True, annotate_screenshot=True)
        assert marked.screenshot is not None and marked.screenshot.annotated is True
        assert marked.screenshot.format.value == "png" and (marked.screenshot.width, marked.screenshot.height) == (1280, 720)
        elements = marked.interactive_elements or []
        in_view = [e for e in elements if e.bounds is not None and e.bounds.y < 720]
        mapping = marked.annotation_map or []
        # One badge per element in view, numbered in the order agent/observe lists them, under the same refs.
        assert [(m.label, m.ref) for m in mapping] == [(str(i + 1), e.ref) for i, e in enumerate(in_view)]
        assert [e.name for e in in_view] == ["Save", "Name", "Help", "Rename"] and "Far away" in [e.name for e in elements]
        assert mapping[0].position == {"x": 40, "y": 40, "width": 160, "height": 60}
        assert marked.screenshot.data != plain.screenshot.data and base64.b64decode(marked.screenshot.data)[:4] == b"\x89PNG"

        # The options object form, and the page as it was afterwards.
        again = await c.observe(include_screenshot=True, annotate_screenshot={"enabled": True, "maxLabels": 10})
        assert again.screenshot is not None and again.screenshot.annotated is True and len(again.annotation_map or []) == 4
        after = await c.observe(include_screenshot=True)
        assert after.screenshot is not None and after.screenshot.data == plain.screenshot.data


async def test_annotation_map_puts_each_ref_where_the_browser_put_its_element(server: Server) -> None:
    # A page script says "Delete my account" is where "Save draft" is (docs/threat-model.md, row 4).
    async with client(server, "forged-marks") as c:
        await c.create_page(url=f"{server.origin}/marks-hostile/forged-rect.html?forge=proto")
        marked = await c.observe(include_screenshot=True, annotate_screenshot=True)
        names = {e.ref: e.name for e in marked.interactive_elements or []}
        at = {names[m.ref]: m.position for m in marked.annotation_map or []}
        assert at["Save draft"] == {"x": 40, "y": 40, "width": 160, "height": 60}
        assert at["Delete my account"] == {"x": 40, "y": 300, "width": 220, "height": 60}


async def test_dialog_handle_answers_the_prompt_the_page_is_waiting_on(server: Server) -> None:
    async with client(server, "dialogs") as c:
        await c.create_page(url=server.page("marks.html"))
        # The click opens a prompt: it answers as MCP's page_click does (dialog_open), and the page waits.
        with pytest.raises(BAPError) as blocked:
            await c.click(role("button", "Rename"))
        assert blocked.value.code == -32021 and "prompt dialog blocks" in str(blocked.value)
        await c.handle_dialog("accept", prompt_text="Ada")
        content = await c._request("observe/content", {})
        assert "Renamed to Ada" in content["content"]

        with pytest.raises(BAPError):
            await c.click(role("button", "Rename"))
        await c.handle_dialog("dismiss")
        assert "Kept the name" in (await c._request("observe/content", {}))["content"]

        # Nothing open: said, not passed over (the client's handle_dialog returns nothing).
        with pytest.raises(BAPError) as refused:
            await c.handle_dialog("accept")
        assert refused.value.code == -32021 and "no dialog" in str(refused.value)
