"""The benchmark's board map stays a valid map as the validator's rules grow (bench/board/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_actions.manifest.load import load_paths
from mcp_actions.manifest.report import validate_paths

ROOT = Path(__file__).resolve().parents[1]
BOARD_MAP = ROOT / "bench" / "board" / "actions.json"
# The bench runs our runtimes, so the server's load path and a default validate warn about nothing.
KNOWN_WARNINGS: list[tuple[str, str]] = []
# What a check for runtimes written from the reference dictionary alone adds (validate --reference-only):
# add_card clicks by locator, an argument our dictionary adds to the reference one.
REFERENCE_ONLY_WARNINGS = [("/tools/0/workflow/steps/0/args/target", "non_reference_argument")]


def test_the_bench_board_map_is_valid_and_exposes_its_four_tools() -> None:
    result = load_paths([BOARD_MAP])
    assert [(r.valid, [p.to_dict() for p in r.errors]) for r in result.reports] == [(True, [])]
    assert [(p.path, p.code) for p in result.reports[0].warnings] == KNOWN_WARNINGS
    assert [t.name for t in result.manifests[0].model.tools] == ["board.add_card", "board.find_cards", "board.list_lists", "board.move_card"]


def test_only_a_check_for_reference_runtimes_warns_about_the_click_by_locator() -> None:
    (default,) = validate_paths([BOARD_MAP]).reports
    assert (default.valid, [(p.path, p.code) for p in default.warnings]) == (True, KNOWN_WARNINGS)
    (reference,) = validate_paths([BOARD_MAP], reference_only=True).reports
    assert (reference.valid, [(p.path, p.code) for p in reference.warnings]) == (True, REFERENCE_ONLY_WARNINGS)


def test_the_map_the_bench_serves_names_only_the_sites_origin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bench_peers gives each run a copy whose surface.origin is the served site's origin, never the board page."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    monkeypatch.delitem(sys.modules, "bench_peers", raising=False)
    import bench_peers

    page = bench_peers.board_url("http://127.0.0.1:8765/", 300)
    origin = bench_peers.site_origin(page)
    assert (page, origin) == ("http://127.0.0.1:8765/cards/300/", "http://127.0.0.1:8765")
    served = load_paths([bench_peers.board_map(ROOT, origin, tmp_path)])
    assert served.manifests[0].model.surface.origin == origin
    assert [(r.valid, [(p.path, p.code) for p in r.warnings]) for r in served.reports] == [(True, KNOWN_WARNINGS)]
    with pytest.raises(ValueError, match="must be an origin"):
        bench_peers.board_map(ROOT, page, tmp_path)


async def test_the_board_lists_at_most_3_kb_to_a_model_on_its_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42: name, description and inputSchema of every tool listed on the board page (its four tools,
    browser_navigate and page_read) fit in 3,000 bytes of compact JSON, what a host hands its model each turn."""
    from mcp import Client

    from mcp_actions.actions_app import ActionsApp, AppOptions
    from mcp_actions.dispatch.builtins.groups import listed_builtins
    from mcp_actions.server.mcp_server import build_server

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    monkeypatch.delitem(sys.modules, "bench_peers", raising=False)
    import bench_peers

    served = bench_peers.board_map(ROOT, "http://127.0.0.1:8765", tmp_path)
    app = ActionsApp(AppOptions(manifests=[str(served)], serve_bridge=False, watch=False, audit_log=None, browser="none"))
    async with Client(build_server(app), mode="legacy") as client:
        # The active tab on the board page: a page the map covers and does not project (groups.py).
        app.visibility.listed_builtins = listed_builtins([], maps=[loaded.model for loaded in app.catalog.manifests.values()], unprojected_page=True)
        listing = await client.list_tools()
    assert sorted(tool.name for tool in listing.tools) == ["board_add_card", "board_find_cards", "board_list_lists", "board_move_card", "browser_navigate", "page_read"]
    assert bench_peers.model_facing_bytes(listing) <= 3000
