"""Nothing a page sends can stall the server with a regular expression (docs/manifest-language.md, "Regular expressions").

Each test is one stall found on the previous version, where Python's backtracking
``re`` ran ``^(a+)+$`` over 28 × "a" and "!" for seconds while holding the event
loop: a page's ABP capability whose ``outputSchema`` has that pattern (11 s), a
map expression ``$match`` over page text (35 s), a signal's payload pattern
(4.5 s). Each runs through the real product: the page runtime in headless
Chromium or a runtime over a real WebSocket, the bridge on a real port, the MCP
SDK's ``Client``. While the hostile work is in flight, the bridge's ``/healthz``
(a real HTTP GET), ``tools/list`` and another tool call must each answer within
a second, and the hostile call must end by its deadline with a structured error
(or, for the expression, an answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
from mcp import Client
from playwright.async_api import async_playwright

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.page_script import runtime_js
from mcp_actions.server.mcp_server import build_server
from tests.bridge.wsclient import WsRuntime, eventually
from tests.conftest import connect_chromium
from tests.protocols.conftest import eventually as eventually_async

#: Python's re needs ~2^28 steps to refuse this for ^(a+)+$ (seconds); RE2 needs 29.
HOSTILE = "a" * 28 + "!"
PATTERN = "^(a+)+$"
TOKEN = "regex-bounds-token"
DEADLINE_MS = 2000
#: Generous margins: the machine is shared and loaded.
ANSWER_WITHIN_S = 1.0
END_WITHIN_S = DEADLINE_MS / 1000 + 1.5


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _timed(work: Awaitable[Any]) -> tuple[float, Any]:
    started = time.monotonic()
    result = await work
    return time.monotonic() - started, result


async def _probe_while(running: asyncio.Task[Any], probes: dict[str, Callable[[], Awaitable[Any]]]) -> dict[str, float]:
    """Run every probe again and again until ``running`` ends; the slowest answer of each."""
    slowest = dict.fromkeys(probes, 0.0)
    while True:
        for name, probe in probes.items():
            elapsed, _ = await _timed(asyncio.wait_for(probe(), timeout=30))
            slowest[name] = max(slowest[name], elapsed)
        if running.done():
            return slowest
        await asyncio.sleep(0.05)


def _healthz(http_url: str) -> Callable[[], Awaitable[Any]]:
    async def get() -> None:
        async with httpx.AsyncClient(timeout=30) as http:
            response = await http.get(http_url + "/healthz")
            assert response.status_code == 200

    return get


def _error_code(result: types.CallToolResult) -> str | None:
    structured = result.structured_content or {}
    error = structured.get("error") if isinstance(structured, dict) else None
    return error.get("code") if isinstance(error, dict) else None


@contextlib.asynccontextmanager
async def abp_page(pages_url: str, path: str, names: set[str]) -> AsyncIterator[tuple[ActionsApp, Client, dict[str, types.Tool]]]:
    """A server with no browser of its own, ``pages_url/path`` in headless Chromium with the page runtime
    connected to it, and the page's ABP tools by their capability names once ``names`` are all listed."""
    port = _free_port()
    app = ActionsApp(AppOptions(browser="none", bridge_port=port, bridge_token=TOKEN, allowed_origins=[pages_url], watch=False))
    async with async_playwright() as pw, Client(build_server(app), mode="legacy") as client:
        chromium = await connect_chromium(pw)
        context = await chromium.new_context()
        try:
            page = await context.new_page()
            assert app.endpoint is not None
            await page.add_init_script(f"window.__MCP_ACTIONS_BRIDGE__ = {{url: {json.dumps(app.endpoint.url)}, token: {json.dumps(TOKEN)}}};\n" + runtime_js())
            await page.goto(f"{pages_url}/{path}")

            async def abp_tools() -> dict[str, types.Tool] | None:
                tools = (await client.list_tools()).tools
                found = {t.meta["mcp-actions/tool"].split(".", 1)[1]: t for t in tools if t.meta and t.meta.get("mcp-actions/protocol") == "abp"}
                return found if names <= found.keys() else None

            yield app, client, await eventually_async(abp_tools, timeout=20)
        finally:
            await context.close()
            await chromium.close()


