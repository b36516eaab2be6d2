"""Watch manifest files and directories, and say when the catalogue should be reloaded.

Editors save in bursts (write, rename, touch) and a directory of maps may
change many files at once, so changes are debounced: the first relevant
change wakes the reloader, which waits ``debounce_ms`` for the burst to end
and then reloads once; changes that arrive during a reload cause one more.

A directory is watched recursively and any ``*.json`` under it counts (a
map's local imports and storage-scope files are JSON too). A file is
watched through its parent directory, not itself: editors that save by
writing a new file and renaming it over the old one would otherwise end a
watch on the file. Watching uses ``watchfiles`` (inotify on Linux, FSEvents
on macOS, ReadDirectoryChangesW on Windows).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from watchfiles import awatch

__all__ = ["ManifestWatcher"]

log = logging.getLogger(__name__)


def _json_under(root: Path) -> Callable[[Path], bool]:
    """Accepts a ``.json`` file anywhere below ``root``."""
    return lambda path: path.suffix == ".json" and root in path.parents


class ManifestWatcher:
    """Calls ``on_change`` (debounced, never concurrently) when a watched manifest changes."""

    def __init__(self, paths: Iterable[str | Path], on_change: Callable[[], Awaitable[object]], *, debounce_ms: int = 150) -> None:
        self.paths = [Path(p).expanduser().resolve() for p in paths]
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.reloads = 0  # how many reloads ran (the bench and tests read it)

    async def start(self) -> None:
        """Start watching every path that exists (a missing one is logged and skipped)."""
        for path in self.paths:
            if path.is_dir():
                self._tasks.append(asyncio.create_task(self._watch(path, recursive=True, accept=_json_under(path))))
            elif path.parent.is_dir():
                self._tasks.append(asyncio.create_task(self._watch(path.parent, recursive=False, accept=path.__eq__)))
            else:
                log.warning("not watching %s: neither it nor its directory exists", path)
        self._tasks.append(asyncio.create_task(self._reloader()))

    async def stop(self) -> None:
        """Stop watching; waits for the watch tasks to end."""
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
            except Exception:
                log.exception("a manifest watch task failed while stopping")
        self._tasks.clear()

    async def _watch(self, root: Path, *, recursive: bool, accept: Callable[[Path], bool]) -> None:
        try:
            # watchfiles' own debounce groups one burst; ours (in _reloader) spans watch tasks.
            async for changes in awatch(root, recursive=recursive, debounce=self.debounce_ms, step=25, stop_event=self._stop):
                # A path resolve on a handful of changed files; the event loop is not the place to worry.
                if any(accept(Path(raw).resolve()) for _, raw in changes):  # noqa: ASYNC240 - a few paths, once per burst
                    self._wake.set()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("watching %s failed; manifest edits there are no longer picked up", root)

    async def _reloader(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.debounce_ms / 1000)
            self._wake.clear()
            try:
                await self.on_change()
            except Exception:
                log.exception("reloading the manifests failed")
            self.reloads += 1
