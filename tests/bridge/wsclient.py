"""A small WebSocket runtime for bridge tests: a real ``websockets`` client speaking bridge items.

It is test support, not a fake of our code: every item crosses a real socket
to a real ``BridgeServer``. ``serve()`` answers action calls in the
background with a coroutine the test supplies; ``recv()`` reads the next item
when the test wants to see what the bridge sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from mcp_actions.errors import ActionError

TOKEN = "test-token-7f3a"

#: ``answer(call) -> output`` (returning ``None`` means: never answer this call).
Answer = Callable[[dict[str, Any]], Awaitable[Any]]


async def echo(call: dict[str, Any]) -> Any:
    """Answer every call with its name and arguments."""
    return {"name": call["name"], "arguments": call["arguments"]}


class WsRuntime:
    """One runtime connection over a real WebSocket."""

    def __init__(
        self,
        bridge_url: str,
        runtime_id: str = "rt-1",
        *,
        url: str = "https://shop.test/",
        token: str | None = TOKEN,
        **ready_fields: Any,
    ) -> None:
        self.bridge_url = bridge_url
        self.runtime_id = runtime_id
        self.url = url
        self.token = token
        self.ready_fields = ready_fields
        self.ws: ClientConnection | None = None
        self.config: dict[str, Any] | None = None
        self.calls: list[dict[str, Any]] = []  # action_calls received while serving, in arrival order
        self.others: list[dict[str, Any]] = []  # other items received while serving
        self._serving: asyncio.Task[None] | None = None
        self._answers: set[asyncio.Task[None]] = set()

    async def open(self, *, ready: bool = True, headers: dict[str, str] | None = None, query_token: bool = True) -> WsRuntime:
        """Connect (token in the query unless ``query_token`` is false) and, by default, announce."""
        uri = self.bridge_url
        if self.token is not None and query_token:
            uri += f"?token={self.token}"
        # The handshake's bound is generous: on a machine busy with other work (two test workers beside
        # other jobs) a healthy server has been seen to take over 5 s to answer it; a refusal still comes at once.
        self.ws = await connect(uri, additional_headers=headers, max_size=None, compression=None, open_timeout=30, close_timeout=1)
        if ready:
            await self.announce()
        return self

    def ready_item(self) -> dict[str, Any]:
        """The runtime_ready item this runtime announces with."""
        return {"type": "runtime_ready", "runtime_id": self.runtime_id, "url": self.url, **self.ready_fields}

    async def announce(self) -> dict[str, Any]:
        """Send runtime_ready and wait for the bridge's runtime_config (proof it registered us)."""
        await self.send(self.ready_item())
        self.config = await self.recv()
        assert self.config["type"] == "runtime_config", self.config
        return self.config

    async def send(self, item: dict[str, Any] | str | bytes) -> None:
        """Send one frame: a dict as JSON text, a str or bytes as given."""
        assert self.ws is not None
        await self.ws.send(json.dumps(item) if isinstance(item, dict) else item)

    async def recv(self, timeout: float = 3.0) -> dict[str, Any]:
        """The next item the bridge sent."""
        assert self.ws is not None
        async with asyncio.timeout(timeout):
            return json.loads(await self.ws.recv())

    async def expect_silence(self, seconds: float = 0.2) -> None:
        """Assert the bridge sends nothing for a while."""
        with contextlib.suppress(TimeoutError):
            item = await self.recv(timeout=seconds)
            raise AssertionError(f"expected no item, got {item}")

    def serve(self, answer: Answer = echo, *, concurrent: bool = False) -> None:
        """Answer action calls in the background: in arrival order, or each in its own task."""

        async def run_one(call: dict[str, Any]) -> None:
            output = await answer(call)
            if output is not None:
                with contextlib.suppress(Exception):
                    await self.output(call["call_id"], output)

        async def loop() -> None:
            assert self.ws is not None
            with contextlib.suppress(Exception):
                async for frame in self.ws:
                    item = json.loads(frame)
                    if item.get("type") != "action_call":
                        self.others.append(item)
                        continue
                    self.calls.append(item)
                    if concurrent:
                        task = asyncio.create_task(run_one(item))
                        self._answers.add(task)
                        task.add_done_callback(self._answers.discard)
                    else:
                        await run_one(item)

        self._serving = asyncio.create_task(loop())

    async def output(self, call_id: str, output: Any, *, runtime_id: str | None = None) -> None:
        """Send an action_call_output."""
        await self.send({"type": "action_call_output", "call_id": call_id, "runtime_id": runtime_id or self.runtime_id, "output": output})

    async def status(self, **fields: Any) -> None:
        """Send a runtime_status heartbeat."""
        await self.send({"type": "runtime_status", "runtime_id": self.runtime_id, **fields})

    async def wait_closed(self, timeout: float = 3.0) -> tuple[int | None, str | None]:
        """Wait until the bridge closes this connection; return (code, reason)."""
        assert self.ws is not None
        async with asyncio.timeout(timeout):
            await self.ws.wait_closed()
        return self.ws.close_code, self.ws.close_reason

    async def close(self) -> None:
        """Close cleanly (code 1000)."""
        await self._stop_serving()
        if self.ws is not None:
            await self.ws.close()

    async def drop(self) -> None:
        """Vanish without a closing handshake, as a crashed tab does."""
        await self._stop_serving()
        if self.ws is not None:
            self.ws.transport.abort()

    async def _stop_serving(self) -> None:
        tasks = [t for t in (self._serving, *self._answers) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._serving = None


async def eventually(predicate: Callable[[], bool], *, timeout: float = 3.0, interval: float = 0.01) -> None:
    """Wait until ``predicate()`` holds (the bridge handles frames asynchronously)."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(interval)


async def outcome(call: Awaitable[Any]) -> tuple[str, Any]:
    """``("output", value)`` or ``(error code, ActionError)`` of one bridge call."""
    try:
        return "output", await call
    except ActionError as exc:
        return exc.code, exc
