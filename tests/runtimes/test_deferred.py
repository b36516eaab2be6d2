"""The deferred browser host: nothing of Playwright before the browser starts, launches off the handshake."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.errors import ActionError, ErrorCode

ROOT = Path(__file__).resolve().parents[2]


def test_serving_imports_no_playwright_until_the_browser_starts() -> None:
    # A fresh interpreter: this test process may have imported Playwright already.
    code = (
        "import asyncio, sys\n"
        "from mcp_actions.actions_app import ActionsApp, AppOptions\n"
        "from mcp_actions.server.mcp_server import build_server\n"
        "app = ActionsApp(AppOptions(browser='auto', serve_bridge=False))\n"
        "build_server(app)\n"
        "asyncio.run(app.start())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'playwright' or m == 'mcp_actions.runtimes.browser'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


async def test_a_failed_background_launch_is_reported_to_the_next_call() -> None:
    # Nothing listens on port 9: the launch at start fails; start() itself does not wait for it.
    app = ActionsApp(AppOptions(browser="launch", cdp_endpoint="http://127.0.0.1:9", serve_bridge=False))
    await app.start()
    try:
        assert app.browser is not None
        await app.browser.wait_launched()
        assert not app.browser.started
        with pytest.raises(ActionError) as caught:
            await app.service.call("browser_navigate", {"url": "about:blank"})
        assert caught.value.code == ErrorCode.CAPABILITY_UNAVAILABLE
        assert caught.value.evidence["cdp_endpoint"] == "http://127.0.0.1:9"
    finally:
        await app.stop()
