"""A timed-out call is cancelled at its runtime too, and an in-process runtime stops the call's work (issue 29, item 3).

- The bridge answers ``handler_timeout`` and sends the runtime
  ``action_cancel`` with reason ``"timed out"`` (before, only a cancelled
  caller's call was cancelled); the runtime's work is cancelled, so its
  effect never happens; its answer after that is logged and dropped.
- A caller's cancellation cancels the work (reason ``"cancelled by the caller"``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError, ErrorCode
from mcp_actions.runtimes.call_scope import current_call
from mcp_actions.runtimes.memory import MemoryRuntime


class SlowEffect:
    """A primitive that waits, then has an effect (counts); it notes the call it ran for."""

    def __init__(self) -> None:
        self.effects = 0
        self.started = asyncio.Event()
        self.calls: list[Any] = []

    async def __call__(self, arguments: dict[str, Any]) -> Any:
        self.calls.append(current_call())
        self.started.set()
        await asyncio.sleep(arguments.get("seconds", 0.5))
        self.effects += 1
        return {"effects": self.effects}


async def _received(runtime: MemoryRuntime, kind: str) -> list[dict[str, Any]]:
    for _ in range(100):
        found = [i for i in runtime.received if i.get("type") == kind]
        if found:
            return found
        await asyncio.sleep(0.01)
    return []


async def test_a_timeout_cancels_the_call_at_its_runtime(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bridge = Bridge()
    slow = SlowEffect()
    runtime = MemoryRuntime(bridge, runtime_id="r1", primitives={"slow": slow})
    await runtime.start()
    with pytest.raises(ActionError) as caught:
        await bridge.call("slow", {"seconds": 0.5}, runtime_id="r1", call_id="c1", timeout_ms=100)
    assert caught.value.code == ErrorCode.HANDLER_TIMEOUT
    (cancel,) = await _received(runtime, "action_cancel")
    assert cancel == {"type": "action_cancel", "call_id": "c1", "runtime_id": "r1", "reason": "timed out"}
    await asyncio.sleep(0.7)
    assert slow.effects == 0  # the work was cancelled before its effect
    # The call knew its id and deadline while it ran.
    assert slow.calls[0].call_id == "c1" and slow.calls[0].deadline.timeout_ms == 100
    # Its runtime's answer to the cancel (handler_timeout) was the call's last word: taken, not logged as a
    # late answer, never refused.
    assert not any("dropped late answer to call c1" in r.getMessage() for r in caplog.records)
    assert caught.value.evidence["elapsed_ms"] < 100 + 500  # it did not wait out the runtime's sleep
    assert not [i for i in runtime.received if i.get("type") == "action_error"]
    await runtime.stop()
    await bridge.stop()


async def test_a_cancelled_caller_cancels_the_work() -> None:
    bridge = Bridge()
    slow = SlowEffect()
    runtime = MemoryRuntime(bridge, runtime_id="r1", primitives={"slow": slow})
    await runtime.start()
    call = asyncio.create_task(bridge.call("slow", {"seconds": 0.5}, runtime_id="r1", call_id="c3", timeout_ms=10_000))
    await slow.started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    (cancel,) = await _received(runtime, "action_cancel")
    assert cancel["reason"] == "cancelled by the caller"
    await asyncio.sleep(0.7)
    assert slow.effects == 0
    assert bridge.pending_count == 0
    await runtime.stop()
    await bridge.stop()
