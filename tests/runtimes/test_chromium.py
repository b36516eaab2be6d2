"""Browser discovery and launch flags, and the packaged runtime script (no browser needed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mcp_actions.errors import ActionError
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, chromium_args, find_browser, has_display
from mcp_actions.runtimes.page_script import engine_js, runtime_js


def make_executable(path: Path) -> str:
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def fake_browsers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.delenv("MCP_ACTIONS_BROWSER_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    return {
        "explicit": make_executable(tmp_path / "my-chrome"),
        "env": make_executable(tmp_path / "env-chrome"),
        "installed": make_executable(tmp_path / "installed-chromium"),
    }


@pytest.mark.parametrize(
    ("explicit", "env", "expected"),
    [
        ("explicit", "env", "explicit"),  # --browser-path wins
        (None, "env", "env"),  # then the environment variable
        ("missing", "env", "env"),  # a wrong explicit path falls back (with a warning)
        (None, None, "installed"),  # then the install locations
        ("missing", "missing", "installed"),  # a wrong env path falls back too
    ],
)
def test_find_browser_order(fake_browsers: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                            explicit: str | None, env: str | None, expected: str) -> None:  # fmt: skip
    def pick(key: str | None) -> str | None:
        return None if key is None else fake_browsers.get(key, str(tmp_path / "does-not-exist"))

    if env is not None:
        monkeypatch.setenv("MCP_ACTIONS_BROWSER_PATH", pick(env))
    candidates = [str(tmp_path / "nope"), fake_browsers["installed"]]
    assert find_browser(pick(explicit), candidates=candidates) == fake_browsers[expected]


def test_find_browser_tells_the_user_what_to_do(fake_browsers: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(ActionError) as caught:
        find_browser(None, candidates=[str(tmp_path / "nope")])
    assert caught.value.code == "capability_unavailable"
    assert "--browser-path" in caught.value.message and "Install Chromium" in caught.value.message


def test_launch_flags() -> None:
    # --no-sandbox only as root (Chromium refuses to start sandboxed as root).
    assert ("--no-sandbox" in CHROMIUM_ARGS) == (os.geteuid() == 0)
    assert CHROMIUM_ARGS == chromium_args()
    assert {"--disable-gpu", "--no-first-run", "--disable-quic"} <= set(CHROMIUM_ARGS)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, False),  # no display server
        ({"DISPLAY": ":0"}, True),  # X11
        ({"WAYLAND_DISPLAY": "wayland-0"}, True),  # Wayland
    ],
)
def test_has_display_on_linux(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: bool) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert has_display() is expected


def test_runtime_script_is_packaged_and_cached() -> None:
    source = runtime_js()
    assert source is runtime_js()
    # As shipped: without comments and the spaces no token needs (js_strip.py).
    assert source.startswith("/*") and 'Object.defineProperty(root,"__mcpActions"' in source
    engine = engine_js()
    assert engine is engine_js() and engine.startswith("/*") and 'Object.defineProperty(root,"__mcpActions"' in engine
    # The engine alone carries no WebSocket client; the full runtime does.
    assert "M.startClient=startClient" in source and "M.startClient=startClient" not in engine


def test_a_wrong_browser_path_is_named_first_when_no_browser_is_found(fake_browsers: dict[str, str], tmp_path: Path) -> None:
    wrong = str(tmp_path / "not-chromium")
    with pytest.raises(ActionError) as caught:
        find_browser(wrong, candidates=[str(tmp_path / "nope")])
    assert caught.value.message.startswith(f"There is no browser at {wrong} (--browser-path), and no Chromium or Chrome browser was found."), caught.value.message
