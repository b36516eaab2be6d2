"""The files ``page_fill {files}`` puts in a file input: read by the server from the user's upload roots only.

A model names files by path; the server reads them, never the page, and only
under the directories the user allowed with ``--upload-root`` (``AppOptions.upload_roots``,
``ActionService.upload_roots``): a path outside them (a symlink that leads out counts as
outside) is ``permission_denied``, with no upload root at all every path is. The
bytes travel to the page engine base64-encoded in one bridge item, so all the
files of one call together are bounded by ``MAX_UPLOAD_BYTES`` (docs/mcp-surface.md,
"Every kind of control").
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.storage import is_inside

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
        if not any(is_inside(path, root) for root in roots):
            why = "no upload root is allowed (serve --upload-root DIR)" if not roots else "it is outside the upload roots"
            raise ActionError(f"{raw!r} may not be uploaded: {why}", code=ErrorCode.PERMISSION_DENIED, evidence={"path": pointer, "upload_roots": [str(r) for r in roots]})
        if not path.is_file():
            raise ActionError(f"no file at {raw!r}", code=ErrorCode.STORAGE_FILE_NOT_FOUND, evidence={"path": pointer})
        size = path.stat().st_size
        total += size
        if total > MAX_UPLOAD_BYTES:
            raise ActionError(f"the files come to more than {MAX_UPLOAD_BYTES} bytes", code=ErrorCode.STORAGE_FILE_TOO_LARGE, evidence={"path": pointer, "max_bytes": MAX_UPLOAD_BYTES})
        data = path.read_bytes()[: MAX_UPLOAD_BYTES + 1]
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        out.append({"name": path.name, "type": kind, "data": base64.b64encode(data).decode("ascii")})
    return out
