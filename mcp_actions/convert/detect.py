"""Reading a neighbouring protocol's document and converting whichever it is.

A path is read from disk; an ``https://`` URL (or ``http://`` on loopback)
is fetched with the same fetcher, size cap and timeout as manifest imports.
Either way the body must be strict JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ErrorCode, ManifestError, UsageError
from ..manifest.fetch import RemoteFetcher, parse_json_strictly
from .abp import abp_to_actions, is_abp_manifest
from .wab import is_wab_discovery, wab_to_actions

__all__ = ["convert_document", "read_document"]

#: A discovery document or app manifest is small; anything bigger is refused.
MAX_DOCUMENT_BYTES = 1024 * 1024


def read_document(location: str, *, fetcher: RemoteFetcher | None = None) -> Any:
    """The parsed JSON at ``location`` (a file path or a URL); ``UsageError`` when unreadable."""
    if location.startswith(("https://", "http://")):
        fetcher = fetcher or RemoteFetcher(max_bytes=MAX_DOCUMENT_BYTES, allow_insecure_loopback=True)
        try:
            return parse_json_strictly(fetcher.fetch(location), what="document")
        except ManifestError as exc:  # fetch or parse failure with a stable code; for this command, a usage error
            raise UsageError(f"cannot read {location}: {exc.message}", code=ErrorCode.IO_ERROR) from exc
    path = Path(location)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {location}: {exc.strerror or exc}", code=ErrorCode.IO_ERROR) from exc
    if len(data) > MAX_DOCUMENT_BYTES:
        raise UsageError(f"{location} is larger than {MAX_DOCUMENT_BYTES} bytes", code=ErrorCode.IO_ERROR)
    try:
        return parse_json_strictly(data, what="document")
    except ManifestError as exc:
        raise UsageError(f"{location} is not strict JSON: {exc.message}", code=ErrorCode.INVALID_JSON) from exc


def convert_document(document: Any, *, source: str | None = None) -> dict[str, Any]:
    """The actions.json map of a WAB discovery document or an ABP manifest; ``UsageError`` otherwise."""
    if is_wab_discovery(document):
        return wab_to_actions(document, source=source)
    if is_abp_manifest(document):
        return abp_to_actions(document, source=source)
    raise UsageError(
        "not a WAB discovery document (wab_version with actions or capabilities.commands) or an ABP manifest (abp, app, capabilities)",
        code=ErrorCode.UNSUPPORTED_PROTOCOL,
    )
