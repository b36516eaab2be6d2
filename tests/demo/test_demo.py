"""The demo command end to end, and the bundled maps it relies on."""

from __future__ import annotations

import pytest

from mcp_actions.demo.run import run_demo
from mcp_actions.manifest.load import bundled_manifests_dir, load_paths


def test_bundled_manifests_are_valid():
    result = load_paths([bundled_manifests_dir()])
    assert result.reports and not result.failures, [r.to_dict() for r in result.failures]
    assert {t.name for m in result.manifests for t in m.model.tools} >= {"demo.add_task", "demo.complete_task"}


@pytest.mark.browser
async def test_demo_runs_every_call_successfully(capsys):
    assert await run_demo(headless=True) == 0
    out = capsys.readouterr().out
    assert "6/6 calls succeeded" in out
    assert '"status": "Completed Ship the bridge"' in out
    assert '1 of 2 tasks match' in out
