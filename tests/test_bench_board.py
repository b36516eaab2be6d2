"""The benchmark's board map stays a valid map as the validator's rules grow (bench/board/)."""

from __future__ import annotations

from pathlib import Path

from mcp_actions.manifest.load import load_paths

BOARD_MAP = Path(__file__).resolve().parents[1] / "bench" / "board" / "actions.json"


def test_the_bench_board_map_is_valid_and_exposes_its_four_tools() -> None:
    result = load_paths([BOARD_MAP])
    assert [(r.valid, [p.to_dict() for p in r.errors]) for r in result.reports] == [(True, [])]
    # Its one warning: add_card clicks by locator, an addition of our dictionary (the bench runs our runtimes).
    assert [(p.path, p.code) for p in result.reports[0].warnings] == [("/tools/0/workflow/steps/0/args/target", "non_reference_argument")]
    assert [t.name for t in result.manifests[0].model.tools] == ["board.add_card", "board.find_cards", "board.list_lists", "board.move_card"]
