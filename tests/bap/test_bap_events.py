"""BAP's events (docs/bap.md, "Events"): page, console and dialog events of the connection's own tabs, as the released client hears them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient, role  # after the skip
from browseragentprotocol.types.events import ConsoleEvent, DialogEvent, PageEvent

from tests.bap.bap_server import Server, client


def _listen(c: BAPClient) -> list[dict[str, Any]]:
    heard: list[dict[str, Any]] = []
    for kind in ("page", "console", "dialog"):
        c.on(kind, heard.append)
    return heard


async def _until(check: Callable[[], bool], timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "the event never came"
        await asyncio.sleep(0.05)


async def test_page_console_and_dialog_events_of_the_connections_own_tabs(server: Server) -> None:
    async with client(server, "watcher") as a, client(server, "other") as b:
        heard_a, heard_b = _listen(a), _listen(b)
        page_b = await b.create_page(url=server.page("form.html"))
        page = await a.create_page(url=server.page("events.html"))
        await _until(lambda: any(e["type"] == "page" and e["event"] == "load" and e["pageId"] == page.id for e in heard_a))
        navigated = [PageEvent.model_validate(e) for e in heard_a if e["type"] == "page" and e["event"] == "navigated"]
        assert navigated and navigated[-1].url == server.page("events.html") and navigated[-1].page_id == page.id

        await a.click(role("button", "Log"))
        await a.click(role("button", "Fail"))
        await a.click(role("button", "Alert"))
        await _until(lambda: sum(e["type"] == "console" for e in heard_a) >= 3 and any(e["type"] == "dialog" for e in heard_a))
        console = [ConsoleEvent.model_validate(e) for e in heard_a if e["type"] == "console"]
        assert [(c.level.value, c.text) for c in console][:2] == [("log", "hello from the page"), ("warn", "careful")]
        assert console[2].level.value == "error" and "the page broke" in console[2].text
        dialog = DialogEvent.model_validate(next(e for e in heard_a if e["type"] == "dialog"))
        assert (dialog.dialog_type.value, dialog.message, dialog.page_id) == ("alert", "Saved!", page.id)

        await a.click(role("link", "To the form"))
        await _until(lambda: any(e["type"] == "page" and e["event"] == "navigated" and e["url"] == server.page("form.html") for e in heard_a))
        # The other connection heard its own page's events, and none of the first one's tabs.
        assert {e["pageId"] for e in heard_a} == {page.id}
        assert heard_b and {e["pageId"] for e in heard_b} == {page_b.id}


async def test_only_the_kinds_subscribed_to_are_sent(server: Server) -> None:
    async with client(server, "quiet", events=["console"]) as c:
        heard = _listen(c)
        await c.create_page(url=server.page("events.html"))
        await c.click(role("button", "Log"))
        await _until(lambda: any(e["type"] == "console" for e in heard))
        await c.click(role("button", "Alert"))
        await asyncio.sleep(0.3)
        assert {e["type"] for e in heard} == {"console"}