async def test_an_abp_output_schema_pattern_over_a_hostile_answer_stalls_nothing(pages_url: str) -> None:
    async with abp_page(pages_url, "abp/redos.html", {"code.check", "time.now"}) as (app, client, found):
        assert app.endpoint is not None
        check, now = found["code.check"], found["time.now"]

        async def other_call() -> None:
            answered = await client.call_tool(now.name, {})
            assert not answered.is_error and answered.structured_content == {"n": 7}, answered

        call = asyncio.create_task(_timed(client.call_tool(check.name, {"timeout_ms": DEADLINE_MS})))
        slowest = await _probe_while(call, {"healthz": _healthz(app.endpoint.http_url), "tools/list": client.list_tools, "other call": other_call})
        elapsed, result = await call

        assert all(seconds < ANSWER_WITHIN_S for seconds in slowest.values()), slowest
        assert elapsed < END_WITHIN_S, elapsed
        # The answer fails the capability's own outputSchema: a structured error, not a hang.
        assert result.is_error and _error_code(result) == "invalid_result", result


def _write_map(root: Path) -> None:
    """A map whose workflow searches page text with a regex literal, a quick tool, and a signal with a pattern."""
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": "https://shop.test", "surface_id": "shop", "name": "Shop"},
        "tools": [
            {
                "name": "shop.code_is_valid",
                "description": "Read the code on the page and say whether it is all a's.",
                "input_schema": {"type": "object", "properties": {}},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [{"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#code"}}}],
                    "output": "{% {'valid': $count($match(steps.read.output.text, /^(a+)+$/)) > 0} %}",
                },
            },
            {
                "name": "shop.ping",
                "description": "Answer at once.",
                "input_schema": {"type": "object", "properties": {}},
                "x_actions": {"handler": "shop.ping"},
            },
        ],
        "signals": [
            {
                "name": "shop.coupon_applied",
                "description": "The page applied a coupon.",
                "direction": "html_to_agent",
                "event": "shop:coupon",
                "ingestion": "enabled",
                "payload": {"type": "object", "properties": {"code": {"type": "string", "pattern": PATTERN}}, "required": ["code"]},
            }
        ],
    }
    (root / "shop.actions.json").write_text(json.dumps(document), encoding="utf-8")


async def _answer(call: dict[str, Any]) -> Any:
    if call["name"] == "locator.text_content":
        return {"text": HOSTILE}
    return {"pong": True}


async def test_a_map_expression_regex_over_hostile_page_text_stalls_nothing(tmp_path: Path) -> None:
    _write_map(tmp_path)
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="none", bridge_port=0, bridge_token=TOKEN, watch=False))
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-shop", url="https://shop.test/cart", token=TOKEN).open()
        runtime.serve(_answer, concurrent=True)
        try:

            async def other_call() -> None:
                answered = await client.call_tool("shop_ping", {})
                assert not answered.is_error and answered.structured_content == {"pong": True}, answered

            call = asyncio.create_task(_timed(client.call_tool("shop_code_is_valid", {"timeout_ms": DEADLINE_MS})))
            slowest = await _probe_while(call, {"healthz": _healthz(app.endpoint.http_url), "tools/list": client.list_tools, "other call": other_call})
            elapsed, result = await call

            assert all(seconds < ANSWER_WITHIN_S for seconds in slowest.values()), slowest
            assert elapsed < END_WITHIN_S, elapsed
            # RE2 answers the search at once: the text is not all a's.
            assert not result.is_error and result.structured_content == {"valid": False}, result
            assert [c["name"] for c in runtime.calls if c["name"] == "locator.text_content"] == ["locator.text_content"]
        finally:
            await runtime.close()


async def test_a_signal_payload_pattern_over_a_hostile_event_stalls_nothing(tmp_path: Path) -> None:
    _write_map(tmp_path)
    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="none", bridge_port=0, bridge_token=TOKEN, watch=False))
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-shop", url="https://shop.test/cart", token=TOKEN).open()
        assert runtime.config is not None and {"name": "shop.coupon_applied", "event": "shop:coupon"} in runtime.config["listen"]
        runtime.serve(_answer, concurrent=True)
        try:
            info = app.bridge.registry.get("rt-shop")
            assert info is not None

            def event(event_id: str, code: str) -> dict[str, Any]:
                return {"type": "dom_event", "event_id": event_id, "runtime_id": "rt-shop", "name": "shop.coupon_applied",
                        "event": "shop:coupon", "url": "https://shop.test/cart", "payload": {"code": code}}  # fmt: skip

            async def other_call() -> None:
                answered = await client.call_tool("shop_ping", {})
                assert not answered.is_error, answered

            started = time.monotonic()
            # Several hostile events back to back, then one valid one that must still be kept.
            for n in range(3):
                await runtime.send(event(f"bad-{n}", HOSTILE))
            await runtime.send(event("good", "aaaa"))
            kept = asyncio.create_task(eventually(lambda: any(record.get("event_id") == "good" for record in info.events), timeout=30))
            slowest = await _probe_while(kept, {"healthz": _healthz(app.endpoint.http_url), "tools/list": client.list_tools, "other call": other_call})
            await kept
            elapsed = time.monotonic() - started

            assert all(seconds < ANSWER_WITHIN_S for seconds in slowest.values()), slowest
            assert elapsed < END_WITHIN_S, elapsed
            # The hostile payloads fail their schema (invalid_event, answered to the runtime); only the valid one is kept.
            assert [record.get("event_id") for record in info.events] == ["good"]
            refusals = [item for item in runtime.others if item.get("type") == "action_error"]
            assert len(refusals) == 3 and all(item["error"]["code"] == "invalid_event" for item in refusals), runtime.others
        finally:
            await runtime.close()


