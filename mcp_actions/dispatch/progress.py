"""Workflow steps as progress of a long call.

The interpreter tells a synchronous ``on_step`` callback about each step;
progress listeners are asynchronous (the MCP layer sends a notification per
step). ``StepProgress`` bridges the two with a queue drained by a task of its
own, so step events arrive in order and a slow listener never holds up the
workflow. Leaving the block flushes what is queued, so no event is lost and
no task outlives the call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType

from ..workflow.interpreter import StepEvent

__all__ = ["ProgressFn", "StepProgress"]

log = logging.getLogger(__name__)

#: Progress of a long call: (progress so far, total when known, a short message). The MCP layer
#: forwards it as ``notifications/progress`` when the request carried a progress token.
ProgressFn = Callable[[float, float | None, str], Awaitable[None]]


class StepProgress:
    """An async context whose value is an ``on_step`` callback that forwards to ``progress``."""

    def __init__(self, progress: ProgressFn, on_step: Callable[[StepEvent], None] | None = None) -> None:
        self._progress = progress
        self._on_step = on_step
        self._queue: asyncio.Queue[StepEvent | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def _hear(self, event: StepEvent) -> None:
        if self._on_step is not None:
            self._on_step(event)
        self._queue.put_nowait(event)

    async def _drain(self) -> None:
        done = 0.0
        while (event := await self._queue.get()) is not None:
            # MCP progress must grow with each notification: a step counts once it ends.
            if event.status == "started" or event.index + 1 <= done:
                continue
            done = event.index + 1
            try:
                await self._progress(event.index + 1, event.total, f"step {event.step_id} {event.status}")
            except Exception:  # progress is advisory: a lost notification must not fail the call
                log.warning("progress listener failed for step %s", event.step_id, exc_info=True)

    async def __aenter__(self) -> Callable[[StepEvent], None]:
        self._task = asyncio.get_running_loop().create_task(self._drain())
        return self._hear

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._queue.put_nowait(None)
        if self._task is None:
            return
        if exc_type is not None and issubclass(exc_type, asyncio.CancelledError):
            self._task.cancel()  # a cancelled call reports nothing more
        try:
            await self._task
        except asyncio.CancelledError:
            if exc_type is None:
                raise
