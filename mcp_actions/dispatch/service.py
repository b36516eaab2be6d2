"""Dispatch: from a tool name and arguments to one finished call.

``ActionService.call`` checks the arguments against the tool's input schema
before anything reaches a runtime, chooses exactly one runtime (launching the
browser lazily when allowed and needed), runs the tool (a page handler in one
bridge call, or a workflow whose steps are bridge calls to that same runtime),
and checks the output against the tool's result schema. It knows nothing of
MCP; the server adapter turns its outcomes into MCP results and errors.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, NamedTuple, Protocol

from ..bridge.bridge import DEFAULT_TIMEOUT_MS, Bridge
from ..bridge.registry import RuntimeInfo
from ..bridge.routing import Route
from ..catalog.catalog import ROUTE_SELECTORS, Catalog, ToolBinding, split_routing
from ..errors import ActionError, ErrorCode, UnknownTool
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..projection.service import ProjectionService
from ..workflow.interpreter import StepEvent, run_workflow
from .progress import ProgressFn, StepProgress

__all__ = ["ActionService", "BrowserControl", "BrowserMode", "PreparedCall", "ProgressFn"]

log = logging.getLogger(__name__)

BrowserMode = Literal["auto", "launch", "none"]


class BrowserControl(Protocol):
    """What dispatch needs of the browser host: start it, open a tab."""

    @property
    def started(self) -> bool: ...

    async def ensure_started(self) -> None: ...

    async def new_tab(self, url: str | None = None) -> str: ...


class PreparedCall(NamedTuple):
    """A call that passed its checks and has not reached a runtime yet."""

    binding: ToolBinding
    arguments: dict[str, Any]  # the tool's own arguments
    routing: dict[str, Any]  # the routing fields (runtime choice, timeout_ms)


#: A built-in tool's implementation: (service, own arguments, routing fields, deadline) -> output.
BuiltinRunner = Callable[["ActionService", dict[str, Any], dict[str, Any], float], Awaitable[Any]]


class ActionService:
    """Runs tools of a catalog through a bridge."""

    def __init__(
        self,
        *,
        bridge: Bridge,
        catalog: Catalog,
        browser: BrowserControl | None = None,
        browser_mode: BrowserMode = "auto",
        builtin_runners: Mapping[str, BuiltinRunner] | None = None,
        projections: ProjectionService | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.limits = limits
        self.bridge = bridge
        self.catalog = catalog
        self.browser = browser
        self.browser_mode = browser_mode
        self.builtin_runners = dict(builtin_runners or {})
        #: State projections of runtimes (read by actions.site's state modes, postconditions, change hooks).
        self.projections = projections

    def binding(self, mcp_name: str) -> ToolBinding:
        """The tool with this MCP name, or ``UnknownTool``."""
        binding = self.catalog.get(mcp_name)
        if binding is None:
            raise UnknownTool(f"unknown tool {mcp_name!r}", evidence={"tool": mcp_name})
        return binding

    def prepare(self, mcp_name: str, arguments: Mapping[str, Any] | None) -> PreparedCall:
        """Look the tool up and check its arguments; nothing has reached a runtime yet.

        Raises ``UnknownTool`` or ``ActionError`` ``invalid_input`` with the offending path.
        """
        binding = self.binding(mcp_name)
        own, routing = split_routing(dict(arguments or {}), binding.own_properties)
        for key in ROUTE_SELECTORS:
            if key in routing and not isinstance(routing[key], str):
                raise _invalid(f"/{key}", "must be a string")
        timeout = routing.get("timeout_ms")
        if timeout is not None and (not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= 600_000):
            raise _invalid("/timeout_ms", "must be an integer from 1 to 600000")
        binding.check_arguments(own)
        return PreparedCall(binding, own, routing)

    async def call(
        self,
        mcp_name: str,
        arguments: Mapping[str, Any] | None,
        *,
        on_step: Callable[[StepEvent], None] | None = None,
        progress: ProgressFn | None = None,
    ) -> Any:
        """Run one tool to its end; return its output or raise ``ActionError``."""
        binding, own, routing = self.prepare(mcp_name, arguments)
        return await self.run(binding, own, routing, on_step=on_step, progress=progress)

    async def run(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        routing: Mapping[str, Any],
        *,
        on_step: Callable[[StepEvent], None] | None = None,
        progress: ProgressFn | None = None,
    ) -> Any:
        """Run an already-checked call of ``binding``.

        ``progress``, when given, hears each workflow step as it finishes
        (``(steps done, steps in all, "step <id> <status>")``).
        """
        timeout_ms = routing.get("timeout_ms") or self.bridge.default_timeout_ms or DEFAULT_TIMEOUT_MS
        deadline = time.monotonic() + timeout_ms / 1000
        if binding.kind == "builtin":
            output = await self.builtin_runners[binding.name](self, own, dict(routing), deadline)
        elif progress is None:
            output = await self._run_manifest_tool(binding, own, routing, deadline, on_step)
        else:
            async with StepProgress(progress, on_step) as forward:
                output = await self._run_manifest_tool(binding, own, routing, deadline, forward)
        binding.check_result(output)
        return output

    async def resolve_runtime(self, route: Route, *, need: str | None = None) -> RuntimeInfo:
        """Exactly one runtime for ``route``, launching the browser when allowed and nothing is connected.

        ``need`` names a capability the runtime must advertise.
        """
        try:
            runtime = self.bridge.resolve(route)
        except ActionError as exc:
            if exc.code != ErrorCode.RUNTIME_NOT_FOUND or not await self._launch_for(route):
                raise
            runtime = self.bridge.resolve(route)
        if need and runtime.capabilities and need not in runtime.capabilities:
            raise ActionError(
                f"runtime {runtime.runtime_id!r} cannot run {need}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": need, "runtime_id": runtime.runtime_id, "host": runtime.transport, "transport": runtime.transport},
            )
        return runtime

    async def _launch_for(self, route: Route) -> bool:
        """Start the browser (auto mode) and open the route's surface when that can help."""
        if self.browser is None or self.browser_mode == "none":
            return False
        launched = False
        if not self.browser.started:
            log.info("no runtime can take the call; launching the browser")
            await self.browser.ensure_started()
            launched = True
        if route.runtime_id or route.runtime_key:
            return launched
        origin = route.surface_origin
        if origin and origin.startswith(("http://", "https://")) and "*" not in origin:
            # The map names its site: opening it is what the user asked for implicitly.
            # A blank tab of ours (the one a fresh launch opens) is reused rather than left behind.
            blank = next((r for r in self.bridge.registry.list() if r.url in ("", "about:blank") and "browser.navigate" in r.capabilities), None)
            if blank is not None:
                await self.bridge.call("browser.navigate", {"url": origin}, runtime_id=blank.runtime_id)
                runtime_id = blank.runtime_id
            else:
                runtime_id = await self.browser.new_tab(origin)
            self.bridge.registry.set_active(runtime_id)
            return True
        return launched

    async def _run_manifest_tool(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        routing: Mapping[str, Any],
        deadline: float,
        on_step: Callable[[StepEvent], None] | None,
    ) -> Any:
        route = Route(runtime_id=binding.runtime_id) if binding.runtime_id else Route.from_arguments(routing, surface_origin=binding.surface_origin)
        runtime = await self.resolve_runtime(route)
        try:
            if binding.kind == "handler":
                return await self.bridge.call(binding.name, own, runtime_id=runtime.runtime_id, handler=binding.handler, timeout_ms=_remaining_ms(deadline))
            if binding.kind == "workflow" and binding.workflow is not None:
                return await self._run_workflow(binding, runtime, own, deadline, on_step)
        finally:
            # Even a failed call may have changed the page: subscribers hear of it.
            if binding.kind in ("handler", "workflow"):
                await self._after_call(runtime.runtime_id)
        raise ActionError(
            f"{binding.name} declares only legacy execution steps, which this version cannot run yet; give it an x_actions.handler or a workflow",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"tool": binding.name, "capability": "x_actions.execution"},
        )

    async def _run_workflow(
        self, binding: ToolBinding, runtime: RuntimeInfo, own: dict[str, Any], deadline: float, on_step: Callable[[StepEvent], None] | None
    ) -> Any:
        """Run the tool's workflow; with a ``postcondition``, re-read its projection after and fail ``state_mismatch`` unless it holds."""
        assert binding.workflow is not None
        call = self._primitive_caller(runtime, deadline)
        postcondition = binding.workflow.postcondition
        if postcondition is None or self.projections is None:
            return await run_workflow(binding.workflow, own, call, deadline=deadline, on_step=on_step, limits=self.limits)
        # The state before the action is what the postcondition's diff is taken against.
        before = await self.projections.before_postcondition(runtime.runtime_id, postcondition, timeout_ms=_remaining_ms(deadline))
        output = await run_workflow(binding.workflow, own, call, deadline=deadline, on_step=on_step, limits=self.limits)
        await self.projections.check_postcondition(runtime.runtime_id, postcondition, before, input=own, output=output, timeout_ms=_remaining_ms(deadline))
        return output

    async def _after_call(self, runtime_id: str) -> None:
        """Refresh the runtime's watched projections so subscribers hear of changes (never fails the call)."""
        if self.projections is not None:
            await self.projections.after_call(runtime_id)

    def _primitive_caller(self, runtime: RuntimeInfo, deadline: float) -> Callable[[str, dict[str, Any], int | None], Awaitable[Any]]:
        async def call_primitive(name: str, arguments: dict[str, Any], timeout_ms: int | None) -> Any:
            if runtime.capabilities and name not in runtime.capabilities:
                raise ActionError(
                    f"runtime {runtime.runtime_id!r} cannot run {name}",
                    code=ErrorCode.CAPABILITY_UNAVAILABLE,
                    evidence={"capability": name, "runtime_id": runtime.runtime_id, "host": runtime.transport},
                )
            remaining = _remaining_ms(deadline)
            return await self.bridge.call(name, arguments, runtime_id=runtime.runtime_id, timeout_ms=min(timeout_ms, remaining) if timeout_ms else remaining)

        return call_primitive


def _invalid(pointer: str, problem: str) -> ActionError:
    return ActionError(f"invalid arguments at {pointer}: {problem}", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer})


def _remaining_ms(deadline: float) -> int:
    remaining = int((deadline - time.monotonic()) * 1000)
    if remaining <= 0:
        raise ActionError("the call ran out of time", code=ErrorCode.HANDLER_TIMEOUT, evidence={"elapsed_ms": 0})
    return remaining
