"""WabDiscovery on its own: what it finds, announces and hands on, with a real site and stand-in collaborators."""

from __future__ import annotations

import asyncio
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.bridge.registry import RuntimeInfo, Trust
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.protocols.wab_discovery import WabDiscovery

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "wab"


#: Every path the bakery was asked for, in order.
REQUESTED: list[str] = []


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        REQUESTED.append(self.path)
        super().do_GET()


@pytest.fixture()
def bakery_url() -> Iterator[str]:
    """The WAB bakery at its own origin: /agent-bridge.json is its discovery document."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    REQUESTED.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Setting:
    """The collaborators a WabDiscovery is given, recording what it does with them."""

    def __init__(self) -> None:
        self.runtimes: dict[str, RuntimeInfo] = {}
        self.exposed: list[tuple[str, str | None, Any]] = []  # runtime id, document url, page actions
        self.announced: list[str] = []
        self.discovery = WabDiscovery(
            quiet_for=lambda: 60.0,  # no call in flight for a minute: discovery need not wait
            current=self.runtimes.get,
            extract=self._extract,
            expose=lambda runtime, found, page: self.exposed.append((runtime.runtime_id, found["url"] if found else None, page)),
            resources=self,
        )

    async def _extract(self, runtime_id: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
        raise ActionError("no dom.extract here", code=ErrorCode.CAPABILITY_UNAVAILABLE)

    def updated(self, uri: str) -> None:
        self.announced.append(f"updated {uri}")

    def list_changed(self) -> None:
        self.announced.append("list_changed")

    def connect(self, runtime_id: str, url: str, trust: Trust = "host") -> RuntimeInfo:
        info = RuntimeInfo(runtime_id=runtime_id, url=url, transport="inprocess", trust=trust)
        self.runtimes[runtime_id] = info
        return info

    async def settled(self) -> None:
        for _ in range(500):
            if not self.discovery.pending_count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("discovery never finished")


async def test_a_found_document_is_kept_announced_and_handed_on(bakery_url: str) -> None:
    setting = _Setting()
    runtime = setting.connect("r1", f"{bakery_url}/index.html")
    setting.discovery.seen(runtime)
    assert setting.exposed == [("r1", None, None)]  # nothing known yet: handed on at once, as empty
    await setting.settled()
    found = setting.discovery.documents["r1"]
    assert found["url"] == f"{bakery_url}/agent-bridge.json"
    assert isinstance(found["document"], dict)
    assert setting.announced == ["updated actions://runtimes/r1/wab", "list_changed"]
    assert setting.exposed[1:] == [("r1", f"{bakery_url}/agent-bridge.json", None)]
    await setting.discovery.aclose()


async def test_a_runtime_that_left_meanwhile_keeps_nothing(bakery_url: str) -> None:
    setting = _Setting()
    runtime = setting.connect("r1", f"{bakery_url}/index.html")
    setting.discovery.seen(runtime)
    del setting.runtimes["r1"]
    setting.discovery.forget("r1")
    await setting.settled()
    assert setting.discovery.documents == {} and setting.announced == []
    await setting.discovery.aclose()


async def test_a_runtime_that_left_keeps_nothing_even_when_no_other_arrives() -> None:
    # An agent session's tabs all end with it; nothing of them may wait for the next runtime to be swept.
    setting = _Setting()
    runtime = setting.connect("tab-1", "about:blank")
    runtime.page_tools = {"wab": [{"name": "addToCart", "description": "Add", "params": {}}]}
    setting.discovery.seen(runtime)
    del setting.runtimes["tab-1"]
    setting.discovery.forget("tab-1")
    assert setting.discovery._applied == {} and setting.discovery.origins == {}
    await setting.discovery.aclose()


async def test_only_a_change_is_handed_on_again() -> None:
    setting = _Setting()
    runtime = setting.connect("r1", "about:blank")  # no http(s) origin: nothing to look for
    setting.discovery.seen(runtime)
    setting.discovery.seen(runtime)  # every runtime_status passes here
    assert setting.exposed == [("r1", None, None)]
    actions = [{"name": "addToCart", "description": "Add", "params": {}}]
    runtime.page_tools = {"wab": actions}
    setting.discovery.seen(runtime)
    assert setting.exposed == [("r1", None, None), ("r1", None, actions)]
    assert setting.discovery.origins == {"r1": None} and setting.discovery.pending_count == 0
    await setting.discovery.aclose()


async def test_an_unproved_runtime_gets_no_request_sent_on_its_word(bakery_url: str) -> None:
    setting = _Setting()
    page = setting.connect("r1", f"{bakery_url}/admin/reset?confirm=yes", trust="page")
    setting.discovery.seen(page)
    await asyncio.sleep(0.1)
    await setting.settled()
    assert REQUESTED == [] and setting.discovery.documents == {}
    actions = [{"name": "addToCart", "description": "Add", "params": {}}]
    page.page_tools = {"wab": actions}
    setting.discovery.seen(page)  # what its own page's bridge lists is still its command set
    assert setting.exposed == [("r1", None, None), ("r1", None, actions)]
    # A proved runtime at the same URL: the fixed path of its origin, never the announced path and query.
    setting.discovery.seen(setting.connect("r2", f"{bakery_url}/admin/reset?confirm=yes", trust="paired"))
    await setting.settled()
    assert REQUESTED == ["/agent-bridge.json"] and setting.discovery.documents["r2"]["url"] == f"{bakery_url}/agent-bridge.json"
    await setting.discovery.aclose()


class _Redirecting(http.server.BaseHTTPRequestHandler):
    """Every path redirects to an admin action (same origin) or to another site."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        REQUESTED.append(self.path)
        self.send_response(302)
        self.send_header("Location", "/admin/reset?confirm=yes" if self.path == "/agent-bridge.json" else "http://127.0.0.1:9/wab.json")
        self.end_headers()


async def test_a_redirect_is_never_followed() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    REQUESTED.clear()
    try:
        setting = _Setting()
        setting.discovery.seen(setting.connect("r1", f"http://127.0.0.1:{server.server_address[1]}/shop"))
        await setting.settled()
        assert REQUESTED == ["/agent-bridge.json", "/.well-known/wab.json"] and setting.discovery.documents == {}
        await setting.discovery.aclose()
    finally:
        server.shutdown()
        server.server_close()


async def test_the_page_commands_wait_for_the_look_for_the_document(bakery_url: str) -> None:
    # Until the document is in, nothing says which permissions the site grants (issue 34 item 9).
    setting = _Setting()
    runtime = setting.connect("r1", f"{bakery_url}/index.html")
    actions = [{"name": "openPartnerSite", "description": "Open", "params": [], "trigger": "navigate"}]
    runtime.page_tools = {"wab": actions}
    setting.discovery.seen(runtime)
    setting.discovery.seen(runtime)  # a runtime_status meanwhile hands on nothing new
    assert setting.exposed == [("r1", None, None)] and setting.discovery.pending == {"r1": bakery_url}
    await setting.settled()
    assert setting.exposed == [("r1", None, None), ("r1", f"{bakery_url}/agent-bridge.json", actions)]
    assert setting.discovery.pending == {}
    await setting.discovery.aclose()
