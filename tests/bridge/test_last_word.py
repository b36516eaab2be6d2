"""An answer sent in time but read late by a busy server is the call's outcome, not a time-out (issue 42).

Under load the event loop runs late: a runtime's answer can sit unread in the socket while the
call's timer fires, and the call used to end ``handler_timeout`` although the page had acted, so
an agent would act again. Here the runtime lives in a thread of its own (its own event loop, a
real WebSocket), and the server's loop is held busy from just before the answer arrives until
past the call's deadline, the way a loaded server is: the answer is in the socket in time and
read late. The call must end with the runtime's output. A runtime that never answers still ends
``handler_timeout``, bounded: the last word is waited for about as long as the loop was late.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest_asyncio

from mcp_actions.bridge.websocket import BridgeServer
from mcp_actions.errors import ActionError, ErrorCode

from .conftest import MakeServer
from .wsclient import WsRuntime, outcome

TIMEOUT_MS = 300
BUSY_S = 0.6  # the server's loop is held this long: past the call's deadline


class ThreadedRuntime:
    """A ``WsRuntime`` driven by its own event loop in its own thread, as a runtime in another process is."""

    def __init__(self, url: str, runtime_id: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runtime = WsRuntime(url, runtime_id)

    async def start(self, answer: Callable[[dict[str, Any]], Any]) -> None:
        self.thread.start()
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.runtime.open(), self.loop))
        self.loop.call_soon_threadsafe(self.runtime.serve, answer)

    async def stop(self) -> None:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.runtime.close(), self.loop))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest_asyncio.fixture
async def busy_server(make_server: MakeServer) -> AsyncIterator[tuple[BridgeServer, Callable[[], None]]]:
    """A server, and ``hold()``: from another thread, keeps the server's loop busy for ``BUSY_S``."""
    server = await make_server()
    server_loop = asyncio.get_running_loop()

    def hold() -> None:
        server_loop.call_soon_threadsafe(time.sleep, BUSY_S)  # a long synchronous step, as on a loaded server

    yield server, hold


async def _call_through(server: BridgeServer, runtime_id: str, answer: Callable[[dict[str, Any]], Any], arguments: dict[str, Any]) -> tuple[str, Any, float]:
    """One call with ``TIMEOUT_MS`` to a threaded runtime answering with ``answer``: its outcome and seconds taken."""
    runtime = ThreadedRuntime(server.url, runtime_id)
    await runtime.start(answer)
    try:
        started = time.monotonic()
        kind, result = await outcome(server.bridge.call("board.archive", arguments, runtime_id=runtime_id, timeout_ms=TIMEOUT_MS))
        return kind, result, time.monotonic() - started
    finally:
        await runtime.stop()


async def test_an_answer_sent_in_time_and_read_late_is_the_outcome(busy_server: tuple[BridgeServer, Callable[[], None]]) -> None:
    server, hold = busy_server

    async def answer(call: dict[str, Any]) -> Any:
        hold()
        await asyncio.sleep(0.05)  # the server's loop is busy by now: this answer waits in its socket
        return {"archived": call["arguments"]["card"]}

    kind, result, elapsed = await _call_through(server, "far-1", answer, {"card": "c-7"})
    assert elapsed > TIMEOUT_MS / 1000  # the answer was read after the deadline, as on a loaded server
    assert (kind, result) == ("output", {"archived": "c-7"})


async def test_a_runtime_that_never_answers_still_times_out_soon_after(busy_server: tuple[BridgeServer, Callable[[], None]]) -> None:
    server, hold = busy_server

    async def never(call: dict[str, Any]) -> Any:
        hold()
        return None  # no answer, not even to the cancel

    kind, result, elapsed = await _call_through(server, "far-2", never, {"card": "c-8"})
    assert kind == "handler_timeout" and isinstance(result, ActionError) and result.code == ErrorCode.HANDLER_TIMEOUT
    # The loop was late by about BUSY_S - TIMEOUT; the last word was waited for about that long again, no more.
    assert elapsed < BUSY_S + (BUSY_S - TIMEOUT_MS / 1000) + 0.5, elapsed


async def test_a_runtime_that_times_out_a_call_itself_names_the_call(make_server: MakeServer) -> None:
    """A runtime ends the call ``handler_timeout`` before the bridge's timer (its own deadline came first): the
    error names the call and its runtime, as the bridge's own time-out does (a new user's run once failed on it)."""
    server = await make_server()
    runtime = WsRuntime(server.url, "self-timed")
    await runtime.open()

    async def timed_out(call: dict[str, Any]) -> Any:
        return {"ok": False, "error": {"code": "handler_timeout", "message": "the handler ran past its deadline"}}

    runtime.serve(timed_out)
    try:
        kind, result = await outcome(server.bridge.call("board.archive", {"card": "c-9"}, runtime_id="self-timed", timeout_ms=5000))
    finally:
        await runtime.close()
    assert kind == ErrorCode.HANDLER_TIMEOUT and isinstance(result, ActionError)
    assert result.evidence["call_id"] == runtime.calls[0]["call_id"]
    assert result.evidence["runtime_id"] == "self-timed"
