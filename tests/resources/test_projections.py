"""State projections as resources, over a real projection service, bridge and memory runtime: state, summaries, diff, subscriptions."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.catalog.catalog import Catalog
from mcp_actions.errors import ActionError
from mcp_actions.events import ResourceUpdated
from mcp_actions.projection.registry import ProjectionRegistry
from mcp_actions.projection.service import ProjectionService
from mcp_actions.resources.builtin import DIFF, PROJECTION, SUMMARY
from mcp_actions.resources.projections import projection_resource_uris, register_projection_resources
from mcp_actions.resources.registry import ResourceRegistry
from mcp_actions.runtimes.memory import MemoryRuntime

from ..catalog.maps import handler_tool, loaded, manifest
from ..manifest.builders import PROJECTION as BOARD

STATE = "actions://runtimes/tab-1/projections/site.board"
DIFF_URI = f"{STATE}/diff"
COUNTS = f"{STATE}/summaries/counts"


class Board:
    """The page: lists of cards, answered to ``dom.extract`` the way the page runtime answers."""

    def __init__(self) -> None:
        self.lists = [{"name": "To do", "cards": [{"title": "Write spec"}]}, {"name": "Done", "cards": []}]
        self.extracts = 0

    def extract(self, args: dict[str, Any]) -> dict[str, Any]:
        self.extracts += 1
        # A copy, as a real page's answer is: it arrives as JSON, never shares the page's objects.
        records = {entry["id"]: copy.deepcopy(self.lists) for entry in args["extract"]}
        counts = {entry["id"]: len(self.lists) for entry in args["extract"]}
        return {"records": records, "diagnostics": {"selector_counts": counts, "missing_required_fields": []}}


@dataclass
class Served:
    registry: ResourceRegistry
    projections: ProjectionService
    board: Board


@contextlib.asynccontextmanager
async def served() -> AsyncIterator[Served]:
    """The projection resources of a map declaring ``site.board``, a runtime on its site (tab-1) and one elsewhere (tab-2)."""
    catalog = Catalog()
    catalog.set_manifests([loaded(manifest(handler_tool("board.add"), origin="https://board.test", state_projections=[BOARD]), namespace="board")])
    bridge = Bridge()
    await bridge.start()

    async def extract(runtime_id: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
        return await bridge.call("dom.extract", arguments, runtime_id=runtime_id, timeout_ms=timeout_ms)

    projections = ProjectionService(extract=extract, projections_for=ProjectionRegistry(catalog, bridge.registry.get).for_runtime)
    registry = ResourceRegistry()
    register_projection_resources(registry, projections=projections, runtimes=bridge.registry)
    board = Board()
    on_board = MemoryRuntime(bridge, runtime_id="tab-1", url="https://board.test/b/1", primitives={"dom.extract": board.extract})
    elsewhere = MemoryRuntime(bridge, runtime_id="tab-2", url="https://blog.test/", primitives={"dom.extract": board.extract})
    await on_board.start()
    await elsewhere.start()
    try:
        yield Served(registry, projections, board)
    finally:
        await on_board.stop()
        await elsewhere.stop()
        await bridge.stop()


def test_a_projections_uris_are_its_state_its_diff_and_each_summary():
    assert projection_resource_uris("tab-1", "site.board", ["counts", "titles"]) == [STATE, DIFF_URI, COUNTS, f"{STATE}/summaries/titles"]
    assert projection_resource_uris("tab-1", "site.board") == [STATE, DIFF_URI]


async def test_each_runtimes_projections_are_listed_with_their_summaries_and_diff():
    async with served() as s:
        assert {p.template for p in s.registry.providers()} == {PROJECTION, SUMMARY, DIFF}
        assert {e.uri: e.name for e in s.registry.entries()} == {
            STATE: "projection-tab-1-site.board",
            COUNTS: "projection-summary-tab-1-site.board-counts",
            DIFF_URI: "projection-diff-tab-1-site.board",
        }  # tab-2 is on no map's site: nothing
        assert s.board.extracts == 0  # listing reads nothing from the page


async def test_the_state_resource_reads_the_page_now():
    async with served() as s:
        read = await s.registry.read(STATE)
        assert (read["runtime_id"], read["projection"]) == ("tab-1", "site.board")
        assert read["state"] == {"lists": s.board.lists}
        assert read["diagnostics"]["selector_counts"] == {"lists": 2}
        assert read["observed_at"].endswith("Z")
        s.board.lists.append({"name": "Doing", "cards": []})
        assert (await s.registry.read(STATE))["state"]["lists"][-1]["name"] == "Doing"
        assert s.board.extracts == 2


async def test_a_summary_resource_is_the_declared_summary_within_its_budget():
    async with served() as s:
        read = await s.registry.read(COUNTS)
        assert (read["projection"], read["summary"], read["value"], read["max_bytes"]) == ("site.board", "counts", {"n": 2}, 2000)
        assert 0 < read["bytes"] <= 2000


async def test_the_diff_resource_is_what_changed_since_the_last_read():
    async with served() as s:
        first = await s.registry.read(DIFF_URI)
        assert (first["baseline"], first["changed"], first["patch"]) == (True, False, [])  # nothing to compare with yet
        s.board.lists[1]["cards"].append({"title": "Ship"})
        second = await s.registry.read(DIFF_URI)
        assert (second["baseline"], second["changed"]) == (False, True)
        assert second["patch"] == [{"op": "add", "path": "/lists/1/cards/0", "value": {"title": "Ship"}}]
        assert (await s.registry.read(DIFF_URI))["changed"] is False  # that read was the new baseline


@pytest.mark.parametrize(
    "uri",
    [
        "actions://runtimes/tab-2/projections/site.board",  # a runtime the map does not apply to
        "actions://runtimes/tab-2/projections/site.board/diff",
        "actions://runtimes/tab-2/projections/site.board/summaries/counts",
        "actions://runtimes/gone/projections/site.board",  # no such runtime
        "actions://runtimes/tab-1/projections/site.nothing",  # no such projection
        "actions://runtimes/tab-1/projections/site.nothing/diff",
        "actions://runtimes/tab-1/projections/site.nothing/summaries/counts",
    ],
)
async def test_what_names_no_projection_is_resource_not_found_and_reads_nothing(uri):
    async with served() as s:
        with pytest.raises(ActionError) as caught:
            await s.registry.read(uri)
        assert (caught.value.code, caught.value.evidence) == ("resource_not_found", {"uri": uri})
        assert s.board.extracts == 0


async def test_a_summary_the_projection_does_not_declare_is_resource_not_found():
    async with served() as s:
        uri = f"{STATE}/summaries/nothing"
        with pytest.raises(ActionError) as caught:
            await s.registry.read(uri)
        assert caught.value.code == "resource_not_found"


async def test_subscribing_to_any_of_a_projections_resources_watches_it_until_the_last_unsubscribes():
    async with served() as s:
        assert not s.projections.watching("tab-1", "site.board")
        s.registry.watch(STATE)
        s.registry.watch(COUNTS)
        assert s.projections.watching("tab-1", "site.board")
        s.registry.unwatch(STATE)
        assert s.projections.watching("tab-1", "site.board")  # the summary's subscription still holds it
        s.registry.unwatch(COUNTS)
        assert not s.projections.watching("tab-1", "site.board")
        s.registry.watch(DIFF_URI)
        assert s.projections.watching("tab-1", "site.board")


async def test_a_watched_projection_that_changed_after_a_call_updates_its_state_diff_and_summaries():
    async with served() as s:
        heard: list[str] = []
        s.registry.events.subscribe(ResourceUpdated, lambda event: heard.append(event.uri))
        await s.projections.after_call("tab-1")
        assert heard == [] and s.board.extracts == 0  # nobody subscribed: nothing is re-read
        s.registry.watch(STATE)
        await s.projections.after_call("tab-1")  # the first value seen is a change
        assert heard == [STATE, DIFF_URI, COUNTS]
        heard.clear()
        await s.projections.after_call("tab-1")  # the page did not change
        assert heard == []
        s.board.lists[0]["cards"].append({"title": "Review"})
        await s.projections.after_call("tab-1")
        assert heard == [STATE, DIFF_URI, COUNTS]
