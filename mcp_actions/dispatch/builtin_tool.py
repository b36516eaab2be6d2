"""The one way a built-in tool (``actions.site``, browser control, observe) becomes a ``ToolBinding``.

Built-ins have no manifest: they come from mcp-actions itself (trust
``local``), live in the ``builtin`` namespace, and take their title from
their annotations, like map tools do.
"""

from __future__ import annotations

from typing import Any

from ..catalog.catalog import ToolBinding
from ..catalog.naming import mcp_tool_name
from ..manifest.compose import ToolOrigin
from ..manifest.execution import BUILTIN_PLAN

__all__ = ["BUILTIN_ORIGIN", "builtin_binding"]

BUILTIN_ORIGIN = ToolOrigin(source="mcp-actions", trust="local")


def builtin_binding(
    name: str, description: str, schema: dict[str, Any], annotations: dict[str, Any], *, result_schema: dict[str, Any] | None = None
) -> ToolBinding:
    """The binding of the built-in tool with dotted ``name``."""
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
    )