#: ``{{`` and a run of spaces, read from the page and used as a transfer template: the template's
#: placeholder pattern (``\{\{\s*([^{}]*?)\s*\}\}``) backtracked over it in time cubic in the run
#: (about 40 s for 3,000 spaces, minutes for 5,000), holding the event loop.
HOSTILE_TEMPLATE = "{{" + " " * 3000


def _write_paste_map(root: Path) -> None:
    """A map whose workflow pastes a transfer item rendered with a template read from the page, and a quick tool."""
    document = {
        "protocol": "actions.json",
        "version": 1,
        "surface": {"origin": "https://shop.test", "surface_id": "shop", "name": "Shop"},
        "tools": [
            {
                "name": "shop.paste_with_page_template",
                "description": "Paste the saved note, laid out as the page's template says.",
                "input_schema": {"type": "object", "properties": {}},
                "workflow": {
                    "version": 1,
                    "expression_language": "jsonata",
                    "steps": [
                        {"id": "read", "primitive": "locator.text_content", "args": {"locator": {"selector": "#layout"}}},
                        {"id": "save", "primitive": "transfer.write", "args": {"label": "note", "format": "application/json", "value": {"title": "Tea"}}},
                        {"id": "paste", "primitive": "transfer.insert", "args": {"label": "note", "target": {"selector": "#notes"}, "render": "{% {'template': steps.read.output.text} %}"}},
                    ],
                    "output": "{% steps.paste.output %}",
                },
            },
            {
                "name": "shop.ping",
                "description": "Answer at once.",
                "input_schema": {"type": "object", "properties": {}},
                "x_actions": {"handler": "shop.ping"},
            },
        ],
    }
    (root / "shop.actions.json").write_text(json.dumps(document), encoding="utf-8")


async def test_a_transfer_template_read_from_the_page_stalls_nothing(tmp_path: Path) -> None:
    _write_paste_map(tmp_path)
    inserted: list[str] = []

    async def answer(call: dict[str, Any]) -> Any:
        if call["name"] == "locator.text_content":
            return {"text": HOSTILE_TEMPLATE}
        if call["name"] == "text.insert":
            inserted.append(call["arguments"]["text"])
            return {"inserted": True}
        return {"pong": True}

    app = ActionsApp(AppOptions(manifests=[str(tmp_path)], browser="none", bridge_port=0, bridge_token=TOKEN, watch=False))
    async with Client(build_server(app)) as client:
        assert app.endpoint is not None
        runtime = await WsRuntime(app.endpoint.url, "rt-shop", url="https://shop.test/cart", token=TOKEN).open()
        runtime.serve(answer, concurrent=True)
        try:

            async def other_call() -> None:
                answered = await client.call_tool("shop_ping", {})
                assert not answered.is_error and answered.structured_content == {"pong": True}, answered

            call = asyncio.create_task(_timed(client.call_tool("shop_paste_with_page_template", {"timeout_ms": DEADLINE_MS})))
            slowest = await _probe_while(call, {"healthz": _healthz(app.endpoint.http_url), "tools/list": client.list_tools, "other call": other_call})
            elapsed, result = await call

            assert all(seconds < ANSWER_WITHIN_S for seconds in slowest.values()), slowest
            assert elapsed < END_WITHIN_S, elapsed
            # An unclosed placeholder is text like any other: pasted as the page wrote it.
            assert not result.is_error, result
            assert inserted == [HOSTILE_TEMPLATE]
        finally:
            await runtime.close()
