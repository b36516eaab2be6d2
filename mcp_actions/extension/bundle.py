"""Where the extension is: assembled from the package's ``chrome/`` and the page engine, in the user's data folder.

The extension injects our page engine (``engine_js()`` of
``runtimes/page_script.py``) into shared tabs from its own file ``engine.js``:
an MV3 extension may only run code it ships. The engine exists once, in
``runtimes/page/*.js``; the package's ``chrome/`` holds the extension's own
files and no copy of it. The folder the user loads ("Load unpacked") is
assembled from both: ``extension_dir()`` is ``extension/`` in mcp-actions'
data folder for this user (``$MCP_ACTIONS_EXTENSION_DIR`` when set), written
when its files differ from what this install would write (a new version, an
engine change) and otherwise left alone. Its path does not change between
versions, so an upgrade asks only for the extension's reload button, never
for loading it again.

The folder is the user's alone: what it holds runs in every tab the user
shares, with the pairing's power over them. So it is made 0700, and a folder
another user owns, or that group or others may write (a shared 0777 folder,
``/tmp`` itself), is refused (``ExtensionFolderRefused``) before anything is
written: whoever can write there could change what the user's browser loads.
A file in it that is not the user's, or that others may write, is replaced.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import stat
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..runtimes.page_script import engine_js
from .identity import extension_id, extension_version, manifest

__all__ = ["ENGINE_FILE", "EXTENSION_DIR_ENV", "ExtensionFolderRefused", "extension_dir", "extension_info", "package_dir", "refresh_extension"]

log = logging.getLogger(__name__)

#: The engine's file name inside the extension (sw.js injects it by this name).
ENGINE_FILE = "engine.js"
#: Where to assemble the extension instead of the user's data folder (tests, a shared install).
EXTENSION_DIR_ENV = "MCP_ACTIONS_EXTENSION_DIR"


def package_dir() -> Path:
    """The extension's own files as the package ships them (no engine: see the module's docstring)."""
    return Path(str(resources.files("mcp_actions.extension").joinpath("chrome"))).resolve()


def _target() -> Path:
    given = os.environ.get(EXTENSION_DIR_ENV)
    if given:
        return Path(given).expanduser().resolve()
    import platformdirs

    return platformdirs.user_data_path("mcp-actions", appauthor=False) / "extension"


class ExtensionFolderRefused(UsageError):
    """The extension's folder is another user's, or others may write it: nothing is written there (the CLI: one line, exit 2)."""


#: Where ownership and mode bits mean something (POSIX); elsewhere the checks are skipped.
_POSIX = hasattr(os, "geteuid")


def _own_folder(folder: Path) -> Path:
    """``folder`` made (0700, parents as the umask says) or found, and refused unless it is this user's and closed to others' writes."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError as exc:
        raise ExtensionFolderRefused(f"cannot write the browser extension to {folder}: {exc.strerror or exc} (choose another with ${EXTENSION_DIR_ENV})") from exc
    if not _POSIX:
        return folder
    if info.st_uid != os.geteuid():
        raise ExtensionFolderRefused(
            f"the extension folder {folder} belongs to another user (uid {info.st_uid}), who could change what your browser loads; "
            f"choose a folder of your own with ${EXTENSION_DIR_ENV}"
        )
    if info.st_mode & 0o022:
        raise ExtensionFolderRefused(
            f"the extension folder {folder} can be written by others (mode {info.st_mode & 0o7777:04o}), who could change what your browser loads; "
            f"make it yours alone (chmod 700) or choose another with ${EXTENSION_DIR_ENV}"
        )
    return folder


def _trusted_copy(path: Path, data: bytes) -> bool:
    """Whether ``path`` already holds ``data`` in a file of this user's that others cannot write (else it is rewritten)."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or (_POSIX and (info.st_uid != os.geteuid() or info.st_mode & 0o022)):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def _wanted() -> dict[str, bytes]:
    """Every file of the extension by name: the package's files and the current engine."""
    files = {path.name: path.read_bytes() for path in package_dir().iterdir() if path.is_file()}
    files[ENGINE_FILE] = engine_js().encode("utf-8")
    files["manifest.json"] = (json.dumps(manifest(), indent=2) + "\n").encode("utf-8")  # with this package's version
    return files


def refresh_extension() -> bool:
    """Write the assembled extension where its files differ from this install's; True when anything was written.

    Each file is replaced whole (written beside it, then renamed), so a browser reloading the
    extension meanwhile reads the old file or the new one; files the package no longer ships go.
    A folder that is not the user's alone is ``ExtensionFolderRefused`` (the module's docstring).
    """
    folder = _own_folder(_target())
    wanted = _wanted()
    changed = False
    for name, data in wanted.items():
        path = folder / name
        if _trusted_copy(path, data):
            continue
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
        changed = True
    for stale in folder.iterdir():
        if stale.is_file() and stale.name not in wanted and not stale.name.startswith("."):
            stale.unlink()
            changed = True
    if changed:
        log.info("the browser extension was written to %s (reload it in chrome://extensions if it was loaded)", folder)
    return changed


@functools.cache
def _assembled() -> Path:
    refresh_extension()
    return _target()


def extension_dir() -> Path:
    """The unpacked extension's directory (what "Load unpacked" is pointed at), assembled once per process."""
    return _assembled()


def extension_info() -> dict[str, Any]:
    """``{"path", "id", "version", "version_name"}``: what ``mcp-actions extension --json`` prints (the folder written first).

    ``version`` is Chrome's form of the package's version, ``version_name`` the package's own.
    """
    refresh_extension()
    return {"path": str(_target()), "id": extension_id(), "version": extension_version(), "version_name": str(manifest()["version_name"])}
