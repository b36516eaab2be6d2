"""The files ``page_fill {files}`` puts in a file input: read by the server from the user's upload roots only.

A model names files by path; the server reads them, never the page, and only
under the directories the user allowed with ``--upload-root`` (``AppOptions.upload_roots``,
``ActionService.upload_roots``): a path outside them, or one that leads through a symbolic
link, is ``permission_denied``, with no upload root at all every path is. What is read is
what is under the root at the moment of reading: the file is opened from the root one
component at a time, following no link (``_open_under``), and read from that descriptor. The
bytes travel to the page engine base64-encoded in one bridge item, so all the
files of one call together are bounded by ``MAX_UPLOAD_BYTES`` (docs/mcp-surface.md,
"Every kind of control").
"""

from __future__ import annotations

import base64
import errno
import mimetypes
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ....errors import ActionError, ErrorCode

__all__ = ["MAX_UPLOAD_BYTES", "MAX_UPLOAD_FILES", "read_uploads"]

#: All the files of one call together: their base64 must fit in one bridge item (1 MiB by default).
MAX_UPLOAD_BYTES = 512 * 1024
#: Files one call may set.
MAX_UPLOAD_FILES = 10


def _path_of(raw: Any, pointer: str) -> Path:
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        raise ActionError("a file is named by a non-empty path", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer})
    path = Path(raw).expanduser()
    if not path.is_absolute():
        # Relative to what? The server's working directory is not something the model knows.
        raise ActionError(f"give {raw!r} as an absolute path (under an upload root)", code=ErrorCode.INVALID_INPUT, evidence={"path": pointer})
    return path


def read_uploads(paths: Any, roots: Sequence[Path]) -> list[dict[str, Any]]:
    """``paths`` read for a file input: ``[{name, type, data}]`` (``data`` base64), or an ``ActionError`` naming the bad path's pointer."""
    if not isinstance(paths, list) or not 1 <= len(paths) <= MAX_UPLOAD_FILES:
        raise ActionError(f"files must be a list of 1 to {MAX_UPLOAD_FILES} paths", code=ErrorCode.INVALID_INPUT, evidence={"path": "/files"})
    out: list[dict[str, Any]] = []
    total = 0
    for index, raw in enumerate(paths):
        pointer = f"/files/{index}"
        path = _path_of(raw, pointer)
        fd = _open_under(path, roots, raw, pointer)
        try:
            size = os.fstat(fd).st_size
            total += size
            if total > MAX_UPLOAD_BYTES:
                raise ActionError(f"the files come to more than {MAX_UPLOAD_BYTES} bytes", code=ErrorCode.STORAGE_FILE_TOO_LARGE, evidence={"path": pointer, "max_bytes": MAX_UPLOAD_BYTES})
            data = _read_fd(fd, MAX_UPLOAD_BYTES - (total - size) + 1)
        finally:
            os.close(fd)
        if total - size + len(data) > MAX_UPLOAD_BYTES:  # it grew since fstat
            raise ActionError(f"the files come to more than {MAX_UPLOAD_BYTES} bytes", code=ErrorCode.STORAGE_FILE_TOO_LARGE, evidence={"path": pointer, "max_bytes": MAX_UPLOAD_BYTES})
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        out.append({"name": path.name, "type": kind, "data": base64.b64encode(data).decode("ascii")})
    return out


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _relative_parts(path: Path, roots: Sequence[Path]) -> tuple[Path, tuple[str, ...]] | None:
    """The root ``path`` lies under, as written (``..`` folded), and its components below it; None when under none."""
    normal = Path(os.path.normpath(path))
    for root in roots:
        given = Path(os.path.normpath(root.expanduser().absolute()))
        for form in dict.fromkeys((given, given.resolve())):  # the root as the operator wrote it, or as it resolves
            try:
                parts = normal.relative_to(form).parts
            except ValueError:
                continue
            if parts and ".." not in parts:
                return form, parts
    return None


def _open_under(path: Path, roots: Sequence[Path], raw: str, pointer: str) -> int:
    """A descriptor of the regular file at ``path``, reached from an upload root one component at a time.

    The root is opened once; each component below it is opened relative to the one before
    (``dir_fd``) with ``O_NOFOLLOW``, so no symbolic link is ever followed, whenever it was
    put there: a link swapped in between a check and the read cannot lead outside the root,
    since there is no check apart from the opening itself. The file is then read from this
    descriptor (a FIFO or a device is refused by its ``fstat``, and opened ``O_NONBLOCK`` so
    that opening one never waits).
    """
    where = _relative_parts(path, roots)
    if where is None:
        why = "no upload root is allowed (serve --upload-root DIR)" if not roots else "it is outside the upload roots"
        raise ActionError(f"{raw!r} may not be uploaded: {why}", code=ErrorCode.PERMISSION_DENIED, evidence={"path": pointer, "upload_roots": [str(r) for r in roots]})
    if os.open not in os.supports_dir_fd or not _NOFOLLOW:
        raise ActionError("uploads need a system that opens files relative to a directory without following links", code=ErrorCode.CAPABILITY_UNAVAILABLE, evidence={"path": pointer})
    root, parts = where
    try:
        current = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as exc:
        raise ActionError(f"the upload root {str(root)!r} cannot be opened ({exc.strerror})", code=ErrorCode.STORAGE_FILE_NOT_FOUND, evidence={"path": pointer}) from exc
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (os.O_NONBLOCK if last else _DIRECTORY)
            try:
                opened = os.open(part, flags, dir_fd=current)
            except OSError as exc:
                raise _refused(exc, raw, pointer, roots) from None
            os.close(current)
            current = opened
        if not stat.S_ISREG(os.fstat(current).st_mode):
            raise ActionError(f"{raw!r} is not a regular file", code=ErrorCode.STORAGE_FILE_NOT_FOUND, evidence={"path": pointer})
    except BaseException:
        os.close(current)
        raise
    return current


def _refused(exc: OSError, raw: str, pointer: str, roots: Sequence[Path]) -> ActionError:
    """The error of a component that could not be opened: missing, or a link (``ELOOP``/``ENOTDIR`` under ``O_NOFOLLOW``)."""
    if exc.errno == errno.ENOENT:
        return ActionError(f"no file at {raw!r}", code=ErrorCode.STORAGE_FILE_NOT_FOUND, evidence={"path": pointer})
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return ActionError(
            f"{raw!r} may not be uploaded: it leads through a symbolic link (links are never followed under an upload root)",
            code=ErrorCode.PERMISSION_DENIED,
            evidence={"path": pointer, "upload_roots": [str(r) for r in roots]},
        )
    return ActionError(f"{raw!r} cannot be read ({exc.strerror})", code=ErrorCode.PERMISSION_DENIED, evidence={"path": pointer})


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
