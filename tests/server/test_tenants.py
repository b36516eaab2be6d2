"""One server, many tenants (issue 39, docs/sessions.md "What a session is told"): what a session is told is its own.

Each test is a finding of the issue, tried as a second user of the same
streamable-HTTP server would: ``serve`` in a subprocess, several SDK ``Client``s
over HTTP, real WebSocket runtimes, and where a page is involved a real headless
Chromium. On 5735e83 every one of them fails: the audit, page tools, inline maps,
log messages and subscriptions crossed sessions, clients without a handle shared
a credential, bare ``initialize`` requests held every place, a page on another
loopback port drove ``/mcp``, and a remote browser's token was shown.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from websockets.exceptions import InvalidStatus

from mcp_actions.bridge.scope import ANONYMOUS_ID, session_credential
from mcp_actions.demo.static import StaticSite
from tests.bridge.wsclient import WsRuntime

from .session_servers import http_serve, isolated_env

TOKEN = "tenants-bridge-token"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
INLINE = {
    "protocol": "actions.json",
    "version": 1,
    "surface": {"origin": "https://clinic.test"},
    "tools": [
        {
            "name": "clinic.reschedule",
            "description": "Reschedule bob's HIV follow-up (patient 77-4411).",
            "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
            "x_actions": {"handler": "app.reschedule"},
        }
    ],
}


async def _read(client: Client, uri: str, meta: dict | None = None) -> dict:
    return json.loads((await client.read_resource(uri, meta=meta)).contents[0].text)


async def _tool_names(client: Client, meta: dict | None = None) -> set[str]:
    return {t.name for t in (await client.list_tools(meta=meta) if meta else await client.list_tools()).tools}


class Heard:
    """Every notification a client is sent (its message handler)."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ServerNotification | types.LoggingMessageNotification | types.ResourceUpdatedNotification | types.ToolListChangedNotification):
            self.items.append(message)

    def text(self) -> str:
        return " ".join(repr(item) for item in self.items)

    def of(self, kind: type) -> list[Any]:
        return [item for item in self.items if isinstance(item, kind)]


