"""The server as users run it: a subprocess over stdio and over streamable HTTP, driving real Chromium."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.demo.static import StaticSite

FIXTURE_FORM = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "simple-form"
NAME_RE = r"^[a-zA-Z0-9_-]{1,64}$"


def _published_example() -> tuple[Path, dict]:
    """The published simple-form page and map (copied into fixtures so CI does not need ../shared)."""
    return FIXTURE_FORM, json.loads((FIXTURE_FORM / "actions.json").read_text())


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"MCP_ACTIONS_HEADLESS": "1", "MCP_ACTIONS_LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1"})
    return env


@pytest.fixture
def simple_form(tmp_path):
    page_dir, manifest = _published_example()
    with StaticSite(page_dir) as site:
        # The only change to the published map: where its page is served.
        manifest["surface"]["origin"] = site.url
        path = tmp_path / "simple-form.actions.json"
        path.write_text(json.dumps(manifest))
        yield site, path


@pytest.mark.browser
async def test_stdio_published_example_submits_in_chromium(simple_form):
    site, manifest_path = simple_form
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_actions", "--manifests", str(manifest_path), "--bridge-port", "0", "--browser", "auto"],
        env=_env(),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["contact_submit_name"].meta["mcp-actions/tool"] == "contact.submit_name"
        # A map names its site's origin, not its tools' page: browser_navigate is listed beside it.
        # It declares a context block, which only actions_site (mode=list) reads: that one is too.
        assert "browser_navigate" in tools and "actions_site" in tools
        # Bad arguments are a result the model reads (SEP-1303), naming the argument.
        refused = await client.call_tool("contact_submit_name", {"name": 7})
        assert refused.is_error and refused.structured_content["error"]["code"] == "invalid_input"
        assert refused.structured_content["error"]["evidence"]["path"] == "/name" and "/name" in refused.content[0].text
        # No runtime yet: the server launches Chromium and opens the site's front page (here the
        # form), then calls the handler.
        result = await client.call_tool("contact_submit_name", {"name": "Ada"})
        assert not result.is_error, result
        assert result.structured_content["ok"] is True
        assert result.structured_content["result"] == "Submitted Ada"
        runtimes = json.loads((await client.read_resource("actions://runtimes")).contents[0].text)["runtimes"]
        # The fresh browser's blank tab was reused for the site: one tab, on the map's origin.
        assert [r["url"].startswith(site.url) for r in runtimes] == [True]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}: {process.stderr.read().decode() if process.stderr else ''}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"port {port} never opened")


@pytest.fixture
def http_server(tmp_path):
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_actions", "serve", "--transport", "streamable-http", "--port", str(port), "--bridge-port", "0", "--browser", "none"],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_streamable_http_without_maps_lists_only_builtins(http_server):
    """No --manifests: the built-ins and nothing else (issue 34 item 1: the demo map belongs to ``mcp-actions demo``)."""
    import re

    async with Client(http_server) as client:
        tools = (await client.list_tools()).tools
        names = {t.name for t in tools}
        assert "browser_navigate" in names
        assert not any(name.startswith("demo_") for name in names), names
        builtins = set(ActionsApp(AppOptions(browser="none", serve_bridge=False)).service.builtins)
        assert {(t.meta or {}).get("mcp-actions/tool") for t in tools} <= builtins, names
        assert all(re.match(NAME_RE, t.name) and "mcp-actions/tool" in (t.meta or {}) for t in tools)
        launch = json.loads((await client.read_resource("actions://bridge/launch")).contents[0].text)
        assert launch["manifests"] == []
        # --browser none and no runtime: navigating fails as a result, at once, with a stable code.
        result = await client.call_tool("browser_navigate", {"url": "http://127.0.0.1:9/"})
        assert result.is_error and result.structured_content["error"]["code"] == "capability_unavailable"
