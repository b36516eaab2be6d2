"""A built-in tool (``actions.site``, browser control, observe) as one object: its binding, runner and group.

Built-ins have no manifest: they come from mcp-actions itself (trust
``local``), live in the ``builtin`` namespace, and take their title from
their annotations, like map tools do. Each is one ``BuiltinTool`` that holds
what ``tools/list`` shows (the binding), what runs it and the
``--builtin-tools`` group it is listed with, so that no table keyed by name
can miss one of them (``dispatch/builtins/registry.py`` gathers them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ...bridge.registry import RuntimeInfo
from ...catalog.catalog import ToolBinding
from ...catalog.naming import mcp_tool_name
from ...deadline import Deadline
from ...manifest.compose import ToolOrigin
from ...manifest.execution import BUILTIN_PLAN
from ..call.execution import OriginGuard
from ..call.targets import NO_TARGET, CallTarget, TargetRule
from .acting.act_probe import ActProbe

__all__ = ["BUILTIN_ORIGIN", "BuiltinCall", "BuiltinRunner", "BuiltinTool", "builtin_binding"]


@dataclass(frozen=True)
class BuiltinCall:
    """One admitted call of a built-in: its arguments, its deadline and the target dispatch chose for it."""

    own: dict[str, Any]
    routing: dict[str, Any]
    deadline: Deadline
    target: CallTarget = field(default_factory=CallTarget)
    #: What the journal of acting calls asks of this call's page round trips (dispatch/builtins/acting/act_probe.py), if anything.
    probe: ActProbe | None = None
    #: The origin the policy judged the call for, when its decision depends on the page: the acting
    #: tools' steps carry it, so a page that moved between two of them is judged again (execution.held_step).
    hold: OriginGuard | None = None

    @property
    def runtime(self) -> RuntimeInfo:
        """The runtime the built-in runs on (dispatch settled it before the call; ``TargetRule.need`` built-ins only)."""
        runtime = self.target.runtime
        assert runtime is not None, "dispatch settles a built-in's runtime before running it"
        return runtime


#: A built-in tool's implementation: (service, the call) -> output. The service is the ``ActionService``
#: that runs it (``service.py``); it is not named here because the service imports this module to run
#: built-ins, and a module the service imports must not import the service (no circle, issue 43).
BuiltinRunner = Callable[[Any, BuiltinCall], Awaitable[Any]]

BUILTIN_ORIGIN = ToolOrigin(source="mcp-actions", trust="local")


def builtin_binding(
    name: str,
    description: str,
    schema: dict[str, Any],
    annotations: dict[str, Any],
    *,
    result_schema: dict[str, Any] | None = None,
    image_output: bool = False,
    text_output: bool = False,
) -> ToolBinding:
    """The binding of the built-in tool with dotted ``name``.

    ``image_output``: its output carries a picture (``image``, base64, and ``mime_type``), which the MCP
    adapter sends as image content (``server/media.py``) rather than as text.
    ``text_output``: its output is the text the model reads (a str), sent as it is and only once.
    """
    return ToolBinding(
        mcp_name=mcp_tool_name(name),
        name=name,
        description=description,
        input_schema=schema,
        execution=BUILTIN_PLAN,
        origin=BUILTIN_ORIGIN,
        namespace="builtin",
        result_schema=result_schema,
        title=annotations.get("title"),
        annotations=annotations,
        image_output=image_output,
        text_output=text_output,
    )


@dataclass(frozen=True)
class BuiltinTool:
    """One built-in: what ``tools/list`` shows, what runs it, its ``--builtin-tools`` group and what it runs on."""

    binding: ToolBinding
    run: BuiltinRunner
    group: str
    #: The runtime it needs and what it acts on (``targets.py``): resolved once, judged by the policy.
    target: TargetRule = NO_TARGET

    @property
    def name(self) -> str:
        """The dotted name (``browser.navigate``)."""
        return self.binding.name
