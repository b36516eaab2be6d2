"""``mcp-actions demo``: the whole loop on the bundled task board, printed step by step.

It serves the demo site on loopback, starts the server with the bundled
manifests and a headless browser, connects a real MCP client, and calls
tools the way an agent would: navigate, add tasks (page handlers), complete
one by clicking (a workflow), search, and list. Each call is printed with its
result and its time; the exit status says whether every step succeeded.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from mcp import Client

from ..actions_app import ActionsApp, AppOptions
from ..manifest.load import bundled_manifests_dir
from ..server.mcp_server import build_server
from .static import StaticSite, demo_site_dir

__all__ = ["DEMO_CALLS", "run_demo"]

#: The calls the demo makes after opening the site: (tool, arguments, what the result must show).
DEMO_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("demo_add_task", {"title": "Write the README"}),
    ("demo_add_task", {"title": "Ship the bridge"}),
    ("demo_complete_task", {"title": "Ship the bridge"}),
    ("demo_search_tasks", {"query": "README"}),
    ("demo_list_tasks", {}),
]


def _say(line: str) -> None:
    print(line, flush=True)


async def run_demo(*, browser_path: str | None = None, headless: bool = True) -> int:
    """Run the demo; 0 when every call succeeded."""
    with StaticSite(demo_site_dir()) as site:
        options = AppOptions(
            manifests=[str(bundled_manifests_dir())],
            bridge_port=0,
            browser="launch",
            browser_path=browser_path,
            headless=headless,
            isolated=True,
        )
        app = ActionsApp(options)
        server = build_server(app)
        failures = 0
        started = time.perf_counter()
        _say(f"demo site: {site.url}")
        async with Client(server) as client:
            tools = await client.list_tools()
            _say(f"tools/list: {len(tools.tools)} tools: {', '.join(t.name for t in tools.tools)}")
            calls: list[tuple[str, dict[str, Any]]] = [("browser_navigate", {"url": site.url}), *DEMO_CALLS]
            for name, arguments in calls:
                t0 = time.perf_counter()
                result = await client.call_tool(name, arguments)
                elapsed = (time.perf_counter() - t0) * 1000
                outcome = "error" if result.is_error else "ok"
                failures += result.is_error
                payload = json.dumps(result.structured_content, ensure_ascii=False)
                _say(f"{name} {json.dumps(arguments)} -> {outcome} in {elapsed:.0f} ms\n    {payload}")
        total = (time.perf_counter() - started) * 1000
        _say(f"{len(calls) - failures}/{len(calls)} calls succeeded in {total:.0f} ms")
        if failures:
            print("mcp-actions demo: some calls failed", file=sys.stderr)
        return 1 if failures else 0
