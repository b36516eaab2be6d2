"""The last ``mcp-actions check`` of each map, kept where a server of the same user finds it (its status page).

``mcp-actions check`` runs in a process of its own (by hand, from cron, from CI on the server's
machine); the server shows, on its status page, the maps it serves whose last check drifted. So each
check leaves one small JSON file per map in the user's state directory (``checks/<digest of the
map's absolute path>.json``, the folder 0700, the file 0600, as the audit log's): the map, the URL it
was checked against, when, and the items that failed or could not be checked (kind, id, severity;
never page data). A later check of the same map replaces it; a check that could not run (exit 2)
leaves the last one as it was. Writing is best effort: a check's exit status never depends on it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["checks_folder", "drifted_maps", "record_check"]

log = logging.getLogger(__name__)


def checks_folder() -> Path:
    """Where the last checks are kept: ``checks`` in mcp-actions' state directory for this user."""
    import platformdirs

    return platformdirs.user_state_path("mcp-actions", appauthor=False) / "checks"


def _file_of(manifest: str | Path, folder: Path) -> Path:
    digest = hashlib.sha256(str(Path(manifest).resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return folder / f"{digest}.json"


def record_check(manifest: str | Path, report: Mapping[str, Any], failed: Iterable[Mapping[str, Any]], *, folder: Path | None = None) -> None:
    """Keep this check's outcome as the map's last (``failed``: the items at or above ``--fail-on`` that failed or could not be checked)."""
    folder = folder or checks_folder()
    items = [{"kind": item.get("kind"), "id": item.get("id"), "severity": item.get("severity"), "status": item.get("status")} for item in failed]
    entry = {"map": str(Path(manifest).resolve()), "url": report.get("url"), "checked_at": _now(), "drifted": bool(items), "failed": items}
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = _file_of(manifest, folder)
        partial = target.with_suffix(".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(entry, out, ensure_ascii=False)
        os.replace(partial, target)  # whole or not at all: a status page never reads half a file
    except OSError as exc:
        log.warning("the outcome of this check could not be kept for the status page: %s", exc)


def drifted_maps(manifests: Iterable[str | Path], *, folder: Path | None = None) -> list[dict[str, Any]]:
    """The last check of each of these map files that drifted (``{map, url, checked_at, failed}``), oldest first."""
    folder = folder or checks_folder()
    found = []
    for manifest in manifests:
        try:
            entry = json.loads(_file_of(manifest, folder).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # never checked, or unreadable: nothing to show
        if isinstance(entry, dict) and entry.get("drifted"):
            found.append(entry)
    return sorted(found, key=lambda entry: str(entry.get("checked_at")))


def _now() -> str:
    from ..audit_log import utc_timestamp

    return utc_timestamp()
