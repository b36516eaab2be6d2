"""A tool call's deadline and an MCP cancellation stop its work in the page (issue 29, item 3), end to end.

The MCP SDK's ``Client`` drives the server in process; the server's own
headless Chromium (the browser host) shows ``tests/fixtures/pages/deadline``,
whose count moves whenever an effect lands on the page. Its map has a page
handler that waits a second and then counts, and a workflow that arms the
page, waits for the button it adds a second later and clicks it (counting).

- Called with ``timeout_ms: 100``, both answer ``handler_timeout`` at once,
  and 1.5 s later nothing has landed.
- Cancelled by the client (``notifications/cancelled``), the same.

Before this, the handler counted after both (the runtime never heard of
the call's end; its task and the page's wait ran on). The workflow's later
steps already stopped at the deadline and on cancellation (the interpreter
checks both before each step); its cases guard that.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.server.mcp_server import build_server

from ..dispatch.test_chromium_e2e import failed, ok

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
#: How long after the call's end we watch for an effect landing late.
WATCH_S = 1.5


@contextlib.asynccontextmanager
async def deadline_app(tmp_path: Path, pages_url: str) -> AsyncIterator[Client]:
    """The server with the deadline map, its browser on the deadline page; yields the client."""
    document = json.loads((PAGES / "deadline" / "actions.json").read_text())
    document["surface"]["origin"] = pages_url
    (tmp_path / "deadline.actions.json").write_text(json.dumps(document))
    app = ActionsApp(AppOptions(manifests=[str(tmp_path / "deadline.actions.json")], headless=True, isolated=True, serve_bridge=False, watch=False))
    async with Client(build_server(app), mode="legacy") as client:
        ok(await client.call_tool("browser_navigate", {"url": f"{pages_url}/deadline/index.html"}))
        yield client


async def count(client: Client) -> int:
    result: Any = ok(await client.call_tool("deadline_read", {}))
    return int(result["count"])


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("deadline_slow_bump", {"ms": 1000}),  # a page handler: its signal aborts
        ("deadline_click_late", {}),  # a workflow: wait_for ends, the click never happens
    ],
)
async def test_a_timed_out_tool_does_not_act_later(tmp_path: Path, pages_url: str, tool: str, arguments: dict[str, Any]) -> None:
    async with deadline_app(tmp_path, pages_url) as client:
        started = time.monotonic()
        error = failed(await client.call_tool(tool, {**arguments, "timeout_ms": 300}))
        assert error["code"] == "handler_timeout"
        assert time.monotonic() - started < 1.0
        await asyncio.sleep(WATCH_S)
        assert await count(client) == 0
        # The tool still works within its time.
        ok(await client.call_tool(tool, {**arguments, "timeout_ms": 10_000}))
        assert await count(client) == 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("deadline_slow_bump", {"ms": 1000}),
        ("deadline_click_late", {}),
    ],
)
async def test_a_cancelled_tool_does_not_act_later(tmp_path: Path, pages_url: str, tool: str, arguments: dict[str, Any]) -> None:
    async with deadline_app(tmp_path, pages_url) as client:
        call = asyncio.create_task(client.call_tool(tool, {**arguments, "timeout_ms": 10_000}))
        await asyncio.sleep(0.4)
        assert not call.done()
        call.cancel()  # the SDK sends notifications/cancelled for the abandoned request
        with contextlib.suppress(asyncio.CancelledError):
            await call
        await asyncio.sleep(WATCH_S)
        assert await count(client) == 0
