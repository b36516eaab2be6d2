"""The guards every call passes, in order, before anything reaches a page.

A call arrives by one of several ways: a host's ``tools/call``, ``actions.site``
in ``call`` mode, a page's own tool (WebMCP, ABP, WAB), a built-in, or the
Python API. Each way passes the same ordered list of guards (``GuardChain``);
a guard admits the call or raises the error that refuses it, and nothing of
the call has reached a page when a ``call``-stage guard refuses it.

Stage ``call`` (before a runtime is chosen), for every tool:

1. ``visibility``: the tool exists and this way in may call it
   (``--tools``/``--exclude-tools``, ``--tool-mode site``): else unknown;
2. ``arguments``: routing fields and the tool's own arguments against its
   input schema (``invalid_input`` with the JSON Pointer of the argument);
3. ``target``: the runtime the call runs on and what it acts on, resolved
   once and opening nothing (``targets.py``): the policy judges exactly that;
4. ``policy``: the ``--policy`` rules (``policy.py``; ``permission_denied``
   with ``reason: "policy"``, or the user is asked), judged by the target's page;
5. ``confirmation``: a tool the map marks as needing the user's yes asks
   through the caller's ``Confirmer`` (``permission_denied`` otherwise).

Stage ``runtime`` (on the runtime settled for the call: launched or opened
when the target had none; every kind of tool passes it, in its tab's turn):

6. ``policy_origins``: the policy again, when the page now acted on is of
   another origin than the one judged (``policy.py``);
7. ``page``: the tab shows a page at all (``page_guidance.no_page_open``);
8. ``home``: a learned tool's page is of its own origin (``origin_mismatch``);
9. ``capabilities``: the tool's ``requires`` (``capability_unavailable``);
10. ``state``: its ``target.state`` is current (``state_mismatch``);
11. ``transitions``: the rate limit and convergence of the transitions
    naming it (``rate_limited``, ``limit_exceeded``); it holds the tool's
    transition lock for the call and leaves its release to the call's end.
(7 to 11 judge a map's own tools only.)

The policy's two guards are inserted by the composition root when a policy
is given (``GuardChain.insert``); without one the chain is as above without them.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ...bridge.registry import RuntimeInfo
from ...bridge.routing import page_origin
from ...catalog.catalog import Catalog, ToolBinding
from ...catalog.routing_fields import ROUTE_SELECTORS, split_routing
from ...catalog.visibility import ToolVisibility
from ...deadline import Deadline
from ...errors import ActionError, ErrorCode, UnknownTool
from ...learning.store import origin_of
from ...manifest.execution import ToolKind
from ...manifest.model import Manifest
from ...protocols.abp import Elicit
from ...workflow.progress import ProgressCallback
from ..primitives.states import Diagnosis
from .confirm_hint import way_on
from .execution import missing
from .page_guidance import no_page_open, opens_its_own_page, shows_no_page
from .targets import CallTarget
from .transitions import TransitionRules, TransitionTracker

__all__ = [
    "CallContext",
    "Confirmer",
    "Guard",
    "GuardChain",
    "InputRequired",
    "PendingCall",
    "Stage",
    "TargetGuard",
    "default_guards",
]

class Confirmer(Protocol):
    """Asks the user before a call of a tool that needs their yes (``question``: what to ask, else the map's).

    Returns when they allowed it, raises ``permission_denied`` when not (``evidence.reason``
    ``declined`` when they said no, ``no_elicitation`` when they cannot be asked), or
    ``InputRequired`` when the caller must ask and call again.
    """

    def __call__(self, binding: ToolBinding, question: str | None = None) -> Awaitable[None]: ...

#: How a ``call``-stage guard learns the states of a map on a runtime (one ``locator.probe``).
Diagnose = Callable[[RuntimeInfo, Manifest, Deadline], Awaitable[Diagnosis]]


class Stage(enum.StrEnum):
    """When a guard runs: before a runtime is chosen, or on the runtime chosen for a map's tool."""

    CALL = "call"
    RUNTIME = "runtime"


class InputRequired(Exception):
    """The caller must ask its user and call again; ``payload`` is what to answer now (the caller's own type)."""

    def __init__(self, payload: Any) -> None:
        super().__init__("input required")
        self.payload = payload


@dataclass(frozen=True)
class CallContext:
    """Who is calling, and how the call reaches them while it runs."""

    #: Hears workflow steps and a page tool's own progress.
    progress: ProgressCallback | None = None
    #: Asks the user what a page tool asks during the call (None: nobody can be asked).
    elicit: Elicit | None = None
    #: Asks the user before a tool that needs their yes (None: nobody can be asked, so it is refused).
    confirm: Confirmer | None = None
    #: The caller's id of the call (an ABP app sees it as its ``callId``).
    request_id: str | None = None
    #: The way in: a host's direct call, ``actions.site``'s call mode, a step of ``page.act``, the
    #: Python API, or a page launcher the user clicked (an attachment that opens a map tool).
    via: Literal["tools/call", "actions.site", "page.act", "python", "attachment"] = "python"
    #: Told once the ``call`` stage admitted the call (the MCP layer logs ``call_started``).
    on_admitted: Callable[[ToolBinding], Awaitable[None]] | None = None
    #: The calling client's name (MCP ``clientInfo.name``), for the audit log.
    client: str | None = None


@dataclass
class PendingCall:
    """A call on its way through the guards; each guard reads what it needs and fills in what it learns."""

    mcp_name: str
    arguments: Mapping[str, Any]
    context: CallContext
    binding: ToolBinding | None = None
    own: dict[str, Any] = field(default_factory=dict)
    routing: dict[str, Any] = field(default_factory=dict)
    deadline: Deadline | None = None
    runtime: RuntimeInfo | None = None
    #: Where the call runs and what it acts on (the ``target`` guard), as the policy judged it.
    target: CallTarget | None = None
    manifest: Manifest | None = None
    #: The transition rules naming the tool, once the ``transitions`` guard looked (None: none apply).
    rules: TransitionRules | None = None
    #: What guards leave for the call's end, run in reverse order whatever the outcome.
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    #: What decided the call may run (the audit log's ``decision``): allowed, denied, confirmed, declined.
    decision: str = "allowed"
    #: The policy left its decision to the runtime chosen (its rule names ``origins``), and that policy.
    policy_pending: bool = False
    policy: Any = None
    #: The origin of the page the call was judged by before a runtime was chosen (the policy's), if any.
    origin: str | None = None
    #: An explicit policy ``allow`` rule matched the call: the user's own yes, so the map's question is not asked.
    policy_allowed: bool = False

    @property
    def tool(self) -> ToolBinding:
        """The binding (set by the ``visibility`` guard, the first)."""
        assert self.binding is not None, "the visibility guard runs first"
        return self.binding

    async def confirm_with_user(self, question: str | None = None) -> None:
        """Ask the user through the context's ``Confirmer``; note ``confirmed`` or ``declined`` (a refusal is raised)."""
        confirm = self.context.confirm
        assert confirm is not None
        try:
            await confirm(self.tool, question)
        except ActionError as exc:
            if exc.code == ErrorCode.PERMISSION_DENIED:
                self.decision = "declined" if exc.evidence.get("reason") == "declined" else "denied"
            raise
        self.decision = "confirmed"

    def finish(self) -> None:
        """Run the cleanups guards left, newest first."""
        while self.cleanups:
            self.cleanups.pop()()


class Guard(Protocol):
    """One check a call must pass; ``admit`` returns to let it on, raises to refuse it."""

    name: str
    stage: Stage

    def applies(self, call: PendingCall) -> bool:
        """Whether this guard has anything to say about the call."""
        ...

    async def admit(self, call: PendingCall) -> None:
        """Let the call on, or raise the error that refuses it."""
        ...


class GuardChain:
    """The ordered guards; ``run(stage, call)`` passes a call through those of one stage."""

    def __init__(self, guards: Iterable[Guard]) -> None:
        self.guards: list[Guard] = list(guards)

    @property
    def names(self) -> list[str]:
        """The guards' names, in order."""
        return [guard.name for guard in self.guards]

    def insert(self, guard: Guard, *, before: str) -> None:
        """Add ``guard`` just before the guard named ``before`` (a policy goes before ``confirmation``)."""
        index = self.names.index(before)
        self.guards.insert(index, guard)

    async def run(self, stage: Stage, call: PendingCall) -> None:
        """Pass ``call`` through every guard of ``stage`` that applies to it, in order."""
        for guard in self.guards:
            if guard.stage is stage and guard.applies(call):
                await guard.admit(call)


# -- the guards -------------------------------------------------------------------------


class VisibilityGuard:
    """The tool exists, and this way in may call it (a host's direct call honours ``--tool-mode site``)."""

    name = "visibility"
    stage = Stage.CALL

    def __init__(self, catalog: Catalog, visibility: ToolVisibility) -> None:
        self.catalog = catalog
        self.visibility = visibility

    def applies(self, call: PendingCall) -> bool:
        return True

    async def admit(self, call: PendingCall) -> None:
        binding = self.catalog.get(call.mcp_name)
        if binding is None and call.mcp_name in self.catalog.failed_tools:
            raise _map_failed(call.mcp_name, self.catalog.failed_tools[call.mcp_name])
        # actions.site's call mode is how site mode reaches the maps' tools: only a direct call (or a step of
        # page.act, which runs the host's calls in a row) is held to it.
        if binding is None or (call.context.via in ("tools/call", "page.act") and not self.visibility.takes_calls(binding)):
            raise UnknownTool(f"unknown tool {call.mcp_name!r}", evidence={"tool": call.mcp_name})
        call.binding = binding


def _map_failed(mcp_name: str, failed: Mapping[str, Any]) -> ActionError:
    """A call of a tool whose map failed to load: the map's first problem, its code and path (not "unknown tool")."""
    problem = failed["error"]
    return ActionError(
        f"{mcp_name} is a tool of the map {failed['file']}, which failed to load: {problem['path'] or '/'} {problem['code']}: {problem['message']} "
        f"(fix the map: mcp-actions validate {failed['file']}; it loads again when saved)",
        code=problem["code"],
        recoverable=False,
        evidence={"tool": mcp_name, "file": failed["file"], "path": problem["path"], "problem": problem},
    )


class ArgumentGuard:
    """Routing fields and the tool's own arguments, checked before anything reaches a page."""

    name = "arguments"
    stage = Stage.CALL

    def applies(self, call: PendingCall) -> bool:
        return True

    async def admit(self, call: PendingCall) -> None:
        binding = call.tool
        own, routing = split_routing(dict(call.arguments or {}), binding.own_properties, admits_other=binding.admits_other)
        for key in ROUTE_SELECTORS:
            if key in routing and not isinstance(routing[key], str):
                raise _invalid(f"/{key}", "must be a string")
        timeout = routing.get("timeout_ms")
        if timeout is not None and (not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= 600_000):
            raise _invalid("/timeout_ms", "must be an integer from 1 to 600000")
        binding.check_arguments(own)
        call.own, call.routing = own, routing


class TargetGuard:
    """The call's target, resolved once before the policy judges it (``targets.py``), opening nothing."""

    name = "target"
    stage = Stage.CALL

    def __init__(self, resolve: Callable[[PendingCall], CallTarget]) -> None:
        self.resolve = resolve

    def applies(self, call: PendingCall) -> bool:
        return True

    async def admit(self, call: PendingCall) -> None:
        call.target = self.resolve(call)


class ConfirmationGuard:
    """A tool whose map asks for the user's yes runs only after they gave it (``CallContext.confirm``)."""

    name = "confirmation"
    stage = Stage.CALL

    def applies(self, call: PendingCall) -> bool:
        # A policy rule that allows the tool by name is the user's yes given ahead (docs/mcp-surface.md).
        return bool(call.tool.confirm) and not call.policy_allowed

    async def admit(self, call: PendingCall) -> None:
        if call.context.confirm is None:
            binding = call.tool
            call.decision = "denied"
            sentence, way = way_on(binding)
            raise ActionError(
                f"{binding.name} needs the user's confirmation: nobody can be asked on this way in; {sentence}",
                code=ErrorCode.PERMISSION_DENIED,
                recoverable=False,
                evidence={"tool": binding.name, "reason": "no_elicitation", "way_on": way},
            )
        await call.confirm_with_user()


def _on_map_runtime(call: PendingCall) -> bool:
    """Runtime-stage guards judge a map's own tools (page tools and built-ins are the page's and ours), by the plan's kind."""
    return call.runtime is not None and call.tool.kind not in (ToolKind.BUILTIN, ToolKind.PAGE_TOOL)


class PageGuard:
    """A map's tool needs a page of its site in the tab: a blank tab or a failed navigation is refused with what to do."""

    name = "page"
    stage = Stage.RUNTIME

    def applies(self, call: PendingCall) -> bool:
        return _on_map_runtime(call) and call.tool.runtime_id is None

    async def admit(self, call: PendingCall) -> None:
        runtime = call.runtime
        assert runtime is not None
        if shows_no_page(runtime.url) and not opens_its_own_page(call.tool):
            raise no_page_open(call.tool, call.manifest, runtime)


class HomeGuard:
    """A learned tool runs only on a page of its own origin (``ToolBinding.home``): routed elsewhere, it is refused.

    Implicit routing already finds its own site's page; an explicit ``target_runtime_id`` or
    ``target_runtime_key`` wins over a map's site, so without this a call could run one site's
    learned steps (and the values they type) on another site's page.
    """

    name = "home"
    stage = Stage.RUNTIME

    def applies(self, call: PendingCall) -> bool:
        return call.runtime is not None and call.tool.home is not None

    async def admit(self, call: PendingCall) -> None:
        runtime, home = call.runtime, call.tool.home
        assert runtime is not None
        if origin_of(runtime.url) != home:
            raise ActionError(
                f"{call.tool.name} was learned on {home} and runs only on its pages; the page it was routed to is {page_origin(runtime.url) or 'no web page'}",
                code=ErrorCode.ORIGIN_MISMATCH,
                recoverable=False,
                evidence={"tool": call.tool.name, "origin": home, "runtime_id": runtime.runtime_id, "page_origin": page_origin(runtime.url)},
            )


class CapabilityGuard:
    """The tool's ``requires`` against what the runtime announced (a runtime announcing nothing is trusted)."""

    name = "capabilities"
    stage = Stage.RUNTIME

    def applies(self, call: PendingCall) -> bool:
        return _on_map_runtime(call) and call.tool.tool is not None and bool(call.tool.tool.requires)

    async def admit(self, call: PendingCall) -> None:
        binding, runtime = call.tool, call.runtime
        assert runtime is not None and binding.tool is not None
        lacking = missing(binding.tool.requires, runtime)
        if lacking:
            raise ActionError(
                f"{binding.name} requires {', '.join(lacking)}, which runtime {runtime.runtime_id!r} does not provide",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"tool": binding.name, "capability": lacking[0], "missing": lacking, "runtime_id": runtime.runtime_id},
            )


