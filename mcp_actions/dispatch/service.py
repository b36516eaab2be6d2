"""Dispatch: from a tool name and arguments to one finished call.

``ActionService.call`` checks the arguments against the tool's input schema
before anything reaches a runtime, chooses exactly one runtime (launching the
browser lazily when allowed and needed, and opening a map's site for it),
refuses a map's tool whose tab shows no page (``page_guidance.py``: the model
is told to navigate first), and before the tool acts checks:

1. its ``requires`` against the runtime's advertised capabilities
   (``capability_unavailable``);
2. its ``target.state`` against the states diagnosed live on the page
   (``state_mismatch``, evidence: required state and current states);
3. the rules of transitions naming it (``rate_limited`` / waiting,
   ``limit_exceeded`` past ``convergence.max_attempts``).

Then it runs the tool (see ``execution.py``), re-checks a declared
postcondition through the ``PostconditionChecker`` when one is installed,
and checks the output against the tool's result schema (``invalid_result``
with the failing path). After a call of a transition's tool the runtime's
states are diagnosed again, so ``runtime_status`` views stay current. When
the map asks for it (``x_actions.result_summary``), ``run_call`` also reads
the named projection summary after the call succeeded (``CallOutcome``).
It knows nothing of MCP; the server adapter turns its outcomes into MCP
results and errors, and forwards ``progress`` reports.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any, Literal, NamedTuple, Protocol

from ..bridge.bridge import Bridge
from ..bridge.registry import RuntimeInfo
from ..bridge.routing import Route, front_page, opens_itself
from ..catalog.catalog import ROUTE_SELECTORS, Catalog, ToolBinding, split_routing
from ..deadline import Deadline
from ..defaults import DEFAULT_TIMEOUT_MS
from ..errors import ActionError, ErrorCode, UnknownTool
from ..manifest.execution import ToolKind
from ..manifest.limits import DEFAULT_LIMITS, Limits
from ..manifest.model import Manifest
from ..protocols.abp import Elicit
from ..workflow.progress import ProgressCallback
from .builtin_tool import BuiltinTool
from .execution import ToolRun, missing
from .page_guidance import no_page_open, on_front_page, opens_its_own_page, shows_no_page
from ..projection.service import ProjectionService
from .postconditions import PostconditionChecker, PostconditionRequest, ProjectionPostconditions
from .states import Diagnosis, StateDiagnoser
from .transitions import TransitionGuard, TransitionRules

__all__ = ["ActionService", "BrowserControl", "BrowserMode", "CallOutcome", "PageToolCaller", "PreparedCall", "RESULT_SUMMARY_MIN_MS"]

log = logging.getLogger(__name__)

BrowserMode = Literal["auto", "launch", "none"]


class BrowserControl(Protocol):
    """What dispatch needs of the browser host: start it, open a tab."""

    @property
    def started(self) -> bool: ...

    async def ensure_started(self) -> None: ...

    async def new_tab(self, url: str | None = None) -> str: ...


class PageToolCaller(Protocol):
    """What dispatch needs to run tools a page declares through WebMCP, ABP or WAB (``protocols.runner.PageToolRunner``)."""

    async def run(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        runtime: RuntimeInfo,
        deadline: Deadline,
        *,
        progress: ProgressCallback | None = None,
        elicit: Elicit | None = None,
        request_id: str | None = None,
    ) -> Any: ...


class PreparedCall(NamedTuple):
    """A call that passed its checks and has not reached a runtime yet."""

    binding: ToolBinding
    arguments: dict[str, Any]  # the tool's own arguments
    routing: dict[str, Any]  # the routing fields (runtime choice, timeout_ms)


class CallOutcome(NamedTuple):
    """A finished call: its output, and the state summary its map asked to attach (or why it is missing)."""

    output: Any
    #: ``projection.service.summary`` output, or ``{projection, summary, error}`` when it could not be read.
    state_summary: dict[str, Any] | None = None


#: The least time a result summary gets to read, even when the call used up nearly all of its own.
RESULT_SUMMARY_MIN_MS = 1000


#: The progress callback of the built-in call running in this task (see ``ActionService.call_progress``).
_CALL_PROGRESS: ContextVar[ProgressCallback | None] = ContextVar("mcp_actions_call_progress", default=None)


class ActionService:
    """Runs tools of a catalog through a bridge."""

    def __init__(
        self,
        *,
        bridge: Bridge,
        catalog: Catalog,
        browser: BrowserControl | None = None,
        browser_mode: BrowserMode = "auto",
        builtins: Iterable[BuiltinTool] = (),
        page_tool_runner: PageToolCaller | None = None,
        projections: ProjectionService | None = None,
        postconditions: PostconditionChecker | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.bridge = bridge
        #: Workflow limits (the manifest's Limits, set from the command line).
        self.limits = limits
        self.catalog = catalog
        self.browser = browser
        self.browser_mode = browser_mode
        #: The built-in tools by dotted name (their bindings are in the catalogue, their runners here).
        self.builtins = {tool.name: tool for tool in builtins}
        self.page_tool_runner = page_tool_runner
        #: State projections of runtimes (read by actions.site's state modes, postconditions, change hooks).
        self.projections = projections
        #: Judges workflow postconditions: the given checker, else the projection service's.
        self.postconditions = postconditions or (ProjectionPostconditions(projections) if projections is not None else None)
        self.transitions = TransitionGuard()
        # By manifest identity; the manifest is kept beside its diagnoser so a recycled id cannot match.
        self._diagnosers: dict[int, tuple[Manifest, StateDiagnoser]] = {}
        # Held while a call launches the browser or opens a map's page: parallel first calls
        # (hosts send them) would otherwise open it twice, one navigation aborting the other.
        self._opening = asyncio.Lock()

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
        own, routing = split_routing(dict(arguments or {}), binding.own_properties, admits_other=binding.admits_other)
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
        progress: ProgressCallback | None = None,
    ) -> Any:
        """Run one tool to its end; return its output or raise ``ActionError``.

        ``progress(progress, total, message)`` hears each workflow step (sync or async).
        """
        binding, own, routing = self.prepare(mcp_name, arguments)
        return await self.run(binding, own, routing, progress=progress)

    async def run(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        routing: Mapping[str, Any],
        *,
        progress: ProgressCallback | None = None,
        elicit: Elicit | None = None,
        request_id: str | None = None,
    ) -> Any:
        """Run an already-checked call of ``binding``; return its output.

        ``progress`` hears workflow steps and a page tool's own progress; ``elicit`` asks the
        user what a page tool asks during the call (None: nobody can be asked); ``request_id``
        is the caller's id of this call (an ABP app sees it as its ``callId``).
        """
        return (await self.run_call(binding, own, routing, progress=progress, elicit=elicit, request_id=request_id)).output

    async def run_call(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        routing: Mapping[str, Any],
        *,
        progress: ProgressCallback | None = None,
        elicit: Elicit | None = None,
        request_id: str | None = None,
    ) -> CallOutcome:
        """Run an already-checked call of ``binding``; its output and the summary its map asks for (arguments as ``run``)."""
        timeout_ms = routing.get("timeout_ms") or self.bridge.default_timeout_ms or DEFAULT_TIMEOUT_MS
        deadline = Deadline.after_ms(timeout_ms)
        if binding.kind is ToolKind.BUILTIN:
            # Task-local, so a built-in that runs another tool (actions.site mode=call) passes
            # the caller's progress on without every built-in's signature carrying it.
            token = _CALL_PROGRESS.set(progress)
            try:
                output = await self._builtin(binding).run(self, own, dict(routing), deadline)
            finally:
                _CALL_PROGRESS.reset(token)
            binding.check_result(output)
            return CallOutcome(output)
        output, runtime = await self._run_manifest_tool(binding, own, routing, deadline, progress, elicit, request_id)
        binding.check_result(output)
        return CallOutcome(output, await self._result_summary(binding, runtime, deadline))

    def _builtin(self, binding: ToolBinding) -> BuiltinTool:
        tool = self.builtins.get(binding.name)
        if tool is None:  # a built-in binding from another registry than this service's
            raise UnknownTool(f"no built-in tool {binding.name!r} runs here", evidence={"tool": binding.mcp_name})
        return tool

    @staticmethod
    def call_progress() -> ProgressCallback | None:
        """The progress callback of the built-in call running in this task, if its caller gave one."""
        return _CALL_PROGRESS.get()

    async def _result_summary(self, binding: ToolBinding, runtime: RuntimeInfo, deadline: Deadline) -> dict[str, Any] | None:
        """The summary ``x_actions.result_summary`` names, read after the call; a failure is reported, not raised.

        The call itself succeeded, so a summary that cannot be read becomes
        ``{projection, summary, error}`` beside the output (and a warning in the log).
        The agent's diff baseline does not move (see ``ProjectionService.summary``).
        """
        if binding.result_summary is None:
            return None
        projection, summary = binding.result_summary
        try:
            if self.projections is None:
                raise ActionError(
                    f"{binding.name} asks for the summary {summary!r} of {projection!r}, but this server runs no state projections",
                    code=ErrorCode.CAPABILITY_UNAVAILABLE,
                    evidence={"capability": "state_projections", "tool": binding.name},
                )
            timeout_ms = max(RESULT_SUMMARY_MIN_MS, int(deadline.seconds_left * 1000))
            return await self.projections.summary(runtime.runtime_id, projection, summary, timeout_ms=timeout_ms, remember=False)
        except ActionError as exc:
            log.warning("%s ran, but its result summary %s/%s could not be read: %s: %s", binding.name, projection, summary, exc.code, exc.message)
            return {"runtime_id": runtime.runtime_id, "projection": projection, "summary": summary, "error": exc.to_error()}

    def manifest_of(self, binding: ToolBinding) -> Manifest | None:
        """The manifest a tool came from (an inline one for tools of a runtime's own map)."""
        loaded = self.catalog.inline.get(binding.runtime_id) if binding.runtime_id else self.catalog.manifests.get(binding.namespace)
        return loaded.model if loaded is not None else None

    async def diagnose_states(self, runtime: RuntimeInfo, manifest: Manifest, deadline: Deadline) -> Diagnosis:
        """Diagnose ``manifest``'s states on ``runtime`` (one ``locator.probe`` round trip) and record them."""
        diagnoser = self._diagnoser(manifest)

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            return await self.bridge.call(name, arguments, runtime_id=runtime.runtime_id, timeout_ms=deadline.remaining_ms())

        diagnosis = await diagnoser.diagnose(call, capabilities=runtime.capabilities, url=runtime.url)
        self.bridge.note_states(runtime.runtime_id, diagnosis.current)
        return diagnosis

    async def resolve_runtime(self, route: Route, *, need: str | None = None, deadline: Deadline | None = None) -> RuntimeInfo:
        """Exactly one runtime for ``route``, launching the browser when allowed and nothing is connected.

        ``need`` names a capability the runtime must advertise; ``deadline`` (the call's) bounds
        opening a map's page for it.
        """
        try:
            runtime = self.bridge.resolve(route)
        except ActionError as exc:
            if exc.code != ErrorCode.RUNTIME_NOT_FOUND:
                raise
            await self._wait_to_open(deadline)
            try:
                runtime = self.bridge.resolve(route)  # a call ahead of this one may have opened it
            except ActionError as still:
                if still.code != ErrorCode.RUNTIME_NOT_FOUND or not await self._launch_for(route, deadline):
                    raise
                runtime = self.bridge.resolve(route)
            finally:
                self._opening.release()
        if need and runtime.capabilities and need not in runtime.capabilities:
            raise ActionError(
                f"runtime {runtime.runtime_id!r} cannot run {need}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": need, "runtime_id": runtime.runtime_id, "transport": runtime.transport},
            )
        return runtime

    async def _wait_to_open(self, deadline: Deadline | None) -> None:
        """Take the opening lock, waiting no longer than the call may (``handler_timeout``)."""
        if deadline is None:
            await self._opening.acquire()
            return
        limit_ms = deadline.remaining_ms(phase="opening")
        try:
            await asyncio.wait_for(self._opening.acquire(), limit_ms / 1000)
        except TimeoutError as exc:
            raise ActionError(
                f"another call was still launching the browser or opening a page after {limit_ms} ms, this call's time",
                code=ErrorCode.HANDLER_TIMEOUT,
                evidence={"timeout_ms": limit_ms, "phase": "opening"},
            ) from exc

    async def _launch_for(self, route: Route, deadline: Deadline | None = None) -> bool:
        """Start the browser (auto mode) and open the route's surface when that can help, by ``deadline``."""
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
        if opens_itself(origin):
            # The map names its site: opening its front page is a convenience for a first call (the
            # tool's own page may be elsewhere on the site; browser_navigate reaches it). A blank
            # tab of ours (the one a fresh launch opens) is reused rather than left behind.
            page = front_page(origin)
            blank = next((r for r in self.bridge.registry.list() if r.url in ("", "about:blank") and "browser.navigate" in r.capabilities), None)
            try:
                if blank is not None:
                    timeout_ms = deadline.remaining_ms(phase="opening") if deadline is not None else None
                    await self.bridge.call("browser.navigate", {"url": page}, runtime_id=blank.runtime_id, timeout_ms=timeout_ms)
                    runtime_id = blank.runtime_id
                else:
                    runtime_id = await self._new_tab_by(page, deadline)
            except ActionError as exc:
                # The agent called a site's tool, not browser.navigate: say which page could not be opened, and why.
                raise ActionError(
                    f"could not open {page}, the site its map names (surface.origin): {exc.message}",
                    code=exc.code,
                    severity=exc.severity,
                    recoverable=exc.recoverable,
                    evidence={**exc.evidence, "surface_origin": origin, "url": page},
                ) from exc
            self.bridge.registry.set_active(runtime_id)
            return True
        return launched

    async def _new_tab_by(self, url: str, deadline: Deadline | None) -> str:
        """A new tab of ours at ``url``, its runtime id; ``handler_timeout`` when it has not loaded by ``deadline``."""
        assert self.browser is not None
        if deadline is None:
            return await self.browser.new_tab(url)
        limit_ms = deadline.remaining_ms(phase="opening")
        try:
            return await asyncio.wait_for(self.browser.new_tab(url), limit_ms / 1000)
        except TimeoutError as exc:
            raise ActionError(
                f"a new tab at {url} did not load within {limit_ms} ms",
                code=ErrorCode.HANDLER_TIMEOUT,
                evidence={"url": url, "timeout_ms": limit_ms},
            ) from exc

    async def _run_manifest_tool(
        self,
        binding: ToolBinding,
        own: dict[str, Any],
        routing: Mapping[str, Any],
        deadline: Deadline,
        progress: ProgressCallback | None,
        elicit: Elicit | None = None,
        request_id: str | None = None,
    ) -> tuple[Any, RuntimeInfo]:
        """Run a tool of a map or a page on its runtime; return its output and the runtime it ran on."""
        route = Route(runtime_id=binding.runtime_id) if binding.runtime_id else Route.from_arguments(routing, surface_origin=binding.surface_origin)
        runtime = await self.resolve_runtime(route, deadline=deadline)
        if binding.protocol == "actions.json" and binding.runtime_id is None and shows_no_page(runtime.url) and not opens_its_own_page(binding):
            raise no_page_open(binding, self.manifest_of(binding), runtime)
        try:
            return await self._run_on(runtime, binding, own, deadline, progress, elicit, request_id), runtime
        except ActionError as exc:
            hinted = on_front_page(exc, binding, runtime)
            if hinted is exc:
                raise
            raise hinted from exc

    async def _run_on(
        self,
        runtime: RuntimeInfo,
        binding: ToolBinding,
        own: dict[str, Any],
        deadline: Deadline,
        progress: ProgressCallback | None,
        elicit: Elicit | None,
        request_id: str | None,
    ) -> Any:
        """Run a tool of a map or a page on the runtime chosen for it; return its output."""
        if binding.protocol != "actions.json" and self.page_tool_runner is not None:
            try:
                return await self.page_tool_runner.run(binding, own, runtime, deadline, progress=progress, elicit=elicit, request_id=request_id)
            finally:
                # Even a failed call may have changed the page: projection subscribers hear of it.
                if self.projections is not None:
                    await self.projections.after_call(runtime.runtime_id)
        manifest = self.manifest_of(binding)
        execution = ToolRun(self.bridge, binding, runtime, deadline, progress, limits=self.limits)
        tool = binding.tool
        lacking = missing(tool.requires if tool is not None else (), runtime.capabilities)
        if lacking:
            raise ActionError(
                f"{binding.name} requires {', '.join(lacking)}, which runtime {runtime.runtime_id!r} does not provide",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"tool": binding.name, "capability": lacking[0], "missing": lacking, "runtime_id": runtime.runtime_id},
            )
        if manifest is not None:
            await self._check_state(binding, runtime, manifest, deadline)
        rules = TransitionRules.for_tool(binding.name, manifest.transitions) if manifest is not None else None
        postcondition = binding.workflow.postcondition if binding.workflow is not None else None
        request = PostconditionRequest(binding.name, postcondition, own, runtime.runtime_id, execution.caller(), deadline)
        before = None
        if postcondition is not None:
            if self.postconditions is None:
                log.info("%s declares a postcondition, but no checker is installed; not enforced", binding.name)
            else:
                before = await self.postconditions.before(request)  # what the check compares with
        try:
            output = await self._execute(execution, own, rules, runtime, manifest, deadline)
        finally:
            # Even a failed call may have changed the page: projection subscribers hear of it.
            if self.projections is not None:
                await self.projections.after_call(runtime.runtime_id)
        if postcondition is not None and self.postconditions is not None:
            await self.postconditions.check(request, before, output)
        return output

    async def _execute(
        self, execution: ToolRun, own: dict[str, Any], rules: TransitionRules | None, runtime: RuntimeInfo, manifest: Manifest | None, deadline: Deadline
    ) -> Any:
        """Run the tool under its transitions' rules (rate limit, convergence); re-diagnose states after."""
        binding = execution.binding
        if rules is None:
            try:
                return await execution.run(own)
            finally:
                self.transitions.finished(runtime.runtime_id, binding.name, rate_limited=False)
        async with self.transitions.lock(runtime.runtime_id, binding.name):
            await self.transitions.admit(rules, runtime_id=runtime.runtime_id, url=runtime.url, deadline=deadline)
            try:
                output = await execution.run(own)
            finally:
                self.transitions.finished(runtime.runtime_id, binding.name, rate_limited=bool(rules.rate_limit_ms))
        await self._refresh_states(runtime, manifest, deadline)  # type: ignore[arg-type]
        return output

    async def _check_state(self, binding: ToolBinding, runtime: RuntimeInfo, manifest: Manifest, deadline: Deadline) -> None:
        """Refuse with ``state_mismatch`` when the tool's ``target.state`` is not current on the page."""
        tool = binding.tool
        required = tool.target.state if tool is not None and tool.target is not None else None
        if not required:
            return
        if required not in self._diagnoser(manifest).diagnosable:
            log.info("%s needs state %s, which its map gives no diagnostics for; not checked", binding.name, required)
            return
        diagnosis = await self.diagnose_states(runtime, manifest, deadline)
        if required not in diagnosis.current:
            raise ActionError(
                f"{binding.name} needs the page in state {required!r}; current states: {', '.join(diagnosis.current) or 'none'}",
                code=ErrorCode.STATE_MISMATCH,
                evidence={"tool": binding.name, "required_state": required, **diagnosis.to_evidence()},
            )

    def _diagnoser(self, manifest: Manifest) -> StateDiagnoser:
        """The (cached) diagnoser of ``manifest``'s states."""
        cached = self._diagnosers.get(id(manifest))
        if cached is None or cached[0] is not manifest:
            cached = self._diagnosers[id(manifest)] = (manifest, StateDiagnoser(manifest.states))
        return cached[1]

    async def _refresh_states(self, runtime: RuntimeInfo, manifest: Manifest, deadline: Deadline) -> None:
        """Re-diagnose after a transition's tool ran; advisory, so a failure is only logged."""
        if not manifest.states or deadline.seconds_left <= 0.05:
            return
        try:
            await self.diagnose_states(runtime, manifest, deadline)
        except ActionError as exc:
            log.info("could not re-diagnose states of %s: %s", runtime.runtime_id, exc.code)


def _invalid(pointer: str, problem: str) -> ActionError:
    return ActionError(f"invalid arguments at {pointer}: {problem}", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer})
