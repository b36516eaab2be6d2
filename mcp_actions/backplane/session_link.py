"""This replica's agent sessions kept in step with the other replicas' (docs/deploying.md, docs/sessions.md).

Behind a load balancer one agent session's requests may reach any replica,
and the runtimes it owns may be held by another one. Three things travel on
the backplane for it, and ``SessionLink`` hooks them to the sessions this
replica serves (``server/sessions.py``, which the HTTP transport makes once
the link exists, hence ``sessions()``):

- the sessions this replica served lately, announced with its directory
  (``active_since``): a session busy on one replica is not idle on any;
- the sessions the others announced, which are then not idle here either
  (``touch``);
- a client's end of its session on another replica (``DELETE /mcp``): it
  ends here too, runtimes and all, whether or not this replica served one of
  its requests (``ended_elsewhere``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol

from .node import Backplane

__all__ = ["SessionLink"]

#: Why a session ends here when its client ended it through another replica.
ENDED_ELSEWHERE = "its client ended it on another replica"


class _Sessions(Protocol):
    """The agent sessions one replica serves (``server/sessions.py`` ``AgentSessions``)."""

    def active_since(self, moment: float) -> list[dict[str, Any]]: ...

    def touch(self, described: Iterable[Mapping[str, Any]]) -> None: ...

    async def end(self, session_id: str, reason: str) -> bool: ...


class SessionLink:
    """Hooks a ``Backplane`` to this replica's agent sessions (None over stdio: nothing to keep in step)."""

    def __init__(self, sessions: Callable[[], _Sessions | None], end_session: Callable[[str, str], Awaitable[None]]) -> None:
        """``sessions()``: the sessions served now, if any; ``end_session(id, reason)``: ends a session's browser
        context and runtimes here (what ``AgentSessions.end`` does for a session it serves)."""
        self.sessions = sessions
        self.end_session = end_session
        self._ending: set[asyncio.Task[None]] = set()

    def attach(self, backplane: Backplane) -> None:
        """Have ``backplane`` announce, hear and end sessions through this link."""
        backplane.session_activity = self.active_since
        backplane.on_session_activity = self.touch
        backplane.on_session_ended = self.ended_elsewhere

    def active_since(self, moment: float) -> list[dict[str, Any]]:
        """The sessions served here since ``moment`` (monotonic), as the other replicas are told them."""
        sessions = self.sessions()
        return sessions.active_since(moment) if sessions is not None else []

    def touch(self, described: list[dict[str, Any]]) -> None:
        """Another replica served these sessions just now: they are not idle here either."""
        sessions = self.sessions()
        if sessions is not None:
            sessions.touch(described)

    def ended_elsewhere(self, session_id: str) -> None:
        """A client ended its session on another replica: end it here too, in a task (the backplane's reader must not wait)."""
        task = asyncio.get_running_loop().create_task(self._end_here(session_id), name=f"end-session:{session_id}")
        self._ending.add(task)  # held until done: the loop keeps only weak references to tasks
        task.add_done_callback(self._ending.discard)

    async def _end_here(self, session_id: str) -> None:
        # Forgotten by the sessions this replica served (which ends it), or ended anyway: this replica
        # may hold runtimes of a session whose requests all went to other replicas.
        sessions = self.sessions()
        if sessions is None or not await sessions.end(session_id, ENDED_ELSEWHERE):
            await self.end_session(session_id, ENDED_ELSEWHERE)
