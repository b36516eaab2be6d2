"""The board scenario through the SDK Client on a memory runtime whose page is a Python board.

The memory runtime is shipped code (not a mock); its page here answers
``dom.extract`` and the input primitives the way the board fixture page does,
so the whole projection layer (dispatch, service, budgets, diffs,
postconditions, resources, change hooks) runs without a browser.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.events import ProjectionChanged
from mcp_actions.runtimes.memory import MemoryRuntime
from mcp_actions.server.mcp_server import build_server

from .scenario import run_board_scenario

BOARD_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "board"
LIST_SELECTOR = "[data-testid='board'] [data-testid='list']"
HISTORY_SELECTOR = "[data-testid='history-entry']"


class BoardPage:
    """The board fixture's data and behaviour, as a page a memory runtime serves."""

    def __init__(self) -> None:
        self.lists = [
            {"id": "todo", "name": "To do", "cards": [{"id": "c1", "title": "Write spec", "labels": ["docs"]}, {"id": "c2", "title": "Plan sprint", "labels": []}]},
            {"id": "doing", "name": "Doing", "cards": [{"id": "c3", "title": "Build board", "labels": ["ui", "p1"]}]},
            {"id": "done", "name": "Done", "cards": [{"id": "c4", "title": "Kickoff", "labels": []}, {"id": "c5", "title": "Hire team", "labels": ["hr"]}]},
        ]
        self.history = [f"event {i}: card moved between lists by a teammate, long description text" for i in range(1500)]
        self.next_id = 6
        self.typed: dict[str, str] = {}
        self.armed = False
        self.extract_calls = 0

    def extract(self, args: dict[str, Any]) -> dict[str, Any]:
        self.extract_calls += 1
        records: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for entry in args["extract"]:
            key = entry["id"]
            if entry["selector"] == LIST_SELECTOR:
                records[key] = [
                    {"id": lst["id"], "name": lst["name"], "cards": [{"id": c["id"], "title": c["title"], "labels": [{"text": t} for t in c["labels"]]} for c in lst["cards"]]}
                    for lst in self.lists
                ]
                cards = [c for lst in self.lists for c in lst["cards"]]
                counts.update({key: len(self.lists), f"{key}.id": len(self.lists), f"{key}.name": len(self.lists), f"{key}.cards": len(cards)})
                counts.update({f"{key}.cards.id": len(cards), f"{key}.cards.title": len(cards), f"{key}.cards.labels": sum(len(c["labels"]) for c in cards)})
            elif entry["selector"] == HISTORY_SELECTOR:
                records[key] = [{"text": text} for text in self.history]
                counts.update({key: len(self.history), f"{key}.text": len(self.history)})
            else:
                records[key] = []
                counts[key] = 0
        return {"records": records, "diagnostics": {"selector_counts": counts, "missing_required_fields": []}}

    def insert(self, args: dict[str, Any]) -> dict[str, Any]:
        match = re.search(r"data-list-id='(\w+)'", args["target"]["selector"])
        assert match, args
        self.typed[match[1]] = args["text"]
        return {"inserted": True, "inserted_length": len(args["text"])}

    def element_info(self, args: dict[str, Any]) -> dict[str, Any]:
        selector = args["locator"]["selector"]
        if "clear-done" in selector:
            return {"clickable_center": {"x": 900, "y": 40}, "visible": True, "matched_by": "selector", "match_count": 1}
        index = [lst["id"] for lst in self.lists].index(re.search(r"data-list-id='(\w+)'", selector)[1])
        return {"clickable_center": {"x": 100 + 240 * index, "y": 300}, "visible": True, "matched_by": "selector", "match_count": 1}

    def click(self, args: dict[str, Any]) -> dict[str, Any]:
        if args["x"] == 900:
            if self.armed:
                self.lists[2]["cards"] = []
            self.armed = True  # the first click only arms the button
            return {"clicked": True}
        target = self.lists[(int(args["x"]) - 100) // 240]
        title = self.typed.pop(target["id"], "").strip()
        if title:
            target["cards"].append({"id": f"c{self.next_id}", "title": title, "labels": []})
            self.history.append(f"added c{self.next_id} to {target['id']}")
            self.next_id += 1
        return {"clicked": True}


async def test_board_scenario_on_a_memory_runtime():
    app = ActionsApp(AppOptions(manifests=[str(BOARD_DIR)], browser="none", serve_bridge=False))
    page = BoardPage()
    async with Client(build_server(app)) as client:
        runtime = MemoryRuntime(
            app.bridge,
            runtime_id="board-1",
            url="http://board.test/",
            primitives={
                "dom.extract": page.extract,
                "text.insert": page.insert,
                "locator.element_info": page.element_info,
                "pointer.click": page.click,
                "locator.wait_for": lambda a: {"matched": True},
            },
        )
        await runtime.start()
        try:
            await run_board_scenario(client, "board-1")
        finally:
            await runtime.stop()


async def test_one_round_trip_for_many_projections_and_change_hook_after_a_call():
    app = ActionsApp(AppOptions(manifests=[str(BOARD_DIR)], browser="none", serve_bridge=False))
    page = BoardPage()
    changes: list[tuple[str, str]] = []
    app.projections.events.subscribe(ProjectionChanged, lambda event: changes.append((event.runtime_id, event.projection)))
    runtime = MemoryRuntime(
        app.bridge, runtime_id="board-2", url="http://board.test/",
        primitives={"dom.extract": page.extract, "text.insert": page.insert, "locator.element_info": page.element_info,
                    "pointer.click": page.click, "locator.wait_for": lambda a: {"matched": True}},
    )  # fmt: skip
    app.load_manifests()
    await app.bridge.start()
    await runtime.start()
    try:
        projections = list(app.projections.projections("board-2").values())
        assert sorted(p.name for p in projections) == ["board.history", "board.state"]
        results = await app.projections.observe_all("board-2", projections)
        assert page.extract_calls == 1  # both projections, one dom.extract
        assert results["board.state"].state["lists"][0]["id"] == "todo"  # type: ignore[union-attr]  # a read that succeeded has its state
        # A watched projection is refreshed after each call; listeners hear of real changes only.
        app.projections.watch("board-2", "board.state")
        await app.service.call("board_add_card", {"list_id": "todo", "title": "One"})
        assert changes == [("board-2", "board.state")]
        with pytest.raises(ActionError) as caught:  # the first click only arms the button: no change
            await app.service.call("board_clear_done", {})
        assert caught.value.code == ErrorCode.STATE_MISMATCH
        assert changes == [("board-2", "board.state")]
    finally:
        await runtime.stop()
        await app.bridge.stop()


async def test_resource_updated_reaches_a_subscribed_client():
    # Handshake-era resources/subscribe; 2026-07-28 listen subscriptions are the server plumbing's to map onto watch().
    app = ActionsApp(AppOptions(manifests=[str(BOARD_DIR)], browser="none", serve_bridge=False))
    page = BoardPage()
    updates: list[str] = []
    got = asyncio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(str(root.params.uri))
            got.set()

    async with Client(build_server(app), mode="legacy", message_handler=on_message) as client:
        runtime = MemoryRuntime(
            app.bridge, runtime_id="board-3", url="http://board.test/",
            primitives={"dom.extract": page.extract, "text.insert": page.insert, "locator.element_info": page.element_info,
                        "pointer.click": page.click, "locator.wait_for": lambda a: {"matched": True}},
        )  # fmt: skip
        await runtime.start()
        try:
            uri = "actions://runtimes/board-3/projections/board.state"
            await client.subscribe_resource(uri)
            result = await client.call_tool("board_add_card", {"list_id": "done", "title": "Ship"})
            assert not result.is_error, result
            await asyncio.wait_for(got.wait(), 5)
            assert uri in updates
        finally:
            await runtime.stop()


async def test_listen_stream_watches_the_projections_it_names():
    # 2026-07-28: a subscriptions/listen stream naming a projection resource makes it watched while it is open.
    app = ActionsApp(AppOptions(manifests=[str(BOARD_DIR)], browser="none", serve_bridge=False))
    page = BoardPage()
    async with Client(build_server(app), mode="auto") as client:
        runtime = MemoryRuntime(
            app.bridge, runtime_id="board-4", url="http://board.test/",
            primitives={"dom.extract": page.extract, "text.insert": page.insert, "locator.element_info": page.element_info,
                        "pointer.click": page.click, "locator.wait_for": lambda a: {"matched": True}},
        )  # fmt: skip
        await runtime.start()
        try:
            uri = "actions://runtimes/board-4/projections/board.state"
            diff_uri = f"{uri}/diff"
            assert not app.projections.watching("board-4", "board.state")
            async with client.listen(resource_subscriptions=[uri, diff_uri, "actions://nothing/here"]) as events:
                assert app.projections.watching("board-4", "board.state")
                before = page.extract_calls
                result = await client.call_tool("board_add_card", {"list_id": "done", "title": "Ship"})
                assert not result.is_error, result
                watched_extracts = page.extract_calls - before
                heard: set[str] = set()

                async def collect() -> None:
                    async for event in events:
                        heard.add(str(event.uri))
                        if {uri, diff_uri} <= heard:
                            return

                await asyncio.wait_for(collect(), 5)
                # A second stream on the same URI keeps it watched when the first one ends.
                async with client.listen(resource_subscriptions=[uri]) as _second:
                    pass
                assert app.projections.watching("board-4", "board.state")
            # Both streams ended: nothing re-reads the projection after calls any more.
            for _ in range(50):
                if not app.projections.watching("board-4", "board.state"):
                    break
                await asyncio.sleep(0.02)
            assert not app.projections.watching("board-4", "board.state")
            before = page.extract_calls
            assert not (await client.call_tool("board_add_card", {"list_id": "done", "title": "Again"})).is_error
            assert page.extract_calls - before == watched_extracts - 1  # the watch's re-read after the call is gone
        finally:
            await runtime.stop()
