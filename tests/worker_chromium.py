"""Headless Chromiums a test process (each pytest-xdist worker) starts once and reuses, attached to over CDP.

Launching Chromium costs 1-2 s of CPU, more on a loaded 2-core machine; the
suite used to pay it for every ``product()``, every both-hosts ``browser`` host
and every test module. A test process now starts a Chromium on first use and
lends it out again and again: ``product()`` (tests/protocols/conftest.py) and
the ``browser`` host of tests/runtimes/both_hosts.py attach with
``cdp_own_context``, so each test still gets a fresh browser context and a
blank tab of its own, closed when it stops; the ``chromium`` fixture and
``connect_chromium`` (tests/conftest.py) ``connect_over_cdp``.

One user at a time per browser (``lease()``): a Playwright connection adopts
every page of the browser, its other contexts' too, and answers their dialogs
when nobody of its own listens, so a second connection would dismiss a dialog a
test expects to stay open. A test process usually needs one or two (a module's
``chromium`` and its tests' products); a lease that finds them all lent starts
another, kept for later leases.

Each is a plain subprocess (no Playwright driver holds it), started with the
switches Playwright gives a headless launch plus the product's own
``CHROMIUM_ARGS``, so pages behave as in a browser the product launched. A
lease checks it answers and starts it again when it does not (a test that
crashed or closed it leaves no broken browser to the next). All are killed when
the test process ends (``stop()`` from ``pytest_unconfigure``, and at exit).
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from mcp_actions.runtimes.chromium import CHROMIUM_ARGS, find_browser

__all__ = ["ChromiumProcess", "lease", "starts", "stop"]

#: What Playwright (1.65) passes to a headless Chromium it launches, bar its pipe and profile flags
#: (chromiumSwitches and the headless ones). Its ``--disable-features`` is left out: CHROMIUM_ARGS
#: restates it (Chromium honours only the last one) and comes after.
PLAYWRIGHT_SWITCHES = (
    "--disable-field-trial-config",
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-back-forward-cache",
    "--disable-breakpad",
    "--disable-component-extensions-with-background-pages",
    "--disable-component-update",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-edgeupdater",
    "--disable-extensions",
    "--enable-features=CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies",
    "--allow-pre-commit-input",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-renderer-backgrounding",
    "--disable-updater-scheduler",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-first-run",
    "--password-store=basic",
    "--use-mock-keychain",
    "--no-service-autorun",
    "--disable-search-engine-choice-screen",
    "--unsafely-disable-devtools-self-xss-warnings",
    "--enable-unsafe-swiftshader",
    "--edge-skip-compat-layer-relaunch",
    "--disable-stack-profiler",
    "--disable-infobars",
    "--disable-sync",
    "--do-not-de-elevate",
    "--headless",
    "--hide-scrollbars",
    "--mute-audio",
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4",
    "--no-sandbox",  # Playwright's default (chromiumSandbox false)
)

#: How long a start may take before the test that needed it fails.
START_TIMEOUT_S = 30.0


class ChromiumProcess:
    """A headless Chromium subprocess: its profile folder and DevTools URL; ``endpoint()`` (re)starts it as needed.

    The module keeps one for the test process; a test about the browser itself makes its own, with its own
    ``switches`` (a user's browser without Playwright's, a feature turned on) and first page (``start_url``).
    """

    def __init__(self, switches: tuple[str, ...] = (*PLAYWRIGHT_SWITCHES, *CHROMIUM_ARGS), start_url: str = "about:blank") -> None:
        self.switches = switches
        self.start_url = start_url
        self.process: subprocess.Popen[bytes] | None = None
        self.profile: Path | None = None
        self.url: str | None = None
        self.starts = 0  # how many times this process started one (a test may check a relaunch happened)

    def endpoint(self) -> str:
        """``http://127.0.0.1:<port>`` of a Chromium that answers now."""
        if self.url is None or not self._answers():
            self.stop()
            self._start()
        assert self.url is not None
        return self.url

    def _answers(self) -> bool:
        if self.process is None or self.process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"{self.url}/json/version", timeout=5) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def _start(self) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="mcp-actions-worker-chromium-"))
        args = [find_browser(), *self.switches, "--remote-debugging-port=0", f"--user-data-dir={self.profile}", self.start_url]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.starts += 1
        # Chromium writes the port it took (first line) to DevToolsActivePort once it listens.
        port_file = self.profile / "DevToolsActivePort"
        end = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"Chromium exited at start ({self.process.returncode}): {' '.join(args)}")
            with contextlib.suppress(OSError, ValueError, IndexError):
                port = int(port_file.read_text().splitlines()[0])
                self.url = f"http://127.0.0.1:{port}"
                if self._answers():
                    return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"Chromium did not listen within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """Kill the process (and wait for it), remove its profile."""
        process, profile = self.process, self.profile
        self.process = self.profile = self.url = None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if profile is not None:
            shutil.rmtree(profile, ignore_errors=True)


#: This process's Chromiums, and which are lent out now.
_browsers: list[ChromiumProcess] = []
_lent: set[int] = set()


@contextlib.contextmanager
def lease() -> Iterator[str]:
    """The CDP endpoint of a Chromium nobody else uses until the ``with`` ends (started, or again, as needed)."""
    index = next((i for i in range(len(_browsers)) if i not in _lent), None)
    if index is None:
        _browsers.append(ChromiumProcess())
        index = len(_browsers) - 1
    _lent.add(index)
    try:
        yield _browsers[index].endpoint()
    finally:
        _lent.discard(index)


def stop() -> None:
    """Kill this test process's Chromiums (the session ended)."""
    for browser in _browsers:
        browser.stop()


def starts() -> int:
    """How many Chromiums this test process started so far."""
    return sum(browser.starts for browser in _browsers)


atexit.register(stop)
