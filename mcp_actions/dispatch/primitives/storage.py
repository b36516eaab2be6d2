"""``storage.read_file`` and overlay template references, run server-side with the calling map's files.

Only the server knows which map a call comes from, where that map was loaded
from and how far it is trusted, so these never reach a page: the file is read
here (``manifest/storage_files.py`` keeps the scope boundaries) and only its
text, or the rendered overlay, travels on.
"""

from __future__ import annotations

from typing import Any

from ...errors import ActionError, ErrorCode
from ...manifest.storage_files import DEFAULT_READ_BYTES
from .context import ServerCall

__all__ = ["OVERLAY_PRIMITIVES", "resolve_overlay_arguments", "storage_read_file"]

#: The primitives whose ``template`` / ``data`` storage references the server resolves before they reach the page.
OVERLAY_PRIMITIVES = frozenset({"overlay.open", "overlay.register_launcher"})


async def storage_read_file(call: ServerCall, arguments: dict[str, Any]) -> dict[str, Any]:
    """A text file of the calling map's storage, by ``path`` or ``id``, cut at ``max_bytes``."""
    path, file_id = arguments.get("path"), arguments.get("id")
    if bool(path) == bool(file_id):
        raise ActionError("give path or id (one of them)", code=ErrorCode.INVALID_INPUT, evidence={"path": "/path"})
    files = call.files
    stored = files.resolve_path(path) if path else files.resolve_id(str(file_id))
    return files.read(stored, int(arguments.get("max_bytes", DEFAULT_READ_BYTES)))


def resolve_overlay_arguments(call: ServerCall, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` of an overlay primitive with its storage references resolved from the calling map's files
    (``SiteFiles.resolve_overlay_arguments``)."""
    if "template" not in arguments and "data" not in arguments:
        return arguments  # inline html: no need to work out the map's files
    return call.files.resolve_overlay_arguments(arguments)