async def test_the_audit_is_each_sessions_own_and_its_digest_needs_the_servers_key(tmp_path):
    """B reads no line of A's; A's 4-digit PIN does not come back from the digest by trying all 10,000; the operator matches it."""
    with http_serve(tmp_path, "--browser", "none") as served:
        async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
            await a.call_tool("page_fill", {"text": "PIN", "value": "4821"})
            a_id = (await _read(a, "actions://bridge/launch"))["session"]["id"]
            mine = await _read(a, "actions://audit/recent")
            assert [e["tool"] for e in mine["entries"]] == ["page.fill"] and mine["entries"][0]["session"] == a_id
            await b.call_tool("browser_list_tabs", {})
            theirs = await _read(b, "actions://audit/recent")
            assert a_id not in json.dumps(theirs) and "page.fill" not in json.dumps(theirs)
            assert [e["tool"] for e in theirs["entries"]] == ["browser.list_tabs"]
        line = next(json.loads(text) for text in served.audit_log.read_text().splitlines() if '"page.fill"' in text)
    digest = line["arguments_sha256"]
    tried = {
        hashlib.sha256(json.dumps({"text": "PIN", "value": f"{pin:04d}"}, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
        for pin in range(10_000)
    }
    assert digest not in tried  # a bare SHA-256 gave the PIN back in under a second
    key_file = served.audit_log.with_name("audit.jsonl.key")
    assert key_file.stat().st_mode & 0o077 == 0  # the key is the operator's alone
    command = [sys.executable, "-m", "mcp_actions", "audit-digest", json.dumps({"value": "4821", "text": "PIN"}), "--audit-log", str(served.audit_log)]
    matched = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, env=isolated_env(tmp_path), check=True)
    assert matched.stdout.strip() == digest


async def test_page_tools_and_inline_maps_are_their_sessions_own(tmp_path):
    """A's page's WebMCP tool is not in B's list; B's runtime's inline map is not in A's (names, descriptions, manifests)."""
    with StaticSite(FIXTURES / "webmcp") as site, http_serve(tmp_path, "--bridge-token", TOKEN) as served:
        heard_a, heard_b = Heard(), Heard()
        async with Client(served.url, mode="legacy", message_handler=heard_a) as a, Client(served.url, mode="legacy", message_handler=heard_b) as b:
            await b.list_tools()
            opened = await a.call_tool("browser_navigate", {"url": f"{site.url}imperative.html"})
            assert not opened.is_error, opened
            for _ in range(100):
                a_tools = {t.name: t for t in (await a.list_tools()).tools}
                if any("add_todo" in name for name in a_tools):
                    break
                await asyncio.sleep(0.1)
            page_tool = next(name for name in a_tools if "add_todo" in name)
            b_tools = (await b.list_tools()).tools
            assert page_tool not in {t.name for t in b_tools} and "Add a todo item" not in json.dumps([t.model_dump() for t in b_tools])
            # B calling it by name: no such tool, for B (an unknown tool is a protocol error).
            with pytest.raises(MCPError):
                await b.call_tool(page_tool, {"title": "x"})
            # B's own runtime, connected with B's own credential, brings an inline map.
            b_launch = await _read(b, "actions://bridge/launch")
            runtime = await WsRuntime(b_launch["bridge"]["websocket_url"], "b-clinic", token=b_launch["session"]["bridge_credential"], url="https://clinic.test/", manifest=INLINE).open()
            runtime.serve()
            try:
                for _ in range(50):
                    if "clinic_reschedule" in await _tool_names(b):
                        break
                    await asyncio.sleep(0.1)
                assert "clinic_reschedule" in await _tool_names(b)
                a_listing = json.dumps([t.model_dump() for t in (await a.list_tools()).tools])
                assert "clinic" not in a_listing and "77-4411" not in a_listing
                a_launch = await _read(a, "actions://bridge/launch")
                assert "clinic" not in json.dumps(a_launch["tools"]) and "b-clinic" not in json.dumps(a_launch)
                with pytest.raises(Exception):  # noqa: B017  # resource_not_found, whichever way the SDK raises it
                    await _read(a, "actions://manifests/runtime-b-clinic")
                assert "77-4411" in json.dumps(await _read(b, "actions://manifests/runtime-b-clinic"))
                # A was never told B's tools changed, nor B A's.
                await asyncio.sleep(0.5)
                assert "clinic" not in heard_a.text()
            finally:
                await runtime.close()


async def test_log_messages_and_subscriptions_stay_in_their_session(tmp_path):
    """A's page URL (a reset token in it) never reaches B in a log message; B's early subscriptions hear nothing of A's tabs."""
    secret = "RST-7731-SECRET"
    with StaticSite(FIXTURES / "sessions") as site, http_serve(tmp_path) as served:
        heard_a, heard_b = Heard(), Heard()
        async with Client(served.url, mode="legacy", message_handler=heard_a) as a, Client(served.url, mode="legacy", message_handler=heard_b) as b:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # logging and resources/subscribe: deprecated at 2026-07-28, a 2025-11-25 client's way
                await b.set_logging_level("debug")
                for n in range(1, 5):  # tabs that do not exist yet: A's will take these ids
                    await b.subscribe_resource(f"actions://runtimes/tab-{n}/events")
            await b.call_tool("browser_navigate", {"url": f"{site.url}index.html"})  # B's call starts the browser
            # A's page declares a tool the server cannot expose: the warning names the page, token and all.
            opened = await a.call_tool("browser_navigate", {"url": f"{site.url}reset.html?reset_token={secret}"})
            assert not opened.is_error, opened
            for _ in range(30):
                if "cannot be exposed" in served.stderr.read_text():
                    break
                await asyncio.sleep(0.1)
            assert "cannot be exposed" in served.stderr.read_text() and secret in served.stderr.read_text()  # the operator's stderr has it
            await asyncio.sleep(0.5)
            assert "cannot be exposed" in heard_a.text()  # A is told of its own page, which B's call put the driver in motion for
            assert secret not in heard_b.text() and "reset.html" not in heard_b.text() and "cannot be exposed" not in heard_b.text()
            assert heard_b.of(types.ResourceUpdatedNotification) == []
            assert [t for t in (await _read(a, "actions://runtimes"))["runtimes"]]  # A has tabs, whose events changed


async def test_clients_without_a_handle_share_nothing(tmp_path):
    """2026-07-28 requests with no handle: no bridge credential, and the anonymous scope's would-be credential is refused."""
    with http_serve(tmp_path, "--browser", "none", "--bridge-token", TOKEN) as served:
        async with Client(served.url) as b, Client(served.url) as c:
            launch_b, launch_c = await _read(b, "actions://bridge/launch"), await _read(c, "actions://bridge/launch")
            assert "bridge_credential" not in launch_b.get("session", {}) and "bridge_credential" not in launch_c.get("session", {})
            with pytest.raises(InvalidStatus):
                await WsRuntime(launch_b["bridge"]["websocket_url"], "planted", token=session_credential(TOKEN, ANONYMOUS_ID)).open()
            assert (await _read(c, "actions://runtimes"))["runtimes"] == []


async def test_bare_initialize_requests_cannot_hold_every_place(tmp_path):
    """--max-sessions 3 and three initialize requests with nothing after them: a real client gets in within seconds."""
    with http_serve(tmp_path, "--browser", "none", "--max-sessions", "3") as served:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "squatter", "version": "1"}}}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx.AsyncClient(timeout=10) as http:
            for _ in range(3):
                assert (await http.post(served.url, json=initialize, headers=headers)).status_code == 200
            started = time.monotonic()
            while True:
                try:
                    async with Client(served.url, mode="legacy") as late:
                        assert (await late.list_tools()).tools
                    break
                except Exception:
                    assert time.monotonic() - started < 30, "locked out"
                    await asyncio.sleep(1)
        assert time.monotonic() - started < 15  # a minute at most, as promised; here the grace of an unused place
        assert "made no request since it opened" in served.stderr.read_text()


