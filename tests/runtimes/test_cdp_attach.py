"""Getting a browser: attach to a running Chromium over CDP, a persistent profile, an isolated one.

The CDP test starts Debian's Chromium itself with ``--remote-debugging-port=0``
and reads the port Chromium chose from ``DevToolsActivePort`` in its profile;
the host attaches, drives a fixture page that was open before it came, and on
stop only disconnects: the user's browser and tab live on.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_actions.bridge.bridge import Bridge
from mcp_actions.errors import ActionError
from mcp_actions.runtimes.browser import BrowserHost, BrowserOptions
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS
from tests.worker_chromium import ChromiumProcess

pytestmark = pytest.mark.browser


@pytest.fixture
def running_chromium(pages_url: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A headless Chromium the test started (a user's browser: none of Playwright's switches), already showing a
    fixture page; yields its CDP endpoint and its process."""
    chromium = ChromiumProcess((*CHROMIUM_ARGS, "--headless"), start_url=f"{pages_url}/engine/handlers.html")
    try:
        endpoint = chromium.endpoint()
        assert chromium.process is not None
        yield endpoint, chromium.process
    finally:
        chromium.stop()


def cdp_targets(endpoint: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{endpoint}/json/list", timeout=5) as response:
        return [t for t in json.load(response) if t.get("type") == "page"]


async def test_attach_over_cdp_drives_the_open_page_and_detaches(running_chromium: tuple[str, subprocess.Popen[bytes]], pages_url: str) -> None:
    endpoint, proc = running_chromium
    for _ in range(100):  # the start page may still be loading
        if any(t["url"].endswith("/engine/handlers.html") for t in cdp_targets(endpoint)):
            break
        await asyncio.sleep(0.05)
    bridge = Bridge(default_timeout_ms=10_000)
    host = BrowserHost(bridge, BrowserOptions(cdp_endpoint=endpoint))
    try:
        await host.start()
        tab = next(t for t in host.tabs if t.page.url.endswith("/engine/handlers.html"))
        info = bridge.registry.get(tab.runtime_id)
        assert info is not None and info.title == "Handler fixture" and info.transport == "playwright"
        assert host.profile_dir is None  # attached: the profile is the user's business
        # The page was open before the host came: the engine is installed on demand.
        assert await bridge.call("app.greet", {"name": "Ada"}, runtime_id=tab.runtime_id, handler="app.greet") == {"message": "Hi Ada"}
        # Drive it: navigate, read, click with trusted input.
        await bridge.call("browser.navigate", {"url": "inputs.html"}, runtime_id=tab.runtime_id)
        center = (await bridge.call("locator.element_info", {"locator": {"role": "button", "name": "Clicked 0"}}, runtime_id=tab.runtime_id))["clickable_center"]
        assert (await bridge.call("pointer.click", center, runtime_id=tab.runtime_id))["fidelity"] == "trusted"
        assert await tab.page.text_content("#counter") == "Clicked 1"
        opened = await bridge.call("browser.open_tab", {"url": f"{pages_url}/engine/locators.html"}, runtime_id=tab.runtime_id)
        assert bridge.registry.get(opened["runtime_id"]).title == "Locator fixture"
    finally:
        await host.stop()
        await bridge.stop()
    # Detached, not closed: the browser runs on with its pages.
    assert proc.poll() is None
    urls = [t["url"] for t in cdp_targets(endpoint)]
    assert f"{pages_url}/engine/inputs.html" in urls and f"{pages_url}/engine/locators.html" in urls
    assert bridge.registry.list() == []


async def test_attach_to_nothing_is_capability_unavailable() -> None:
    bridge = Bridge()
    host = BrowserHost(bridge, BrowserOptions(cdp_endpoint="http://127.0.0.1:9"))  # discard port: nothing listens
    with pytest.raises(ActionError) as caught:
        await host.start()
    assert caught.value.code == "capability_unavailable"
    assert caught.value.evidence["cdp_endpoint"] == "http://127.0.0.1:9" and caught.value.evidence["host"] == "playwright"
    assert not host.started
    await bridge.stop()


async def test_user_data_dir_keeps_the_profile_between_runs(tmp_path: Path, pages_url: str) -> None:
    profile = tmp_path / "profile"
    for run, expected in ((1, None), (2, "kept")):
        bridge = Bridge(default_timeout_ms=10_000)
        host = BrowserHost(bridge, BrowserOptions(user_data_dir=str(profile), isolated=False))
        try:
            runtime_id = await host.new_tab(f"{pages_url}/engine/handlers.html")
            page = host.tab(runtime_id).page
            assert await page.evaluate("() => localStorage.getItem('mcp-actions-test')") == expected, f"run {run}"
            await page.evaluate("() => localStorage.setItem('mcp-actions-test', 'kept')")
            assert host.profile_dir == profile
        finally:
            await host.stop()
            await bridge.stop()
        assert profile.is_dir()  # never deleted: it is the user's


async def test_isolated_profile_is_fresh_and_removed(pages_url: str) -> None:
    seen: list[Path] = []
    for _run in range(2):
        bridge = Bridge(default_timeout_ms=10_000)
        host = BrowserHost(bridge, BrowserOptions(isolated=True))
        try:
            runtime_id = await host.new_tab(f"{pages_url}/engine/handlers.html")
            page = host.tab(runtime_id).page
            assert await page.evaluate("() => localStorage.getItem('mcp-actions-test')") is None  # fresh every run
            await page.evaluate("() => localStorage.setItem('mcp-actions-test', 'x')")
            assert host.profile_dir is not None and host.profile_dir.is_dir()
            seen.append(host.profile_dir)
        finally:
            await host.stop()
            await bridge.stop()
        assert not seen[-1].exists()  # removed after
    assert seen[0] != seen[1]
