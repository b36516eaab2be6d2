"""agent/act makes the calls of the core an MCP client's page_act makes for the same task (issue 55).

The task of bench/bench_bap.py on a small to-do page: three to-dos typed into the box its
placeholder names, each submitted by Enter, then "Mark all as complete" checked. The audit log
holds one line per call of the core, with the client's name: it says which calls the act made.
"""

from __future__ import annotations

import json

import pytest

bap = pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient  # noqa: E402  # after the skip

from tests.bap.bap_server import Server, client  # noqa: E402

BOX = {"type": "placeholder", "value": "What needs to be done?"}
TODOS = ("milk", "eggs", "bread")


def _steps() -> list[dict[str, object]]:
    steps = []
    for todo in TODOS:
        steps.append(BAPClient.step("action/fill", {"selector": BOX, "value": todo}))
        steps.append(BAPClient.step("action/press", {"selector": BOX, "key": "Enter"}))
    steps.append(BAPClient.step("action/check", {"selector": {"type": "label", "value": "Mark all as complete"}}))
    return steps


def _calls(server: Server, name: str) -> list[str]:
    lines = [json.loads(line) for line in server.audit.read_text().splitlines() if line.strip()]
    return [line["tool"] for line in lines if line.get("client") == f"bap:{name}" and line.get("decision", "allowed") != "denied"]


async def _act_calls(server: Server, name: str, page: str) -> tuple[list[str], object, str]:
    async with client(server, name) as c:
        await c.create_page(url=page)
        before = len(_calls(server, name))
        done = await c.act(_steps())
        made = _calls(server, name)[before:]
        text = (await c.content()).content
    return made, done, text


async def test_the_todo_task_makes_the_calls_page_act_makes(server: Server) -> None:
    made, done, text = await _act_calls(server, "act-calls", server.page("todo.html"))
    assert done.success and done.completed == 7 and [r.success for r in done.results] == [True] * 7, done  # type: ignore[attr-defined]
    assert "0 items left" in text, text[-300:]
    # The box found once for the act, each fill and its Enter one call, the box to check found with its state, then clicked:
    # page_act makes the three fills and the click (15 calls of the core before).
    assert made == ["page.find", "page.fill", "page.fill", "page.fill", "page.find", "page.click"], made


async def test_a_remembered_box_that_left_the_page_is_found_again(server: Server) -> None:
    """The page makes its box anew after every addition: the ref found first names nothing, so the step finds it again."""
    made, done, text = await _act_calls(server, "act-replaced", server.page("todo.html?replace"))
    assert done.success and done.completed == 7, done  # type: ignore[attr-defined]
    assert "0 items left" in text and "bread (done)" in text, text[-300:]
    assert made.count("page.find") == 4, made  # the box once, again after each of the two replacements, and the box to check
