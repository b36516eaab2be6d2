"""A window.abp that is not an Agentic Browser Protocol app is left alone.

ASP.NET Boilerplate's client library (the ``abp-web-resources`` npm package)
defines ``window.abp`` on every page of a site built with it. The fixture
page (tests/fixtures/pages/abp-aspnet/) loads it as such a site does, from
the real package (installed from the npm registry into the test cache with
``tests.npm_cache``, never into the repository), with jQuery before it. The
page runtime must not initialise it, list tools for it, call into it or
change it, and must say nothing about it on the console.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..npm_cache import npm_package
from .conftest import product

PAGE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "abp-aspnet"
ABP_WEB_RESOURCES = "abp-web-resources@6.1.0"
JQUERY = "jquery@3.7.1"


class _Site(http.server.SimpleHTTPRequestHandler):
    """The fixture page, with /lib/<package>/… served from the installed npm packages."""

    libs: dict[str, Path] = {}

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def translate_path(self, path: str) -> str:
        parts = path.split("?", 1)[0].split("/")
        if len(parts) > 3 and parts[1] == "lib" and parts[2] in self.libs:
            root = self.libs[parts[2]].resolve()
            target = root.joinpath(*parts[3:]).resolve()
            return str(target) if target.is_relative_to(root) else str(root / "missing")
        return super().translate_path(path)


@contextlib.contextmanager
def _serve(libs: dict[str, Path]) -> Iterator[str]:
    handler = type("Site", (_Site,), {"libs": libs})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(PAGE_DIR)))
    threading.Thread(target=server.serve_forever, name="aspnet-site", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def aspnet_site() -> Iterator[str]:
    libs = {"abp-web-resources": npm_package(ABP_WEB_RESOURCES), "jquery": npm_package(JQUERY)}
    assert (libs["abp-web-resources"] / "Abp" / "Framework" / "scripts" / "abp.js").is_file()
    with _serve(libs) as url:
        yield url


async def test_an_aspnet_boilerplate_window_abp_is_not_initialised_listed_or_changed(aspnet_site):
    async with product() as s:
        await s.navigate(f"{aspnet_site}/index.html")
        page = s.tab().page
        console: list[str] = []
        errors: list[str] = []
        page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
        page.on("pageerror", lambda error: errors.append(str(error)))
        opened = await s.navigate(f"{aspnet_site}/index.html?again")  # a whole load, heard from its start

        # The framework loaded from the real package, and the site works.
        assert await page.evaluate("() => abp.aspnetboilerplate.version") == "8.0.0"
        assert await page.evaluate("() => window.siteReady") is True
        assert await page.text_content("#greeting") == "Welcome back, Ada!"

        # Longer than a page without an abp-manifest link is watched for an ABP app.
        await asyncio.sleep(3.5)
        tools = await s.tools()
        assert not [t for t in tools.values() if t.meta.get("mcp-actions/protocol") == "abp"]
        listed = await s.app.bridge.call("abp.list", {}, runtime_id=opened["tab"]["runtime_id"], timeout_ms=5000)
        assert listed["initialized"] is False and listed["capabilities"] == []

        # Untouched: no handlers set on it, no members added, nothing of ABP called on it.
        shape = await page.evaluate(
            "() => JSON.stringify({ keys: Object.keys(abp).sort(), notify: Object.keys(abp.notify).sort(), event: Object.keys(abp.event).sort() })"
        )
        assert shape == await page.evaluate("() => window.abpShapeAtLoad")
        assert await page.evaluate("() => ['initialize', 'call', 'onNotification', 'onProgress', 'onElicitation', 'onCapabilitiesChanged'].filter(k => k in abp)") == []

        # The page still does what it did.
        await page.click("#add")
        assert await page.text_content("#cart") == "1 items in your cart"
        assert errors == []
        assert not [line for line in console if "mcp-actions" in line or "ABP" in line], console
