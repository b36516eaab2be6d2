"""Dispatch: run a tool call from checked arguments to a checked result.

``ActionService`` takes a call by MCP name: ``prepare`` checks the arguments
(a ``PreparedCall``, nothing sent yet), ``run`` chooses the runtime, checks
capabilities, states and transition rules, runs the tool (handler, primitive,
workflow, legacy steps or page tool) and checks its result.
``builtin_bindings`` are the built-in tools (``actions.site``, browser
control, observe and act on refs).
"""

from .builtins import builtin_bindings
from .service import ActionService, PreparedCall

__all__ = ["ActionService", "PreparedCall", "builtin_bindings"]
