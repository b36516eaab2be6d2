"""What the extension's Chromium tests share: the server, Chromium with the extension, polling helpers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp import Client
from playwright.async_api import BrowserContext, Page, async_playwright

from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.extension import extension_dir
from mcp_actions.runtimes.chromium import find_browser
from mcp_actions.server.mcp_server import build_server

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
FORM_TITLE = "actions.json simple form example"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def fixture_map(tmp_path: Path, fixture: str, origin: str) -> Path:
    """A folder holding the map of ``tests/fixtures/pages/<fixture>``, its surface set to our static server's origin."""
    document = json.loads((PAGES / fixture / "actions.json").read_text())
    document["surface"]["origin"] = origin
    folder = tmp_path / "maps"
    folder.mkdir(exist_ok=True)
    (folder / f"{fixture}.actions.json").write_text(json.dumps(document))
    return folder


def form_map(tmp_path: Path, origin: str) -> Path:
    """The simple-form fixture's map (a handler on the page's own window), for our static server's origin."""
    return fixture_map(tmp_path, "simple-form", origin)


@contextlib.asynccontextmanager
async def server(maps: Path, port: int, **client_options: Any) -> AsyncIterator[tuple[ActionsApp, Client]]:
    """The server as a host starts it with ``--browser none``: a bridge on ``port``, the map, an MCP client."""
    app = ActionsApp(AppOptions(manifests=[str(maps)], browser="none", bridge_port=port, bridge_port_fallback=False, watch=False))
    async with Client(build_server(app), mode="legacy", **client_options) as client:
        yield app, client


@contextlib.asynccontextmanager
async def chromium_with_extension(profile: Path, extension: Path | None = None) -> AsyncIterator[BrowserContext]:
    """Headless Chromium with the shipped extension (or a copy of it, ``extension``) loaded unpacked."""
    path = str(extension or extension_dir())
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=find_browser(),
            headless=True,
            args=[f"--disable-extensions-except={path}", f"--load-extension={path}", "--no-first-run", "--no-default-browser-check"],
        )
        try:
            yield context
        finally:
            await context.close()


async def runtimes(client: Client) -> list[dict[str, Any]]:
    result = await client.read_resource("actions://runtimes")
    text = result.contents[0].text  # type: ignore[union-attr]
    data = json.loads(text)
    listed: list[dict[str, Any]] = data["runtimes"] if isinstance(data, dict) else data
    return listed


async def eventually(probe: Callable[[], Awaitable[T | None]], what: str, timeout: float = 20.0) -> T:
    """Poll until ``probe`` returns something truthy."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await probe()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def shared_runtime(client: Client, hidden_url: str) -> dict[str, Any] | None:
    """The extension's runtime, once announced; asserts on the way that the unshared tab never shows."""
    listed = await runtimes(client)
    assert not any(hidden_url in (r.get("url") or "") or "Board" in (r.get("title") or "") for r in listed), listed
    return next((r for r in listed if str(r.get("runtime_key", "")).startswith("chrome-tab:")), None)


async def submit(client: Client, tool: str, name: str) -> Any:
    result = await client.call_tool(tool, {"name": name, "timeout_ms": 10000})
    assert not result.is_error, result
    return result.structured_content


async def open_connect(context: BrowserContext, url: str) -> Page:
    page = await context.new_page()
    await page.goto(url)
    return page




async def pair(context: BrowserContext, app: ActionsApp) -> Page:
    """Open the connect link the server shows, as its user would, and wait until the pairing is made."""
    url = app.extension_connect_url()
    assert url
    connect = await open_connect(context, url)
    await connect.get_by_role("status").filter(has_text="Paired").wait_for()
    return connect
