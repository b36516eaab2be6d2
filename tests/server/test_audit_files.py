"""The audit log and its key are the user's own files, or ``serve`` does not start (docs/cli.md, "The audit log").

Real ``serve`` processes over stdio (``--browser none``; stdin closed, so a
server that starts ends at once, exit 0) against real files with real owners
and modes. Another user's planted key or log (owned by uid 65534, ``nobody``:
``os.chown`` needs root, those cases skip elsewhere), a key or log of the
user's that others may read or write, a symbolic link, and a folder others can
write are each refused with one line on stderr and exit 2; new files are 0600,
in a sticky folder such as ``/tmp`` too. ``audit-digest`` refuses a planted
key the same way.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.audit_log import arguments_digest

from .session_servers import isolated_env

OTHER_UID = 65534  # nobody


def _serve(tmp_path: Path, log: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mcp_actions", "serve", "--browser", "none", "--bridge-port", "0", "--no-watch", "--audit-log", str(log)]
    return subprocess.run(command, env=isolated_env(tmp_path), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)


def _refusal(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused start printed (exit 2, nothing else on stderr or stdout)."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-actions: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def _folder(tmp_path: Path, mode: int = 0o700) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    return folder


def _key(path: Path, mode: int, uid: int | None = None) -> None:
    path.write_text("ab" * 32 + "\n")  # a key its planter knows
    path.chmod(mode)
    if uid is not None:
        os.chown(path, uid, -1)


def _as_root() -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a file to another user (os.chown) needs root")


def test_new_files_are_the_users_alone_even_in_a_sticky_folder_anyone_writes(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 0o1777)  # as /tmp is
    log = folder / "audit.jsonl"
    done = _serve(tmp_path, log)
    assert done.returncode == 0, done.stderr
    for made in (log, folder / "audit.jsonl.key"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o600
        assert made.stat().st_uid == os.geteuid()
    # A second start uses them as they are.
    assert _serve(tmp_path, log).returncode == 0


def test_a_key_another_user_planted_is_refused(tmp_path: Path) -> None:
    _as_root()
    folder = _folder(tmp_path, 0o1777)
    _key(folder / "audit.jsonl.key", 0o600, OTHER_UID)
    line = _refusal(_serve(tmp_path, folder / "audit.jsonl"))
    assert f"the audit key {folder / 'audit.jsonl.key'} belongs to another user (uid {OTHER_UID})" in line
    assert "--audit-log" in line
    assert not (folder / "audit.jsonl").exists()  # nothing was written next to it


def test_a_log_another_user_planted_is_refused_and_gets_no_line(tmp_path: Path) -> None:
    _as_root()
    folder = _folder(tmp_path, 0o1777)
    log = folder / "audit.jsonl"
    log.write_text("")
    log.chmod(0o600)
    os.chown(log, OTHER_UID, -1)
    line = _refusal(_serve(tmp_path, log))
    assert f"the audit log {log} belongs to another user (uid {OTHER_UID})" in line
    assert log.read_text() == ""


@pytest.mark.parametrize(("name", "mode", "what"), [("audit.jsonl.key", 0o644, "the audit key"), ("audit.jsonl", 0o666, "the audit log"), ("audit.jsonl", 0o640, "the audit log")])
def test_a_file_others_may_read_or_write_is_refused_not_repaired(tmp_path: Path, name: str, mode: int, what: str) -> None:
    folder = _folder(tmp_path)
    if name.endswith(".key"):
        _key(folder / name, mode)
    else:
        (folder / name).write_text("")
        (folder / name).chmod(mode)
    line = _refusal(_serve(tmp_path, folder / "audit.jsonl"))
    assert f"{what} {folder / name} can be read or written by others (mode {mode:04o})" in line
    assert stat.S_IMODE((folder / name).stat().st_mode) == mode  # left as found: who may have read it is unknown


@pytest.mark.parametrize("name", ["audit.jsonl", "audit.jsonl.key"])
def test_a_symbolic_link_is_refused(tmp_path: Path, name: str) -> None:
    folder = _folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    _key(elsewhere, 0o600)
    (folder / name).symlink_to(elsewhere)
    if name == "audit.jsonl":
        _key(folder / "audit.jsonl.key", 0o600)
    line = _refusal(_serve(tmp_path, folder / "audit.jsonl"))
    assert f"{folder / name} is a symbolic link" in line


def test_a_folder_others_can_write_is_refused_unless_sticky(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 0o777)
    line = _refusal(_serve(tmp_path, folder / "audit.jsonl"))
    assert f"the audit log's folder {folder} can be written by others (mode 0777)" in line
    assert list(folder.iterdir()) == []


def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    _as_root()
    folder = _folder(tmp_path, 0o755)
    os.chown(folder, OTHER_UID, -1)
    line = _refusal(_serve(tmp_path, folder / "audit.jsonl"))
    assert f"the audit log's folder {folder} belongs to another user (uid {OTHER_UID})" in line


def test_audit_digest_refuses_a_planted_key(tmp_path: Path) -> None:
    _as_root()
    folder = _folder(tmp_path, 0o1777)
    _key(folder / "audit.jsonl.key", 0o644, OTHER_UID)
    command = [sys.executable, "-m", "mcp_actions", "audit-digest", '{"pin": "1234"}', "--audit-log", str(folder / "audit.jsonl")]
    done = subprocess.run(command, env=isolated_env(tmp_path), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "belongs to another user" in done.stderr


def test_audit_digest_reads_the_arguments_from_standard_input(tmp_path: Path) -> None:
    """``audit-digest -``: the secret never reaches the command line, which every local user reads (/proc/PID/cmdline)."""
    folder = _folder(tmp_path)
    log = folder / "audit.jsonl"
    assert _serve(tmp_path, log).returncode == 0  # makes the key
    key = bytes.fromhex((folder / "audit.jsonl.key").read_text().strip())
    base = [sys.executable, "-m", "mcp_actions", "audit-digest", "-", "--audit-log", str(log)]
    done = subprocess.run(base, input='{"text": "PIN", "value": "4821"}\n', env=isolated_env(tmp_path), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == arguments_digest(key, {"value": "4821", "text": "PIN"})
    given = [*base[:4], '{"text": "PIN", "value": "4821"}', *base[5:]]
    assert subprocess.run(given, env=isolated_env(tmp_path), capture_output=True, text=True, timeout=60, check=True).stdout == done.stdout
    bad = subprocess.run(base, input="4821 is not JSON", env=isolated_env(tmp_path), capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1 and bad.stderr.startswith("mcp-actions: the arguments are not JSON") and "4821" not in bad.stderr
