"""The published specs a few tests compare with: found where they are, and a CI run fails loudly without them (issue 29, item 8).

``tests/shared_specs.py`` looks for them beside the clone; a developer's run
without them skips the comparison saying where it looked, and a run with
``CI`` set fails it, so a comparison never silently stops running.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .shared_specs import shared_spec, shared_specs_dirs


def test_a_spec_is_found_first_where_the_environment_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "actions-bridge-protocol.txt").write_text("the wire\n", encoding="utf-8")
    monkeypatch.setenv("MCP_ACTIONS_SHARED_SPECS", str(tmp_path))
    assert shared_specs_dirs()[0] == tmp_path
    assert shared_spec("actions-bridge-protocol.txt") == tmp_path / "actions-bridge-protocol.txt"


def test_a_missing_spec_fails_a_ci_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no-such-spec.txt is not on this machine"):
        shared_spec("no-such-spec.txt")


def test_a_missing_spec_skips_a_developers_run_saying_where_it_looked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="MCP_ACTIONS_SHARED_SPECS") as skipped:
        shared_spec("no-such-spec.txt")
    assert all(str(folder) in str(skipped.value) for folder in shared_specs_dirs())
