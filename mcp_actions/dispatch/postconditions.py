"""The postcondition hook: re-check the page after a mutating action.

A workflow may declare ``postcondition`` (the spec: "a postcondition naming a
projection to re-check after a mutating action"). Dispatch does not know how
to read projections; it hands each declared postcondition, with the call's
output and a way to call primitives on the same runtime, to a
``PostconditionChecker`` (the state projection engine implements one). A
checker raises ``ActionError`` (``state_mismatch`` when the page is not as
promised) to fail the call; returning normally accepts the output. Without a
checker, declared postconditions are logged and not enforced.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["PostconditionChecker", "PostconditionRequest"]

PrimitiveCall = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class PostconditionRequest:
    """Everything a checker needs to judge one finished call."""

    tool: str
    postcondition: Any  # the workflow's ``postcondition`` value, verbatim
    arguments: dict[str, Any]
    output: Any
    runtime_id: str
    call: PrimitiveCall  # runs a primitive on the same runtime, within the call's deadline


class PostconditionChecker(Protocol):
    """Judges declared postconditions (implemented by the state projection engine)."""

    async def check(self, request: PostconditionRequest) -> None:
        """Return to accept; raise ``ActionError`` (``state_mismatch``, evidence) to fail the call."""
        ...