PROBE_PAGE = """<!doctype html><title>probe</title><script>
const target = new URLSearchParams(location.search).get("mcp");
fetch(target, {method: "POST", headers: {"content-type": "application/json", "accept": "application/json, text/event-stream"},
  body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-06-18", capabilities: {}, clientInfo: {name: "page", version: "1"}}})})
  .then(r => { document.title = "answered " + r.status; }, e => { document.title = "refused " + e.name; });
</script>"""


@pytest.mark.parametrize(("allowed", "expected"), [(False, "refused"), (True, "answered 200")])
async def test_a_page_on_another_loopback_port_drives_mcp_only_when_its_origin_is_listed(tmp_path, allowed, expected):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "probe.html").write_text(PROBE_PAGE, encoding="utf-8")
    with StaticSite(pages) as site:
        origin = site.url.rstrip("/")
        extra = ("--http-allowed-origins", origin) if allowed else ()
        with http_serve(tmp_path / "server", *extra) as served:
            async with Client(served.url, mode="legacy") as agent:
                opened = await agent.call_tool("browser_navigate", {"url": f"{site.url}probe.html?mcp={served.url}"})
                assert not opened.is_error, opened
                title = ""
                for _ in range(150):  # the page's fetch, answered by a server that may be busy
                    tabs = (await agent.call_tool("browser_list_tabs", {})).structured_content
                    title = tabs["tabs"][0]["title"]
                    if title != "probe":
                        break
                    await asyncio.sleep(0.1)
                assert title.startswith(expected), title


async def test_credentials_in_the_operators_urls_are_never_shown(tmp_path):
    """--cdp-endpoint with ?token=…: not in actions://bridge/launch, the error a call gets, or B's log messages."""
    secret = "CDP-TOKEN-0042"
    endpoint = f"http://127.0.0.1:9/devtools/browser/x?token={secret}"
    with http_serve(tmp_path, "--cdp-endpoint", endpoint) as served:
        heard = Heard()
        async with Client(served.url, mode="legacy", message_handler=heard) as a, Client(served.url, mode="legacy") as b:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await a.set_logging_level("debug")
            launch = await _read(a, "actions://bridge/launch")
            assert secret not in json.dumps(launch) and "token=***" in launch["browser"]["cdp_endpoint"]
            failed = await a.call_tool("browser_navigate", {"url": "about:blank"})
            assert failed.is_error and secret not in json.dumps(failed.model_dump(mode="json"))
            assert secret not in json.dumps(await _read(b, "actions://bridge/launch"))
            await asyncio.sleep(0.3)
            assert secret not in heard.text()


async def test_a_shared_context_shares_tabs_never_the_audit(tmp_path):
    """--shared-browser-context: B sees A's tab, as documented, but still reads no line of A's audit."""
    with StaticSite(FIXTURES / "sessions") as site, http_serve(tmp_path, "--shared-browser-context") as served:
        async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
            tab = (await a.call_tool("browser_navigate", {"url": f"{site.url}index.html"})).structured_content["runtime_id"]
            assert tab in {r["runtime_id"] for r in (await _read(b, "actions://runtimes"))["runtimes"]}
            assert (await _read(b, "actions://audit/recent"))["entries"] == []
