"""--upload-root / MCP_ACTIONS_UPLOAD_ROOTS reach the service page_fill {files} reads its roots from."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_actions.actions_app import ActionsApp
from mcp_actions.cli import _serve_options, build_parser


def test_upload_roots_come_from_the_option_or_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MCP_ACTIONS_UPLOAD_ROOTS", raising=False)
    options = _serve_options(build_parser().parse_args(["serve", "--upload-root", str(tmp_path / "a"), "--upload-root", "~/b"]))[0]
    assert list(options.upload_roots) == [str(tmp_path / "a"), "~/b"]
    app = ActionsApp(options)
    assert app.service.upload_roots == (tmp_path / "a", Path("~/b").expanduser())
    monkeypatch.setenv("MCP_ACTIONS_UPLOAD_ROOTS", os.pathsep.join([str(tmp_path / "c"), str(tmp_path / "d")]))
    assert list(_serve_options(build_parser().parse_args(["serve"]))[0].upload_roots) == [str(tmp_path / "c"), str(tmp_path / "d")]
    monkeypatch.delenv("MCP_ACTIONS_UPLOAD_ROOTS")
    # None by default: every upload is refused (dispatch/builtins/acting/page_files.py).
    assert ActionsApp(_serve_options(build_parser().parse_args(["serve"]))[0]).service.upload_roots == ()
