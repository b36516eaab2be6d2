"""Finding and launching a Chromium/Chrome binary.

mcp-actions drives an installed Chromium or Chrome (it never downloads one):
``find_browser`` looks where browsers are usually installed, ``CHROMIUM_ARGS``
are the launch flags that keep a headless browser quiet, reproducible and
light at start-up (``DISABLED_FEATURES``), and
``has_display`` decides the headed/headless default.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import ActionError, ErrorCode

__all__ = ["BROWSER_CANDIDATES", "CHROMIUM_ARGS", "DISABLED_FEATURES", "chromium_args", "find_browser", "has_display"]

log = logging.getLogger(__name__)

#: Environment variable naming the browser binary (below --browser-path, above detection).
BROWSER_PATH_ENV = "MCP_ACTIONS_BROWSER_PATH"

#: Features an automation browser keeps off. Chromium honours only the *last*
#: ``--disable-features`` switch, and Playwright passes its own list before ours,
#: so ours restates Playwright's list (as of Playwright 1.65: network quiet at
#: start-up, HTTP kept on HTTP, beforeunload and Fetch-interception fixes)
#: and adds ``WebUIOmniboxPopup``/``WebUIOmniboxAimPopup``: since Chromium ~150 a
#: new window builds its omnibox popup as a WebUI page in its own renderer, which
#: burns about 0.7 s of CPU in the browser's first second — on a 2-core machine,
#: right when the user's first call runs. A headless browser never shows it.
#: ``tests/runtimes/test_chromium.py`` checks that every feature the installed
#: Playwright disables is still disabled in a browser launched with these args.
DISABLED_FEATURES: tuple[str, ...] = (
    # Playwright's own list.
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
    # Ours: the omnibox popup's WebUI renderer (see above).
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
)

_BASE_ARGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-features=" + ",".join(DISABLED_FEATURES),
)


def _running_as_root() -> bool:
    geteuid = getattr(os, "geteuid", None)
    return geteuid is not None and geteuid() == 0


def chromium_args() -> tuple[str, ...]:
    """Launch flags; ``--no-sandbox`` only as root, where Chromium refuses to start sandboxed."""
    return (("--no-sandbox",) if _running_as_root() else ()) + _BASE_ARGS


#: The launch flags for this process (computed once at import).
CHROMIUM_ARGS: tuple[str, ...] = chromium_args()


def _windows_candidates() -> list[str]:
    roots = [os.environ.get(name) for name in ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")]
    roots += [r"C:\Program Files", r"C:\Program Files (x86)"]
    out: list[str] = []
    for root in dict.fromkeys(r for r in roots if r):
        out.append(os.path.join(root, "Google", "Chrome", "Application", "chrome.exe"))
        out.append(os.path.join(root, "Chromium", "Application", "chrome.exe"))
    return out


#: Where browsers are installed, in order of preference, per platform.
BROWSER_CANDIDATES: tuple[str, ...] = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
    "/snap/bin/chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)

_PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def _usable(path: str) -> str | None:
    candidate = Path(path).expanduser()
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    found = shutil.which(path) if os.sep not in path else None  # a bare command name
    return found


def find_browser(explicit: str | None = None, *, candidates: Sequence[str] | None = None) -> str:
    """The Chromium/Chrome binary to launch.

    ``explicit`` (``--browser-path``) when it exists, else ``$MCP_ACTIONS_BROWSER_PATH``,
    else the usual install locations (``candidates``, default ``BROWSER_CANDIDATES``
    plus Windows' Program Files) and ``PATH``. Raises ``ActionError``
    (``capability_unavailable``) telling the user what to do when none is found.
    """
    for source, value in (("--browser-path", explicit), (BROWSER_PATH_ENV, os.environ.get(BROWSER_PATH_ENV))):
        if value:
            found = _usable(value)
            if found:
                return found
            log.warning("%s %r is not an executable browser; looking for an installed one", source, value)
    if candidates is None:
        candidates = list(BROWSER_CANDIDATES) + (_windows_candidates() if sys.platform == "win32" else [])
    for path in candidates:
        found = _usable(path)
        if found:
            return found
    for name in _PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    # A path the user gave that is not a browser comes first: it is the likelier mistake.
    given = [f"{value} ({source})" for source, value in (("--browser-path", explicit), (BROWSER_PATH_ENV, os.environ.get(BROWSER_PATH_ENV))) if value]
    cause = f"There is no browser at {given[0]}, and no" if given else "No"
    raise ActionError(
        f"{cause} Chromium or Chrome browser was found. Install Chromium (e.g. `apt install chromium`) or "
        f"Google Chrome, or pass --browser-path PATH (or set {BROWSER_PATH_ENV}).",
        code=ErrorCode.CAPABILITY_UNAVAILABLE,
        recoverable=False,
        evidence={"capability": "browser", "searched": list(candidates), "explicit": explicit},
    )


def has_display() -> bool:
    """True when a headed browser can show a window (always on macOS and Windows)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
