"""Getting a browser for the host: attach over CDP, connect to a Playwright browser server, or launch with a persistent, default or throw-away profile.

``BrowserOptions`` says which; ``open_browser`` does it and returns a
``BrowserSession`` that knows how to let go again: an attached browser is only
disconnected from (it is the user's), a launched one is closed, and an
``isolated`` profile directory is deleted afterwards.

The default profile is used by one server at a time: Chromium locks a profile
(its ``SingletonLock``) while it runs. A second server started with default
options finds the lock held by a live process and takes the next profile of its
own (``chromium-profile-2``, …), said once on stderr; later starts while the
first still runs find the same one free again (``free_default_profile``).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright
from playwright.async_api import Error as PlaywrightError

from ..errors import ActionError, ErrorCode
from ..url_secrets import shown_url
from .chromium import CHROMIUM_ARGS, find_browser
from .launch_failure import launch_failure

__all__ = ["BrowserOptions", "BrowserSession", "default_profile_dir", "free_default_profile", "open_browser", "profile_in_use"]

log = logging.getLogger(__name__)


def default_profile_dir() -> Path:
    """Where a non-isolated browser keeps its profile when no --user-data-dir is given."""
    return Path.home() / ".cache" / "mcp-actions" / "chromium-profile"


#: How many profiles of its own a server tries beside the default one before it gives up.
MAX_PROFILES = 16
#: The profiles already said on stderr (said once per process, not at every relaunch).
_SAID: set[Path] = set()


def profile_in_use(profile: Path) -> bool:
    """Whether a live Chromium on this machine holds ``profile`` (its ``SingletonLock`` names a running process).

    Chromium's lock is a symlink to ``<hostname>-<pid>``; a lock left by a crashed browser
    (its process gone) does not count: Chromium takes such a profile over itself.
    """
    try:
        target = os.readlink(profile / "SingletonLock")
    except OSError:
        return False
    host, _, pid_text = target.rpartition("-")
    if host and host != socket.gethostname():
        return True  # a browser on another machine (a shared home): not ours to judge, keep away
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (ValueError, PermissionError, OSError):
        return True  # a process we may not signal is alive
    return True


def free_default_profile(*, skip: set[Path] | frozenset[Path] = frozenset()) -> Path:
    """The default profile, or the first profile of its own (``chromium-profile-2``, …) no live browser holds.

    A taken default profile gives way to the next one, said once on stderr (as a taken
    default port is); a server started later while the first still runs finds the same
    second profile, so its logins persist across its own restarts.
    """
    default = default_profile_dir()
    for n in range(1, MAX_PROFILES + 1):
        profile = default if n == 1 else default.with_name(f"{default.name}-{n}")
        if profile not in skip and not profile_in_use(profile):
            if n > 1 and profile not in _SAID:
                _SAID.add(profile)
                # For the person who started the server, as a taken default port is: one "mcp-actions: …" line.
                logging.getLogger("mcp_actions.user").warning(
                    "the default browser profile %s is in use by another browser; using %s (choose one with --user-data-dir, or --isolated)", default, profile
                )
            return profile
    raise ActionError(
        f"every browser profile from {default} to {default.name}-{MAX_PROFILES} is in use by a running browser; pass --isolated or --user-data-dir",
        code=ErrorCode.CAPABILITY_UNAVAILABLE,
        evidence={"capability": "browser", "host": "playwright", "user_data_dir": str(default)},
    )



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
    #: Headers sent with the CDP connection (``--cdp-header``), e.g. a remote pool's authorization.
    cdp_headers: tuple[tuple[str, str], ...] = ()
    #: A Playwright browser server's ``ws://`` endpoint (``--browser-endpoint``): connect there, never launch.
    browser_endpoint: str | None = None
    #: With ``cdp_endpoint``: a fresh context of our own on the attached browser (its first blank tab ours,
    #: all of it closed when the host stops), never the browser's own tabs and cookies. A process that
    #: embeds the product many times over (the test suite: one Chromium per worker) gets a launched
    #: browser's clean start without a launch each time.
    cdp_own_context: bool = False


@dataclass
class BrowserSession:
    """A browser the host drives: its context, and how it was obtained."""

    context: BrowserContext
    browser: Browser | None
    attached: bool
    profile_dir: Path | None = None
    temporary_profile: bool = False
    #: Run after the browser was let go (a pooled context tells its pool: browser_pool.py).
    on_close: Callable[[], Awaitable[None]] | None = field(default=None, repr=False)
    #: An attached browser's context we opened ourselves (``cdp_own_context``): closed before disconnecting.
    own_context: bool = False

    async def close(self) -> list[str]:
        """Let go of the browser; return what failed (each also logged), so teardown never stops half-way."""
        failures: list[str] = []
        steps: list[tuple[str, Any]] = []
        if self.attached:
            if self.own_context:
                steps.append(("close our context in the attached browser", self.context.close))
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
        if self.on_close is not None:
            await self.on_close()
        return failures


def _first_line(exc: Exception, endpoint: str) -> str:
    """Playwright's reason, without the endpoint it quotes (whose credential the product never shows)."""
    return str(exc).splitlines()[0].replace(endpoint, shown_url(endpoint) or "")


