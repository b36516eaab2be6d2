"""The audit log: one JSON line per tool call, and the last calls kept for the resource and the status page.

Every call that reaches ``ActionService.handle`` (a host's ``tools/call``,
``actions.site``'s call mode, the Python API) is recorded once it ended:
succeeded, failed, refused for its arguments, denied by the policy, or
declined by the user. A line holds who called (``client``), what
(``tool``, ``protocol``, ``namespace``, ``trust``), where (``runtime_id``,
``origin``, ``authorization_id``), the names of the arguments and the
SHA-256 of their canonical JSON (sorted keys, compact separators,
``ensure_ascii=False``), the decision (``allowed``, ``denied``,
``confirmed``, ``declined``), the status (``ok``/``error``, with ``code``)
and ``elapsed_ms``. Argument values are never written.

Lines go through ``logging.handlers.RotatingFileHandler``: opened for
appending (a restart continues the same file), flushed after each line,
written under the handler's lock (concurrent calls never interleave lines),
and rotated by size. The default file lives in the user's state directory
(``platformdirs.user_state_path``); ``off`` writes no file, and the last
``RECENT_SIZE`` entries are still kept for ``actions://audit/recent``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import logging.handlers
from collections import deque
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "AUDIT_BACKUP_COUNT",
    "AUDIT_MAX_BYTES",
    "Decision",
    "RECENT_SIZE",
    "AuditLog",
    "arguments_sha256",
    "default_audit_path",
    "utc_timestamp",
]

log = logging.getLogger(__name__)

#: The entries ``actions://audit/recent`` and the status page show.
RECENT_SIZE = 100
#: A file grows to this size before it is rotated (``audit.jsonl.1`` … ``.5`` are kept).
AUDIT_MAX_BYTES = 10 * 1024 * 1024
AUDIT_BACKUP_COUNT = 5

#: What decided that a call could run: nothing objected, the policy denied it, the user said yes, or the user said no.
Decision = Literal["allowed", "denied", "confirmed", "declined"]


def default_audit_path() -> Path:
    """The default log file: ``audit.jsonl`` in mcp-actions' state directory for this user and OS."""
    import platformdirs

    return platformdirs.user_state_path("mcp-actions", appauthor=False) / "audit.jsonl"


def arguments_sha256(arguments: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of the arguments' canonical JSON: sorted keys, compact separators, ``ensure_ascii=False``."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def utc_timestamp() -> str:
    """Now, ISO 8601 in UTC with milliseconds (``2026-11-24T04:36:42.123Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _LineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return str(record.msg)


class AuditLog:
    """Appends entries to a rotating JSON-lines file (or none) and keeps the latest for viewing."""

    def __init__(
        self,
        path: str | Path | None,
        *,
        max_bytes: int = AUDIT_MAX_BYTES,
        backup_count: int = AUDIT_BACKUP_COUNT,
        recent_size: int = RECENT_SIZE,
    ) -> None:
        """``path`` None: no file (the recent entries are still kept)."""
        self.path = Path(path).expanduser() if path is not None else None
        self.max_bytes = max_bytes
        self.backup_count = backup_count
        self._recent: deque[dict[str, Any]] = deque(maxlen=recent_size)
        self._handler: logging.handlers.RotatingFileHandler | None = None
        #: Told after each entry (the composition root announces ``actions://audit/recent`` changed).
        self.listeners: list[Callable[[dict[str, Any]], None]] = []

    def open(self) -> None:
        """Open the file for appending, creating its directory; an unwritable place raises ``OSError``."""
        if self.path is None or self._handler is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(self.path, mode="a", maxBytes=self.max_bytes, backupCount=self.backup_count, encoding="utf-8")
        handler.setFormatter(_LineFormatter())
        self._handler = handler

    def close(self) -> None:
        """Close the file (entries recorded later are only kept in memory)."""
        handler, self._handler = self._handler, None
        if handler is not None:
            handler.close()

    def record(self, entry: dict[str, Any]) -> None:
        """Append one entry as a line (flushed) and keep it among the recent; a write failure is logged, never raised."""
        handler = self._handler
        if handler is not None:
            line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)
            record = logging.LogRecord("mcp_actions.audit", logging.INFO, "", 0, line, None, None)
            handler.handle(record)  # takes the handler's lock: one whole line at a time, then flush
        self._recent.append(entry)
        for listener in self.listeners:
            try:
                listener(entry)
            except Exception:
                log.exception("an audit listener failed")

    def recent(self) -> list[dict[str, Any]]:
        """The latest entries, oldest first (at most ``RECENT_SIZE``)."""
        return list(self._recent)
