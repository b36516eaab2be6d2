"""agent/act makes the calls of the core an MCP client's page_act makes for the same task (issue 55).

The task of bench/bench_bap.py on a small to-do page: three to-dos typed into the box its
placeholder names, each submitted by Enter, then "Mark all as complete" checked. The audit log
holds one line per call of the core, with the client's name: it says which calls each door made.
The same task goes through both doors of one server, and the calls must be the same.
"""

from __future__ import annotations

import json

import pytest

bap = pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient  # noqa: E402  # after the skip
from mcp import Client  # noqa: E402
from mcp.types import Implementation  # noqa: E402

from tests.bap.bap_server import Server, client  # noqa: E402

PLACEHOLDER = "What needs to be done?"
BOX = {"type": "placeholder", "value": PLACEHOLDER}
CHECK_ALL = {"type": "label", "value": "Mark all as complete"}
TODOS = ("milk", "eggs", "bread")


def _steps(check_twice: bool = False) -> list[dict[str, object]]:
    steps = []
    for todo in TODOS:
        steps.append(BAPClient.step("action/fill", {"selector": BOX, "value": todo}))
        steps.append(BAPClient.step("action/press", {"selector": BOX, "key": "Enter"}))
    steps.append(BAPClient.step("action/check", {"selector": CHECK_ALL}))
    if check_twice:
        steps.append(BAPClient.step("action/check", {"selector": CHECK_ALL}))
    return steps


def _calls(server: Server, name: str) -> list[str]:
    lines = [json.loads(line) for line in server.audit.read_text().splitlines() if line.strip()]
    return [line["tool"] for line in lines if line.get("client") == name and line.get("decision", "allowed") != "denied"]


async def _act_calls(server: Server, name: str, page: str, *, check_twice: bool = False) -> tuple[list[str], object, str]:
    made, done, text, _ = await _task_calls(server, name, page, check_twice=check_twice)
    return made, done, text


async def _task_calls(server: Server, name: str, page: str, *, check_twice: bool = False) -> tuple[list[str], object, str, list[str]]:
    """The act's calls, its result, the page's text after it, and the whole task's calls (page/create to observe/content)."""
    async with client(server, name) as c:
        await c.create_page(url=page)
        before = len(_calls(server, f"bap:{name}"))
        done = await c.act(_steps(check_twice))
        made = _calls(server, f"bap:{name}")[before:]
        text = (await c.content()).content
    return made, done, text, _calls(server, f"bap:{name}")


async def _page_act_calls(server: Server, name: str, page: str) -> tuple[list[str], str, list[str]]:
    """The same task through the MCP door, as bench/bench_bap.py's MCP client does it: one page_act."""
    async with Client(server.mcp_url, mode="legacy", client_info=Implementation(name=name, version="1")) as mcp:
        opened = await mcp.call_tool("browser_navigate", {"url": page})
        assert not opened.is_error, opened.content
        before = len(_calls(server, name))
        steps: list[dict[str, object]] = [{"tool": "page_fill", "arguments": {"text": PLACEHOLDER, "value": todo, "submit": True}} for todo in TODOS]
        steps.append({"tool": "page_click", "arguments": {"text": "Mark all as complete"}})
        acted = await mcp.call_tool("page_act", {"steps": steps})
        assert not acted.is_error, acted.content
        made = _calls(server, name)[before:]
        read = await mcp.call_tool("page_read", {})
    return made, "".join(getattr(c, "text", "") for c in read.content), _calls(server, name)


async def test_the_todo_task_makes_the_calls_page_act_makes(server: Server) -> None:
    made, done, text, task = await _task_calls(server, "act-calls", server.page("todo.html"))
    assert done.success and done.completed == 7 and [r.success for r in done.results] == [True] * 7, done  # type: ignore[attr-defined]
    assert "0 items left" in text, text[-300:]
    through_mcp, read, mcp_task = await _page_act_calls(server, "act-calls-mcp", server.page("todo.html"))
    assert "0 items left" in read, read[-300:]
    steps = [tool for tool in through_mcp if tool != "page.act"]  # page_act's own line, then one line per step
    assert through_mcp.count("page.act") == 1 and steps == ["page.fill", "page.fill", "page.fill", "page.click"], through_mcp
    # Each fill and its Enter one call, the box named by its placeholder found by that call, the box checked by one click
    # that reads its state itself: the calls page_act makes (15 before issue 55, then 6 with a page_find for each selector).
    assert made == steps, made
    # The whole task too: page/create (the new context's tab listed, then taken to the page: its answer says the
    # page) and observe/content, against browser_navigate, page_act with its steps, and page_read.
    assert len(task) == len(mcp_task) == 7, (task, mcp_task)


async def test_a_box_the_page_makes_anew_is_found_by_each_step(server: Server) -> None:
    """The page makes its box anew after every addition: each step finds the box its placeholder names then."""
    made, done, text = await _act_calls(server, "act-replaced", server.page("todo.html?replace"))
    assert done.success and done.completed == 7, done  # type: ignore[attr-defined]
    assert "0 items left" in text and "bread (done)" in text, text[-300:]
    assert made == ["page.fill", "page.fill", "page.fill", "page.click"], made


async def test_checking_a_checked_box_leaves_it_checked_in_one_call(server: Server) -> None:
    """action/check on a box already checked makes no click (BAP's check is idempotent), still one call."""
    made, done, text = await _act_calls(server, "act-check-twice", server.page("todo.html"), check_twice=True)
    assert done.success and done.completed == 8, done  # type: ignore[attr-defined]
    assert "0 items left" in text and "bread (done)" in text, text[-300:]  # a second click would have undone all three
    assert made == ["page.fill", "page.fill", "page.fill", "page.click", "page.click"], made
