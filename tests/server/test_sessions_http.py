"""Many agents on one HTTP server (issue #32, docs/sessions.md): each MCP session has its own browser context.

Real parts only: ``serve --transport streamable-http`` in a subprocess with a real
headless Chromium, and the SDK's ``Client`` over HTTP, in both generations
(2025-11-25 sessions by ``Mcp-Session-Id``; 2026-07-28 clients by the handle the
server mints). On the code before #32 every one of these tests fails: the
sessions shared one tab list, one active tab and one cookie jar.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from mcp import Client

from mcp_actions.demo.static import StaticSite

from .session_servers import chromium_processes, http_serve, wait_until

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "sessions"
HANDLE = "mcp-actions/session"
SECRET = "alice-session-token"


@pytest.fixture
def site():
    with StaticSite(PAGES) as served:
        yield served.url.rstrip("/")


def _data(result) -> dict:
    assert not result.is_error, result
    return result.structured_content


async def _read(client: Client, uri: str, meta: dict | None = None) -> dict:
    return json.loads((await client.read_resource(uri, meta=meta)).contents[0].text)


def _image(result) -> str:
    """The base64 image a screenshot result carries."""
    images = [block.data for block in result.content if getattr(block, "type", None) == "image"]
    assert images, result
    return images[0]


def _texts(result) -> str:
    """Everything a result says, as one string (its text blocks and its structured content)."""
    parts = [getattr(block, "text", "") for block in result.content]
    return " ".join(parts) + json.dumps(result.structured_content or {})


async def test_two_sessions_see_only_their_own_tabs_and_cookies(tmp_path, site):
    """A's secret tab never reaches B: not in B's tab list, observation, screenshot, resources or routing."""
    with http_serve(tmp_path) as served:
        async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
            opened = _data(await a.call_tool("browser_navigate", {"url": f"{site}/index.html?secret={SECRET}&set=alice"}))
            assert opened["tab"]["title"] == "cookies:who=alice"
            a_tab = opened["runtime_id"]
            a_shot = await a.call_tool("browser_screenshot", {})
            # B has done nothing yet: its first call makes its own context, with a blank tab of its own.
            b_tabs = _data(await b.call_tool("browser_list_tabs", {}))
            assert SECRET not in json.dumps(b_tabs) and a_tab not in json.dumps(b_tabs)
            assert [t["runtime_id"] for t in b_tabs["tabs"]] != [a_tab]
            observed = await b.call_tool("page_observe", {})
            assert SECRET not in _texts(observed) and "Private notes" not in _texts(observed)
            b_shot = await b.call_tool("browser_screenshot", {})
            assert not b_shot.is_error and _image(b_shot) != _image(a_shot)  # B's blank tab, not A's red page
            runtimes = await _read(b, "actions://runtimes")
            assert SECRET not in json.dumps(runtimes) and a_tab not in {r["runtime_id"] for r in runtimes["runtimes"]}
            # Naming A's runtime is no way in: for B it does not exist.
            routed = await b.call_tool("page_observe", {"target": {"runtime_id": a_tab}})
            assert routed.is_error and routed.meta["mcp-actions/error"]["code"] == "runtime_not_found"
            # Cookies: A's context keeps A's cookie; B's context never had it.
            b_page = _data(await b.call_tool("browser_navigate", {"url": f"{site}/index.html"}))
            assert b_page["tab"]["title"] == "cookies:"
            a_again = _data(await a.call_tool("browser_navigate", {"url": f"{site}/index.html"}))
            assert a_again["tab"]["title"] == "cookies:who=alice"
            # A still sees its own tab only, and its launch report names its session and its own bridge credential.
            a_runtimes = await _read(a, "actions://runtimes")
            assert [r["runtime_id"] for r in a_runtimes["runtimes"]] == [a_tab]
            a_launch, b_launch = await _read(a, "actions://bridge/launch"), await _read(b, "actions://bridge/launch")
            assert a_launch["session"]["id"] != b_launch["session"]["id"]
            assert a_launch["session"]["bridge_credential"].startswith("ses.") and a_launch["bridge"]["extension_connect_url"] is None
            assert chromium_processes(served.process.pid)  # one browser, with both sessions' contexts
        # Both clients closed (DELETE): their contexts closed, and the browser with the last one.
        assert wait_until(lambda: not chromium_processes(served.process.pid), timeout=10), chromium_processes(served.process.pid)
        lines = [json.loads(line) for line in served.audit_log.read_text().splitlines()]
        sessions = {line["tool"]: line.get("session") for line in lines}
        assert sessions["browser.list_tabs"] == b_launch["session"]["id"] and sessions["browser.navigate"] in (a_launch["session"]["id"], b_launch["session"]["id"])
        assert {line["session"] for line in lines} == {a_launch["session"]["id"], b_launch["session"]["id"]}


async def test_stateless_clients_are_told_apart_by_the_handle_the_server_mints(tmp_path, site):
    """2026-07-28 clients have no Mcp-Session-Id: the first call mints a handle, passed back in _meta after that."""
    with http_serve(tmp_path) as served:
        async with Client(served.url) as a, Client(served.url) as b:
            first = await a.call_tool("browser_navigate", {"url": f"{site}/index.html?secret={SECRET}"})
            handle_a = (first.meta or {}).get(HANDLE)
            assert isinstance(handle_a, str) and handle_a, first.meta
            a_tab = _data(first)["runtime_id"]
            second = await b.call_tool("browser_list_tabs", {})
            handle_b = (second.meta or {}).get(HANDLE)
            assert handle_b and handle_b != handle_a
            assert SECRET not in json.dumps(_data(second))
            # With its handle, A is back in its own context: its tab is there, and B's is not.
            mine = _data(await a.call_tool("browser_list_tabs", {}, meta={HANDLE: handle_a}))
            assert [t["runtime_id"] for t in mine["tabs"]] == [a_tab]
            assert HANDLE not in ((await a.call_tool("browser_list_tabs", {}, meta={HANDLE: handle_a})).meta or {})  # not minted again
            theirs = await _read(b, "actions://runtimes", meta={HANDLE: handle_b})
            assert SECRET not in json.dumps(theirs)
            # A request with no handle sees no session's runtimes at all.
            nobody = await _read(b, "actions://runtimes")
            assert nobody["runtimes"] == []


async def test_max_sessions_refuses_the_one_beyond(tmp_path):
    with http_serve(tmp_path, "--max-sessions", "1", "--browser", "none") as served:
        async with Client(served.url, mode="legacy") as first:
            assert (await first.list_tools()).tools
            with pytest.raises(BaseException) as refused:  # the SDK wraps the HTTP refusal its own way
                async with Client(served.url, mode="legacy") as second:
                    await second.list_tools()
            assert "--max-sessions 1" in repr(refused.value) or "--max-sessions 1" in served.stderr.read_text()
            assert "refused a new MCP session" in served.stderr.read_text()
        # The first ended (DELETE): there is room again.
        async with Client(served.url, mode="legacy") as third:
            assert (await third.list_tools()).tools


async def test_an_idle_session_loses_its_context_and_nothing_is_left_running(tmp_path, site):
    with http_serve(tmp_path, "--session-idle-timeout", "1.5") as served:
        async with Client(served.url, mode="legacy") as client:
            _data(await client.call_tool("browser_navigate", {"url": f"{site}/index.html"}))
            assert chromium_processes(served.process.pid)
            started = time.monotonic()
            # Idle: within a sweep of the timeout, its context closes and the browser with it (it was the last).
            while chromium_processes(served.process.pid) and time.monotonic() - started < 10:
                await asyncio.sleep(0.2)
            assert not chromium_processes(served.process.pid)
            assert time.monotonic() - started >= 1.0
            assert "idle for more than 1.5 s" in served.stderr.read_text()


async def test_a_shared_browser_context_is_shared_and_still_names_each_session(tmp_path, site):
    """--shared-browser-context: one context for every session (as before #32), each session still on the record."""
    with http_serve(tmp_path, "--shared-browser-context") as served:
        async with Client(served.url, mode="legacy") as a, Client(served.url, mode="legacy") as b:
            opened = _data(await a.call_tool("browser_navigate", {"url": f"{site}/index.html?set=shared"}))
            tabs = _data(await b.call_tool("browser_list_tabs", {}))
            assert opened["runtime_id"] in {t["runtime_id"] for t in tabs["tabs"]}
            assert _data(await b.call_tool("browser_navigate", {"url": f"{site}/index.html"}))["tab"]["title"] == "cookies:who=shared"
            launch = await _read(b, "actions://bridge/launch")
            assert launch["session"]["isolated"] is False and "bridge_credential" not in launch["session"]
        lines = [json.loads(line) for line in served.audit_log.read_text().splitlines()]
        assert len({line["session"] for line in lines}) == 2


async def test_browser_launch_over_http_starts_the_sessions_browser_and_holds_no_profile(tmp_path, site):
    """--browser launch with a context per session: the sessions' browser starts at once, on no one's profile."""
    with http_serve(tmp_path, "--browser", "launch") as served:
        assert wait_until(lambda: bool(chromium_processes(served.process.pid)), timeout=20)
        assert not (tmp_path / ".cache" / "mcp-actions" / "chromium-profile").exists()  # HOME is tmp_path
        async with Client(served.url, mode="legacy") as client:
            assert _data(await client.call_tool("browser_navigate", {"url": f"{site}/index.html"}))["tab"]["title"] == "cookies:"
