"""Getting a browser for the host: attach over CDP, or launch with a persistent, default or throw-away profile.

``BrowserOptions`` says which; ``open_browser`` does it and returns a
``BrowserSession`` that knows how to let go again: an attached browser is only
disconnected from (it is the user's), a launched one is closed, and an
``isolated`` profile directory is deleted afterwards.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright
from playwright.async_api import Error as PlaywrightError

from ..errors import ActionError, ErrorCode
from .chromium import CHROMIUM_ARGS, find_browser

__all__ = ["BrowserOptions", "BrowserSession", "default_profile_dir", "open_browser"]

log = logging.getLogger(__name__)


def default_profile_dir() -> Path:
    """Where a non-isolated browser keeps its profile when no --user-data-dir is given."""
    return Path.home() / ".cache" / "mcp-actions" / "chromium-profile"


@dataclass(frozen=True)
class BrowserOptions:
    """How to get a browser.

    ``cdp_endpoint`` attaches to a running browser (``http://host:port`` or a
    ``ws://`` DevTools URL). Otherwise Chromium is launched with a profile:
    ``user_data_dir`` when given (persistent); else ``isolated=True`` makes a
    fresh temporary profile deleted when the host stops; else
    ``default_profile_dir()`` (persistent across runs).
    """

    executable_path: str | None = None
    headless: bool = True
    cdp_endpoint: str | None = None
    user_data_dir: str | None = None
    isolated: bool = True


@dataclass
class BrowserSession:
    """A browser the host drives: its context, and how it was obtained."""

    context: BrowserContext
    browser: Browser | None
    attached: bool
    profile_dir: Path | None = None
    temporary_profile: bool = False

    async def close(self) -> list[str]:
        """Let go of the browser; return what failed (each also logged), so teardown never stops half-way."""
        failures: list[str] = []
        steps: list[tuple[str, Any]] = []
        if self.attached:
            # Only disconnect: the browser and its tabs belong to the user.
            steps.append(("disconnect from the attached browser", self.browser.close if self.browser else None))
        elif self.browser is not None:
            steps.append(("close the browser", self.browser.close))
        else:
            steps.append(("close the browser context", self.context.close))
        for what, step in steps:
            if step is None:
                continue
            try:
                await step()
            except PlaywrightError as exc:
                log.warning("could not %s: %s", what, exc)
                failures.append(f"{what}: {exc}")
        if self.temporary_profile and self.profile_dir is not None:
            try:
                shutil.rmtree(self.profile_dir)
            except OSError as exc:
                log.warning("could not remove the temporary profile %s: %s", self.profile_dir, exc)
                failures.append(f"remove {self.profile_dir}: {exc}")
        return failures


async def open_browser(pw: Playwright, options: BrowserOptions) -> BrowserSession:
    """Attach or launch as ``options`` say; raise ``capability_unavailable`` saying what failed."""
    if options.cdp_endpoint:
        try:
            browser = await pw.chromium.connect_over_cdp(options.cdp_endpoint)
        except PlaywrightError as exc:
            raise ActionError(
                f"could not attach to the browser at {options.cdp_endpoint}: {str(exc).splitlines()[0]}",
                code=ErrorCode.CAPABILITY_UNAVAILABLE,
                evidence={"capability": "browser", "host": "playwright", "cdp_endpoint": options.cdp_endpoint},
            ) from exc
        context = browser.contexts[0] if browser.contexts else await browser.new_context()
        return BrowserSession(context=context, browser=browser, attached=True)
    executable = find_browser(options.executable_path)
    viewport: dict[str, Any] = {"no_viewport": True} if not options.headless else {}
    temporary = options.user_data_dir is None and options.isolated
    if options.user_data_dir:
        profile = Path(options.user_data_dir).expanduser()  # noqa: ASYNC240 - reads $HOME once, at launch
    elif temporary:
        profile = Path(tempfile.mkdtemp(prefix="mcp-actions-profile-"))
    else:
        profile = default_profile_dir()
    profile.mkdir(parents=True, exist_ok=True)
    try:
        context = await pw.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=options.headless, args=list(CHROMIUM_ARGS), **viewport
        )
    except PlaywrightError as exc:
        if temporary:
            shutil.rmtree(profile, ignore_errors=True)  # nothing of ours is in it yet
        raise ActionError(
            f"could not start the browser ({executable}) with profile {profile}: {str(exc).splitlines()[0]}. "
            "If another browser uses that profile, pass --isolated or another --user-data-dir.",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"capability": "browser", "host": "playwright", "executable": executable, "user_data_dir": str(profile)},
        ) from exc
    return BrowserSession(context=context, browser=None, attached=False, profile_dir=profile, temporary_profile=temporary)
