"""One acting call per tab at a time; reads beside each other, never inside an acting call.

Two calls that type into the same tab at once interleave their keystrokes:
two parallel logins (type the user, type the password, submit) both reported
"Logged in as user0user1", and at 50 in parallel a password landed in the
username field. So each tab (runtime) has a turn: a call that acts on the page
takes it alone, for the whole call (every step of a workflow, its state
checks and its postcondition); calls that only read share it with each other
but never run while an acting call holds it, so no read sees a half-typed
form. Waiting callers are served in order of arrival, and an acting call
waiting blocks newer reads (no starvation of writers).

A call waits for its turn within its own deadline. When the deadline comes
first it ends ``handler_timeout`` with evidence that it waited for the tab
(``phase: "waiting_for_tab"``, the tools holding the turn, how long it waited),
and nothing of it reached the page.

A call that runs another call on the same tab in its own task (``actions.site``
in call mode) already holds the turn: the inner call is let through, so
nothing waits for itself. The turn is held by the task: a task the call
starts (which inherits its context) waits like any other call.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from ...deadline import Deadline
from ...errors import ActionError, ErrorCode

__all__ = ["TabTurns"]

#: The tabs whose turn is held in this context: (runtime id, "acts" or "reads", the holding task's id).
_HELD: ContextVar[frozenset[tuple[str, str, int]]] = ContextVar("mcp_actions_tab_turns", default=frozenset())


@dataclass
class _Waiter:
    key: int
    acts: bool
    tool: str
    future: asyncio.Future[None]


@dataclass
class _Tab:
    """One tab's turn: who holds it, who waits."""

    acting: tuple[int, str] | None = None  # (holder key, tool) holding it alone
    reading: dict[int, str] = field(default_factory=dict)  # holder key -> tool, for reads sharing it
    queue: deque[_Waiter] = field(default_factory=deque)

    @property
    def idle(self) -> bool:
        return self.acting is None and not self.reading and not self.queue

    def holders(self) -> list[str]:
        return [self.acting[1]] if self.acting is not None else sorted(set(self.reading.values()))

    def free_for(self, acts: bool) -> bool:
        return self.acting is None and (not acts or not self.reading)

    def grant(self, key: int, acts: bool, tool: str) -> None:
        if acts:
            self.acting = (key, tool)
        else:
            self.reading[key] = tool

    def release(self, key: int) -> None:
        if self.acting is not None and self.acting[0] == key:
            self.acting = None
        self.reading.pop(key, None)


class TabTurns:
    """The turns of every tab, by runtime id."""

    def __init__(self) -> None:
        self._tabs: dict[str, _Tab] = {}
        self._keys = itertools.count(1)
        #: The turns of tabs another replica holds (docs/deploying.md): the context holding that replica's
        #: turn of ``runtime_id``, or None for a tab of this process (set by ``backplane/turns.py``).
        self.elsewhere: Callable[..., contextlib.AbstractAsyncContextManager[None] | None] | None = None

    def busy(self, runtime_id: str) -> list[str]:
        """The tools holding ``runtime_id``'s turn now (for status and evidence)."""
        tab = self._tabs.get(runtime_id)
        return tab.holders() if tab is not None else []

    @contextlib.asynccontextmanager
    async def turn(self, runtime_id: str, *, acts: bool, tool: str, deadline: Deadline) -> AsyncIterator[None]:
        """Hold ``runtime_id``'s turn for the block: alone when ``acts``, else beside other reads.

        Raises ``handler_timeout`` (``phase: waiting_for_tab``) when the turn does not come by ``deadline``.
        """
        held = _HELD.get()
        task = id(asyncio.current_task())
        if (runtime_id, "acts", task) in held or (not acts and (runtime_id, "reads", task) in held):
            yield  # the caller's own call, in this very task, already holds it
            return
        remote = self.elsewhere(runtime_id, acts=acts, tool=tool, deadline=deadline) if self.elsewhere is not None else None
        if remote is not None:
            async with remote:
                token = _HELD.set(held | {(runtime_id, "acts" if acts else "reads", task)})
                try:
                    yield
                finally:
                    _HELD.reset(token)
            return
        tab = self._tabs.setdefault(runtime_id, _Tab())
        key = next(self._keys)
        await self._acquire(runtime_id, tab, key, acts, tool, deadline)
        token = _HELD.set(held | {(runtime_id, "acts" if acts else "reads", task)})
        try:
            yield
        finally:
            _HELD.reset(token)
            tab.release(key)
            self._wake(runtime_id, tab)

    async def _acquire(self, runtime_id: str, tab: _Tab, key: int, acts: bool, tool: str, deadline: Deadline) -> None:
        if not tab.queue and tab.free_for(acts):
            tab.grant(key, acts, tool)
            return
        waiter = _Waiter(key, acts, tool, asyncio.get_running_loop().create_future())
        tab.queue.append(waiter)
        started = time.monotonic()
        holders = tab.holders()
        try:
            async with asyncio.timeout(max(deadline.seconds_left, 0)):
                await asyncio.shield(waiter.future)
        except TimeoutError:
            self._give_up(runtime_id, tab, waiter)
            waited = int((time.monotonic() - started) * 1000)
            busy = tab.holders() or holders
            raise ActionError(
                f"{tool} waited {waited} ms for tab {runtime_id!r}, busy with {', '.join(busy) or 'another call'}, "
                f"and its {deadline.timeout_ms} ms ran out before its turn; nothing of it reached the page",
                code=ErrorCode.HANDLER_TIMEOUT,
                evidence={"phase": "waiting_for_tab", "runtime_id": runtime_id, "busy_with": busy, "waited_ms": waited, "timeout_ms": deadline.timeout_ms},
            ) from None
        except BaseException:
            self._give_up(runtime_id, tab, waiter)  # cancelled while waiting
            raise

    def _give_up(self, runtime_id: str, tab: _Tab, waiter: _Waiter) -> None:
        """A waiter leaves: out of the queue, or, when the turn was granted just then, handing it on."""
        if waiter in tab.queue:
            tab.queue.remove(waiter)
        if waiter.future.done():
            tab.release(waiter.key)
        else:
            waiter.future.cancel()
        self._wake(runtime_id, tab)  # an acting waiter that left may have held back reads behind it

    def _wake(self, runtime_id: str, tab: _Tab) -> None:
        """Grant the turn to the waiters at the head of the queue that can have it now, in order of arrival."""
        while tab.queue:
            head = tab.queue[0]
            if not tab.free_for(head.acts):
                break
            tab.queue.popleft()
            tab.grant(head.key, head.acts, head.tool)
            head.future.set_result(None)
            if head.acts:
                break
        if tab.idle:
            self._tabs.pop(runtime_id, None)
