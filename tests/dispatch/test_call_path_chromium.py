"""One call path to the page, in real headless Chromium through the SDK's in-process Client.

What a review of the call path found, each tried again here with the policy
``{"tools": "*", "origins": "http://localhost:P", "decision": "deny"}`` on a
server whose pages answer both as ``127.0.0.1:P`` (allowed) and ``localhost:P``
(denied):

- a navigation and a new tab are judged by their destination, not by the tab
  they start from; a redirect by where it lands;
- a built-in given a ``tab_id`` is judged by that tab (answering a denied tab's
  "Delete everything?" dialog is refused);
- ``browser_open_tab {active: false}`` leaves the active runtime alone;
- two sign-ins on one tab at once each get their own greeting (one acting call
  per tab), and a call that cannot get the tab within its time says it waited.

The pages are ``tests/fixtures/pages/call-path/`` (a bank-like sign-in form and a
settings page that asks ``confirm()``), served with one redirect route.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
MAP = PAGES / "call-path" / "actions.json"


class _Handler(SimpleHTTPRequestHandler):
    """The fixture pages, and ``/redirect?to=HOST``: a 302 to the sign-in page on that host name."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/redirect?to="):
            host = self.path.split("=", 1)[1]
            self.send_response(302)
            self.send_header("Location", f"http://{host}:{self.server.server_address[1]}/call-path/login.html")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def site() -> Iterator[int]:
    """The fixture pages on a free port of 127.0.0.1 (also reachable as localhost); yields the port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _write_policy(path: Path, port: int, *, deny: bool) -> str:
    rules = [{"tools": "*", "origins": f"http://localhost:{port}", "decision": "deny"}] if deny else []
    path.write_text(json.dumps({"rules": rules}), encoding="utf-8")
    return str(path)


@asynccontextmanager
async def _server(tmp_path: Path, port: int, *, deny: bool = True) -> AsyncIterator[tuple[ActionsApp, Client, Path]]:
    document = json.loads(MAP.read_text(encoding="utf-8"))
    document["surface"]["origin"] = f"http://127.0.0.1:{port}"
    manifest = tmp_path / "bank.actions.json"
    manifest.write_text(json.dumps(document), encoding="utf-8")
    policy = tmp_path / "policy.json"
    _write_policy(policy, port, deny=deny)
    options = AppOptions(
        manifests=[str(manifest)], browser="auto", headless=True, isolated=True, serve_bridge=False, policy=str(policy), audit_log=str(tmp_path / "audit.jsonl")
    )
    app = ActionsApp(options)
    async with Client(build_server(app)) as client:
        yield app, client, policy


def _ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def _error(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error and result.structured_content is not None, result.content
    error: dict[str, Any] = result.structured_content["error"]
    return error


def _tab_urls(app: ActionsApp) -> list[str]:
    return [r.url for r in app.bridge.registry.list() if not r.frame]


async def test_a_navigation_is_judged_by_its_destination_not_the_tab_it_starts_from(tmp_path, site):
    async with _server(tmp_path, site) as (app, client, _):
        allowed = f"http://127.0.0.1:{site}/call-path/login.html"
        _ok(await client.call_tool("browser_navigate", {"url": allowed}))
        denied = f"http://localhost:{site}/call-path/login.html"
        error = _error(await client.call_tool("browser_navigate", {"url": denied}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"
        assert error["evidence"]["origin"] == f"http://localhost:{site}"
        # The same with a new tab: refused before any tab opened.
        error = _error(await client.call_tool("browser_navigate", {"url": denied, "new_tab": True}))
        assert error["code"] == "permission_denied"
        error = _error(await client.call_tool("browser_open_tab", {"url": denied}))
        assert error["code"] == "permission_denied"
        assert _tab_urls(app) == [allowed]


async def test_a_redirect_is_judged_by_where_it_lands(tmp_path, site):
    async with _server(tmp_path, site) as (app, client, _):
        error = _error(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/redirect?to=localhost"}))
        assert error["code"] == "permission_denied" and error["evidence"]["origin"] == f"http://localhost:{site}"
        # Nothing is left acting on the page it landed on: the tab went blank.
        await asyncio.sleep(0.3)
        assert not any("localhost" in url for url in _tab_urls(app))
        # A redirect to an allowed page is fine.
        landed = _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/redirect?to=127.0.0.1"}))
        assert landed["tab"]["url"] == f"http://127.0.0.1:{site}/call-path/login.html"


async def test_a_tab_id_is_judged_by_its_own_tab(tmp_path, site):
    async with _server(tmp_path, site, deny=False) as (app, client, policy):
        _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        opened = _ok(await client.call_tool("browser_open_tab", {"url": f"http://localhost:{site}/call-path/confirm.html", "active": False}))
        # Deny localhost from now on; the settings tab asks "Delete everything?" meanwhile.
        _write_policy(policy, site, deny=True)
        assert await app.reload_policy()
        for _ in range(50):
            tabs = _ok(await client.call_tool("browser_list_tabs", {}))["tabs"]
            if any(t.get("dialog") for t in tabs):
                break
            await asyncio.sleep(0.1)
        error = _error(await client.call_tool("browser_dismiss_dialog", {"tab_id": opened["tab_id"], "accept": True}))
        assert error["code"] == "permission_denied" and error["evidence"]["origin"] == f"http://localhost:{site}"
        tabs = {t["tab_id"]: t for t in _ok(await client.call_tool("browser_list_tabs", {}))["tabs"]}
        assert tabs[opened["tab_id"]].get("dialog"), tabs  # still asking: nobody said yes
        # Closing it is judged by that tab too.
        assert _error(await client.call_tool("browser_close_tab", {"tab_id": opened["tab_id"]}))["code"] == "permission_denied"


async def test_a_tab_opened_in_the_background_does_not_become_the_active_runtime(tmp_path, site):
    async with _server(tmp_path, site, deny=False) as (app, client, _):
        first = _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))["runtime_id"]
        background = _ok(await client.call_tool("browser_open_tab", {"url": f"http://127.0.0.1:{site}/call-path/confirm.html", "active": False}))
        assert background["runtime_id"] != first
        await asyncio.sleep(0.3)  # its page loaded meanwhile
        assert app.bridge.registry.active_id == first
        # A tab opened in front does take the calls.
        front = _ok(await client.call_tool("browser_open_tab", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))
        assert app.bridge.registry.active_id == front["runtime_id"]


async def _page_logins(app: ActionsApp, runtime_id: str) -> list[dict[str, str]]:
    """What the sign-in page received, read from the page itself (window.__logins)."""
    tab = app.browser.tab(runtime_id)
    assert tab is not None
    logins: list[dict[str, str]] = await tab.page.evaluate("() => window.__logins")
    return logins


async def test_two_sign_ins_on_one_tab_each_get_their_own_greeting(tmp_path, site):
    async with _server(tmp_path, site, deny=False) as (app, client, _):
        tab = _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))["runtime_id"]
        users = [f"user{i}" for i in range(8)]
        results = await asyncio.gather(*(client.call_tool("bank_login", {"user": u, "password": f"secret-{u}"}) for u in users))
        assert [_ok(r)["greeting"] for r in results] == [f"Logged in as {u}" for u in users]
        # What the page received: each user with their own password, none typed into another's field.
        logins = await _page_logins(app, tab)
        assert sorted(logins, key=lambda login: login["user"]) == [{"user": u, "password": f"secret-{u}"} for u in users]


async def test_a_call_that_cannot_have_the_tab_in_time_says_it_waited_for_it(tmp_path, site):
    async with _server(tmp_path, site, deny=False) as (app, client, _):
        tab = _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))["runtime_id"]
        slow = asyncio.create_task(client.call_tool("bank_login", {"user": "slow", "password": "p"}))
        for _ in range(500):  # until it holds the tab's turn
            if app.service.turns.busy(tab):
                break
            await asyncio.sleep(0.002)
        rushed = _error(await client.call_tool("bank_login", {"user": "rushed", "password": "p", "timeout_ms": 30}))
        assert rushed["code"] == "handler_timeout" and rushed["evidence"]["phase"] == "waiting_for_tab"
        assert rushed["evidence"]["busy_with"] == ["bank.login"]
        assert _ok(await slow)["greeting"] == "Logged in as slow"


async def test_a_workflow_step_on_a_page_it_was_not_judged_for_is_judged_again_before_it_acts(tmp_path, site):
    async with _server(tmp_path, site) as (app, client, _):
        tab = _ok(await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{site}/call-path/login.html"}))["runtime_id"]
        # Judged on the 127.0.0.1 page (allowed); its first step follows a link to localhost (denied).
        error = _error(await client.call_tool("bank_statements_note", {"note": "typed where it was denied"}))
        assert error["code"] == "permission_denied" and error["evidence"]["reason"] == "policy"
        assert error["evidence"]["origin"] == f"http://localhost:{site}"
        page = app.browser.tab(tab)
        assert page is not None and page.page.url.startswith(f"http://localhost:{site}/")
        assert await page.page.evaluate("() => document.getElementById('user').value") == ""  # nothing typed
        last = json.loads((tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()[-1])
        assert (last["tool"], last["decision"], last["code"]) == ("bank.statements_note", "denied", "permission_denied")
