"""A learned-maps folder that cannot be made: the server starts without it and says so once on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.learning.store import open_learned_maps


def test_a_folder_that_cannot_be_made_is_none_and_said_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    app = ActionsApp(AppOptions(learned_maps=str(blocker / "learned"), serve_bridge=False, browser="none", watch=False))
    assert app.learned is None and app.service.learned is None and app.manifest_paths == []
    lines = [line for line in capsys.readouterr().err.splitlines() if "learned-maps folder" in line]
    assert len(lines) == 1 and lines[0].startswith("mcp-actions: cannot use the learned-maps folder ") and "actions_save_tool is unavailable" in lines[0]


def test_no_folder_is_none_and_a_missing_one_is_made(tmp_path: Path) -> None:
    assert open_learned_maps(None) is None
    learned = open_learned_maps(tmp_path / "data" / "learned")
    assert learned is not None and learned.directory.is_dir()
