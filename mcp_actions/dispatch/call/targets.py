"""Which runtime a call runs on and what it acts on: chosen once, before the policy judges it.

Every call has a target, whatever its kind: a map's tool runs on the runtime
its routing fields or its map's site designate; a page's own tool (WebMCP,
ABP, WAB) on the runtime that declared it; a built-in on the runtime its
``TargetRule`` picks. ``TargetResolver.resolve`` decides it without opening
anything, before the policy, so that the policy judges exactly what the call
will touch (``CallTarget.page``):

- a navigation (``browser.navigate``, ``browser.open_tab``) by its
  destination, not by the tab it starts from;
- a built-in given a ``tab_id`` by that tab, not by the active one;
- a map's tool whose site shows in no tab by the page the call would open
  (its ``surface.origin``'s front page).

When nothing can take the call yet (no runtime, or none that provides what a
built-in needs), ``CallTarget.runtime`` is None and dispatch launches the browser
or opens the site afterwards (``ActionService.settle_target``); the policy
judges the page again when the runtime then chosen shows another origin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...bridge.bridge import Bridge
from ...bridge.registry import RuntimeInfo
from ...bridge.routing import Route, front_page, opens_itself
from ...catalog.catalog import ToolBinding
from ...errors import ActionError, ErrorCode
from ...file_urls import file_url_refused, local_file
from ...manifest.execution import ToolKind

__all__ = ["NO_TARGET", "CallTarget", "TargetResolver", "TargetRule", "Turn", "tab_runtime", "tool_route"]

#: How a call holds its tab's turn: alone, beside other reads, or not at all.
Turn = Literal["acts", "reads", "none"]


@dataclass(frozen=True)
class TargetRule:
    """What a built-in needs of the runtime it runs on, and what it acts on.

    ``need``: the primitive it runs (the runtime must provide it); None for a built-in
    that runs on no runtime of its own (``actions.site`` passes calls on).
    ``turn``: how it holds the turn of the tab it acts on (``tab_turns.py``): ``acts`` alone (it
    changes the page), ``reads`` beside other reads, ``none`` not at all (it touches no page: a
    list of tabs, a new tab).
    ``tab_argument``: the argument naming the tab it acts on (``tab_id``); that tab's
    page is what the policy judges. ``destination_argument``: the argument naming the
    URL it opens; the destination is what the policy judges.
    ``routed``: explicit routing fields may name the runtime (False: any runtime of the
    browser that provides ``need`` will do, the active one first).
    """

    need: str | None
    turn: Turn
    tab_argument: str | None = None
    destination_argument: str | None = None


#: A built-in that passes its work on to other calls, each judged on its own.
NO_TARGET = TargetRule(need=None, turn="none")


@dataclass(frozen=True)
class CallTarget:
    """Where a call runs and what it touches, as resolved before the policy."""

    #: The runtime the call runs on (None: none yet; dispatch launches the browser or opens ``opens``).
    runtime: RuntimeInfo | None = None
    #: The runtime of the tab the call acts on, when it names another than ``runtime`` (a ``tab_id``).
    tab: RuntimeInfo | None = None
    #: The URL a navigation opens.
    destination: str | None = None
    #: The page dispatch opens for a map's tool whose site shows in no tab (its front page).
    opens: str | None = None
    #: How the call holds the turn of the tab it acts on: alone, beside reads, or not at all.
    turn: Turn = "acts"
    #: The primitive the runtime must provide, when dispatch must find (or launch) one before the call runs.
    need: str | None = None

    @property
    def acted_on(self) -> RuntimeInfo | None:
        """The runtime whose tab the call acts on: the named tab, else the runtime it runs on."""
        return self.tab or self.runtime

    @property
    def page(self) -> str | None:
        """The URL the policy judges: a navigation's destination, else the page acted on, else the page it opens."""
        if self.destination:
            return self.destination
        acted_on = self.acted_on
        if acted_on is not None:
            return acted_on.url
        return self.opens

    def on(self, runtime: RuntimeInfo) -> CallTarget:
        """The same target once ``runtime`` was chosen for it (launched or opened meanwhile)."""
        return replace(self, runtime=runtime)


_TAB_KEY = re.compile(r"^[a-z][a-z0-9-]*:(?:tab-)?(\d+)$")


def tool_route(binding: ToolBinding, routing: Mapping[str, Any]) -> Route:
    """The route of a map's or a page's tool: the runtime that declared it, else the routing fields and the map's site."""
    if binding.runtime_id:
        return Route(runtime_id=binding.runtime_id)
    return Route.from_arguments(dict(routing), surface_origin=binding.surface_origin)


