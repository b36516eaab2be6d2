"""``--bap-port 0``: any free port, said on stderr (with the generated token) and in ``actions://bridge/launch`` (docs/bap.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client

from tests.server.session_servers import http_serve, wait_until

bap = pytest.importorskip("browseragentprotocol", reason="the released BAP client (pip install browser-agent-protocol==0.9.0, the test extra) is not installed")
from browseragentprotocol import BAPClient  # noqa: E402  # after the skip


async def test_any_free_port_and_a_generated_token_are_said(tmp_path: Path) -> None:
    with http_serve(tmp_path, "--bap-port", "0", "--browser", "none") as served:
        said = re.compile(r"BAP at (ws://127\.0\.0\.1:\d+/) \(token for this run: (\S+);")
        wait_until(lambda: said.search(served.stderr.read_text()) is not None)
        found = said.search(served.stderr.read_text())
        assert found is not None
        url, token = found.group(1), found.group(2)
        async with BAPClient(url, token=token, name="port-test") as client:
            assert client.capabilities is not None and client.capabilities["browsers"] == ["chromium"]
        async with Client(served.url, mode="legacy") as mcp:
            launch = json.loads((await mcp.read_resource("actions://bridge/launch")).contents[0].text)
        assert launch["bap"] == {"url": url} and token not in json.dumps(launch)
