"""The audit log: one JSON line per tool call, and the last calls kept for the resource and the status page.

Every call that reaches ``ActionService.handle`` (a host's ``tools/call``,
``actions.site``'s call mode, the Python API) is recorded once it ended:
succeeded, failed, refused for its arguments, denied by the policy, or
declined by the user. A line holds who called (``client``), what
(``tool``, ``protocol``, ``namespace``, ``trust``), where (``runtime_id``,
``origin``, ``authorization_id``), the names of the arguments and a keyed
digest of their canonical JSON (HMAC-SHA256 under the log's own key, in the
field ``arguments_sha256``; sorted keys, compact separators,
``ensure_ascii=False``), the decision (``allowed``, ``denied``,
``confirmed``, ``declined``), the status (``ok``/``error``, with ``code``)
and ``elapsed_ms``. Argument values are never written.

Lines are written here, not through ``logging``: a ``logging.Handler`` swallows
a failed write into ``handleError`` (stderr says "Logging error", the call goes
on unrecorded). Each line is one ``os.write`` to a file opened for appending (a
restart continues the same file), under a lock (concurrent calls never
interleave lines), and rotated by size as ``RotatingFileHandler`` did
(``audit.jsonl.1`` … ``.5``). A write that fails (a full disk, a file size
limit) is undone if it wrote part of a line, and the line waits in a bounded
in-memory backlog that is written first, before any later line. While the log
is failing, or cannot grow (free space on its file system below
``AUDIT_MIN_FREE_BYTES``, ``RLIMIT_FSIZE`` reached), ``check`` raises
``audit_unavailable``: dispatch calls it before every call, so no call runs
unrecorded (docs/cli.md, "The audit log"). ``health`` says how the log is, for
the status page and the resources.

The default file lives in the user's state directory
(``platformdirs.user_state_path``); ``off`` writes no file, and the last
``RECENT_SIZE`` entries are still kept for ``actions://audit/recent``.

Why a key: a bare SHA-256 of a 4-digit PIN is reversed by trying all 10,000
values in well under a second. The key (32 random bytes, ``<log file>.key``
beside the log, readable by its user alone; kept in memory only with ``off``)
makes the digest useless to whoever reads a line without it, while the
operator, who holds the file, still matches a line to a call they know
(``mcp-actions audit-digest``, docs/cli.md).

Only the user's own files are used (``AuditFileRefused``, docs/cli.md): with
the log in a shared folder, another user could plant a key they know (then
try every PIN against its digests) or a log they can read. So the key and the
log are opened without following a symbolic link (``O_NOFOLLOW``), and one
that another user owns, or that group or others may read or write, is refused
rather than used or repaired; new ones are made 0600. The folder must be the
user's (or root's) and not writable by others unless it is sticky (``/tmp``):
there others can neither remove nor rename the user's files, and anything
they put there first is refused by the checks above. Elsewhere a folder
others can write would let them swap the files between two opens.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from .errors import ActionError, ErrorCode

try:  # POSIX only: where there is none, the file size limit is not checked
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]  # the module or nothing

__all__ = [
    "AUDIT_BACKLOG_SIZE",
    "AUDIT_BACKUP_COUNT",
    "AUDIT_LINE_RESERVE",
    "AUDIT_MAX_BYTES",
    "AUDIT_MIN_FREE_BYTES",
    "AuditFileRefused",
    "Decision",
    "RECENT_SESSIONS",
    "RECENT_SIZE",
    "AuditLog",
    "arguments_digest",
    "audit_key_path",
    "check_audit_folder",
    "default_audit_path",
    "load_audit_key",
    "utc_timestamp",
]

log = logging.getLogger(__name__)

#: The entries ``actions://audit/recent`` and the status page show.
RECENT_SIZE = 100
#: Agent sessions whose own latest entries are kept (the most recently active).
RECENT_SESSIONS = 256
#: A file grows to this size before it is rotated (``audit.jsonl.1`` … ``.5`` are kept).
AUDIT_MAX_BYTES = 10 * 1024 * 1024
AUDIT_BACKUP_COUNT = 5
#: Below this much free space on the log's file system, calls are refused: the line of a call
#: that runs now must still fit when it ends, whatever else fills the disk meanwhile.
AUDIT_MIN_FREE_BYTES = 1024 * 1024
#: Room a file size limit (``RLIMIT_FSIZE``) must leave for the next lines (a line is about 500 bytes).
AUDIT_LINE_RESERVE = 16 * 1024
#: Lines kept in memory while the file cannot take them; past this, the oldest refusal is dropped.
AUDIT_BACKLOG_SIZE = 1000

#: What decided that a call could run: nothing objected, the policy denied it, the user said yes, or the user said no.
Decision = Literal["allowed", "denied", "confirmed", "declined"]


def default_audit_path() -> Path:
    """The default log file: ``audit.jsonl`` in mcp-actions' state directory for this user and OS."""
    import platformdirs

    return platformdirs.user_state_path("mcp-actions", appauthor=False) / "audit.jsonl"


