"""No page can end a session with a character (issue 51, docs/threat-model.md row 2).

A hostile page (tests/fixtures/pages/page-text/invisible.html) puts lone surrogates, tag characters,
bidi controls, zero-width characters and names longer than every cap (made of two-unit pictures, so a
cut at either parity would part one) into its words, names, values, title, a change report, an error,
and the description and answer of a WebMCP tool it declares; a map's tool hands on its raw text (the
primitive ``locator.text_content`` reads it as it is), so the doors' own last line of defence is what
keeps that answer well formed. Its words are written through each door
a client uses: stdio (a real ``mcp-actions serve`` subprocess, the SDK's stdio client), streamable
HTTP (the SDK's client) and BAP (the released ``browser-agent-protocol`` client). Each answer arrives
whole, with no half of a character in it, and the session keeps answering afterwards.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_actions.demo.static import StaticSite

from .session_servers import free_port, http_serve, isolated_env

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
PAGE = "page-text/invisible.html"
#: A half of a UTF-16 pair on its own, or a tag character: neither may reach a client through a page tool.
_ODD = re.compile("[\ud800-\udfff\U000e0000-\U000e0fff\u200b\u202e]")
#: A half of a UTF-16 pair on its own: none may reach a client at all.
_HALF = re.compile("[\ud800-\udfff]")


def checkout_map(tmp: Path, origin: str) -> Path:
    """A folder with one map for the page: a tool that answers the page's raw text, lone surrogates and all."""
    maps = tmp / "maps"
    maps.mkdir(parents=True)
    tool = {
        "name": "checkout.lone_text",
        "description": "The checkout page's line of lone halves, as the page holds it.",
        "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
        "workflow": {
            "version": 1,
            "expression_language": "jsonata",
            "steps": [{"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#lone"}}}],
            "output": "{% {'text': steps.read.output.text} %}",
        },
    }
    manifest = {"protocol": "actions.json", "version": 1, "surface": {"origin": origin, "name": "Checkout"}, "tools": [tool]}
    (maps / "checkout.actions.json").write_text(json.dumps(manifest))
    return maps


def odd(value: Any, pattern: re.Pattern[str] = _ODD) -> list[str]:
    """The odd characters anywhere in ``value`` (JSON-like), as code points."""
    return [f"U+{ord(c):04X}" for c in pattern.findall(json.dumps(value, ensure_ascii=False))]


def said(result: Any, *, raw: bool = False) -> dict[str, Any]:
    """An MCP result as data, checked: it is no error and holds no odd character (``raw``, a map's answer: no half)."""
    data: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True)
    assert not result.is_error, data
    assert not odd(data, _HALF if raw else _ODD), (odd(data), data)
    return data


async def page_tool(client: Client, name: str) -> str:
    """The MCP name of the page's own WebMCP tool ``name``, once it is listed (its description is checked too)."""
    for _ in range(100):
        listing = await client.list_tools()
        assert not odd(listing.model_dump(by_alias=True, exclude_none=True))
        for tool in listing.tools:
            if (tool.meta or {}).get("mcp-actions/protocol") == "webmcp" and tool.name.endswith(name):
                return tool.name
        await asyncio.sleep(0.1)
    raise AssertionError(f"the page's tool {name} was never listed")


async def every_odd_answer(client: Client, url: str) -> None:
    """Each tool that hands on the page's characters, then the proof the session still answers."""
    said(await client.call_tool("browser_navigate", {"url": url}))
    found = said(await client.call_tool("page_find", {"text": "Pay now"}))
    assert 'button "Pay now"' in found["content"][0]["text"], found
    said(await client.call_tool("page_read", {}))
    said(await client.call_tool("page_observe", {}))
    said(await client.call_tool("page_find", {"role": "button", "max_results": 50}))
    said(await client.call_tool("page_click", {"text": "Show receipt"}))
    said(await client.call_tool("browser_list_tabs", {}))
    said(await client.call_tool(await page_tool(client, "payment_status"), {}))
    # Raw page text through a map: the door replaces each half with U+FFFD rather than stop.
    raw = said(await client.call_tool("checkout_lone_text", {}), raw=True)
    assert str(raw["structuredContent"].get("text")).startswith("Lone halves: \ufffd and \ufffd and \ufffd"), raw
    # Still answering: the session did not end on any of it.
    again = said(await client.call_tool("page_read", {}))
    assert "Paid in full" in again["content"][0]["text"], again


