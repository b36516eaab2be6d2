"""The launch flags' feature list, checked in a real Chromium launched the way the server launches it.

Chromium honours only the last ``--disable-features`` switch, so ours has to restate
every feature Playwright disables. These tests read Playwright's list from the
installed driver and the final list from a launched renderer's command line (Linux
``/proc``): a Playwright upgrade that disables something new fails here instead of
silently losing it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import playwright
import pytest
from playwright.async_api import async_playwright

from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, DISABLED_FEATURES, find_browser

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads child processes from /proc")

DRIVER = Path(playwright.__file__).parent / "driver" / "package" / "lib"


def playwright_disabled_features() -> set[str]:
    """The ``disabledFeatures`` array of the installed Playwright driver's Chromium switches."""
    for source in (DRIVER / "coreBundle.js", DRIVER / "server" / "chromium" / "chromiumSwitches.js"):
        if source.is_file():
            text = source.read_text(encoding="utf-8")
            found = re.search(r"disabledFeatures\s*=\s*(?:\(\)\s*=>\s*)?\[(.*?)\]", text, re.DOTALL)
            if found:
                body = re.sub(r"//[^\n]*", "", found.group(1))  # comments name features too
                return set(re.findall(r'"([A-Za-z0-9]+)"', body))
    raise AssertionError(f"no disabledFeatures list in Playwright's driver under {DRIVER}")


def renderer_command_lines(profile: Path) -> list[str]:
    """Command lines of the renderers of the browser using ``profile``."""
    lines = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # exited meanwhile
        if "--type=renderer" in line and f"--user-data-dir={profile}" in line:
            lines.append(line)
    return lines


def test_our_list_restates_playwrights() -> None:
    missing = playwright_disabled_features() - set(DISABLED_FEATURES)
    assert not missing, f"Playwright disables {sorted(missing)}; add them to DISABLED_FEATURES"


async def test_launched_browser_runs_with_every_feature_off_and_no_omnibox_renderer(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(str(profile), executable_path=find_browser(), headless=True, args=list(CHROMIUM_ARGS))
        try:
            page = context.pages[0] if context.pages else await context.new_page()
            await page.goto("data:text/html,<p>up</p>")
            lines = renderer_command_lines(profile)
        finally:
            await context.close()
    assert lines, "no renderer of the launched browser was found"
    for line in lines:
        final = set(re.search(r"--disable-features=(\S+)", line).group(1).split(","))
        assert playwright_disabled_features() | {"WebUIOmniboxPopup"} <= final
        # The omnibox popup's WebUI renderer is the one that burned a core at start-up.
        assert "--top-chrome-webui" not in line
