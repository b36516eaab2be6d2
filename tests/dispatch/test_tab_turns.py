"""A tab's turn: one acting call at a time, reads beside each other but never inside an acting call."""

from __future__ import annotations

import asyncio

import pytest

from mcp_actions.deadline import Deadline
from mcp_actions.dispatch.call.tab_turns import TabTurns
from mcp_actions.errors import ActionError, ErrorCode


async def _hold(turns: TabTurns, log: list[str], name: str, *, acts: bool, seconds: float, runtime_id: str = "tab-1", timeout_ms: int = 5000) -> None:
    async with turns.turn(runtime_id, acts=acts, tool=name, deadline=Deadline.after_ms(timeout_ms)):
        log.append(f"{name}+")
        await asyncio.sleep(seconds)
        log.append(f"{name}-")


async def test_acting_calls_on_one_tab_never_overlap_and_keep_their_order():
    turns, log = TabTurns(), []
    await asyncio.gather(*(_hold(turns, log, f"w{i}", acts=True, seconds=0.01) for i in range(5)))
    assert log == [item for i in range(5) for item in (f"w{i}+", f"w{i}-")]
    assert turns.busy("tab-1") == [] and turns._tabs == {}  # nothing left behind


async def test_reads_share_the_turn_but_wait_for_an_acting_call():
    turns, log = TabTurns(), []
    first = asyncio.create_task(_hold(turns, log, "w", acts=True, seconds=0.05))
    await asyncio.sleep(0)
    await asyncio.gather(_hold(turns, log, "r1", acts=False, seconds=0.02), _hold(turns, log, "r2", acts=False, seconds=0.02), first)
    # Both reads started after the acting call ended, and ran side by side.
    assert log[:2] == ["w+", "w-"]
    assert log[2:4] == ["r1+", "r2+"]


async def test_an_acting_call_waiting_holds_back_newer_reads():
    turns, log = TabTurns(), []
    reader = asyncio.create_task(_hold(turns, log, "r1", acts=False, seconds=0.05))
    await asyncio.sleep(0)
    writer = asyncio.create_task(_hold(turns, log, "w", acts=True, seconds=0.01))
    await asyncio.sleep(0)
    late = asyncio.create_task(_hold(turns, log, "r2", acts=False, seconds=0.01))
    await asyncio.gather(reader, writer, late)
    assert log == ["r1+", "r1-", "w+", "w-", "r2+", "r2-"]


async def test_other_tabs_are_not_held_up():
    turns, log = TabTurns(), []
    await asyncio.gather(
        _hold(turns, log, "a", acts=True, seconds=0.05, runtime_id="tab-1"),
        _hold(turns, log, "b", acts=True, seconds=0.01, runtime_id="tab-2"),
    )
    assert log.index("b-") < log.index("a-")


async def test_a_call_whose_deadline_passes_while_waiting_ends_handler_timeout_with_evidence():
    turns, log = TabTurns(), []
    holder = asyncio.create_task(_hold(turns, log, "board.add_card", acts=True, seconds=0.3))
    await asyncio.sleep(0)
    with pytest.raises(ActionError) as caught:
        await _hold(turns, log, "board.move_card", acts=True, seconds=0, timeout_ms=50)
    error = caught.value
    assert error.code == ErrorCode.HANDLER_TIMEOUT
    assert error.evidence["phase"] == "waiting_for_tab" and error.evidence["busy_with"] == ["board.add_card"]
    assert error.evidence["runtime_id"] == "tab-1" and error.evidence["waited_ms"] >= 40
    await holder
    assert "board.move_card+" not in log  # it never ran
    assert turns._tabs == {}


async def test_a_cancelled_waiter_leaves_the_queue_and_the_next_one_runs():
    turns, log = TabTurns(), []
    holder = asyncio.create_task(_hold(turns, log, "a", acts=True, seconds=0.05))
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(_hold(turns, log, "b", acts=True, seconds=0))
    after = asyncio.create_task(_hold(turns, log, "c", acts=True, seconds=0))
    await asyncio.sleep(0.01)
    cancelled.cancel()
    await asyncio.gather(holder, after, return_exceptions=False)
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert log == ["a+", "a-", "c+", "c-"]
    assert turns._tabs == {}


async def test_a_call_inside_a_call_on_the_same_tab_does_not_wait_for_itself():
    turns, log = TabTurns(), []

    async def outer() -> None:
        async with turns.turn("tab-1", acts=True, tool="actions.site", deadline=Deadline.after_ms(1000)):
            await _hold(turns, log, "inner", acts=True, seconds=0, timeout_ms=200)

    await outer()
    assert log == ["inner+", "inner-"]


async def test_a_task_started_inside_a_call_waits_for_the_turn_like_any_other():
    # It inherits the call's context, but it is not the call: it must not slip in beside it.
    turns, log = TabTurns(), []

    async def outer() -> None:
        async with turns.turn("tab-1", acts=True, tool="outer", deadline=Deadline.after_ms(1000)):
            log.append("outer+")
            spawned = asyncio.create_task(_hold(turns, log, "spawned", acts=True, seconds=0))
            await asyncio.sleep(0.05)
            log.append("outer-")
        await spawned

    await outer()
    assert log == ["outer+", "outer-", "spawned+", "spawned-"]
