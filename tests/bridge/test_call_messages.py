"""Call messages on the bridge: progress and input requests of a running call, and cancels sent to runtimes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ErrorCode
from mcp_actions.runtimes.memory import MemoryRuntime


async def _answer_of(runtime: MemoryRuntime, request_id: str) -> dict[str, Any]:
    for _ in range(200):
        for item in runtime.received:
            if item.get("type") == "input_response" and item.get("request_id") == request_id:
                return item
        await asyncio.sleep(0.01)
    raise AssertionError(f"no input_response for {request_id}; received {runtime.received}")


async def test_progress_and_input_reach_the_caller_and_answers_reach_the_runtime():
    bridge = Bridge()
    heard: list[tuple[float, float | None, str | None]] = []
    runtime: MemoryRuntime

    async def work(arguments: dict[str, Any]) -> Any:
        call_id = arguments["call_id"]
        await runtime.emit({"type": "call_progress", "call_id": call_id, "runtime_id": "r1", "progress": 1, "total": 2, "message": "half"})
        await runtime.emit({"type": "input_request", "call_id": call_id, "runtime_id": "r1", "request_id": "q1", "request": {"ask": "colour?"}})
        answer = await _answer_of(runtime, "q1")
        return answer["response"]

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def on_input(request: dict[str, Any]) -> Any:
        return {"colour": "green", "asked": request["ask"]}

    runtime = MemoryRuntime(bridge, runtime_id="r1", primitives={"work": work})
    await runtime.start()
    output = await bridge.call("work", {"call_id": "c1"}, runtime_id="r1", call_id="c1", on_progress=on_progress, on_input=on_input)
    assert output == {"colour": "green", "asked": "colour?"}
    assert heard == [(1, 2, "half")]


async def test_an_input_request_without_an_answerer_gets_an_error_and_stray_messages_are_refused():
    bridge = Bridge()
    runtime: MemoryRuntime

    async def work(arguments: dict[str, Any]) -> Any:
        await runtime.emit({"type": "input_request", "call_id": "c2", "runtime_id": "r1", "request_id": "q2", "request": {}})
        return (await _answer_of(runtime, "q2"))["error"]

    runtime = MemoryRuntime(bridge, runtime_id="r1", primitives={"work": work})
    await runtime.start()
    error = await bridge.call("work", {}, runtime_id="r1", call_id="c2")
    assert error["code"] == ErrorCode.CAPABILITY_UNAVAILABLE
    # An input request for no running call, and bridge-only items from a runtime, are refused.
    await runtime.emit({"type": "input_request", "call_id": "nope", "runtime_id": "r1", "request_id": "q3", "request": {}})
    await runtime.emit({"type": "action_cancel", "call_id": "c2", "runtime_id": "r1"})
    refusals = [item["error"]["code"] for item in runtime.received if item.get("type") == "action_error"]
    assert refusals == [ErrorCode.INVALID_ITEM, ErrorCode.INVALID_ITEM]


async def test_cancelling_the_caller_sends_action_cancel_to_the_runtime(caplog: pytest.LogCaptureFixture):
    bridge = Bridge()
    started = asyncio.Event()

    async def wait(arguments: dict[str, Any]) -> Any:
        started.set()
        await asyncio.Event().wait()

    runtime = MemoryRuntime(bridge, runtime_id="r1", primitives={"wait": wait})
    await runtime.start()
    task = asyncio.create_task(bridge.call("wait", {}, runtime_id="r1", call_id="c3"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if any(i.get("type") == "action_cancel" for i in runtime.received):
            break
        await asyncio.sleep(0.01)
    (cancel,) = [i for i in runtime.received if i.get("type") == "action_cancel"]
    assert cancel["call_id"] == "c3" and cancel["runtime_id"] == "r1"
    assert bridge.pending_count == 0
    # The runtime's late answer to the cancelled call is logged and dropped, not refused.
    await runtime.emit({"type": "action_call_output", "call_id": "c3", "runtime_id": "r1", "output": "too late"})
    assert [i for i in runtime.received if i.get("type") == "action_error"] == []
    assert any("c3" in r.getMessage() and "cancelled" in r.getMessage() for r in caplog.records)
    await runtime.stop()

