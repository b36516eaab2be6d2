"""The audit log's latest entries as an ``actions://`` resource.

    actions://audit/recent   the last 100 tool calls, with the audit log's fields

An agent session (over HTTP) reads its own calls alone; the operator's
connections (stdio, the Python API) read every call (docs/sessions.md).

Each entry has the fields of a line of the audit log (``audit_log.py``):
who called, which tool, on which page, the names and digest of the arguments
(never their values), the decision and the status. The resource changes after
every call, and ``register_audit_resource`` announces it then
(``ResourceRegistry.updated``), so a subscribed client hears of each call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..audit_log import AuditLog
from ..bridge.scope import current_session
from .registry import ResourceEntry, ResourceProvider, ResourceRegistry

__all__ = ["AUDIT_RECENT_URI", "register_audit_resource"]

AUDIT_RECENT_URI = "actions://audit/recent"
AUDIT_TEXT = "The last 100 tool calls (over HTTP, of this session): client, tool, page, map trust, argument names (never values), decision, status, time."


def register_audit_resource(registry: ResourceRegistry, audit: AuditLog) -> None:
    """Serve ``audit``'s latest calls (oldest first) as ``actions://audit/recent``, announced after each call.

    It names the file written (``log_file``, None with ``--audit-log off``) and says whether the file takes
    lines (``health``, ``AuditLog.health``): calls are refused while it does not.
    """

    async def read(_: Mapping[str, str]) -> Any:
        # An agent session reads its own calls alone, whatever its browser context (docs/sessions.md); the operator all.
        key = current_session()
        return {"log_file": str(audit.path) if audit.path else None, "entries": audit.recent(key.id if key is not None else None), "health": audit.health()}

    # Each entry is news to the session that called alone; a call outside any session, to the operator alone.
    audit.listeners.append(lambda entry: registry.updated(AUDIT_RECENT_URI, sessions=frozenset(filter(None, [entry.get("session")]))))
    registry.register(ResourceProvider(AUDIT_RECENT_URI, "audit-recent", AUDIT_TEXT, read, lambda: [ResourceEntry(AUDIT_RECENT_URI, "audit-recent", AUDIT_TEXT)]))
