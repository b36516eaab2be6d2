"""``mcp-actions extension`` writes the extension only into a folder of the user's alone (docs/extension.md).

Real ``mcp-actions extension --json`` processes with ``$MCP_ACTIONS_EXTENSION_DIR``
pointed at real folders: a new one is made 0700; one another user owns
(uid 65534, ``nobody``: ``os.chown`` needs root, those cases skip elsewhere) or
one that group or others may write is refused with one line on stderr and exit
2, and nothing is written into it. A file in the user's folder that another
user owns is replaced, not trusted because its bytes match.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

OTHER_UID = 65534  # nobody


def _extension(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MCP_ACTIONS_EXTENSION_DIR": str(folder)}
    return subprocess.run([sys.executable, "-m", "mcp_actions", "extension", "--json"], env=env, capture_output=True, text=True, timeout=60, check=False)


def _refused(folder: Path) -> str:
    done = _extension(folder)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-actions: ") and "Traceback" not in done.stderr, done.stderr
    assert list(folder.iterdir()) == []  # nothing was written there
    return lines[0]


def _as_root() -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a folder to another user (os.chown) needs root")


def test_a_new_folder_is_made_the_users_alone(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "extension"
    done = _extension(folder)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["path"] == str(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert (folder / "manifest.json").is_file() and (folder / "engine.js").is_file()


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777])
def test_a_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    line = _refused(folder)
    assert f"the extension folder {folder} can be written by others (mode {mode:04o})" in line
    assert "MCP_ACTIONS_EXTENSION_DIR" in line


@pytest.mark.parametrize("mode", [0o777, 0o755])
def test_a_folder_another_user_owns_is_refused(tmp_path: Path, mode: int) -> None:
    _as_root()
    folder = tmp_path / "theirs"
    folder.mkdir()
    folder.chmod(mode)
    os.chown(folder, OTHER_UID, -1)
    line = _refused(folder)
    assert f"the extension folder {folder} belongs to another user (uid {OTHER_UID})" in line


def test_a_file_another_user_owns_is_replaced_even_when_its_bytes_match(tmp_path: Path) -> None:
    _as_root()
    folder = tmp_path / "extension"
    assert _extension(folder).returncode == 0
    engine = folder / "engine.js"
    engine.chmod(0o666)
    os.chown(engine, OTHER_UID, -1)  # left writable by another user, its bytes still ours
    assert _extension(folder).returncode == 0
    info = engine.stat()
    assert info.st_uid == os.geteuid() and not info.st_mode & 0o022
