"""WebMCP implementations real sites run, end to end through the SDK Client in Chromium.

- @mcp-b/global and @mcp-b/webmcp-polyfill, as published on npm: installed
  once into the test npm cache (tests/npm_cache.py, outside the repository)
  and served to the fixture pages (tests/fixtures/pages/webmcp-npm/) as
  /node_modules/<package>/…, the way a site serves or links them.
  With the browser host our document.modelContext comes first: the polyfill
  stands aside, @mcp-b/global wraps ours and passes its registrations on.
- The same polyfill page with the page runtime (/runtime.js) embedded after
  it: the slot is the polyfill's, and its tools are read through its
  getTools/executeTool.
- Chromium's own WebMCP (Debian's Chromium with --enable-features=WebMCP,
  attached over CDP): the slot is the browser's, and its tools (imperative
  and declarative) are read and run through document.modelContext's
  getTools/executeTool.
"""

from __future__ import annotations

import io
import json
import socket
import tarfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from playwright.async_api import async_playwright

import tests.npm_cache as npm_cache
from mcp_actions.actions_app import ActionsApp, AppOptions
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS
from mcp_actions.server.mcp_server import build_server
from tests.conftest import PAGES, connect_chromium
from tests.npm_cache import npm_package, serving_with_packages
from tests.worker_chromium import ChromiumProcess

from .conftest import Session, eventually, product

pytestmark = pytest.mark.browser

#: The packages the fixture pages load, pinned: a new release is a deliberate change here.
PACKAGES = ("@mcp-b/global@5.1.0", "@mcp-b/webmcp-polyfill@5.1.0")


@pytest.fixture(scope="module")
def npm_pages_url() -> Iterator[str]:
    """Base URL of a static server for the fixture pages and the npm packages they load."""
    packages = {}
    for spec in PACKAGES:
        directory = npm_package(spec)
        packages[json.loads((directory / "package.json").read_text())["name"]] = directory
    with serving_with_packages(PAGES, packages) as base:
        yield base


def _tarball(path: Path, name: str, version: str) -> Path:
    """An npm package tarball (package/package.json, package/index.js), so npm installs it without a registry."""
    with tarfile.open(path, "w:gz") as tar:
        for member, text in (("package/package.json", json.dumps({"name": name, "version": version, "main": "index.js"})), ("package/index.js", "module.exports = 1;\n")):
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_npm_package_installs_a_spec_once_even_when_asked_in_parallel(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("MCP_ACTIONS_TEST_NPM_CACHE", str(cache))
    spec = str(_tarball(tmp_path / "fixture-pkg-1.0.0.tgz", "mcp-actions-fixture-pkg", "1.0.0"))
    installs: list[str] = []
    real_install = npm_cache._install

    def counted(*args: Any) -> None:
        installs.append(args[1])
        real_install(*args)

    monkeypatch.setattr(npm_cache, "_install", counted)
    with ThreadPoolExecutor(max_workers=3) as pool:
        found = list(pool.map(lambda _: npm_package(spec), range(3)))
    assert len(set(found)) == 1 and installs == [spec]
    package = found[0]
    assert package.name == "mcp-actions-fixture-pkg" and json.loads((package / "package.json").read_text())["version"] == "1.0.0"
    assert package.is_relative_to(cache)
    # One folder for the spec (and its lock), no half-finished install left behind.
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == [package.parents[1].name]
    assert npm_package(spec) == package and installs == [spec]  # a later call (another run) finds it


def test_npm_package_skips_only_when_npm_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_ACTIONS_TEST_NPM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(npm_cache.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="npm is not installed"):
        npm_package("left-pad@1.3.0")
    # A CI run installs npm: there its absence fails the test instead of hiding it.
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="npm is not installed"):
        npm_package("left-pad@1.3.0")


