"""A map's attachments as runtimes receive them in ``runtime_config``.

An attachment is declared once in a map (schema v1 "attachments") and
installed by every runtime whose page the map covers. What a runtime gets is
the declared object, plus what it cannot work out itself:

- ``namespace``: the map it belongs to (ids are unique per map, not per page);
- ``affordance.opens.kind``: ``primitive`` when ``opens.tool`` is a primitive
  of the dictionary (the runtime runs it itself, e.g. ``overlay.open``),
  ``tool`` when it names one of the map's tools (the runtime asks the bridge
  with ``attachment_open``, and the bridge runs the tool), ``unavailable``
  with an ``error`` when neither or when its arguments cannot be prepared
  (the runtime reports the attachment ``failed``);
- ``opens.arguments.html`` for an ``html_source`` (the spec's example opens
  ``overlay.open`` with a path to an HTML file): the file is read here, on the
  server, from beside the map, and its text travels as ``html``; the page
  never fetches anything.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ErrorCode
from ..manifest.load import LoadedManifest
from ..primitive_dictionary import host_primitives

__all__ = ["MAX_HTML_SOURCE_BYTES", "attachment_configs", "read_html_source"]

#: Largest HTML file an attachment may open (the overlay primitive's inline html is bounded alike).
MAX_HTML_SOURCE_BYTES = 256_000
#: How far up from a map's folder an ``html_source`` is looked for (a storage map sits in
#: ``scopes/<scope>/sites/<host>/<path…>/`` and names files from its scope: ``sites/<host>/…``).
_MAX_ANCESTORS = 8


class AssetError(Exception):
    """An ``html_source`` that cannot be read: ``code`` (``unsafe_path``, ``asset_not_found``) and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _local_dir(source: str) -> Path | None:
    """The folder of a map loaded from a file (None for a map fetched over HTTP or sent by a runtime)."""
    parts = urlsplit(source)
    if parts.scheme in ("http", "https"):
        return None
    path = Path(parts.path if parts.scheme == "file" else source)
    return path.parent if path.is_file() else None


def read_html_source(source: str, relative: str) -> str:
    """The text of ``relative``, found beside the map ``source`` or under one of its folders' parents.

    Relative paths only, no ``..`` segment, never outside the folder it was found under.
    Raises ``AssetError``.
    """
    if not relative or relative.startswith(("/", "\\")) or ":" in relative or any(part in ("", "..") for part in relative.replace("\\", "/").split("/")):
        raise AssetError(ErrorCode.UNSAFE_PATH, f"html_source {relative!r} must be a relative path without '..'")
    folder = _local_dir(source)
    if folder is None:
        raise AssetError(ErrorCode.ASSET_NOT_FOUND, f"html_source {relative!r}: the map {source} was not loaded from a folder")
    for base in [folder, *folder.parents][:_MAX_ANCESTORS]:
        candidate = (base / relative).resolve()
        if candidate.is_file() and candidate.is_relative_to(base.resolve()):
            if candidate.stat().st_size > MAX_HTML_SOURCE_BYTES:
                raise AssetError(ErrorCode.ASSET_NOT_FOUND, f"html_source {relative!r} is larger than {MAX_HTML_SOURCE_BYTES} bytes")
            try:
                return candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise AssetError(ErrorCode.ASSET_NOT_FOUND, f"html_source {relative!r} cannot be read as UTF-8 text: {exc}") from exc
    raise AssetError(ErrorCode.ASSET_NOT_FOUND, f"html_source {relative!r} was found neither beside the map nor under its folders")


def _prepared_opens(opens: Mapping[str, Any], manifest: LoadedManifest) -> dict[str, Any]:
    prepared = copy.deepcopy(dict(opens))
    tool = prepared.get("tool")
    own_tools = {t.name for t in manifest.model.tools}
    if isinstance(tool, str) and tool in own_tools:
        prepared["kind"] = "tool"
    elif isinstance(tool, str) and tool in host_primitives():
        prepared["kind"] = "primitive"
    else:
        prepared["kind"] = "unavailable"
        prepared["error"] = {"code": ErrorCode.UNKNOWN_TOOL.value, "message": f"opens.tool {tool!r} is neither a tool of this map nor a primitive"}
        return prepared
    arguments = prepared.get("arguments")
    if isinstance(arguments, dict) and isinstance(arguments.get("html_source"), str) and "html" not in arguments:
        try:
            arguments["html"] = read_html_source(manifest.source, arguments.pop("html_source"))
        except AssetError as exc:
            prepared["kind"] = "unavailable"
            prepared["error"] = {"code": exc.code, "message": str(exc)}
    return prepared


def attachment_configs(manifest: LoadedManifest) -> list[dict[str, Any]]:
    """Every attachment of ``manifest`` as ``runtime_config`` carries it (see the module docstring)."""
    configs = []
    for attachment in manifest.model.attachments:
        config = attachment.model_dump(mode="json", by_alias=True, exclude_none=True)
        config["namespace"] = manifest.namespace
        affordance = config.get("affordance")
        if isinstance(affordance, dict) and isinstance(affordance.get("opens"), dict):
            affordance["opens"] = _prepared_opens(affordance["opens"], manifest)
        configs.append(config)
    return configs
