"""The audit log's latest entries as an ``actions://`` resource.

    actions://audit/recent   the last 100 tool calls, with the audit log's fields

Each entry has the fields of a line of the audit log (``audit_log.py``):
who called, which tool, on which page, the names and digest of the arguments
(never their values), the decision and the status. The resource changes after
every call; the composition root announces it (``ResourceRegistry.updated``),
so a subscribed client hears of each call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .registry import ResourceEntry, ResourceProvider, ResourceRegistry

__all__ = ["AUDIT_RECENT_URI", "register_audit_resource"]

AUDIT_RECENT_URI = "actions://audit/recent"
AUDIT_TEXT = "The last 100 tool calls: client, tool, page, map trust, argument names (never values), decision, status, time."


def register_audit_resource(
    registry: ResourceRegistry,
    recent: Callable[[], list[dict[str, Any]]],
    *,
    log_file: Callable[[], str | None] = lambda: None,
    health: Callable[[], dict[str, Any]] | None = None,
) -> None:
    """Serve ``recent()`` (oldest first) as ``actions://audit/recent``; ``log_file()`` names the file written, if any.

    ``health()`` (``AuditLog.health``) says whether the file takes lines; calls are refused while it does not.
    """

    async def read(_: Mapping[str, str]) -> Any:
        found: dict[str, Any] = {"log_file": log_file(), "entries": recent()}
        if health is not None:
            found["health"] = health()
        return found

    registry.register(ResourceProvider(AUDIT_RECENT_URI, "audit-recent", AUDIT_TEXT, read, lambda: [ResourceEntry(AUDIT_RECENT_URI, "audit-recent", AUDIT_TEXT)]))