def tab_runtime(runtimes: list[RuntimeInfo], host: RuntimeInfo, tab_id: int) -> RuntimeInfo | None:
    """The top-level runtime of tab ``tab_id`` in ``host``'s browser (``playwright:tab-3``, ``chrome-tab:3``), if connected."""
    for info in runtimes:
        if info.frame or info.host != host.host or not info.runtime_key:
            continue
        match = _TAB_KEY.match(info.runtime_key)
        if match is not None and int(match.group(1)) == tab_id:
            return info
    return None


class TargetResolver:
    """Resolves every call's target from the bridge's runtimes, opening nothing."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def resolve(self, binding: ToolBinding, own: Mapping[str, Any], routing: Mapping[str, Any], rule: TargetRule | None = None) -> CallTarget:
        """The target of a call of ``binding`` (``rule``: a built-in's); raises routing errors other than "nothing yet"."""
        if binding.kind is ToolKind.BUILTIN:
            return self._builtin(rule or NO_TARGET, own, routing)
        route = tool_route(binding, routing)
        turn = _turn_of(binding)
        if binding.runtime_id:
            # A page's own tool runs where the page declared it, or nowhere.
            return CallTarget(runtime=self.bridge.resolve(route), turn=turn)
        try:
            return CallTarget(runtime=self.bridge.resolve(route), turn=turn)
        except ActionError as exc:
            if exc.code != ErrorCode.RUNTIME_NOT_FOUND:
                raise
        origin = route.surface_origin
        opens = front_page(origin) if not route.explicit and opens_itself(origin) else None
        return CallTarget(opens=opens, turn=turn)

    def _builtin(self, rule: TargetRule, own: Mapping[str, Any], routing: Mapping[str, Any]) -> CallTarget:
        destination = own.get(rule.destination_argument) if rule.destination_argument else None
        destination = destination if isinstance(destination, str) and destination else None
        if destination is not None and not self.bridge.allow_file_urls and local_file(destination) is not None:
            # Refused before the policy asks anyone and before a browser is launched for it (file_urls.py).
            raise file_url_refused(destination, path=f"/{rule.destination_argument}")
        if rule.need is None:
            # It runs on no runtime of its own (actions.site): judged by the page its routing shows now, if any.
            try:
                return CallTarget(runtime=self.bridge.resolve(Route.from_arguments(dict(routing))), turn="none")
            except ActionError:
                return CallTarget(turn="none")
        runtime = self.runtime_for(rule.need, routing)
        tab = None
        tab_id = own.get(rule.tab_argument) if rule.tab_argument else None
        if runtime is not None and isinstance(tab_id, int) and not isinstance(tab_id, bool):
            tab = tab_runtime(self.bridge.registry.visible(), runtime, tab_id)
        return CallTarget(runtime=runtime, tab=tab, destination=destination, turn=rule.turn, need=rule.need)

    def runtime_for(self, need: str, routing: Mapping[str, Any]) -> RuntimeInfo | None:
        """The runtime to run primitive ``need`` on: the routed one, else the active or newest that provides it (None: none yet).

        Among runtimes that provide it, those that announced their capabilities come first: one
        that announced none (written from the spec alone) is asked only when no other can be.
        """
        route = Route.from_arguments(dict(routing))
        if route.explicit:
            runtime = self.bridge.resolve(route)
            if not runtime.provides(need):
                raise ActionError(
                    f"runtime {runtime.runtime_id!r} ({runtime.host} host) cannot run {need}",
                    code=ErrorCode.CAPABILITY_UNAVAILABLE,
                    evidence={"capability": need, "runtime_id": runtime.runtime_id, "host": runtime.host},
                )
            return runtime
        registry = self.bridge.registry
        providing = [r for r in registry.visible() if r.provides(need)]  # the current agent session's (bridge/scope.py)
        pool = [r for r in providing if r.capabilities] or providing
        if not pool:
            return None
        active = registry.active
        return active if active is not None and any(r is active for r in pool) else pool[-1]


def _turn_of(binding: ToolBinding) -> Turn:
    """A map's tool whose map says it only reads (``readOnlyHint``) reads; every other acts.

    A page's own tool acts whatever it says of itself: its annotations are the page's word.
    """
    annotations = binding.annotations or {}
    return "reads" if annotations.get("readOnlyHint") is True and not binding.page_tool else "acts"
