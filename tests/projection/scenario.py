"""The board scenario every runtime must pass through the SDK Client: read, summary, diff, budgets, postconditions.

Shared by the Chromium end-to-end test (the real page and engine) and the
memory-runtime test (a Python board answering dom.extract), so both hold the
projection layer to the same observable behaviour.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp import Client

from mcp_actions.jsonutil import json_size


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return result.structured_content


async def site(client: Client, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool("actions_site", arguments)


async def run_board_scenario(client: Client, runtime_id: str) -> None:
    """Every promise of issue 10 on the board, in the order an agent meets them."""
    route = {"target_runtime_id": runtime_id}
    # state_read: lists and cards, with selector counts.
    read = await site(client, mode="state_read", projection_name="board.state", **route)
    assert not read.is_error, read
    state = structured(read)
    assert [lst["name"] for lst in state["state"]["lists"]] == ["To do", "Doing", "Done"]
    assert [c["title"] for c in state["state"]["lists"][0]["cards"]] == ["Write spec", "Plan sprint"]
    assert state["state"]["lists"][1]["cards"][0]["labels"] == ["ui", "p1"]
    counts = state["diagnostics"]["selector_counts"]
    assert counts["lists"] == 3 and counts["lists.name"] == 3 and counts["lists.cards"] == 5 and counts["lists.cards.title"] == 5
    assert state["diagnostics"]["missing_required_fields"] == []
    assert state["observed_at"].endswith("Z")

    # A summary within its declared budget.
    summary = structured(await site(client, mode="state_summary", projection_name="board.state", summary_name="agent_context", **route))
    assert summary["value"] == {"lists": 3, "cards": 5, "by_list": {"To do": 2, "Doing": 1, "Done": 2}}
    assert summary["bytes"] == json_size(summary["value"]) <= summary["max_bytes"] == 300

    # The resource reads the same state.
    uri = f"actions://runtimes/{runtime_id}/projections/board.state"
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert {"actions://runtimes/{runtime_id}/projections/{projection}", "actions://runtimes/{runtime_id}/projections/{projection}/diff"} <= templates
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    assert {uri, f"{uri}/diff", f"{uri}/summaries/agent_context"} <= listed
    resource = json.loads((await client.read_resource(uri)).contents[0].text)
    assert resource["state"] == state["state"]

    # After add_card, the diff names exactly the added card (the postcondition held on the way).
    added = await client.call_tool("board_add_card", {"list_id": "doing", "title": "Review PR", **route})
    assert not added.is_error, added
    diff = structured(await site(client, mode="state_diff", projection_name="board.state", **route))
    assert diff["baseline"] is False and diff["changed"] is True
    assert len(diff["deltas"]) == 1
    delta = diff["deltas"][0]
    assert delta["op"] == "added" and delta["path"] == "/lists/1/cards" and delta["record"]["title"] == "Review PR"
    assert diff["patch"] == [{"op": "add", "path": "/lists/1/cards/1", "value": delta["record"]}]
    # Nothing changed since: an empty diff.
    again = structured(await site(client, mode="state_diff", projection_name="board.state", **route))
    assert again["changed"] is False and again["patch"] == [] and again["deltas"] == []

    # An oversized projection is refused, naming the budget and the size; never truncated.
    big = await site(client, mode="state_read", projection_name="board.history", **route)
    assert big.is_error
    error = structured(big)["error"]
    assert error["code"] == "state_payload_too_large"
    assert error["evidence"]["budget"] == "state" and error["evidence"]["bytes"] > error["evidence"]["max_bytes"] == 48_000
    # A summary condenses it within budget; a summary that does not condense is refused in turn.
    count = structured(await site(client, mode="state_summary", projection_name="board.history", summary_name="count", **route))
    assert count["value"] == {"entries": 1501}  # 1500 loaded entries and the add_card one
    everything = structured(await site(client, mode="state_summary", projection_name="board.history", summary_name="everything", **route))
    assert everything["error"]["code"] == "state_payload_too_large" and everything["error"]["evidence"]["budget"] == "summary:everything"

    # A failing postcondition: clearing Done needs a confirmation the map does not know about.
    cleared = await client.call_tool("board_clear_done", route)
    assert cleared.is_error
    mismatch = structured(cleared)["error"]
    assert mismatch["code"] == "state_mismatch"
    assert mismatch["evidence"]["projection"] == "board.state" and mismatch["evidence"]["reason"] == "expect_false"
    assert mismatch["evidence"]["changed"] is False and mismatch["evidence"]["patch"] == []

    # Unknown names are invalid_input listing what exists.
    unknown = structured(await site(client, mode="state_read", projection_name="board.nope", **route))
    assert unknown["error"]["code"] == "invalid_input" and "board.state" in unknown["error"]["evidence"]["available"]
