"""What the routing fields cost in ``tools/list``: spelt out bare, described in a few words, or left out.

Every tool accepts ``target`` (or the flat ``target_*`` fields) and ``timeout_ms`` (docs/mcp-surface.md,
"Routing"). This measures the compact JSON of the ``tools`` array an MCP client receives (the SDK's
in-memory client, as a host would see it) for the board map with the default built-ins, and for the
built-ins alone (no map: all of them are listed), under three ways of showing routing in each
inputSchema. Results: bench/README.md, "Routing fields in tools/list".

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

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.catalog import catalog
from mcp_actions.server.mcp_server import INSTRUCTIONS, build_server

BOARD = Path(__file__).resolve().parent / "board" / "actions.json"

VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "bare (target, timeout_ms, no description)": {"target": {"type": "object"}, "timeout_ms": {"type": "integer"}},
    "described in a few words": {
        "target": {"type": "object", "description": "Page to run on (see instructions)"},
        "timeout_ms": {"type": "integer", "description": "Time limit, ms"},
    },
    "left out (said once in the instructions)": {},
}


async def tools_list_bytes(manifests: list[str]) -> tuple[int, int]:
    """(bytes of the compact tools array, number of tools) for a fresh server over ``manifests``."""
    app = ActionsApp(AppOptions(manifests=manifests, serve_bridge=False, watch=False, audit_log=None, browser="none"))
    async with Client(build_server(app), mode="legacy") as client:
        tools = (await client.list_tools()).tools
    array = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    return len(json.dumps(array, separators=(",", ":"), ensure_ascii=False).encode()), len(tools)


async def measure(name: str) -> None:
    """One variant, in a process of its own: the built-ins' bindings keep the schema they were first made with."""
    catalog.ADVERTISED_ROUTING.clear()
    catalog.ADVERTISED_ROUTING.update(VARIANTS[name])
    board, board_count = await tools_list_bytes([str(BOARD)])
    builtins, builtin_count = await tools_list_bytes([])
    print(f"{name:45} board map {board:6,} B ({board_count} tools)   built-ins {builtins:6,} B ({builtin_count} tools)", flush=True)


def main() -> None:
    print(f"server instructions: {len(INSTRUCTIONS.encode())} bytes (said once per session)", flush=True)
    for name in VARIANTS:
        subprocess.run([sys.executable, __file__, name], check=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(measure(sys.argv[1]))
    else:
        main()