def test_a_failed_npm_install_fails_the_test_with_npms_words(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_ACTIONS_TEST_NPM_CACHE", str(tmp_path / "cache"))
    with pytest.raises(pytest.fail.Exception, match="npm install .*missing.tgz failed"):
        npm_package(str(tmp_path / "missing.tgz"))
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == []


def _webmcp(tools: dict[str, types.Tool]) -> dict[str, types.Tool]:
    return {t.meta["mcp-actions/tool"].split(".", 1)[1]: t for t in tools.values() if t.meta.get("mcp-actions/protocol") == "webmcp"}


async def test_mcp_b_global_wraps_our_context_and_its_tools_reach_the_client(npm_pages_url):
    async with product() as s:
        await s.navigate(f"{npm_pages_url}/webmcp-npm/global.html")
        tools = _webmcp(await s.wait_for_tools(lambda ts: {"increment", "get_count"} <= set(_webmcp(ts))))
        increment, count = tools["increment"], tools["get_count"]
        # @mcp-b/global replaced document.modelContext with its own server (it has listTools, ours has not),
        # which passes registrations on to the context it found: ours.
        assert await s.tab().page.evaluate("() => typeof document.modelContext.listTools") == "function"
        assert increment.title == "[page] Increment the counter" and increment.input_schema["required"] == ["by"]
        assert count.annotations is not None and count.annotations.read_only_hint is True

        done = await s.client.call_tool(increment.name, {"by": 3})
        assert done.structured_content == {"content": [{"type": "text", "text": "Count is 3"}]}
        assert await s.tab().page.evaluate("() => countForTest()") == 3
        assert await s.tab().page.text_content("#count") == "3"
        assert (await s.client.call_tool(increment.name, {"by": 0})).structured_content["error"]["code"] == "invalid_input"

        # A tool registered later with a signal arrives, and leaves when the signal aborts.
        before = len(s.changes)
        await s.tab().page.click("#enable-reset")
        reset = await s.page_tool("webmcp", "reset")
        assert len(s.changes) > before
        assert (await s.client.call_tool(reset.name, {})).structured_content == {"result": "reset"}
        assert await s.tab().page.evaluate("() => countForTest()") == 0
        await s.tab().page.click("#disable-reset")
        await s.wait_for_tools(lambda ts: "reset" not in _webmcp(ts))


async def test_mcp_b_polyfill_stands_aside_and_its_page_runs_on_ours(npm_pages_url):
    async with product() as s:
        await s.navigate(f"{npm_pages_url}/webmcp-npm/polyfill.html")
        tools = _webmcp(await s.wait_for_tools(lambda ts: {"add_note", "search_notes"} <= set(_webmcp(ts))))
        # The polyfill found the slot taken: no ModelContext constructor of its own was installed.
        assert await s.tab().page.evaluate("() => typeof window.ModelContext") == "undefined"
        added = await s.client.call_tool(tools["add_note"].name, {"text": "buy oat milk"})
        assert added.structured_content == {"added": "buy oat milk", "total": 1}
        found = await s.client.call_tool(tools["search_notes"].name, {"word": "milk"})
        assert found.structured_content == {"hits": ["buy oat milk"]}
        assert await s.tab().page.text_content("#found") == "1 found"

        await s.tab().page.click("#enable-clear")
        clear = await s.page_tool("webmcp", "clear_notes")
        await s.tab().page.click("#disable-clear")
        await s.wait_for_tools(lambda ts: "clear_notes" not in _webmcp(ts))
        with pytest.raises(MCPError, match="unknown tool"):
            await s.client.call_tool(clear.name, {})


async def test_a_runtime_embedded_after_the_pages_polyfill_reads_the_tools_through_it(npm_pages_url):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = "webmcp-npm-token"
    app = ActionsApp(AppOptions(browser="none", bridge_port=port, bridge_token=token, watch=False))
    changes: list[float] = []

    async def on_message(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", None) == "notifications/tools/list_changed":
            changes.append(time.monotonic())

    async with async_playwright() as pw, Client(build_server(app), mode="legacy", message_handler=on_message) as client:
        chromium = await connect_chromium(pw)
        try:
            page = await chromium.new_page()
            runtime = f"http://127.0.0.1:{port}/runtime.js?token={token}"
            await page.goto(f"{npm_pages_url}/webmcp-npm/polyfill.html?runtime={quote(runtime, safe='')}")

            async def listed(*names: str) -> dict[str, types.Tool] | None:
                tools = _webmcp({t.name: t for t in (await client.list_tools()).tools})
                return tools if set(names) <= set(tools) else None

            tools = await eventually(lambda: listed("add_note", "search_notes"))
            # The slot is the polyfill's (its constructor is installed); our runtime reads through it.
            assert await page.evaluate("() => typeof window.ModelContext") == "function"
            listing = await app.bridge.call("webmcp.list_tools", {}, runtime_id=app.bridge.registry.list()[0].runtime_id)
            assert listing["sources"] == ["document.modelContext (page)"]

            added = await client.call_tool(tools["add_note"].name, {"text": "call the plumber"})
            assert added.structured_content == {"added": "call the plumber", "total": 1}
            assert await page.evaluate("() => notesForTest()") == ["call the plumber"]
            found = await client.call_tool(tools["search_notes"].name, {"word": "plumber"})
            assert found.structured_content == {"hits": ["call the plumber"]}
            assert await page.text_content("#found") == "1 found"

            # Its toolchange events bring later registrations and withdrawals.
            before = len(changes)
            await page.click("#enable-clear")
            tools = await eventually(lambda: listed("clear_notes"))
            assert len(changes) > before
            assert (await client.call_tool(tools["clear_notes"].name, {})).structured_content == {"removed": 1}
            await page.click("#disable-clear")

            async def withdrawn() -> bool:
                return "clear_notes" not in _webmcp({t.name: t for t in (await client.list_tools()).tools})

            await eventually(withdrawn)
        finally:
            await chromium.close()


@pytest.fixture
def webmcp_chromium() -> Iterator[str]:
    """Debian's Chromium with its own WebMCP switched on, started by the test; yields its CDP endpoint."""
    chromium = ChromiumProcess((*CHROMIUM_ARGS, "--enable-features=WebMCP", "--headless"))
    try:
        yield chromium.endpoint()
    finally:
        chromium.stop()


async def test_chromiums_own_webmcp_is_read_and_run_through_its_document_model_context(webmcp_chromium, pages_url):
    app = ActionsApp(AppOptions(browser="launch", cdp_endpoint=webmcp_chromium, serve_bridge=False))
    changes: list[float] = []

    async def on_message(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", None) == "notifications/tools/list_changed":
            changes.append(time.monotonic())

    async with Client(build_server(app), message_handler=on_message, mode="legacy") as client:
        s = Session(app, client, changes)
        await s.navigate(f"{pages_url}/webmcp/imperative.html")
        # The browser's own ModelContext holds the registrations: ours is not installed.
        assert await s.tab().page.evaluate("() => Object.getOwnPropertyNames(Object.getPrototypeOf(document.modelContext)).includes('ontoolactivated')")
        add = await s.page_tool("webmcp", "add_todo")
        listing = await s.page_tool("webmcp", "list_todos")
        assert listing.annotations is not None and listing.annotations.read_only_hint is True
        done = await s.client.call_tool(add.name, {"title": "Native", "priority": 1})
        assert done.structured_content == {"content": [{"type": "text", "text": 'Added "Native" (1 items)'}]}
        assert await s.tab().page.evaluate("() => todosForTest().map(t => t.title)") == ["Native"]
        runtime_id = s.tab().runtime_id
        listed = await app.bridge.call("webmcp.list_tools", {}, runtime_id=runtime_id)
        assert listed["native"] is True and listed["sources"] == ["document.modelContext (native)"]

        # The browser's toolchange events: a registration with a signal arrives and leaves on abort.
        before = len(changes)
        await s.tab().page.click("#enable-archive")
        archive = await s.page_tool("webmcp", "archive_done")
        assert len(changes) > before
        assert (await s.client.call_tool(archive.name, {})).structured_content == {"archived": 0}
        await s.tab().page.click("#disable-archive")
        await s.wait_for_tools(lambda ts: "archive_done" not in _webmcp(ts))

        # Declarative forms are the browser's too: its schema, its agent-invoked submit and respondWith.
        await s.navigate(f"{pages_url}/webmcp/declarative.html")
        search = await s.page_tool("webmcp", "search_flights")
        assert search.input_schema["properties"]["cabin"]["enum"] == ["economy", "business"]
        found = await s.client.call_tool(search.name, {"from": "Paris", "to": "Oslo", "passengers": 2, "cabin": "business", "trip": "return"})
        assert not found.is_error, found.structured_content
        assert found.structured_content["agent"] is True and [f["price"] for f in found.structured_content["flights"]] == [900, 1200]
        assert await s.tab().page.text_content("#status") == "2 flights found"
