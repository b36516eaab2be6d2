"""Two stdio servers with default options on one machine both drive their browser (issue #32, docs/sessions.md).

Claude Desktop beside Claude Code: each starts ``mcp-actions`` with no options. The first
browser holds the default profile (Chromium's ``SingletonLock``); the second server takes a
profile of its own and says so once on stderr (tests/runtimes/test_profile_choice.py: a later
start while the first still runs finds that same second profile). HOME (and the XDG folders)
are the test's own.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_actions.demo.static import StaticSite

from .session_servers import isolated_env

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages" / "sessions"


def _params(home: Path) -> StdioServerParameters:
    # Default options: only the audit log is sent away from the shared state folder (it is not what is tested).
    return StdioServerParameters(command=sys.executable, args=["-m", "mcp_actions", "--audit-log", "off"], env=isolated_env(home))


async def _navigate(client: Client, url: str) -> str:
    result = await client.call_tool("browser_navigate", {"url": url})
    assert not result.is_error, result.structured_content
    return str(result.structured_content["tab"]["title"])


async def test_two_stdio_servers_with_default_options_both_browse(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    profiles = home / ".cache" / "mcp-actions"
    with StaticSite(PAGES) as site:
        page = f"{site.url.rstrip('/')}/index.html"
        with (tmp_path / "first.err").open("w") as first_err, (tmp_path / "second.err").open("w") as second_err:
            async with Client(stdio_client(_params(home), errlog=first_err), read_timeout_seconds=60, mode="legacy") as first:
                assert await _navigate(first, f"{page}?set=first") == "cookies:who=first"
                assert (profiles / "chromium-profile" / "SingletonLock").is_symlink()
                async with Client(stdio_client(_params(home), errlog=second_err), read_timeout_seconds=60, mode="legacy") as second:
                    # Its own profile: the first one's cookie is not in it.
                    assert await _navigate(second, page) == "cookies:"
                said = (tmp_path / "second.err").read_text()
                assert said.count("is in use by another browser") == 1 and str(profiles / "chromium-profile-2") in said, said
                assert "chromium-profile-2" not in (tmp_path / "first.err").read_text()
                # The first server never noticed: its browser and its cookie are where they were.
                assert await _navigate(first, page) == "cookies:who=first"
