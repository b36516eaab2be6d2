"""The validator's verdicts, kept on disk so a fresh process does not redo them.

Cold validation is dominated by work whose answer depends only on text:
compiling each JSONata expression, checking each JSON Schema against its
metaschema, checking literal step arguments against the dictionary. Each of
these verdicts is memoised here under a hash of its input, in one small JSON
file per kind under the user cache directory (``$MCP_ACTIONS_CACHE_DIR``, else
``$XDG_CACHE_HOME/mcp-actions``, else ``~/.cache/mcp-actions``).
``MCP_ACTIONS_NO_CACHE=1`` turns the disk part off.

Safe by construction:

* **versioned**: the file name carries a fingerprint of everything a verdict
  depends on (the file format, jsonata-python's, jsonschema's and google-re2's versions,
  the source of the modules that compute verdicts and the bundled dictionary), so
  a changed rule or library never reads an old verdict;
* **checked**: every entry read is checked for shape (and codes for
  membership of ``ErrorCode``) before use; a file that is not what we wrote
  is ignored (and logged) and replaced at the next flush;
* **atomic**: written to a temporary file and renamed, so a reader never sees
  half a file and concurrent writers only race for the last word;
* **bounded**: at most ``MAX_ENTRIES`` per kind (the newest kept), and the
  files of other fingerprints (an older validator) are removed when a new
  one is written.

Writes are batched: ``flush_all`` (called after each manifest) writes a kind
once ``FLUSH_AFTER`` new verdicts have gathered, and whatever is left is
written when the process exits, so validating many small manifests (a test
suite, a directory of maps) does not rewrite the file each time.

The memo only ever *saves* work: a missing, unreadable or unwritable cache
means the verdicts are computed, exactly as before.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import ErrorCode
from ..primitive_dictionary import dictionary_bytes

__all__ = ["FLUSH_AFTER", "MAX_ENTRIES", "DiskMemo", "as_code", "cache_dir", "digest", "flush_all", "is_code"]

logger = logging.getLogger(__name__)

MAX_ENTRIES = 100_000
FLUSH_AFTER = 256
# Bump when the file layout, or the wording of a stored verdict, changes (2: an unknown step argument names the
# accepted ones), so that no verdict of an older validator is read, whatever the source fingerprint says.
_FORMAT = 2
_CODES: dict[str, ErrorCode] = {member.value: member for member in ErrorCode}
# Modules whose code decides a verdict: any edit to them invalidates every cached verdict.
_VERDICT_SOURCES = ("expressions.py", "expression_regex.py", "../bounded_regex.py", "rules/expressions.py", "rules/schema.py", "rules/workflow.py", "rules/base.py", "rules/hints.py")
_memos: list[DiskMemo] = []


def cache_dir() -> Path | None:
    """Where verdict files live, or None when the disk cache is turned off."""
    if os.environ.get("MCP_ACTIONS_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("MCP_ACTIONS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "mcp-actions"


def digest(*parts: str) -> str:
    """A short, stable hash of text parts (the key of one verdict)."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        hasher.update(part.encode("utf-8", "surrogatepass"))
        hasher.update(b"\x00")
    return hasher.hexdigest()


def is_code(value: Any) -> bool:
    """True for the value of an ``ErrorCode`` member."""
    return isinstance(value, str) and value in _CODES


def as_code(value: str) -> ErrorCode:
    """The ``ErrorCode`` member whose value is ``value`` (a verdict read back; ``is_code`` said it is one)."""
    return _CODES[value]


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


_fingerprint_cache: list[str] = []


def _fingerprint() -> str:
    if not _fingerprint_cache:
        root = Path(__file__).parent
        hasher = hashlib.blake2b(digest_size=8)
        for part in (str(_FORMAT), _version("jsonata-python"), _version("jsonschema"), _version("google-re2")):
            hasher.update(part.encode() + b"\x00")
        for relative in _VERDICT_SOURCES:
            hasher.update((root / relative).read_bytes())
        hasher.update(dictionary_bytes())
        _fingerprint_cache.append(hasher.hexdigest())
    return _fingerprint_cache[0]


