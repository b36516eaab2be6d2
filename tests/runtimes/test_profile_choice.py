"""Which browser profile a server with default options takes (docs/sessions.md): the default one, unless a live browser holds it.

Chromium marks a profile it runs with a ``SingletonLock`` symlink to ``<hostname>-<pid>``. These
tests make such locks on a real filesystem (HOME is the test's), naming this test's own live
process or one that has ended, and read what ``free_default_profile`` chooses.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.runtimes.launch import default_profile_dir, free_default_profile, profile_in_use


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def _lock(profile: Path, pid: int, host: str | None = None) -> None:
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "SingletonLock").symlink_to(f"{host or socket.gethostname()}-{pid}")


def _ended_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_free_default_profile_is_taken(home):
    assert free_default_profile() == default_profile_dir() == home / ".cache" / "mcp-actions" / "chromium-profile"


def test_a_lock_left_by_an_ended_browser_does_not_count(home):
    # Chromium takes such a profile over itself (its process is gone).
    _lock(default_profile_dir(), _ended_pid())
    assert not profile_in_use(default_profile_dir())
    assert free_default_profile() == default_profile_dir()


def test_a_held_default_gives_way_to_the_second_profile_again_and_again(home, caplog):
    _lock(default_profile_dir(), os.getpid())  # a live process holds it
    second = default_profile_dir().with_name("chromium-profile-2")
    with caplog.at_level(logging.WARNING, logger="mcp_actions.user"):
        assert free_default_profile() == second
        # A later start while the first still runs: the same second profile (its logins persist).
        assert free_default_profile() == second
    said = [r.getMessage() for r in caplog.records if "in use by another browser" in r.getMessage()]
    assert len(said) == 1 and str(second) in said[0]  # once per process, naming the profile taken


def test_profiles_held_by_live_browsers_are_skipped_in_turn(home):
    _lock(default_profile_dir(), os.getpid())
    _lock(default_profile_dir().with_name("chromium-profile-2"), os.getpid())
    assert free_default_profile() == default_profile_dir().with_name("chromium-profile-3")


def test_a_lock_from_another_machine_is_left_alone(home):
    # A home shared between machines: that browser's process cannot be checked from here.
    _lock(default_profile_dir(), 1, host="another-machine.example")
    assert profile_in_use(default_profile_dir())
