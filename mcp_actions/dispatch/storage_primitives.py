"""``storage.read_file`` and overlay template references, run server-side with the calling map's files.

Only the server knows which map a call comes from, where that map was loaded
from and how far it is trusted, so these never reach a page: the file is read
here (``manifest/storage_files.py`` keeps the scope boundaries) and only its
text, or the rendered overlay, travels on.
"""

from __future__ import annotations

from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.storage_files import DEFAULT_READ_BYTES
from .server_context import ServerCall

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
    """``arguments`` of an overlay primitive with ``template`` (+ ``data``) replaced by ``html`` (+ ``data_json``).

    Arguments without ``template`` pass unchanged (inline ``html``; ``data``
    without a template is refused). Raises ``unsafe_path``, ``asset_not_found``,
    ``invalid_json``, ``storage_file_path_unauthorized``.
    """
    if "template" not in arguments:
        if "data" in arguments:
            raise ActionError("data is injected into a template; give template too", code=ErrorCode.INVALID_INPUT, evidence={"path": "/data"})
        return arguments
    if "html" in arguments:
        raise ActionError("give html or template, not both", code=ErrorCode.INVALID_INPUT, evidence={"path": "/template"})
    html, data = call.files.overlay_assets(arguments["template"], arguments.get("data"))
    resolved = {k: v for k, v in arguments.items() if k not in ("template", "data")}
    resolved["html"] = html
    if "data" in arguments:
        resolved["data_json"] = data
    return resolved