async def served_over_stdio(tmp_path: Path, maps: Path, check: Callable[[Client], Awaitable[None]]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    args = ["-m", "mcp_actions", "serve", "--bridge-port", "0", "--audit-log", "off", "--manifests", str(maps)]
    params = StdioServerParameters(command=sys.executable, args=args, env=isolated_env(home))
    with (tmp_path / "stdio.err").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60, mode="legacy") as client:
            await check(client)


async def test_odd_characters_never_end_a_stdio_session(tmp_path: Path) -> None:
    with StaticSite(PAGES) as site:
        url = f"{site.url.rstrip('/')}/{PAGE}"
        maps = checkout_map(tmp_path, site.url.rstrip("/"))
        await served_over_stdio(tmp_path, maps, lambda client: every_odd_answer(client, url))


async def test_odd_characters_never_end_a_streamable_http_session(tmp_path: Path) -> None:
    with StaticSite(PAGES) as site, http_serve(tmp_path / "http", "--manifests", str(checkout_map(tmp_path, site.url.rstrip("/")))) as served:
        async with Client(served.url, mode="legacy") as client:
            await every_odd_answer(client, f"{site.url.rstrip('/')}/{PAGE}")


async def test_odd_characters_never_end_a_bap_connection(tmp_path: Path) -> None:
    pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
    from browseragentprotocol import BAPClient

    token, port = "odd-characters-token", free_port()
    with StaticSite(PAGES) as site, http_serve(tmp_path / "bap", "--bap-port", str(port), "--bap-token", token, "--manifests", str(checkout_map(tmp_path, site.url.rstrip("/")))):
        for _ in range(300):  # the BAP door opens beside the MCP port
            try:
                client = BAPClient(f"ws://127.0.0.1:{port}/", token=token, name="odd-characters", timeout=30)
                await client.connect()
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the BAP door never opened")
        try:
            await client.create_page(url=f"{site.url.rstrip('/')}/{PAGE}")
            observed = await client._request("agent/observe", {"includeScreenshot": True, "annotateScreenshot": True})
            assert not odd(observed), odd(observed)
            assert any(e.get("name") == "Pay now" for e in observed["interactiveElements"]), observed["interactiveElements"]
            content = await client._request("observe/content", {"format": "text"})
            assert not odd(content) and "Pay now" in content["content"], content
            discovered = await client._request("discovery/discover", {})
            assert not odd(discovered), odd(discovered)
            status = next(t["name"] for t in discovered["tools"] if t["name"].endswith("payment_status"))
            acted = await client.act(
                [
                    BAPClient.step("mcp-actions/call", {"name": "page_find", "arguments": {"text": "Pay now"}}),
                    BAPClient.step("action/click", {"selector": {"type": "text", "value": "Show receipt"}}),
                    BAPClient.step("mcp-actions/call", {"name": status, "arguments": {}}),
                    BAPClient.step("mcp-actions/call", {"name": "checkout_lone_text", "arguments": {}}),
                ]
            )
            answered = acted.model_dump(by_alias=True, exclude_none=True)
            assert not odd(answered["results"][:3]) and not odd(answered, _HALF) and all(step.success for step in acted.results), answered
            assert acted.results[3].result["text"].startswith("Lone halves: \ufffd and \ufffd and \ufffd"), answered
            # Still answering.
            pages = await client.list_pages()
            assert not odd(pages) and len(pages["pages"]) == 1, pages
            assert "Paid in full" in (await client._request("observe/content", {"format": "text"}))["content"]
        finally:
            await client.close()
