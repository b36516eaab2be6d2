"""Dispatch: run a tool call from checked arguments to a checked result.

``ActionService.handle`` takes a call by MCP name with its ``CallContext``
(progress, how to ask the user, the way in) and passes it through the ordered
guards (``GuardChain``: visibility, arguments, the ``--policy`` rules when
given (``policy.py``), confirmation; on the chosen runtime: the policy's
origin rules, a page open, capabilities, states, transition rules), runs the
tool (handler, primitive, workflow, legacy steps, page tool or built-in) and
checks its result; every call that ended is recorded in the audit log when
one is set (``ActionService.audit``). ``InputRequired`` says the caller must ask its user and call
again. ``builtin_bindings`` are the built-in tools (``actions.site``, browser
control, observe and act on refs).
"""

from .builtins.registry import builtin_bindings
from .call.guards import CallContext, GuardChain, InputRequired
from .call.service import ActionService

__all__ = ["ActionService", "CallContext", "GuardChain", "InputRequired", "builtin_bindings"]
