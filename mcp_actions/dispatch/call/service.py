"""Dispatch: from a tool name and arguments to one finished call.

``ActionService.handle`` is the one way a call runs, whoever makes it (a
host's ``tools/call``, ``actions.site``'s call mode, the Python API): it
passes the call through the ordered guards of ``guards.py`` (``call`` stage:
visibility, arguments, confirmation), chooses exactly one runtime (launching
the browser lazily when allowed and needed, and opening a map's site for it),
passes the ``runtime`` stage guards (a page open, ``requires``, ``target.state``,
the transitions' rate limit and convergence), and runs the tool (see
``execution.py``; a page's own tools through the ``PageToolCaller``, a
built-in through its runner). A declared postcondition is checked through the
``PostconditionChecker`` when one is installed, and the output against the
tool's result schema (``invalid_result`` with the failing path). After a call
of a transition's tool the runtime's states are diagnosed again, so
``runtime_status`` views stay current. When the map asks for it
(``x_actions.result_summary``), the named projection summary is read after
the call succeeded (``CallOutcome``). A tool that misses its page's elements
or state says what to do next (``page_guidance.page_hint``), and a call that
opened or moved to another tab says so (``tab_notes.py``). It knows
nothing of MCP; the server adapter gives it a ``CallContext`` and turns its
outcomes into MCP results and errors.

Once the action reached the page, nothing after it turns the call into a failure
(``after_action.py``): an output that breaks the result schema is ``invalid_result``
saying the action ran, and a check, postcondition, summary, audit line or turn's end
that could not finish is reported beside the output (``CallOutcome.unchecked``) or
logged, never raised.

Why one file of about 650 lines: ``ActionService`` is dispatch's facade, the one sequence
every call follows (admit, settle the target, take the tab's turn, run, check, record); each
step it sequences is a module of its own beside it (guards, targets, tab turns, execution,
after the action), and the sequence reads best unbroken.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol

from ...audit_log import AuditLog, utc_timestamp
from ...bridge.bridge import Bridge
from ...bridge.registry import RuntimeInfo
from ...bridge.routing import Route, front_page, opens_itself
from ...bridge.scope import current_session
from ...catalog.catalog import Catalog, ToolBinding
from ...catalog.visibility import ToolVisibility
from ...deadline import Deadline
from ...defaults import DEFAULT_TIMEOUT_MS
from ...errors import ActionError, ErrorCode, UnknownTool
from ...file_urls import file_page_refused, local_file
from ...learning.store import LearnedMaps
from ...manifest.execution import ToolKind
from ...manifest.limits import DEFAULT_LIMITS, Limits
from ...manifest.model import Manifest
from ...operators.users import current_user
from ...page_chars import shown_data
from ...projection.service import ProjectionService
from ...protocols.abp import Elicit
from ...workflow.progress import ProgressCallback
from ..builtins.learning.act_journal import ActJournal
from ..builtins.tool import BuiltinCall, BuiltinTool
from ..primitives.states import Diagnosis, StateDiagnoser
from .after_action import Unchecked, check_result, postcondition_unknown
from .execution import ToolRun
from .guards import CallContext, GuardChain, InputRequired, PendingCall, Stage, default_guards
from .page_guidance import page_hint
from .policy import OriginHold, judged_origin, page_origin, rejudge
from .postconditions import PostconditionChecker, PostconditionRequest, ProjectionPostconditions
from .tab_notes import TabChange, TabWatch
from .tab_turns import TabTurns
from .targets import CallTarget, TargetResolver, tool_route
from .transitions import TransitionTracker

__all__ = ["ActionService", "BrowserControl", "BrowserMode", "CallOutcome", "PageToolCaller", "RESULT_SUMMARY_MIN_MS"]

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
        origin: str | None = None,
    ) -> Any: ...


class CallOutcome(NamedTuple):
    """A finished call: its output, and the state summary its map asked to attach (or why it is missing)."""

    output: Any
    #: ``projection.service.summary`` output, or ``{projection, summary, error}`` when it could not be read.
    state_summary: dict[str, Any] | None = None
    #: The tool that ran.
    binding: ToolBinding | None = None
    #: The tab the call opened or moved to, when not the one the model was looking at (``tab_notes.py``).
    tab: TabChange | None = None
    #: Checks after the action that could not finish (``after_action.py``): the action ran, these are unknown.
    unchecked: tuple[Unchecked, ...] = ()


#: The least time a result summary gets to read, even when the call used up nearly all of its own.
RESULT_SUMMARY_MIN_MS = 1000


#: The built-in call running in this task: its context (``ActionService.current_context``) and its
#: policy decision (``judge_landing`` judges its navigations' landings).
_CURRENT_CALL: ContextVar[PendingCall | None] = ContextVar("mcp_actions_current_call", default=None)


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
        visibility: ToolVisibility | None = None,
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
        self.transitions = TransitionTracker()
        # By manifest identity; the manifest is kept beside its diagnoser so a recycled id cannot match.
        self._diagnosers: dict[int, tuple[Manifest, StateDiagnoser]] = {}
        #: Which tools exist, take direct calls and are listed (one owner; the app keeps its listing current).
        self.visibility = visibility or ToolVisibility()
        #: Directories page_fill {files} may upload from (``--upload-root``; none: every path is refused, page_files.py).
        self.upload_roots: tuple[Path, ...] = ()
        #: The checks every call passes, in order (``guards.py``); a policy is one more.
        #: Resolves every call's runtime and what it acts on, once, before the policy (``targets.py``).
        self.targets = TargetResolver(bridge)
        #: One acting call per tab at a time (``tab_turns.py``).
        self.turns = TabTurns()
        self.guards: GuardChain = default_guards(
            catalog,
            self.visibility,
            self.transitions,
            self.diagnose_states,
            lambda manifest: self._diagnoser(manifest).diagnosable,
            self._resolve_target,
        )
        #: The acting page-tool calls per tab, for actions.save_tool (act_journal.py).
        self.journal = ActJournal()
        #: Where actions.save_tool writes learned maps (None: nowhere; the composition root sets it).
        self.learned: LearnedMaps | None = None
        #: Where every call is recorded once it ended (None: nowhere; the composition root sets it).
        self.audit: AuditLog | None = None
        # Calls running now with when each started, by the identity of their PendingCall: what
        # record_pending writes at shutdown. A call ends in exactly one line either way.
        self._in_flight: dict[int, tuple[PendingCall, float]] = {}
        # Held while a call launches the browser or opens a map's page: parallel first calls
        # (hosts send them) would otherwise open it twice, one navigation aborting the other.
        self._opening = asyncio.Lock()

    def binding(self, mcp_name: str) -> ToolBinding:
        """The tool with this MCP name, or ``UnknownTool``."""
        binding = self.catalog.get(mcp_name)
        if binding is None:
            raise UnknownTool(f"unknown tool {mcp_name!r}", evidence={"tool": mcp_name})
        return binding

    async def handle(self, mcp_name: str, arguments: Mapping[str, Any] | None, context: CallContext | None = None) -> CallOutcome:
        """Run one call to its end through the guards; its output and the summary its map asks for.

        Raises ``UnknownTool``, ``InputRequired`` (the caller must ask its user and call
        again), or ``ActionError`` with a stable code; a call refused in the ``call``
        stage never reached a page. Every call that ends (``InputRequired`` is no end:
        the call comes again with the answer) is recorded in the audit log when one is set,
        and no call runs while its line could not be written (``audit_unavailable``).
        """
        context = context or CallContext()
        call = PendingCall(mcp_name, arguments or {}, context)
        audit = self.audit
        if audit is None:
            return await self._handle(call)
        self._in_flight[id(call)] = (call, time.perf_counter())
        try:
            audit.check()  # before any guard, question to the user or page effect
            outcome = await self._handle(call)
        except ActionError as exc:
            self._record(call, exc.code)
            raise
        except InputRequired:
            self._in_flight.pop(id(call), None)
            raise
        except asyncio.CancelledError:
            self._record(call, ErrorCode.CANCELLED)
            raise
        except Exception as exc:
            self._record(call, getattr(exc, "code", None) or ErrorCode.INTERNAL_ERROR)
            raise
        self._record(call, None)
        return outcome

    def _record(self, call: PendingCall, code: str | None) -> None:
        """Record a call that ended, unless ``record_pending`` already recorded it (the server shut down meanwhile).

        Never raises: the call has ended, and its line failing must not change how (``after_action.py``).
        """
        pending = self._in_flight.pop(id(call), None)
        if pending is not None and self.audit is not None:
            try:
                self.audit.record(self._audit_entry(call, pending[1], code))
            except Exception:
                log.exception("the audit line of a call of %s could not be made", call.mcp_name)

    def running_calls(self) -> list[PendingCall]:
        """The calls running now (``/metrics``' calls in flight)."""
        return [call for call, _ in self._in_flight.values()]

    def record_pending(self, code: str = ErrorCode.CANCELLED) -> int:
        """Record every call still running as ended with ``code`` (the server is shutting down); how many there were.

        Their own ends, if they come, are then not recorded again: each call is one line.
        """
        pending, self._in_flight = list(self._in_flight.values()), {}
        for call, started in pending:
            if self.audit is not None:
                self.audit.record(self._audit_entry(call, started, code))
        return len(pending)

    def _audit_entry(self, call: PendingCall, started: float, code: str | None) -> dict[str, Any]:
        """The audit log's line for a call that ended (argument names and digest, never values)."""
        binding = call.binding or self.catalog.get(call.mcp_name)
        runtime = call.runtime
        arguments = dict(call.arguments)
        entry: dict[str, Any] = {
            "ts": utc_timestamp(),
            # The MCP request id (what the client's own logs show); a call from Python gets one of its own.
            "call_id": call.context.request_id or f"py-{uuid.uuid4().hex[:12]}",
            "client": call.context.client,
            "tool": binding.name if binding is not None else call.mcp_name,
            "protocol": binding.protocol if binding is not None else None,
            "runtime_id": runtime.runtime_id if runtime is not None else (binding.runtime_id if binding is not None else None),
            "origin": page_origin(runtime.url) if runtime is not None else call.origin,
            "namespace": binding.namespace if binding is not None else None,
            "trust": binding.origin.trust if binding is not None else None,
            "argument_names": sorted(arguments),
            # Keyed (audit_log.py): a digest anyone could recompute gives a short value (a PIN) back.
            "arguments_sha256": self.audit.digest(arguments) if self.audit is not None else None,
            "decision": call.decision,
            "status": "ok" if code is None else "error",
        }
        if code is not None:
            entry["code"] = str(code)
        entry["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
        if runtime is not None and runtime.authorization_id:
            entry["authorization_id"] = runtime.authorization_id
        user = current_user()
        if user is not None:
            entry["user"] = user.subject  # the subject of its OAuth token (--oauth-issuer; operators/users.py)
        session = current_session()
        if session is not None:
            entry["session"] = session.id  # the agent session that called (a digest, never its Mcp-Session-Id; docs/sessions.md)
        return entry

    async def _handle(self, call: PendingCall) -> CallOutcome:
        context = call.context
        await self.guards.run(Stage.CALL, call)
        if context.on_admitted is not None:
            await context.on_admitted(call.tool)
        binding = call.tool
        call.deadline = Deadline.after_ms(call.routing.get("timeout_ms") or self.bridge.default_timeout_ms or DEFAULT_TIMEOUT_MS)
        if binding.kind is ToolKind.BUILTIN:
            tool = self._builtin(binding)
            await self.settle_target(call)
            async with self._turn(call):
                await self.guards.run(Stage.RUNTIME, call)  # the policy again, should the page have moved
                # Task-local, so a built-in that runs another tool (actions.site mode=call) passes the
                # caller's context on (progress, how to ask the user) without every signature carrying it.
                current = _CURRENT_CALL.set(call)
                try:
                    assert call.target is not None
                    hold = OriginHold(call) if judged_origin(call) is not None else None
                    output = await tool.run(self, BuiltinCall(call.own, dict(call.routing), call.deadline, call.target, hold=hold))
                finally:
                    _CURRENT_CALL.reset(current)
            checked = await check_result(binding, output, call.deadline)
            return CallOutcome(output, binding=binding, unchecked=(checked,) if checked is not None else ())
        output, runtime, tab, unknown = await self._run_on_page(call)
        checked = await check_result(binding, output, call.deadline)
        unchecked = tuple(each for each in (unknown, checked) if each is not None)
        return CallOutcome(output, await self._result_summary(binding, runtime, call.deadline), binding, tab, unchecked)

    async def call(self, mcp_name: str, arguments: Mapping[str, Any] | None, *, progress: ProgressCallback | None = None) -> Any:
        """Run one tool to its end from Python; return its output or raise ``ActionError``.

        ``progress(progress, total, message)`` hears each workflow step (sync or async).
        Nobody can be asked on this way in, so a tool that needs the user's yes is refused.
        """
        return (await self.handle(mcp_name, arguments, CallContext(progress=progress))).output

    def _builtin(self, binding: ToolBinding) -> BuiltinTool:
        tool = self.builtins.get(binding.name)
        if tool is None:  # a built-in binding from another registry than this service's
            raise UnknownTool(f"no built-in tool {binding.name!r} runs here", evidence={"tool": binding.mcp_name})
        return tool

    def _resolve_target(self, call: PendingCall) -> CallTarget:
        """The ``target`` guard's answer: the call's runtime and what it acts on, opening nothing."""
        binding = call.tool
        rule = self._builtin(binding).target if binding.kind is ToolKind.BUILTIN else None
        return self.targets.resolve(binding, call.own, call.routing, rule)

    async def settle_target(self, call: PendingCall) -> RuntimeInfo | None:
        """The runtime the admitted call runs on: its target's, else one launched or opened for it now (by its deadline)."""
        binding, target, deadline = call.tool, call.target, call.deadline
        assert target is not None and deadline is not None
        runtime = target.runtime
        if runtime is not None and self.bridge.registry.get(runtime.runtime_id) is not runtime:
            runtime = None  # it left (or reconnected) while the call was being admitted
        if binding.kind is ToolKind.BUILTIN:
            if target.need is None:
                return None  # it runs on no runtime of its own
            if runtime is None:
                runtime = await self._runtime_providing(target.need, call.routing)
        elif runtime is None:
            runtime = await self.resolve_runtime(tool_route(binding, call.routing), deadline=deadline)
        call.runtime = runtime
        call.target = target.on(runtime)
        return runtime

    async def _runtime_providing(self, need: str, routing: Mapping[str, Any]) -> RuntimeInfo:
        """A runtime that provides ``need``, launching the browser once when none is connected and that is allowed."""
        for attempt in range(2):
            runtime = self.targets.runtime_for(need, routing)
            if runtime is not None:
                return runtime
            if attempt or self.browser is None or self.browser_mode == "none":
                break
            await self.browser.ensure_started()
        connected = self.bridge.registry.visible()
        raise ActionError(
            f"no connected runtime can run {need}" + ("" if self.browser is not None and self.browser_mode != "none" else " (the browser host is off: --browser none)"),
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"capability": need, "runtimes": [{**r.describe(), "host": r.transport} for r in connected]},
        )

    def _turn(self, call: PendingCall) -> contextlib.AbstractAsyncContextManager[None]:
        """The turn of the tab the call acts on (``tab_turns.py``): alone when it acts, beside reads when it reads.

        Its end cannot fail a call that ran (``_QuietEnd``).
        """
        target, deadline = call.target, call.deadline
        assert target is not None and deadline is not None
        acted_on = target.acted_on
        if target.turn == "none" or acted_on is None:
            return contextlib.nullcontext()
        return _QuietEnd(self.turns.turn(acted_on.runtime_id, acts=target.turn == "acts", tool=call.tool.name, deadline=deadline), "the tab's turn")

    async def judge_landing(self, runtime_id: str, url: str | None) -> None:
        """After a navigation of the running built-in: judge the page it landed on (a redirect) by the policy.

        Denied (or declined): the tab is sent to ``about:blank`` so that nothing acts on the page it
        landed on, and the call ends ``permission_denied`` saying where it landed. A local file while
        none may be opened is left and refused the same way, policy or not.
        """
        if url is not None and not self.bridge.allow_file_urls and local_file(url) is not None:
            # Landed on a local file although none may be opened (history back into a tab that showed one
            # before, as an attached browser's may): left at once, refused as a navigation to it is (file_urls.py).
            await self._leave(runtime_id)
            raise file_page_refused(runtime_id, url, "browser.navigate")
        call = _CURRENT_CALL.get()
        if call is None or judged_origin(call) is None or url is None:
            return
        origin = page_origin(url)
        if origin == judged_origin(call):
            return
        try:
            await rejudge(call, origin)
        except ActionError:
            await self._leave(runtime_id)
            raise

    async def _leave(self, runtime_id: str) -> None:
        """Send the tab to ``about:blank`` so that nothing acts on the page it landed on (a failure is logged)."""
        try:
            await self.bridge.call("browser.navigate", {"url": "about:blank"}, runtime_id=runtime_id, timeout_ms=5000)
        except ActionError as left:
            log.warning("could not leave the denied page in %s: %s", runtime_id, left.code)

    @staticmethod
    def current_context() -> CallContext:
        """The context of the built-in call running in this task (an empty one outside any)."""
        call = _CURRENT_CALL.get()
        return call.context if call is not None else CallContext()

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
        except Exception as exc:
            if not isinstance(exc, ActionError):  # a bug of ours: the call still ran
                log.exception("%s ran, but reading its result summary %s/%s failed", binding.name, projection, summary)
                exc = ActionError(f"reading the summary failed ({type(exc).__name__})", code=ErrorCode.INTERNAL_ERROR)
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

        diagnosis = await diagnoser.diagnose(call, provides=runtime.provides, url=runtime.url)
        self.bridge.note_states(runtime.runtime_id, diagnosis.current)
        return diagnosis

    async def resolve_runtime(self, route: Route, *, deadline: Deadline | None = None) -> RuntimeInfo:
        """Exactly one runtime for ``route``, launching the browser when allowed and nothing is connected.

        ``deadline`` (the call's) bounds opening a map's page for it. What the runtime must
        provide is the target's business (``targets.py``, ``RuntimeInfo.provides``).
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
            blank = next((r for r in self.bridge.registry.visible() if r.url in ("", "about:blank") and r.trust == "host" and r.provides("browser.navigate")), None)
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

    async def _run_on_page(self, call: PendingCall) -> tuple[Any, RuntimeInfo, TabChange | None, Unchecked | None]:
        """Route a tool of a map or a page, pass the runtime guards, run it; its output, the runtime it ran on,
        the tab it opened or moved to (None: the one the model was looking at), and a postcondition left unknown."""
        binding, deadline = call.tool, call.deadline
        assert deadline is not None
        watch = TabWatch(self.bridge.registry)
        runtime = await self.settle_target(call)
        assert runtime is not None
        tab = watch.change(runtime)
        call.manifest = self.manifest_of(binding)
        try:
            async with self._turn(call):
                try:
                    await self.guards.run(Stage.RUNTIME, call)
                    output, unknown = await self._execute(call, runtime, deadline)
                finally:
                    call.finish()  # a transition's lock released, the tool's end noted
                if call.rules is not None and call.manifest is not None:
                    await self._refresh_states(runtime, call.manifest, deadline)
        except ActionError as exc:
            hinted = page_hint(exc, binding, runtime, opened_for_call=tab is not None and tab.kind != "switched")
            if tab is not None:
                # The model hears which tab the failure happened in, as it would a success (tab_notes.py).
                hinted.message = f"{hinted.message} [{tab.line()}]"
                hinted.evidence["tab"] = tab.to_meta()
            if hinted is exc:
                raise
            raise hinted from exc
        return output, runtime, tab, unknown

    async def _execute(self, call: PendingCall, runtime: RuntimeInfo, deadline: Deadline) -> tuple[Any, Unchecked | None]:
        """Run an admitted tool on its runtime as its plan says: a page's own tool, or a map's with its postcondition.

        Its output, and the postcondition when it could not be judged (``after_action.postcondition_unknown``):
        a postcondition that does not hold fails the call (``state_mismatch``); one cut short does not.
        """
        binding, own, context = call.tool, call.own, call.context
        try:
            if binding.kind is ToolKind.PAGE_TOOL:
                # The plan made at load says so; the tool's protocol object runs it (protocols/registry.py).
                if self.page_tool_runner is None:
                    raise ActionError(
                        f"{binding.name} was declared by its page through {binding.protocol}, which this server does not run",
                        code=ErrorCode.CAPABILITY_UNAVAILABLE,
                        evidence={"tool": binding.name, "capability": binding.protocol},
                    )
                # Held to the origin the policy judged, as a map's steps are: a page that moved is not sent it.
                output = await self.page_tool_runner.run(
                    binding, own, runtime, deadline, progress=context.progress, elicit=context.elicit, request_id=context.request_id, origin=judged_origin(call)
                )
                # The page's words as a person would see them: no character that draws nothing (page_chars.py).
                return shown_data(output), None
            hold = OriginHold(call) if judged_origin(call) is not None else None
            execution = ToolRun(self.bridge, binding, runtime, deadline, context.progress, limits=self.limits, hold=hold)
            postcondition = binding.workflow.postcondition if binding.workflow is not None else None
            if postcondition is None:
                return await execution.run(own), None
            request = PostconditionRequest(binding.name, postcondition, own, runtime.runtime_id, execution.caller(), deadline)
            if self.postconditions is None:
                log.info("%s declares a postcondition, but no checker is installed; not enforced", binding.name)
                return await execution.run(own), None
            before = await self.postconditions.before(request)  # what the check compares with
            output = await execution.run(own)
        finally:
            # Even a failed call may have changed the page: projection subscribers hear of it. A refresh
            # that fails is theirs to miss, never the call's failure.
            if self.projections is not None:
                try:
                    await self.projections.after_call(runtime.runtime_id)
                except Exception:
                    log.exception("the projections of %s could not be refreshed after a call of %s", runtime.runtime_id, binding.name)
        try:
            await self.postconditions.check(request, before, output)
        except ActionError as exc:
            unknown = postcondition_unknown(exc)
            if unknown is None:
                raise
            log.warning("%s ran, but its postcondition could not be judged: %s: %s", binding.name, exc.code, exc.message)
            return output, unknown
        return output, None

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
        except Exception:
            log.exception("re-diagnosing the states of %s failed", runtime.runtime_id)


class _QuietEnd:
    """A context whose end, after a block that succeeded, is logged if it fails rather than raised.

    The tab's turn ends after the action: releasing it failing (a replica's turn, say) must not turn
    a call that ran into a failure. A block that failed keeps its own error.
    """

    def __init__(self, inner: contextlib.AbstractAsyncContextManager[None], what: str) -> None:
        self.inner = inner
        self.what = what

    async def __aenter__(self) -> None:
        await self.inner.__aenter__()

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> bool | None:
        if error is not None:
            return await self.inner.__aexit__(kind, error, trace)
        try:
            return await self.inner.__aexit__(None, None, None)
        except Exception:
            log.exception("%s could not end cleanly after a call that ran", self.what)
            return None