def arguments_digest(key: bytes, arguments: Mapping[str, Any]) -> str:
    """The HMAC-SHA256 (hex) under ``key`` of the arguments' canonical JSON: sorted keys, compact separators, ``ensure_ascii=False``."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    # A lone surrogate ("\ud800") is digested, not a crash.
    return hmac.new(key, canonical.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


class AuditFileRefused(OSError):
    """An audit file or folder that is not the user's alone: another user's, open to others, or a symbolic link.

    Its message is one line saying which file and why; ``serve`` ends with it (exit 2), and so
    does ``mcp-actions audit-digest``.
    """


#: Open flags that never follow a symbolic link in the last component (0 where the OS has none).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: Where ownership and mode bits mean something (POSIX); elsewhere the checks are skipped.
_POSIX = hasattr(os, "geteuid")


def _check_own(path: Path, info: os.stat_result, what: str) -> None:
    """Refuse ``path`` (``info``: its ``fstat``) unless it is this user's and closed to group and others."""
    if not _POSIX or stat.S_ISCHR(info.st_mode):
        return  # a device (/dev/full, /dev/null) is made by root alone: nobody planted it
    if info.st_uid != os.geteuid():
        raise AuditFileRefused(f"{what} {path} belongs to another user (uid {info.st_uid}), who could read or replace it; only this user's own files are used")
    if info.st_mode & 0o077:
        raise AuditFileRefused(
            f"{what} {path} can be read or written by others (mode {info.st_mode & 0o7777:04o}); "
            "only a file of this user's alone (0600) is used: move it away, as others may have read or changed it"
        )


