"""BAP (Browser Agent Protocol): a second front door for agents, JSON-RPC 2.0 over WebSocket (docs/bap.md).

The door only translates: each BAP connection is an agent session (``agent_sessions.SessionBook``,
``bridge/scope.py``), and each BAP method runs through the same core as an MCP call
(``ActionService.handle`` on the built-in and map tools), so the policy, the audit log,
confirmations and per-session tabs apply as they do for MCP. Nothing here imports the MCP SDK.

    BapDoor         the listener ``serve --bap-port`` starts: token and Origin checks, one session per connection
    BAP_VERSION     the protocol version the door speaks (the released client checks its major number)
    ACT_STEP_CALL   the ``agent/act`` step action that runs a map, learned or page tool by its MCP name
"""

from __future__ import annotations

from .door import BapDoor
from .methods import ACT_STEP_CALL, BAP_VERSION

__all__ = ["ACT_STEP_CALL", "BAP_VERSION", "BapDoor"]
