"""Trusted input in a shared tab, through chrome.debugger, where the user allowed it.

The shipped extension declares the ``debugger`` permission optional: its
connect page offers "Allow trusted input", and Chrome's own prompt decides. A
headless Chromium cannot show that prompt, so the granted state is tested with
a copy of the extension whose manifest requires the permission (same key, same
id, same code): the runtime announces ``input.trusted``, and the agent's
clicks, text and keys (page_click, page_fill, page_press through the MCP
client) reach the page as real input events (``isTrusted``). The ungranted
state (the shipped manifest) is in test_shared_tab_relay.py and
test_extension_chromium.py: no ``input.trusted``, synthetic input.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.extension import extension_dir

from .harness import chromium_with_extension, eventually, form_map, free_port, pair, runtimes, server

pytestmark = pytest.mark.browser

PAGE_TITLE = "Trusted input probe"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trusted input probe</title></head><body>
<button id="count" type="button">Count</button>
<label>Note <input id="note"></label>
<script>
  window.seen = [];
  document.getElementById("count").addEventListener("click", (e) => seen.push(["click", e.isTrusted]));
  document.getElementById("note").addEventListener("input", (e) => seen.push(["input", e.isTrusted]));
  document.getElementById("note").addEventListener("keydown", (e) => seen.push(["keydown:" + e.key, e.isTrusted]));
</script></body></html>"""


def granted_copy(tmp_path: Path) -> Path:
    """The shipped extension with ``debugger`` required: what a user who allowed trusted input has."""
    folder = tmp_path / "extension"
    shutil.copytree(extension_dir(), folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["permissions"].append("debugger")
    manifest.pop("optional_permissions", None)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


async def probe_runtime(client: Client) -> dict[str, Any] | None:
    return next((r for r in await runtimes(client) if r.get("title") == PAGE_TITLE), None)


def ref_of(observed: Any, name: str) -> str:
    """The ref page_observe gave the element named ``name`` (its text answer: one ``@eN role "name"`` line each)."""
    found = next((line.split(" ")[0] for line in observed.content[0].text.splitlines() if f" {json.dumps(name)}" in line), None)
    assert found, observed
    return str(found)


async def test_trusted_clicks_text_and_keys_when_allowed(tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ACTIONS_STATE_DIR", str(tmp_path / "state"))
    maps = form_map(tmp_path, pages_url)
    async with chromium_with_extension(tmp_path / "profile", granted_copy(tmp_path)) as context:
        tab = context.pages[0] if context.pages else await context.new_page()
        await tab.goto(f"{pages_url}/simple-form/index.html")
        await tab.set_content(PAGE)
        async with server(maps, free_port()) as (app, client):
            connect = await pair(context, app)
            await connect.get_by_text("Trusted input is on").wait_for()
            await connect.get_by_role("checkbox", name=f"Share {PAGE_TITLE}").check()
            runtime = await eventually(lambda: probe_runtime(client), "the probe tab's runtime")
            assert "input.trusted" in runtime["capabilities"]
            target = {"runtime_id": runtime["runtime_id"]}

            observed = await client.call_tool("page_observe", {"target": target})
            clicked = await client.call_tool("page_click", {"ref": ref_of(observed, "Count"), "target": target})
            assert not clicked.is_error, clicked
            filled = await client.call_tool("page_fill", {"ref": ref_of(observed, "Note"), "text": "hello", "target": target})
            assert not filled.is_error, filled
            pressed = await client.call_tool("page_press", {"ref": ref_of(observed, "Note"), "key": "Shift+a", "target": target})
            assert not pressed.is_error, pressed

            seen = await tab.evaluate("() => seen")
            assert ["click", True] in seen and ["input", True] in seen and ["keydown:A", True] in seen, seen
            assert all(trusted for _, trusted in seen), seen
            assert await tab.evaluate("() => document.getElementById('note').value") == "helloA"
