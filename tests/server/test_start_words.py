"""What a user reads when the server starts, and when its browser cannot (issue 57, docs/cli.md, docs/errors.md).

Each server here is a real ``mcp-actions`` process over stdio with a real MCP client, HOME of the
test's own (``isolated_env``):

- the repository's example host config (``claude_config.example.json``) runs as written, on a
  machine without a display, and browses;
- a browser that cannot start says why in one line, naming the cause first and then the fix: no
  display for ``--headed``, a profile in use, no browser at ``--browser-path``;
- a start says on stderr what the user needs to connect and no more; ``--verbose`` says the rest.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from playwright.async_api import async_playwright

from mcp_actions.demo.static import StaticSite
from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser

from .session_servers import isolated_env

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "fixtures" / "pages" / "sessions"


def _quiet_env(home: Path) -> dict[str, str]:
    """A user's environment: default log level, no display, no headless switch in the environment."""
    env = isolated_env(home)
    for name in ("MCP_ACTIONS_LOG_LEVEL", "MCP_ACTIONS_HEADLESS", "MCP_ACTIONS_VERBOSE", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    return env


async def _navigate(params: StdioServerParameters, errlog: Path, url: str) -> tuple[bool, str]:
    """One ``browser_navigate``; whether it failed and its text."""
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err), read_timeout_seconds=60, mode="legacy") as client:
            result = await client.call_tool("browser_navigate", {"url": url})
    return result.is_error, "\n".join(getattr(item, "text", "") for item in result.content)


async def test_the_example_host_config_runs_as_written_without_a_display(tmp_path: Path) -> None:
    config = json.loads((ROOT / "claude_config.example.json").read_text(encoding="utf-8"))
    # It is the README's Claude Desktop entry, which says so.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`claude_config.example.json`" in readme
    assert config in [json.loads(block) for block in re.findall(r"^```json\n(.*?)^```$", readme, flags=re.MULTILINE | re.DOTALL)]
    [entry] = config["mcpServers"].values()
    # Its placeholders are this clone's command and a folder of maps; nothing else is changed.
    command = entry["command"].replace("/path/to/mcp-actions/.venv/bin/mcp-actions", str(Path(sys.executable).parent / "mcp-actions"))
    maps = tmp_path / "maps"
    maps.mkdir()
    args = [arg.replace("/path/to/maps", str(maps)) for arg in entry.get("args", [])]
    env = {**_quiet_env(tmp_path / "home"), **{k: v.replace("/path/to/maps", str(maps)) for k, v in entry.get("env", {}).items()}}
    assert Path(command).exists(), command
    with StaticSite(PAGES) as site:
        failed, text = await _navigate(StdioServerParameters(command=command, args=[*args, "--audit-log", "off"], env=env), tmp_path / "err", f"{site.url.rstrip('/')}/index.html")
    assert not failed, text


async def test_headed_without_a_display_names_the_display_and_the_fix(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_actions", "--headed", "--isolated", "--audit-log", "off"], env=_quiet_env(tmp_path / "home"))
    failed, text = await _navigate(params, tmp_path / "err", "about:blank")
    assert failed
    code, _, message = text.partition(": ")
    assert code == "capability_unavailable"
    assert "\n" not in message and message.startswith("the browser window cannot be shown: there is no display here"), message
    assert "Leave out --headed" in message and "xvfb-run" in message
    # Not the old hint, which sent the user to --isolated; not Playwright's page of log.
    assert "--isolated" not in message and "Call log" not in message and "╔" not in message


async def test_a_profile_in_use_is_named_with_the_fix(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    async with async_playwright() as pw:
        holder = await pw.chromium.launch_persistent_context(str(profile), executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
        try:
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "mcp_actions", "--headless", "--user-data-dir", str(profile), "--audit-log", "off"], env=_quiet_env(tmp_path / "home")
            )
            failed, text = await _navigate(params, tmp_path / "err", "about:blank")
        finally:
            await holder.close()
    assert failed
    assert text == f"capability_unavailable: the browser profile {profile} is in use by another browser. Close that browser, or pass --isolated or another --user-data-dir.", text


@pytest.mark.parametrize(
    ("extra", "token_line", "extension_line"),
    [
        ([], False, True),  # a host's start: where runtimes connect, the status page, the extension's link
        (["--verbose"], True, True),
        (["--browser", "none"], False, True),
    ],
)
async def test_a_start_says_what_connecting_needs_and_verbose_says_the_rest(tmp_path: Path, extra: list[str], token_line: bool, extension_line: bool) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_actions", "--headless", "--isolated", "--audit-log", "off", *extra], env=_quiet_env(tmp_path / "home"))
    errlog = tmp_path / "err"
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err), read_timeout_seconds=60, mode="legacy") as client:
            await client.list_tools()
    said = [line for line in errlog.read_text().splitlines() if line.startswith("mcp-actions: ")]
    assert any(line.startswith("mcp-actions: runtimes connect at ws://127.0.0.1:") and "status page http://127.0.0.1:" in line for line in said), said
    assert any("bridge token for this run" in line for line in said) == token_line, said
    assert any("to share tabs of your own browser" in line for line in said) == extension_line, said
    if not extra:
        # Two lines (and, when another server holds the default bridge port, the note that says so).
        assert len([line for line in said if "is in use" not in line]) == 2, said
        assert " INFO " not in errlog.read_text()