async def connect_endpoint(pw: Playwright, endpoint: str) -> Browser:
    """Connect to a Playwright browser server (``launchServer`` / ``run-server``); ``capability_unavailable`` when it cannot be reached."""
    try:
        return await pw.chromium.connect(endpoint)
    except PlaywrightError as exc:
        raise ActionError(
            f"could not connect to the Playwright browser server at {shown_url(endpoint)}: {_first_line(exc, endpoint)}",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"capability": "browser", "host": "playwright", "browser_endpoint": shown_url(endpoint)},
        ) from exc


async def attach_cdp(pw: Playwright, options: BrowserOptions) -> Browser:
    """Attach to a running browser over CDP (with ``--cdp-header`` headers); ``capability_unavailable`` when it cannot be."""
    assert options.cdp_endpoint is not None
    try:
        return await pw.chromium.connect_over_cdp(options.cdp_endpoint, headers=dict(options.cdp_headers) or None)
    except PlaywrightError as exc:
        raise ActionError(
            f"could not attach to the browser at {shown_url(options.cdp_endpoint)}: {_first_line(exc, options.cdp_endpoint)}",
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"capability": "browser", "host": "playwright", "cdp_endpoint": shown_url(options.cdp_endpoint)},
        ) from exc


async def open_browser(pw: Playwright, options: BrowserOptions) -> BrowserSession:
    """Attach or launch as ``options`` say; raise ``capability_unavailable`` saying what failed."""
    if options.browser_endpoint:
        # A browser server's browser is the server's: a context of our own on it, closed with the connection.
        browser = await connect_endpoint(pw, options.browser_endpoint)
        return BrowserSession(context=await browser.new_context(), browser=browser, attached=False)
    if options.cdp_endpoint:
        browser = await attach_cdp(pw, options)
        if options.cdp_own_context:
            try:
                context = await browser.new_context(no_viewport=True) if not options.headless else await browser.new_context()
            except PlaywrightError:
                await browser.close()  # disconnect: nothing of ours is in it yet
                raise
            return BrowserSession(context=context, browser=browser, attached=True, own_context=True)
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
        profile = free_default_profile()
    taken: set[Path] = set()
    while True:
        profile.mkdir(parents=True, exist_ok=True)
        try:
            context = await pw.chromium.launch_persistent_context(
                str(profile), executable_path=executable, headless=options.headless, args=list(CHROMIUM_ARGS), **viewport
            )
            break
        except PlaywrightError as exc:
            failure = exc
        if not options.user_data_dir and not temporary and "ProcessSingleton" in str(failure) and len(taken) < MAX_PROFILES:
            # Another server launched on the same default profile a moment before us (both saw it free): the next one.
            taken.add(profile)
            profile = free_default_profile(skip=taken)
            continue
        if temporary:
            shutil.rmtree(profile, ignore_errors=True)  # nothing of ours is in it yet
        log.info("the browser did not start: %s", failure)  # Playwright's whole account, for --verbose
        raise ActionError(
            launch_failure(failure, executable=executable, headless=options.headless, profile=profile),
            code=ErrorCode.CAPABILITY_UNAVAILABLE,
            evidence={"capability": "browser", "host": "playwright", "executable": executable, "user_data_dir": str(profile)},
        ) from failure
    return BrowserSession(context=context, browser=None, attached=False, profile_dir=profile, temporary_profile=temporary)