def _open_own(path: Path, flags: int, what: str) -> int:
    """``os.open`` without following a symbolic link, then ``_check_own``; the fd, or ``AuditFileRefused``."""
    try:
        fd = os.open(path, flags | _NOFOLLOW, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise AuditFileRefused(f"{what} {path} is a symbolic link; only the file itself is used") from exc
        raise
    try:
        _check_own(path, os.fstat(fd), what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_audit_folder(folder: Path) -> None:
    """Refuse the log's folder when another user owns it (root aside) or others may write it and it is not sticky."""
    if not _POSIX:
        return
    info = folder.stat()
    if info.st_uid not in (os.geteuid(), 0):
        raise AuditFileRefused(f"the audit log's folder {folder} belongs to another user (uid {info.st_uid}), who could replace its files")
    sticky = info.st_mode & 0o1000
    if info.st_mode & 0o022 and not sticky:
        raise AuditFileRefused(
            f"the audit log's folder {folder} can be written by others (mode {info.st_mode & 0o7777:04o}), who could replace its files; "
            "use a folder of this user's, or a sticky one such as /tmp"
        )


def audit_key_path(log_file: Path) -> Path:
    """Where the key of the log ``log_file`` lives: ``<log file>.key`` beside it."""
    return log_file.with_name(log_file.name + ".key")


#: Bytes of a log's key.
_KEY_BYTES = 32


def load_audit_key(log_file: Path, *, create: bool = True) -> bytes:
    """The key of the log ``log_file``, made (readable by its user alone) when it has none and ``create``.

    A key file that holds anything but the hex of a key is an error (``OSError``), never replaced:
    the lines already written were digested under the key it held. A key another user owns, or
    that others may read or write, or a symbolic link, is ``AuditFileRefused`` (the module's docstring).
    """
    path = audit_key_path(log_file)
    if create and not path.exists() and not path.is_symlink():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except FileExistsError:
            pass  # another process made it just now: read theirs (checked below like any other)
        else:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secrets.token_hex(_KEY_BYTES) + "\n")
    with os.fdopen(_open_own(path, os.O_RDONLY, "the audit key"), encoding="ascii") as handle:
        text = handle.read().strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise OSError(f"{path} is not an audit log key (64 hex digits); move it away to start a new one")
    return key


def utc_timestamp() -> str:
    """Now, ISO 8601 in UTC with milliseconds (``2026-11-24T04:36:42.123Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _reason(exc: OSError) -> str:
    """A failed write in a word the refusal's evidence carries."""
    if exc.errno == errno.ENOSPC or exc.errno == getattr(errno, "EDQUOT", None):
        return "disk_full"
    if exc.errno == errno.EFBIG:
        return "file_size_limit"
    return "write_failed"


class AuditLog:
    """Appends entries to a rotating JSON-lines file (or none), refuses calls while it cannot, keeps the latest for viewing."""

    def __init__(
        self,
        path: str | Path | None,
        *,
        max_bytes: int = AUDIT_MAX_BYTES,
        backup_count: int = AUDIT_BACKUP_COUNT,
        recent_size: int = RECENT_SIZE,
        min_free_bytes: int = AUDIT_MIN_FREE_BYTES,
        backlog_size: int = AUDIT_BACKLOG_SIZE,
    ) -> None:
        """``path`` None: no file (the recent entries are still kept)."""
        self.path = Path(path).expanduser() if path is not None else None
        #: The replica id every line carries when replicas share a backplane (None: one process, no field).
        self.replica: str | None = None
        self.max_bytes = max_bytes
        self.backup_count = backup_count
        self.min_free_bytes = min_free_bytes
        self._recent: deque[dict[str, Any]] = deque(maxlen=recent_size)
        #: Each agent session's own latest entries (what it reads of the log), the most recently active
        #: ``RECENT_SESSIONS`` sessions' at most: a busy session never pushes another's calls out.
        self._recent_of: OrderedDict[str, deque[dict[str, Any]]] = OrderedDict()
        self._recent_size = recent_size
        self._fd: int | None = None
        # One lock for the file, the backlog and the failure: calls may end on several threads.
        self._lock = threading.Lock()
        #: Lines not written yet, oldest first, each with whether it records a refusal for this very log.
        self._backlog: deque[tuple[bytes, bool]] = deque()
        self._backlog_size = backlog_size
        #: Why the last write failed (``reason: strerror``), None while the file takes lines.
        self._failure: str | None = None
        self._failure_reason = "write_failed"
        #: The problem announced in the log since calls began to be refused (None: calls run).
        self._announced: str | None = None
        #: Lines given up (the backlog overflowed, or a line came after close).
        self.lost = 0
        #: Writes that failed (the line waited in the backlog): ``/metrics``' audit write failures.
        self.write_failures = 0
        #: Told after each entry (the composition root announces ``actions://audit/recent`` changed).
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        #: What argument digests are keyed with: the file's own key once opened (``load_audit_key``);
        #: a key of this process alone without a file.
        self.key = secrets.token_bytes(_KEY_BYTES)

    # -- the file --------------------------------------------------------------

    def open(self) -> None:
        """Open the file for appending, creating its directory; an unwritable place raises ``OSError``."""
        if self.path is None or self._fd is not None:
            return
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        check_audit_folder(self.path.parent)
        self.key = load_audit_key(self.path)
        self._fd = self._open_file()

    def digest(self, arguments: Mapping[str, Any]) -> str:
        """The digest an entry carries of these arguments (``arguments_sha256``): keyed with this log's key."""
        return arguments_digest(self.key, arguments)

    def _open_file(self) -> int:
        """The log file opened for appending; only the user reads what their agent did: a new file is 0600, and one not the user's alone is refused."""
        assert self.path is not None
        return _open_own(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "the audit log")

    def close(self) -> None:
        """Write what still waits, then close the file (entries recorded later are only kept in memory)."""
        with self._lock:
            if self._fd is None:
                return
            try:
                self._drain()
            except OSError as exc:
                self.lost += len(self._backlog)
                log.error("the audit log %s could not be written before it closed (%s): %d line(s) lost", self.path, exc.strerror or exc, len(self._backlog))
                self._backlog.clear()
            fd, self._fd = self._fd, None
            os.close(fd)

    def _write(self, data: bytes) -> None:
        """Append one line whole, or nothing: a write that stopped part-way is cut back off (raises ``OSError``)."""
        assert self._fd is not None
        self._rotate_before(len(data))
        fd = self._fd
        before = os.fstat(fd).st_size
        written = 0
        try:
            while written < len(data):
                count = os.write(fd, data[written:])
                if count <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written += count
        except OSError:
            if written:
                self._cut_back(fd, before, written)
            raise

    def _cut_back(self, fd: int, before: int, written: int) -> None:
        # Only when the part is ours at the end (another process appending to the same file would be cut too).
        try:
            if os.fstat(fd).st_size == before + written:
                os.ftruncate(fd, before)
        except OSError:
            log.warning("the audit log %s keeps part of a line that could not be written whole", self.path)

    def _rotate_before(self, size: int) -> None:
        """Rotate as ``RotatingFileHandler`` does: ``path`` → ``path.1`` → … → ``path.<backup_count>``, dropped beyond."""
        if not self._rotates_for(size):
            return
        assert self.path is not None and self._fd is not None
        try:
            for index in range(self.backup_count - 1, 0, -1):
                source = self.path.with_name(f"{self.path.name}.{index}")
                if source.exists():
                    os.replace(source, self.path.with_name(f"{self.path.name}.{index + 1}"))
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        except OSError as exc:
            log.warning("the audit log %s could not be rotated (%s); it grows on", self.path, exc.strerror or exc)
            return
        # The new file first: were it refused (planted in the moment between), the line waits and the old fd stays valid.
        fresh = self._open_file()
        os.close(self._fd)
        self._fd = fresh

    def _rotates_for(self, size: int) -> bool:
        if self._fd is None or self.max_bytes <= 0 or self.backup_count <= 0:
            return False
        current = os.fstat(self._fd).st_size
        return current > 0 and current + size > self.max_bytes

    def _drain(self) -> None:
        """Write the backlog, oldest first; stops at (and raises) the first failure, keeping the rest."""
        while self._backlog:
            self._write(self._backlog[0][0])
            self._backlog.popleft()

    def _keep(self, line: bytes, refusal: bool) -> None:
        """Queue a line; a full backlog gives up its oldest refusal first (a call that ran keeps its line)."""
        if len(self._backlog) >= self._backlog_size:
            drop = next((i for i, (_, refused) in enumerate(self._backlog) if refused), 0)
            del self._backlog[drop]
            self.lost += 1
        self._backlog.append((line, refusal))

    # -- recording ---------------------------------------------------------------

    def record(self, entry: dict[str, Any]) -> None:
        """Append one entry as a line and keep it among the recent; a line that cannot be written waits, never raises."""
        if self.replica is not None:
            entry = {**entry, "replica": self.replica}  # which replica ran the MCP request (docs/deploying.md)
        if self.path is not None:
            # A lone surrogate (a page's title or URL may carry one) becomes its JSON escape, \udcXX, not a crash.
            line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode("utf-8", "backslashreplace")
            with self._lock:
                if self._fd is None:
                    self.lost += 1
                    log.error("the audit log %s is closed: the line of a call of %s was not written", self.path, entry.get("tool"))
                else:
                    self._keep(line, entry.get("code") == ErrorCode.AUDIT_UNAVAILABLE)
                    self._try_drain()
        self._recent.append(entry)
        session = entry.get("session")
        if isinstance(session, str):
            with self._lock:  # calls end on several threads
                own = self._recent_of.pop(session, None) or deque(maxlen=self._recent_size)
                own.append(entry)
                self._recent_of[session] = own  # moved to the end: the most recently active
                while len(self._recent_of) > RECENT_SESSIONS:
                    self._recent_of.popitem(last=False)
        for listener in self.listeners:
            try:
                listener(entry)
            except Exception:
                log.exception("an audit listener failed")

    def _try_drain(self) -> bool:
        """Write what waits (held lock); False, with the failure noted and announced, when the file refuses."""
        try:
            self._drain()
        except OSError as exc:
            self.write_failures += 1
            self._failure_reason = _reason(exc)
            self._failure = f"{self._failure_reason}: {exc.strerror or exc}"
            self._announce(self._failure)
            return False
        self._failure = None
        return True

    def _announce(self, problem: str) -> None:
        """Say once per outage (held lock), as an error, that calls are refused: it reaches MCP clients' logs too (server/logs.py)."""
        if self._announced is None:
            log.error(
                "the audit log %s cannot take more lines (%s): calls are refused with audit_unavailable until it can; %d line(s) wait in memory",
                self.path,
                problem,
                len(self._backlog),
            )
        self._announced = problem

    # -- health ------------------------------------------------------------------

    def check(self) -> None:
        """The pre-flight before a call: raise ``audit_unavailable`` unless the call's line can be written when it ends.

        Refused while the last write failed and writing the waiting lines fails again, while
        the file is closed, while its file system has less than ``min_free_bytes`` free, and
        while a file size limit (``RLIMIT_FSIZE``) leaves less than ``AUDIT_LINE_RESERVE``.
        """
        if self.path is None:
            return
        with self._lock:
            reason = self._problem(retry=True)
            if reason is None:
                if self._announced is not None:
                    log.warning("the audit log %s takes lines again (the lines that waited are in it): calls run", self.path)
                    self._announced = None
                return
            failure = self._failure
            self._announce(failure or reason)
            waiting = len(self._backlog)
        raise ActionError(
            f"the audit log {self.path} cannot take this call's line ({failure or reason}), so the call was not run; "
            "free space where it lives, or restart with another --audit-log",
            code=ErrorCode.AUDIT_UNAVAILABLE,
            evidence={"log_file": str(self.path), "reason": reason, "waiting_lines": waiting},
        )

    def _problem(self, *, retry: bool) -> str | None:
        """Why a line could not be written now, or None (held lock); ``retry`` writes the backlog first."""
        if self._fd is None:
            return "closed"  # not opened yet, or closed at shutdown
        if self._backlog or self._failure is not None:
            if not retry or not self._try_drain():
                return self._failure_reason
        return self._capacity_problem()

    def _capacity_problem(self) -> str | None:
        """``disk_full`` or ``file_size_limit`` when the file cannot grow by a few lines, else None."""
        assert self.path is not None and self._fd is not None
        if hasattr(os, "statvfs"):
            try:
                stats = os.statvfs(self.path.parent)
            except OSError:
                pass  # the write itself will tell
            else:
                if stats.f_bavail * stats.f_frsize < self.min_free_bytes:
                    return "disk_full"
        if resource is not None:
            limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
            if limit != resource.RLIM_INFINITY:
                # The next line may start a new file: then the current file's size does not count.
                size = 0 if self._rotates_for(AUDIT_LINE_RESERVE) else os.fstat(self._fd).st_size
                if limit - size < AUDIT_LINE_RESERVE:
                    return "file_size_limit"
        return None

    def health(self) -> dict[str, Any]:
        """How the log is: ``{log_file, ok, problem, waiting_lines, lost_lines}`` (``problem`` None while it is ok)."""
        if self.path is None:
            return {"log_file": None, "ok": True, "problem": None, "waiting_lines": 0, "lost_lines": self.lost}
        with self._lock:
            reason = self._problem(retry=False)
            problem = self._failure or reason
            waiting = len(self._backlog)
        return {"log_file": str(self.path), "ok": problem is None, "problem": problem, "waiting_lines": waiting, "lost_lines": self.lost}

    def recent(self, session: str | None = None) -> list[dict[str, Any]]:
        """The latest entries, oldest first (at most ``RECENT_SIZE``); with ``session``, only that agent session's calls."""
        if session is None:
            return list(self._recent)
        with self._lock:
            return list(self._recent_of.get(session, ()))
