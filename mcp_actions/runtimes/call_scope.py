"""The bridge call an in-process runtime is running right now: its id and its deadline.

An ``action_call`` carries ``timeout_ms`` (docs/bridge-protocol.md, "Deadlines
and cancellation"). ``InProcessRuntime`` runs each call in a task of its own
and sets ``RunningCall`` for it in a context variable, so everything the call
does below ``execute`` (a tab's trusted input, each evaluation of the page
engine, a frame handing a click to its tab) can read the same call without
every signature growing a parameter: asyncio copies the variable into the
tasks the call starts, and never into another call's task.

The page engine needs the call too (``engine_options``): with its id, an
``action_cancel`` delivered to the page ends the call's waits there; with the
time left, the engine stops on its own at the deadline.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..deadline import Deadline

__all__ = ["RunningCall", "current_call", "running_call"]


@dataclass(frozen=True)
class RunningCall:
    """One bridge call being run in this process."""

    call_id: str
    #: When the call ends (its ``timeout_ms``); None for a call sent without one.
    deadline: Deadline | None

    def engine_options(self) -> dict[str, Any]:
        """``{call_id, timeout_ms}`` for the page engine (callcontext.js): the time left, at least 1 ms."""
        options: dict[str, Any] = {"call_id": self.call_id}
        if self.deadline is not None:
            options["timeout_ms"] = max(1, int(self.deadline.seconds_left * 1000))
        return options


running_call: ContextVar[RunningCall | None] = ContextVar("mcp_actions_running_call", default=None)


def current_call() -> RunningCall | None:
    """The call the current task runs for (None outside a call: warm-up, page events)."""
    return running_call.get()
