"""The live status page (issue 56): opened in a real Chromium, it shows a call as it happens, without a reload.

``serve --transport streamable-http`` runs in a subprocess; Debian's Chromium (Playwright) opens
the bridge's status page with the bridge token; the SDK's ``Client`` makes a call; the call's row
appears on the open page (server-sent events from ``/status/events``), the page never reloaded,
and its headers keep it the operator's: no referrer, no framing, no store, no script from elsewhere.
"""

from __future__ import annotations

import httpx
import pytest
from mcp import Client
from playwright.async_api import async_playwright

from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser

from .oauth_issuer import Issuer
from .session_servers import free_port, http_serve

pytestmark = pytest.mark.browser

TOKEN = "operator-bridge-token"


async def test_a_call_appears_on_the_open_status_page(tmp_path):
    bridge = free_port()
    with Issuer() as issuer, http_serve(tmp_path / "server", "--browser", "none", "--bridge-port", str(bridge), "--bridge-token", TOKEN, "--oauth-issuer", issuer.url) as served:
        status_url = f"http://127.0.0.1:{bridge}/?token={TOKEN}"
        async with async_playwright() as pw:
            viewer = await pw.chromium.launch(executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
            try:
                page = await viewer.new_page()
                problems: list[str] = []
                page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
                requested: list[str] = []
                page.on("request", lambda request: requested.append(request.url))
                answer = await page.goto(status_url)
                assert answer is not None
                headers = answer.headers
                assert headers["referrer-policy"] == "no-referrer"
                assert headers["x-frame-options"] == "DENY"
                assert headers["cache-control"] == "no-store"
                assert "script-src 'self'" in headers["content-security-policy"] and "frame-ancestors 'none'" in headers["content-security-policy"]
                await page.wait_for_function("document.getElementById('live').dataset.version !== undefined")  # the events arrived
                assert "No call yet." in await page.inner_text("#recent-calls")
                await page.evaluate("window.stillTheSamePage = true")
                url = served.url
                token = issuer.token("alice", url)
                async with _client(url, token) as client:
                    assert not (await client.call_tool("actions_site", {"mode": "list"})).is_error
                    # The call's row, and the session of its user, appear on the page that stayed open.
                    await page.wait_for_function("document.getElementById('recent-calls').innerText.includes('actions.site')", timeout=10_000)
                    calls = await page.inner_text("#recent-calls")
                    assert "alice" in calls and "ok" in calls
                    await page.wait_for_function("(document.getElementById('sessions') || {innerText: ''}).innerText.includes('alice')", timeout=10_000)
                assert await page.evaluate("window.stillTheSamePage") is True  # no reload
                assert problems == []  # no script or connection was refused by the page's policy
                assert all(u.startswith(f"http://127.0.0.1:{bridge}/") for u in requested)  # nothing from elsewhere
            finally:
                await viewer.close()
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"http://127.0.0.1:{bridge}/status/events")).status_code == 401  # the events need the token too


def _client(url: str, token: str) -> Client:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})), mode="legacy")


def test_a_served_map_whose_last_check_drifted_is_on_the_status_page(tmp_path, pages_url):
    """``mcp-actions check`` keeps its outcome; the status page of a server serving that map shows the drift."""
    import subprocess
    import sys
    from pathlib import Path

    from .session_servers import isolated_env

    board = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "board" / "actions.json"
    home = tmp_path / "server"
    home.mkdir()
    run = [sys.executable, "-m", "mcp_actions", "check", str(board)]
    kept = subprocess.run([*run, "--url", f"{pages_url}/board/index.html"], env=isolated_env(home), capture_output=True, text=True, timeout=120)
    assert kept.returncode == 0, kept.stderr
    bridge = free_port()
    with http_serve(home, "--browser", "none", "--manifests", str(board), "--bridge-port", str(bridge), "--bridge-token", TOKEN):
        status = httpx.get(f"http://127.0.0.1:{bridge}/", params={"token": TOKEN}).text
        assert "No map's last check drifted." in status  # it held
        drifted = subprocess.run([*run, "--url", f"{pages_url}/board-drifted/index.html"], env=isolated_env(home), capture_output=True, text=True, timeout=120)
        assert drifted.returncode == 1, drifted.stderr
        status = httpx.get(f"http://127.0.0.1:{bridge}/", params={"token": TOKEN}).text
    table = status.split('id="drifted-maps"')[1].split("</table>")[0]
    assert str(board) in table and "board-drifted/index.html" in table
    assert "check board_visible (major)" in table and "projection board.state" in table
