"""What the routing fields cost in ``tools/list``: spelt out bare, described in a few words, or left out.

Every tool accepts ``target`` (or the flat ``target_*`` fields) and ``timeout_ms`` (docs/mcp-surface.md,
"Routing"). This measures the compact JSON of the ``tools`` array an MCP client receives (the SDK's
in-memory client, as a host would see it) for the board map with the default built-ins, and for the
built-ins alone (no map: all of them are listed), under three ways of showing routing in each
inputSchema. It also gives the part of each list a host hands its model (name, description,
inputSchema: ``bench_peers.model_facing_bytes``), and the board's list as it is on the board page,
where ``page_read`` is listed beside the map's tools. Results: bench/README.md, "Routing fields in
tools/list".

    .venv/bin/python bench/bench_routing_schema.py
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_peers import model_facing_bytes

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.catalog import routing_fields
from mcp_actions.dispatch.builtins.groups import listed_builtins
from mcp_actions.server.mcp_server import INSTRUCTIONS, build_server

BOARD = Path(__file__).resolve().parent / "board" / "actions.json"

VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "bare (target, timeout_ms, no description; now)": {"target": {"type": "object"}, "timeout_ms": {"type": "integer"}},
    "described in a few words (issue 34 to 42)": {
        "target": {"type": "object", "description": "Page to run on (see instructions)"},
        "timeout_ms": {"type": "integer", "description": "Time limit, ms"},
    },
    "left out (said once in the instructions)": {},
}


async def tools_list_bytes(manifests: list[str], *, on_mapped_page: bool = False) -> tuple[int, int, int]:
    """(bytes of the compact tools array, of its model-facing part, number of tools) for a fresh server over ``manifests``.

    ``on_mapped_page``: as the list is while the active tab shows a page the maps cover and do not
    project (the board page: ``page_read`` is listed beside the maps' tools; groups.py).
    """
    app = ActionsApp(AppOptions(manifests=manifests, serve_bridge=False, watch=False, audit_log=None, browser="none"))
    async with Client(build_server(app), mode="legacy") as client:
        if on_mapped_page:
            maps = [loaded.model for loaded in app.catalog.manifests.values()]
            app.visibility.listed_builtins = listed_builtins([], maps=maps, unprojected_page=True)
        listing = await client.list_tools()
    array = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listing.tools]
    return len(json.dumps(array, separators=(",", ":"), ensure_ascii=False).encode()), model_facing_bytes(listing), len(listing.tools)


async def measure(name: str) -> None:
    """One variant, in a process of its own: the built-ins' bindings keep the schema they were first made with."""
    routing_fields.ADVERTISED_ROUTING.clear()
    routing_fields.ADVERTISED_ROUTING.update(VARIANTS[name])
    figures = {
        "board map": await tools_list_bytes([str(BOARD)]),
        "board page": await tools_list_bytes([str(BOARD)], on_mapped_page=True),
        "built-ins": await tools_list_bytes([]),
    }
    cells = "   ".join(f"{label} {whole:6,} B, model-facing {model:6,} B ({count} tools)" for label, (whole, model, count) in figures.items())
    print(f"{name:48} {cells}", flush=True)


def main() -> None:
    print(f"server instructions: {len(INSTRUCTIONS.encode())} bytes (said once per session)", flush=True)
    for name in VARIANTS:
        subprocess.run([sys.executable, __file__, name], check=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(measure(sys.argv[1]))
    else:
        main()
