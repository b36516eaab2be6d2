"""Fixtures shared by every test folder: a static server for tests/fixtures/pages and a real headless Chromium.

Playwright objects belong to the event loop that created them, so the
``chromium`` fixture is module-scoped on the module's loop; test modules using
it set ``pytestmark = pytest.mark.asyncio(loop_scope="module")``. It connects to
the one Chromium of the test process (tests/worker_chromium.py). Tests that
need a browser of their own use ``launch_chromium`` on their own loop.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Playwright, async_playwright

from mcp_actions.demo.static import StaticSite
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser
from tests import worker_chromium

PAGES = Path(__file__).resolve().parent / "fixtures" / "pages"

# Servers the tests start as subprocesses never share the user's persistent browser profile.
os.environ.setdefault("MCP_ACTIONS_ISOLATED", "1")
# Nor write to the user's own audit log (tests that read one name their file).
os.environ.setdefault("MCP_ACTIONS_AUDIT_LOG", "off")
# Nor assemble the browser extension in the user's data folder (extension/bundle.py).
os.environ.setdefault("MCP_ACTIONS_EXTENSION_DIR", tempfile.mkdtemp(prefix="mcp-actions-extension-"))
# Nor keep the outcome of their `mcp-actions check` runs among the user's (operators/last_check.py).
os.environ.setdefault("XDG_STATE_HOME", tempfile.mkdtemp(prefix="mcp-actions-state-"))


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL (no trailing slash) of a static server for tests/fixtures/pages."""
    with StaticSite(PAGES) as site:
        yield site.url.rstrip("/")


async def launch_chromium(pw: Playwright) -> Browser:
    """A headless Debian Chromium with the flags this machine needs."""
    return await pw.chromium.launch(executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))


async def connect_chromium(pw: Playwright) -> Browser:
    """A headless Chromium of the test process (tests/worker_chromium.py), connected to over CDP.

    Its ``new_page()``/``new_context()`` give a context of this connection's own; ``close()``
    closes those and disconnects, leaving the browser to the next test (its lease ends then).
    """
    lent = worker_chromium.lease()
    endpoint = lent.__enter__()
    try:
        browser = await pw.chromium.connect_over_cdp(endpoint)
    except BaseException:
        lent.__exit__(None, None, None)
        raise
    browser.once("disconnected", lambda _browser: lent.__exit__(None, None, None))
    return browser


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def chromium() -> AsyncIterator[Browser]:
    """A headless Chromium of the test process (tests/worker_chromium.py), connected to for one module.

    Its users open their pages with ``new_page()``/``new_context()``: each a context of its own,
    which the disconnect at the module's end closes. The browser is the module's alone meanwhile
    (the tests' products get another). A test that needs a browser nobody ever shares (one it
    closes, crashes or launches with options) calls ``launch_chromium``.
    """
    async with async_playwright() as pw:
        browser = await connect_chromium(pw)
        try:
            yield browser
        finally:
            await browser.close()  # closes the contexts this connection made; the browser stays for the next module


def pytest_unconfigure(config: pytest.Config) -> None:
    """The test process ends: so do its Chromiums."""
    worker_chromium.stop()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when any error or problem created during it used a code outside ``ErrorCode``."""
    from mcp_actions.errors import unlisted_codes

    unlisted = sorted(unlisted_codes())
    if unlisted:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"error codes produced outside ErrorCode: {', '.join(unlisted)}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
