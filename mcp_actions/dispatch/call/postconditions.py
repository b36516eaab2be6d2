"""The postcondition hook: re-check the page after a mutating action.

A workflow may declare ``postcondition`` (the spec: "a postcondition naming a
projection to re-check after a mutating action"). Dispatch does not know how
to judge one; it hands each declared postcondition to a
``PostconditionChecker`` in two phases: ``before`` the action (the checker may
read the state the postcondition is judged against) and ``check`` after it
with the call's output. ``check`` raises ``ActionError`` (``state_mismatch``
when the page is not as promised) to fail the call; returning accepts it.

``ProjectionPostconditions`` is the checker over the state projection engine
(the postcondition names a projection, re-read and compared after the
action). Without any checker, declared postconditions are logged, not enforced.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ...deadline import Deadline
from ...projection.service import ProjectionService

__all__ = ["PostconditionChecker", "PostconditionRequest", "ProjectionPostconditions"]

PrimitiveCall = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class PostconditionRequest:
    """Everything a checker needs to judge one call of a tool."""

    tool: str
    postcondition: Any  # the workflow's ``postcondition`` value, verbatim
    arguments: dict[str, Any]
    runtime_id: str
    call: PrimitiveCall  # runs a primitive on the same runtime, within the call's deadline
    deadline: Deadline  # the whole call's

    def remaining_ms(self) -> int:
        """Milliseconds left in the call; ``handler_timeout`` (phase ``postcondition``) when none are."""
        return self.deadline.remaining_ms(phase="postcondition")


class PostconditionChecker(Protocol):
    """Judges declared postconditions (the state projection engine is one)."""

    async def before(self, request: PostconditionRequest) -> Any:
        """Read what the postcondition is judged against, before the action (None when nothing)."""
        ...

    async def check(self, request: PostconditionRequest, before: Any, output: Any) -> None:
        """Return to accept; raise ``ActionError`` (``state_mismatch``, evidence) to fail the call."""
        ...


class ProjectionPostconditions:
    """Postconditions naming state projections, judged by the projection service."""

    def __init__(self, projections: ProjectionService) -> None:
        self.projections = projections

    async def before(self, request: PostconditionRequest) -> Any:
        """The named projection's state before the action."""
        return await self.projections.before_postcondition(request.runtime_id, request.postcondition, timeout_ms=request.remaining_ms())

    async def check(self, request: PostconditionRequest, before: Any, output: Any) -> None:
        """Re-read the projection and fail ``state_mismatch`` unless the postcondition holds."""
        await self.projections.check_postcondition(
            request.runtime_id, request.postcondition, before, input=request.arguments, output=output, timeout_ms=request.remaining_ms()
        )
