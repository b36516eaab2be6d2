"""JSON nested deeper than the parser's stack is a parse error, never a closed connection or a failed request.

A raw WebSocket client (``websockets``) sends the BAP door a 200,000-deep
array: the answer is JSON-RPC's parse error (-32700) and the same connection
then initializes. The MCP port gets the same body over streamable HTTP and
answers a client error, not a server error, and keeps serving.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from mcp import Client
from websockets.asyncio.client import connect

from tests.server.session_servers import http_serve, wait_until

pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")

DEPTH = 200_000
DEEP = "[" * DEPTH + "]" * DEPTH


async def test_a_200000_deep_frame_is_a_parse_error_and_the_connection_keeps_working(tmp_path: Path) -> None:
    with http_serve(tmp_path, "--bap-port", "0", "--bap-token", "deep-token", "--browser", "none") as served:
        said = re.compile(r"BAP at (ws://127\.0\.0\.1:\d+/)")
        wait_until(lambda: said.search(served.stderr.read_text()) is not None)
        found = said.search(served.stderr.read_text())
        assert found is not None
        async with connect(found.group(1), additional_headers={"X-BAP-Token": "deep-token"}, max_size=None) as ws:
            await ws.send(DEEP)
            answer = json.loads(await ws.recv())
            assert answer["id"] is None and answer["error"]["code"] == -32700, answer
            initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "deep", "version": "1"}}}
            await ws.send(json.dumps(initialize))
            answered = json.loads(await ws.recv())
            assert answered["id"] == 1 and answered["result"]["serverInfo"]["name"] == "mcp-actions", answered
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx.AsyncClient(timeout=20) as http:
            refused = await http.post(served.url, headers=headers, content=DEEP)
        assert 400 <= refused.status_code < 500, (refused.status_code, refused.text[:300])
        async with Client(served.url, mode="legacy") as mcp:
            assert "browser_list_tabs" in {t.name for t in (await mcp.list_tools()).tools}
        assert "RecursionError" not in served.stderr.read_text()