class StateGuard:
    """The tool's ``target.state`` must be current on the page (diagnosed live, one round trip)."""

    name = "state"
    stage = Stage.RUNTIME

    def __init__(self, diagnose: Diagnose, diagnosable: Callable[[Manifest], Iterable[str]]) -> None:
        self.diagnose = diagnose
        self.diagnosable = diagnosable

    def applies(self, call: PendingCall) -> bool:
        tool = call.tool.tool
        return _on_map_runtime(call) and call.manifest is not None and tool is not None and tool.target is not None and bool(tool.target.state)

    async def admit(self, call: PendingCall) -> None:
        binding, runtime, manifest = call.tool, call.runtime, call.manifest
        assert runtime is not None and manifest is not None and binding.tool is not None and binding.tool.target is not None
        required = binding.tool.target.state
        if required is None or required not in self.diagnosable(manifest):
            return  # the map gives no diagnostics for it: nothing to judge by
        assert call.deadline is not None
        diagnosis = await self.diagnose(runtime, manifest, call.deadline)
        if required not in diagnosis.current:
            raise ActionError(
                f"{binding.name} needs the page in state {required!r}; current states: {', '.join(diagnosis.current) or 'none'}",
                code=ErrorCode.STATE_MISMATCH,
                evidence={"tool": binding.name, "required_state": required, **diagnosis.to_evidence()},
            )