class DiskMemo:
    """Verdicts of one kind: ``key (a digest) -> JSON value``, read from disk once, written by ``flush``.

    ``valid`` says whether a value read from disk has the shape this kind
    writes; ``decode`` turns it back into what the caller memoises.
    """

    def __init__(self, kind: str, *, valid: Callable[[Any], bool], decode: Callable[[Any], Any] = lambda value: value) -> None:
        self.kind = kind
        self._valid = valid
        self._decode = decode
        self._entries: dict[str, Any] | None = None
        self._dirty = False
        self._pending = 0  # new verdicts since the last write
        _memos.append(self)

    def _path(self) -> Path | None:
        directory = cache_dir()
        if directory is None:
            return None
        try:
            return directory / f"validator-{self.kind}-{_fingerprint()}.json"
        except OSError as exc:
            logger.warning("validator cache disabled: cannot fingerprint the validator: %s", exc)
            return None

    def _load(self) -> dict[str, Any]:
        entries: dict[str, Any] = {}
        path = self._path()
        if path is None or not path.is_file():
            return entries
        try:
            raw = json.loads(path.read_bytes())
        except (OSError, ValueError) as exc:
            logger.warning("ignoring unreadable validator cache %s: %s", path, exc)
            self._dirty = True  # rewrite it
            return entries
        stored = raw.get("entries") if isinstance(raw, dict) else None
        if not isinstance(stored, dict) or raw.get("kind") != self.kind:
            logger.warning("ignoring validator cache %s: not a %s verdict file", path, self.kind)
            self._dirty = True
            return entries
        return stored

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, verdict)`` when ``key`` is known, else ``(False, None)``."""
        if self._entries is None:
            self._entries = self._load()
        if key not in self._entries:
            return False, None
        value = self._entries[key]
        if not self._valid(value):
            logger.warning("dropping a malformed %s verdict from the validator cache", self.kind)
            del self._entries[key]
            self._dirty = True
            return False, None
        return True, self._decode(value)

    def put(self, key: str, value: Any) -> None:
        """Remember ``value`` (plain JSON) for ``key``; written at the next ``flush``."""
        if self._entries is None:
            self._entries = self._load()
        self._entries[key] = value
        self._dirty = True
        self._pending += 1

    def flush(self, *, force: bool = True) -> None:
        """Write the verdicts to disk when they changed (atomically; failures are logged, never raised).

        Without ``force``, only once ``FLUSH_AFTER`` new verdicts have gathered.
        """
        if not self._dirty or self._entries is None or (not force and self._pending < FLUSH_AFTER):
            return
        path = self._path()
        self._dirty = False
        self._pending = 0
        if path is None:
            return
        if len(self._entries) > MAX_ENTRIES:
            self._entries = dict(list(self._entries.items())[-MAX_ENTRIES:])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    json.dump({"kind": self.kind, "entries": self._entries}, file, ensure_ascii=False, separators=(",", ":"))
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            logger.warning("could not write the validator cache %s: %s", path, exc)
            return
        self._remove_stale(path)

    def _remove_stale(self, current: Path) -> None:
        """Delete this kind's files of other fingerprints: verdicts of a validator that is gone."""
        for stale in current.parent.glob(f"validator-{self.kind}-*.json"):
            if stale != current:
                try:
                    stale.unlink()
                except OSError as exc:  # another process may have removed it first
                    logger.debug("could not remove stale validator cache %s: %s", stale, exc)


def flush_all(*, force: bool = False) -> None:
    """Write the kinds that gathered enough new verdicts (all of them with ``force``)."""
    for memo in _memos:
        memo.flush(force=force)


# Whatever a short-lived process learnt (the validate command, a test run) is kept for the next one.
atexit.register(flush_all, force=True)
