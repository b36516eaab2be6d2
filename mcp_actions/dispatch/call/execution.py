"""How one manifest tool runs on one runtime: handler, primitive, workflow or legacy steps.

The tool's kind was decided when its map was loaded (``manifest/execution.py``)
and travels on its binding; ``ToolRun.run`` switches on it. The forms a
published map uses:

- ``x_actions.handler`` naming a primitive the runtime provides (maps written
  for the reference runtime do this, e.g. ``"handler": "overlay.menu.hide"``):
  the runtime runs that primitive with ``x_actions.binding.arguments`` as
  defaults under the call's own arguments.
- ``x_actions.handler`` otherwise: the page function at that dotted path.
- ``workflow``: the interpreter runs its steps over primitives.
- legacy ``x_actions.execution`` steps, translated to a workflow once at
  load (``workflow/legacy.py``, ``ToolBinding.legacy_workflow``). ``mode: handler_first`` calls the handler and
  falls back to the steps when the page has no such handler
  (``missing_handler``) or reports drift; ``steps_first`` runs the steps.
- no handler, workflow or steps, and the tool's name is a primitive of the
  host's dictionary (ours, or the map's own ``primitive_dictionary``): a
  host-native tool; the runtime runs that primitive with the tool's arguments.

Anything else, or a primitive the runtime does not advertise, is refused with
``capability_unavailable`` before anything reaches the page.

Server-side primitives (``primitives/server.py``: ``storage.read_file``,
``transfer.*``) are looked up first and run here, in the server, with the
tool's map and runtime as their context; the runtime need not announce them.
Before ``overlay.open`` / ``overlay.register_launcher`` go to the page, their
``template`` / ``data`` storage references are resolved into ``html`` and
``data_json`` from the map's files (``primitives/storage.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Protocol, TypeVar

from ...bridge.bridge import Bridge
from ...bridge.registry import RuntimeInfo
from ...catalog.catalog import ToolBinding
from ...deadline import Deadline
from ...errors import ActionError, ErrorCode
from ...manifest.execution import ExecutionPlan, ToolKind
from ...manifest.limits import DEFAULT_LIMITS, Limits
from ...workflow.interpreter import CompiledWorkflow, run_workflow
from ...workflow.progress import ProgressCallback, ProgressReporter
from ..primitives.context import ServerCall, ServerServices
from ..primitives.server import SERVER_PRIMITIVES, run_server_primitive
from ..primitives.storage import OVERLAY_PRIMITIVES, resolve_overlay_arguments

__all__ = ["OriginGuard", "ToolRun", "held_step", "missing"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Handler errors after which ``handler_first`` falls back to the legacy steps (a primitive handler
#: the runtime does not provide is as missing as a page function that is not there).
_FALLBACK_CODES = frozenset({ErrorCode.MISSING_HANDLER, ErrorCode.DRIFT_DETECTED, ErrorCode.CAPABILITY_UNAVAILABLE})


class OriginGuard(Protocol):
    """The origin a call was judged for, held through its steps (``policy.OriginHold``)."""

    @property
    def origin(self) -> str | None:
        """The origin judged now (None: the decision does not depend on the page)."""

    async def moved_to(self, origin: str | None) -> None:
        """The page is now of ``origin``: judge the call again (raises ``permission_denied`` when denied)."""


async def held_step(hold: OriginGuard | None, send: Callable[[str | None], Awaitable[T]], *, step: str, runtime_id: str) -> T:
    """One page step held to the origin its call was judged for (``send(origin)``: the step, carrying it).

    A runtime (or the bridge) that finds its page on another origin refuses with ``origin_changed``;
    the call is then judged again for where the page is (denied: ``permission_denied``, nothing done
    there) and the step sent again. Without a hold (the decision does not depend on the page) the
    step is sent with no origin.
    """
    for _ in range(2):
        try:
            return await send(hold.origin if hold is not None else None)
        except ActionError as exc:
            if hold is None or exc.code != ErrorCode.PERMISSION_DENIED or exc.evidence.get("reason") != "origin_changed":
                raise
            await hold.moved_to(exc.evidence.get("origin"))
    raise ActionError(
        f"{step}: the page kept moving while the call was judged for it",
        code=ErrorCode.PERMISSION_DENIED,
        evidence={"reason": "origin_changed", "runtime_id": runtime_id},
    )


class ToolRun:
    """One call of one manifest tool on one runtime, within a deadline."""

    def __init__(
        self,
        bridge: Bridge,
        binding: ToolBinding,
        runtime: RuntimeInfo,
        deadline: Deadline,
        progress: ProgressCallback | None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        services: ServerServices | None = None,
        hold: OriginGuard | None = None,
    ) -> None:
        self.bridge = bridge
        #: What the server-side primitives share (the transfer buffer): the server's, unless given.
        self.services = services if services is not None else ServerServices.of(bridge)
        self.limits = limits
        self.binding = binding
        self.runtime = runtime
        self.deadline = deadline
        self.progress = progress
        self.mode = "primitive"  # what finally ran: primitive, handler, workflow, steps, host_native
        #: The origin the policy judged the call for, held through every step (None: no rule depends on it).
        self.hold = hold

    # -- what the runtime can do ---------------------------------------

    def provides(self, primitive: str) -> bool:
        """True when the server runs ``primitive`` or the runtime provides it (``RuntimeInfo.provides``)."""
        return primitive in SERVER_PRIMITIVES or self.runtime.provides(primitive)

    def require(self, primitive: str) -> None:
        """Refuse with ``capability_unavailable`` unless the runtime provides ``primitive``."""
        if not self.provides(primitive):
            raise ActionError(
                f"runtime {self.runtime.runtime_id!r} cannot run {primitive}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": primitive, "runtime_id": self.runtime.runtime_id, "tool": self.binding.name},
            )

    async def call_primitive(self, name: str, arguments: dict[str, Any], timeout_ms: int | None = None) -> Any:
        """One primitive on this runtime (or in the server, for a server-side one), bounded by the deadline (and ``timeout_ms``)."""
        if name in SERVER_PRIMITIVES:
            call = ServerCall(self.binding, self.runtime, self.bridge, self.services, self.deadline.child(timeout_ms or None))
            return await run_server_primitive(name, call, arguments)
        if name in OVERLAY_PRIMITIVES:
            call = ServerCall(self.binding, self.runtime, self.bridge, self.services, self.deadline)
            arguments = resolve_overlay_arguments(call, arguments)
        if name not in self.bridge.dictionary:
            # Dictionary primitives are checked by the bridge (capabilities, input_schema, naming the host).
            self.require(name)
        return await self._on_page(name, arguments, timeout_ms=timeout_ms)

    async def _on_page(self, name: str, arguments: dict[str, Any], *, timeout_ms: int | None = None, handler: str | None = None) -> Any:
        """One call on the page, held to the origin the policy judged: a page that moved is judged again first."""

        async def send(origin: str | None) -> Any:
            bound = self.deadline.child(timeout_ms or None).remaining_ms()
            return await self.bridge.call(name, arguments, runtime_id=self.runtime.runtime_id, timeout_ms=bound, handler=handler, origin=origin)

        return await held_step(self.hold, send, step=name, runtime_id=self.runtime.runtime_id)

    # -- running ---------------------------------------------------------

    async def run(self, own: dict[str, Any]) -> Any:
        """Run the tool as its kind says (decided at load; see the module docstring)."""
        binding, plan = self.binding, self.binding.execution
        if plan.kind is ToolKind.WORKFLOW and binding.workflow is not None:
            self.mode = "workflow"
            return await self._workflow(binding.workflow, own)
        legacy_steps = binding.legacy_workflow is not None or binding.legacy_refusal is not None
        if plan.kind in (ToolKind.HANDLER, ToolKind.PRIMITIVE_HANDLER) and plan.handler:
            if not legacy_steps or (plan.legacy_mode or "handler_first") == "handler_first":
                try:
                    return await self._handler(plan, own)
                except ActionError as exc:
                    if not legacy_steps or exc.code not in _FALLBACK_CODES:
                        raise
                    log.info("%s: handler %s unavailable (%s); running its execution steps", binding.name, plan.handler, exc.code)
        if legacy_steps:
            self.mode = "steps"
            if binding.legacy_workflow is None:
                assert binding.legacy_refusal is not None
                raise ActionError.from_error(binding.legacy_refusal)
            return await self._workflow(binding.legacy_workflow, own)
        if plan.kind is ToolKind.HOST_NATIVE and plan.primitive and (plan.declared_primitive or self.provides(plan.primitive)):
            self.mode = "host_native"
            return await self._single(plan.primitive, own)
        raise ActionError(
            f"{binding.name} has no handler, workflow or execution steps, and no host of ours provides it",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"tool": binding.name, "capability": binding.name},
        )

    async def _handler(self, plan: ExecutionPlan, own: dict[str, Any]) -> Any:
        """The plan says which handler this is: a primitive (run with its bound arguments under the call's), or a page function."""
        handler = plan.handler
        assert handler is not None
        if plan.kind is ToolKind.PRIMITIVE_HANDLER:
            self.mode = "primitive"
            self.require(handler)  # capability_unavailable: with legacy steps, handler_first falls back to them
            return await self._single(handler, {**plan.bound_arguments, **own})
        self.mode = "handler"
        reporter = ProgressReporter(self.progress)
        await reporter.report(0, 1, f"handler {handler}")
        output = await self._on_page(self.binding.name, own, handler=handler)
        await reporter.report(1, 1, "done")
        return output

    async def _single(self, primitive: str, arguments: dict[str, Any]) -> Any:
        reporter = ProgressReporter(self.progress)
        await reporter.report(0, 1, f"primitive {primitive}")
        output = await self.call_primitive(primitive, arguments)
        await reporter.report(1, 1, "done")
        return output

    async def _workflow(self, workflow: CompiledWorkflow, own: dict[str, Any]) -> Any:
        return await run_workflow(workflow, own, self.call_primitive, deadline=self.deadline, progress=self.progress, limits=self.limits)

    def caller(self) -> Callable[[str, dict[str, Any]], Awaitable[Any]]:
        """A two-argument primitive caller bound to this execution (for states and postconditions)."""

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            return await self.call_primitive(name, arguments)

        return call


def missing(required: Collection[str], runtime: RuntimeInfo) -> list[str]:
    """The names in ``required`` that ``runtime`` does not provide (``RuntimeInfo.provides``).

    Server-side primitives are never lacking: the server runs them for every runtime.
    """
    return [name for name in required if name not in SERVER_PRIMITIVES and not runtime.provides(name)]