class TransitionAdmission:
    """The rate limit and convergence of the transitions naming the tool; every map tool's end is noted.

    A rate-limited tool holds its transition lock from admission to the call's
    end (so the gap holds between calls); the release and the note of the end
    are left on the call's cleanups.
    """

    name = "transitions"
    stage = Stage.RUNTIME

    def __init__(self, transitions: TransitionTracker) -> None:
        self.transitions = transitions

    def applies(self, call: PendingCall) -> bool:
        return _on_map_runtime(call)

    async def admit(self, call: PendingCall) -> None:
        binding, runtime = call.tool, call.runtime
        assert runtime is not None
        rules = TransitionRules.for_tool(binding.name, call.manifest.transitions) if call.manifest is not None else None
        if rules is None:
            call.cleanups.append(lambda: self.transitions.finished(runtime.runtime_id, binding.name, rate_limited=False))
            return
        lock = self.transitions.lock(runtime.runtime_id, binding.name)
        await lock.acquire()
        try:
            assert call.deadline is not None
            await self.transitions.admit(rules, runtime_id=runtime.runtime_id, url=runtime.url, deadline=call.deadline)
        except BaseException:
            lock.release()
            raise

        def done() -> None:
            self.transitions.finished(runtime.runtime_id, binding.name, rate_limited=bool(rules.rate_limit_ms))
            lock.release()

        call.cleanups.append(done)
        call.rules = rules


def default_guards(
    catalog: Catalog,
    visibility: ToolVisibility,
    transitions: TransitionTracker,
    diagnose: Diagnose,
    diagnosable: Callable[[Manifest], Iterable[str]],
    resolve_target: Callable[[PendingCall], CallTarget],
) -> GuardChain:
    """The guards of the module docstring, in order (the policy's two are inserted when a policy is given)."""
    return GuardChain(
        [
            VisibilityGuard(catalog, visibility),
            ArgumentGuard(),
            TargetGuard(resolve_target),
            ConfirmationGuard(),
            PageGuard(),
            HomeGuard(),
            CapabilityGuard(),
            StateGuard(diagnose, diagnosable),
            TransitionAdmission(transitions),
        ]
    )


def _invalid(pointer: str, problem: str) -> ActionError:
    return ActionError(f"invalid arguments at {pointer}: {problem}", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer})
