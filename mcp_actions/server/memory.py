"""Giving freed memory back to the system after agent sessions end (docs/sessions.md, "Memory").

What an ended session leaves in the server process was measured (bench/README.md, "What stays after
all sessions closed"): its objects are gone (no host, tab, context or Playwright driver object is left; a few hundred
small objects of bounded rings such as the audit log's recent calls stay), but after 32 sessions the
process stayed 7-16 MB above its size before them. That memory is *free* memory the allocators keep:

- glibc's ``malloc`` keeps freed pages of its heaps (a few MB after a batch of 32 sessions), which
  ``malloc_trim(0)`` hands back;
- CPython's small-object allocator (pymalloc) keeps each 1 MiB arena that still holds one live
  object, and nothing but the process ending can return those pages. A server that must give
  them back runs with ``PYTHONMALLOC=malloc``, which puts every object in glibc's heap, where the
  same trim reaches it.

So after a session's context closed, ``MemoryRelease.soon`` collects garbage (Playwright's objects
hold reference cycles, freed only by the collector) and trims glibc's heap, at most once per
``interval`` seconds, and once more after the last of a burst of ends. The collection runs on the
event loop's thread: it holds the interpreter's lock throughout wherever it runs, and the finalizers
it calls (asyncio's transports and futures among them) may only touch the loop from there. The
trim runs in a worker thread: it walks the whole heap without the interpreter's lock, so the event
loop keeps serving meanwhile. Only on glibc: elsewhere (musl, macOS, Windows)
there is no ``malloc_trim`` and only the collection runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import logging
import sys
import time
from collections.abc import Callable

__all__ = ["MemoryRelease", "glibc_trim"]

log = logging.getLogger(__name__)

#: Seconds between two releases: a batch of sessions ending together costs one or two, not one each.
RELEASE_INTERVAL_S = 5.0


def glibc_trim() -> Callable[[], int] | None:
    """glibc's ``malloc_trim(0)`` as a callable, or None where there is none (not Linux, or another C library)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim  # musl has no malloc_trim: AttributeError
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: int(trim(0))


class MemoryRelease:
    """Collect garbage and trim the C heap (in a worker thread) after sessions end, at most once per ``interval``."""

    def __init__(self, *, interval: float = RELEASE_INTERVAL_S, trim: Callable[[], int] | None = None, use_glibc: bool = True) -> None:
        """``trim``: what hands freed heap memory back (default: glibc's ``malloc_trim``, when ``use_glibc`` and found)."""
        self.interval = interval
        self._trim = trim if trim is not None or not use_glibc else glibc_trim()
        self._last = float("-inf")  # monotonic time the last release started
        self._task: asyncio.Task[None] | None = None
        self._wanted = False  # asked for since the running release began: one more follows
        #: Releases run so far (the tests and the status of a long-running server can read it).
        self.releases = 0

    @property
    def trims(self) -> bool:
        """True when a release also trims the C heap (glibc)."""
        return self._trim is not None

    def soon(self) -> None:
        """Ask for a release: now if none ran within ``interval``, else once that much time has passed.

        Asks while one is waiting are that release (a batch of ends costs one); an ask while one
        runs gets one more after it (that release's collection may have run before this end's
        objects were let go).
        """
        self._wanted = True
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._release_when_due(), name="memory-release")

    async def _release_when_due(self) -> None:
        while self._wanted:
            wait = self._last + self.interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._wanted = False
            self._last = time.monotonic()
            try:
                gc.collect()
                if self._trim is not None:
                    await asyncio.to_thread(self._trim)
            except Exception:  # giving memory back is a courtesy: it never fails a session's end
                log.exception("giving memory back to the system failed")
            self.releases += 1

    async def stop(self) -> None:
        """Cancel a release still waiting (the server is stopping)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
