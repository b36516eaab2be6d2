"""How a tool runs: the one place that decides a tool's kind, once, when its map is loaded.

The kind travels with the tool from load to run: the catalogue's binding
carries its ``ExecutionPlan``, the manifests resource shows ``ToolKind.listed_as``
and dispatch switches on ``kind`` instead of working it out again.

The spec calls a ``handler`` "a reference to already-loaded page/runtime
code", and published maps use both kinds of reference:

* ``handler``: the page function at the handler's dotted path;
* ``primitive_handler``: the handler names a primitive (of the host's
  dictionary or of the map's own ``primitive_dictionary``); the runtime runs
  that primitive with ``x_actions.binding.arguments`` as bound arguments,
  under the call's own arguments (the call's win);
* ``workflow``: a ``workflow`` (at the tool or under ``x_actions``);
* ``legacy_steps``: only ``x_actions.execution.steps``;
* ``host_native``: no handler, no workflow, no steps, and the tool's name is
  a primitive of the host's dictionary or of the map's own
  ``primitive_dictionary`` (or the map carries a ``primitive_dictionary``,
  i.e. it is the self-description of the host that publishes it); the
  runtime runs the primitive of that name with the tool's arguments.
  In such a host-published map, a tool named after a primitive of our
  dictionary is host-native even when its handler names the publishing
  host's own code (the reference extension's ``overlay.open`` names
  ``actionsJsonOverlay.openHtml``, which exists only inside that extension):
  on our hosts the same primitive is ours, and a page never has that handler.
* ``page_tool``: a tool a page declares through a neighbouring protocol
  (WebMCP, ABP, WAB), never from a map file: the catalogue gives it this
  kind when a runtime's page tools are exposed, with the protocol in the
  plan (``ExecutionPlan.protocol``); the protocol's object
  (``protocols/registry.py``) runs it through its page primitive with the
  page's own tool name from ``bound_arguments``.

A handler wins over a workflow, and a workflow over legacy steps (the
catalogue's long-standing order); ``execution.mode`` and the fallback are
the interpreter's business and are carried as declared.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUILTIN_PLAN", "ExecutionPlan", "ToolKind", "classify_tool"]


class ToolKind(enum.StrEnum):
    """How a tool runs (``BUILTIN``: mcp-actions' own tools, which have no map)."""

    HANDLER = "handler"
    PRIMITIVE_HANDLER = "primitive_handler"
    WORKFLOW = "workflow"
    LEGACY_STEPS = "legacy_steps"
    HOST_NATIVE = "host_native"
    PAGE_TOOL = "page_tool"
    BUILTIN = "builtin"

    @property
    def listed_as(self) -> str:
        """The kind ``actions://manifests/{namespace}`` and ``actions.site`` list: ``handler``, ``workflow``, ``steps`` or ``builtin``.

        The published vocabulary predates the finer kinds: a handler naming a
        primitive is a ``handler``, a host-native tool is listed with ``steps``, and a page's
        own tool (run by a page primitive, ``webmcp.call``…) is a ``handler``.
        """
        return _LISTED_AS[self]


_LISTED_AS = {
    ToolKind.HANDLER: "handler",
    ToolKind.PRIMITIVE_HANDLER: "handler",
    ToolKind.WORKFLOW: "workflow",
    ToolKind.LEGACY_STEPS: "steps",
    ToolKind.HOST_NATIVE: "steps",
    ToolKind.PAGE_TOOL: "handler",
    ToolKind.BUILTIN: "builtin",
}


@dataclass(frozen=True)
class ExecutionPlan:
    """A tool's kind and what its runner needs.

    ``primitive`` is the primitive a ``primitive_handler`` or ``host_native``
    tool runs; ``bound_arguments`` are ``x_actions.binding.arguments`` (the
    base the call's own arguments are laid over); ``declared_primitive`` is
    False for a ``host_native`` tool of a host-published map whose name is in
    no dictionary (it runs only where that host provides it);
    ``legacy_mode`` is ``x_actions.execution.mode`` when the tool also has
    legacy steps; ``protocol`` is the neighbouring protocol a ``page_tool``
    was declared through (``webmcp``, ``abp``, ``wab``), None for every
    other kind.
    """

    kind: ToolKind
    handler: str | None = None
    primitive: str | None = None
    bound_arguments: Mapping[str, Any] = field(default_factory=dict)
    declared_primitive: bool = True
    legacy_mode: str | None = None
    protocol: str | None = None

    @classmethod
    def page_tool(cls, protocol: str, declared: ExecutionPlan | None) -> ExecutionPlan:
        """The plan of a tool a page declared through ``protocol``: its page primitive and bound names kept from ``declared``."""
        if declared is None:
            return cls(ToolKind.PAGE_TOOL, protocol=protocol)
        return cls(ToolKind.PAGE_TOOL, handler=declared.handler, primitive=declared.primitive, bound_arguments=declared.bound_arguments, protocol=protocol)


#: The plan of every built-in tool: Python of ours, no map.
BUILTIN_PLAN = ExecutionPlan(ToolKind.BUILTIN)


def _has_steps(x_actions: Mapping[str, Any]) -> bool:
    execution = x_actions.get("execution")
    return isinstance(execution, dict) and isinstance(execution.get("steps"), list) and bool(execution["steps"])


def classify_tool(
    tool: Mapping[str, Any],
    *,
    host_primitives: Collection[str],
    map_primitives: Collection[str] = (),
    host_published: bool = False,
    name: str | None = None,
) -> ExecutionPlan | None:
    """The execution of ``tool`` (a tool object of a manifest), or None when it declares no way to run.

    ``host_published``: the map carries its own ``primitive_dictionary``.
    ``name`` overrides the tool's name for the host-native match (a composed
    tool's name before its namespace prefix).
    """
    x_actions = tool.get("x_actions")
    x_actions = x_actions if isinstance(x_actions, Mapping) else {}
    handler = x_actions.get("handler")
    steps = _has_steps(x_actions)
    execution = x_actions.get("execution")
    mode = execution.get("mode") if steps and isinstance(execution, Mapping) and isinstance(execution.get("mode"), str) else None
    binding = x_actions.get("binding")
    arguments = binding.get("arguments") if isinstance(binding, Mapping) else None
    bound = dict(arguments) if isinstance(arguments, Mapping) else {}
    own = name if name is not None else tool.get("name")
    if isinstance(handler, str) and handler and host_published and isinstance(own, str) and own in host_primitives and handler not in host_primitives and handler not in map_primitives:
        return ExecutionPlan(ToolKind.HOST_NATIVE, handler=handler, primitive=own, bound_arguments=bound)
    if isinstance(handler, str) and handler:
        if handler in host_primitives or handler in map_primitives:
            return ExecutionPlan(ToolKind.PRIMITIVE_HANDLER, handler=handler, primitive=handler, bound_arguments=bound, legacy_mode=mode)
        return ExecutionPlan(ToolKind.HANDLER, handler=handler, bound_arguments=bound, legacy_mode=mode)
    if "workflow" in tool or "workflow" in x_actions:
        return ExecutionPlan(ToolKind.WORKFLOW, legacy_mode=mode)
    if steps:
        return ExecutionPlan(ToolKind.LEGACY_STEPS, legacy_mode=mode)
    if not isinstance(own, str):
        return None
    if own in host_primitives or own in map_primitives:
        return ExecutionPlan(ToolKind.HOST_NATIVE, primitive=own)
    if host_published:
        return ExecutionPlan(ToolKind.HOST_NATIVE, primitive=own, declared_primitive=False)
    return None
