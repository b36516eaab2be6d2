"""``agent/observe``'s incremental changes and ``stability`` (docs/bap.md, "Incremental observation"), with the released client."""

from __future__ import annotations

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import role  # after the skip
from browseragentprotocol.types.agent import AgentObserveResult, InteractiveElement

from tests.bap.bap_server import Server, client


async def test_incremental_changes_since_the_connections_last_observe_and_moved_elements(server: Server) -> None:
    async with client(server, "incremental") as c:
        await c.create_page(url=server.page("changing.html"))
        first = await c._request("agent/observe", {"incremental": True})
        by_name = {e["name"]: e for e in first["interactiveElements"]}
        assert {e["stability"] for e in first["interactiveElements"]} == {"new"}
        assert {e["ref"] for e in first["changes"]["added"]} == set(e["ref"] for e in first["interactiveElements"])

        await c.click(role("button", "Change"))
        raw = await c._request("agent/observe", {"incremental": True})
        changes = raw["changes"]
        added = {e["name"]: InteractiveElement.model_validate(e) for e in changes["added"]}
        assert set(added) == {"Undo", "Refresh"}
        assert [e["name"] for e in changes["updated"]] == ["Name"] and changes["updated"][0]["value"] == "Ada"
        assert set(changes["removed"]) == {by_name["Remove me"]["ref"], by_name["Refresh"]["ref"]}
        # The re-rendered button: a new ref, found where one of its role and name went.
        assert added["Refresh"].stability is not None and added["Refresh"].stability.value == "moved"
        assert added["Refresh"].previous_ref == by_name["Refresh"]["ref"]
        assert added["Undo"].stability is not None and added["Undo"].stability.value == "new"
        result = AgentObserveResult.model_validate(raw)
        stable = {e.name: e.stability.value for e in result.interactive_elements or [] if e.stability is not None}
        assert stable["Change"] == "stable" and stable["Name"] == "stable"

        unchanged = await c._request("agent/observe", {"incremental": True})
        assert unchanged["changes"] == {"added": [], "updated": [], "removed": []}
