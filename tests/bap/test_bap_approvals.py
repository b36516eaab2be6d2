"""Confirmations through ``approval/required`` (docs/bap.md, "Confirmations"): a map tool that asks for the user's yes asks the BAP client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient  # after the skip
from browseragentprotocol.types.methods import ApprovalRequiredParams

from tests.bap.bap_server import Server, client

PLACE = BAPClient.step("mcp-actions/call", {"name": "bapform_place_order", "arguments": {}})


def _answering(c: BAPClient, decision: str | None) -> list[ApprovalRequiredParams]:
    """Answer every question with ``decision`` (None: never answer), keeping the questions."""
    asked: list[ApprovalRequiredParams] = []

    def on_question(question: ApprovalRequiredParams) -> None:
        asked.append(question)
        if decision is not None:
            asyncio.get_running_loop().create_task(c.respond_to_approval(question.request_id, decision))  # type: ignore[arg-type]

    c.on_approval_required(on_question)
    return asked


def _audit(server: Server, name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in server.audit.read_text().splitlines() if line.strip()]
    return [line for line in lines if line.get("client") == f"bap:{name}" and line.get("tool") == "bapform.place_order"]


async def _status(c: BAPClient) -> str:
    return (await c.content()).content


async def test_an_approved_tool_runs_and_the_audit_says_confirmed(server: Server) -> None:
    async with client(server, "approver") as c:
        asked = _answering(c, "approve")
        page = await c.create_page(url=server.site)
        await c.fill({"type": "css", "value": "#item"}, "tea")
        result = await c.act([PLACE])
        assert result.success and result.results[0].result == {"placed": True}, result
        assert len(asked) == 1 and asked[0].rule == "Place this order?"
        assert asked[0].context.page_url == server.site and asked[0].context.page_title == "BAP form"
        assert asked[0].original_request["method"] == "agent/act" and asked[0].original_request["params"]["pageId"] == page.id
        assert "Ordered tea" in await _status(c)
    assert [line["decision"] for line in _audit(server, "approver")] == ["confirmed"]


async def test_a_denied_tool_never_runs(server: Server) -> None:
    async with client(server, "denier") as c:
        _answering(c, "deny")
        await c.create_page(url=server.site)
        result = await c.act([PLACE])
        error = result.results[0].error
        assert not result.success and error is not None and error.code == -32030, result  # ApprovalDenied
        assert error.data is not None and error.data["details"]["evidence"]["reason"] == "declined"
        assert "Ordered" not in await _status(c)
    assert [line["decision"] for line in _audit(server, "denier")] == ["declined"]


async def test_an_unanswered_question_is_refused_as_no_one_could_be_asked(server: Server) -> None:
    async with client(server, "silent") as c:
        asked = _answering(c, None)
        await c.create_page(url=server.site)
        result = await c.act([PLACE], timeout=1500)
        error = result.results[0].error
        assert len(asked) == 1 and error is not None and error.code == -32031, result  # ApprovalTimeout
        assert error.data is not None and error.data["details"]["evidence"]["reason"] == "no_elicitation"
        assert "Ordered" not in await _status(c)
    assert [line["decision"] for line in _audit(server, "silent")] == ["denied"]


async def test_approve_session_asks_once(server: Server) -> None:
    async with client(server, "trusting") as c:
        asked = _answering(c, "approve-session")
        await c.create_page(url=server.site)
        assert (await c.act([PLACE])).success
        assert (await c.act([PLACE])).success
        assert len(asked) == 1
