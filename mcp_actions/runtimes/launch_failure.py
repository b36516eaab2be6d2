"""Why a browser could not start, in one line that names the cause first and then the fix (docs/errors.md).

Playwright's own error is a page: a box drawn in characters, a call log, every Chromium switch.
What a user needs from it is one of a few causes:

- a visible browser (``--headed``) on a machine with no display to show it (no ``DISPLAY`` or
  ``WAYLAND_DISPLAY``): run headless, or under a display (``xvfb-run``);
- a profile another browser holds (Chromium's ``ProcessSingleton``): ``--isolated`` or another
  ``--user-data-dir``;
- no browser binary at the path given: the right ``--browser-path``.

Anything else is the first line of Playwright's error, the rest being in the server's log.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["launch_failure"]


def _no_display() -> bool:
    """True where a window cannot be shown: Linux and the BSDs with neither X11 nor Wayland to draw on."""
    if sys.platform in ("win32", "darwin"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def launch_failure(error: BaseException, *, executable: str, headless: bool, profile: Path | None = None) -> str:
    """One line: what stopped the browser ``executable`` from starting, and what to do about it."""
    text = str(error)
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    if not headless and (_no_display() or "XServer" in text or "Missing X server" in text):
        shown = "DISPLAY is not set" if _no_display() else "the display could not be opened"
        return (
            f"the browser window cannot be shown: there is no display here ({shown}), and --headed needs one. "
            "Leave out --headed to run the browser headless, or start the server under a display (xvfb-run)."
        )
    if profile is not None and ("ProcessSingleton" in text or "profile appears to be in use" in text):
        return f"the browser profile {profile} is in use by another browser. Close that browser, or pass --isolated or another --user-data-dir."
    if "executable doesn't exist" in text or ("No such file or directory" in text and executable in text):
        return f"there is no browser at {executable}. Pass --browser-path with the path of Chromium or Chrome (e.g. /usr/bin/chromium)."
    return f"could not start the browser ({executable}): {first}"
