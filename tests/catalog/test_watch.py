"""The manifest watcher on a real directory: edits reload the catalogue, debounced, one reload per burst, never two at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mcp_actions.catalog.watch import ManifestWatcher

DEBOUNCE_MS = 100
#: Long enough, many debounce periods, for a reload that would come to have come (the machine is shared and loaded).
QUIET_S = 0.5
MAP = '{"protocol": "actions.json", "version": 1, "tools": []}'


class Reloads:
    """The watcher's ``on_change``: counts reloads, and can hold one open or fail."""

    def __init__(self) -> None:
        self.count = 0
        self.running = 0
        self.most_at_once = 0
        self.hold: asyncio.Event | None = None
        self.fail = False
        self.quiet_s = QUIET_S  # a quiet spell outlasts a few debounce periods (watching() sets it)

    async def __call__(self) -> None:
        self.count += 1
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            if self.hold is not None:
                await self.hold.wait()
            if self.fail:
                raise RuntimeError("the map could not be applied")
        finally:
            self.running -= 1

    async def reach(self, count: int, timeout: float = 15) -> None:
        """Wait until ``count`` reloads began."""
        deadline = time.monotonic() + timeout
        while self.count < count:
            assert time.monotonic() < deadline, f"{self.count} reloads, expected {count}"
            await asyncio.sleep(0.02)

    async def quiet(self) -> int:
        """Wait until no reload came for a quiet spell; the count then."""
        while True:
            seen = self.count
            await asyncio.sleep(self.quiet_s)
            if self.count == seen:
                return seen


@contextlib.asynccontextmanager
async def watching(*paths: Path, reloads: Reloads, probe: Path, debounce_ms: int = DEBOUNCE_MS) -> AsyncIterator[ManifestWatcher]:
    """A started watcher whose watch is live: ``probe`` (a watched file) is written until a reload is heard."""
    watcher = ManifestWatcher(paths, reloads, debounce_ms=debounce_ms)
    reloads.quiet_s = max(QUIET_S, 3 * debounce_ms / 1000)
    await watcher.start()
    try:
        for _ in range(40):  # the watch starts in its own task; write until it has seen something
            probe.write_text(MAP)
            with contextlib.suppress(AssertionError):
                await reloads.reach(1, timeout=0.5)
                break
        await reloads.reach(1, timeout=0.1)
        await reloads.quiet()
        yield watcher
    finally:
        await watcher.stop()


async def test_an_edit_in_a_watched_directory_reloads_once(tmp_path):
    reloads = Reloads()
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json") as watcher:
        before = reloads.count
        (tmp_path / "shop.actions.json").write_text(MAP)
        await reloads.reach(before + 1)
        assert await reloads.quiet() == before + 1
        assert watcher.reloads == reloads.count


async def test_a_burst_of_saves_over_several_files_is_one_reload(tmp_path):
    reloads = Reloads()
    (tmp_path / "sub").mkdir()
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json"):
        before = reloads.count
        # What an editor and a checkout do: write, rewrite, save by renaming over, touch, several files.
        for i in range(5):
            (tmp_path / "shop.actions.json").write_text(MAP + " " * i)
        (tmp_path / "blog.actions.json.tmp").write_text(MAP)
        os.replace(tmp_path / "blog.actions.json.tmp", tmp_path / "blog.actions.json")
        (tmp_path / "sub" / "actions.json").write_text(MAP)
        os.utime(tmp_path / "shop.actions.json")
        await reloads.reach(before + 1)
        assert await reloads.quiet() == before + 1


async def test_saves_spread_over_the_debounce_time_are_one_reload(tmp_path):
    reloads = Reloads()
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json", debounce_ms=600):
        before = reloads.count
        # Far enough apart that each reaches the watcher on its own, all within the debounce time.
        for i in range(4):
            (tmp_path / f"map{i}.actions.json").write_text(MAP)
            await asyncio.sleep(0.06)
        await reloads.reach(before + 1)
        assert await reloads.quiet() == before + 1


@pytest.mark.parametrize(
    ("change", "reloaded"),
    [
        (lambda root: (root / "notes.txt").write_text("x"), False),  # not JSON: not a map, an import or a storage file
        (lambda root: (root / "shop.actions.json~").write_text(MAP), False),  # an editor's backup
        (lambda root: (root / "deep" / "er" / "shared.json").write_text("{}"), True),  # any JSON at any depth (a map's import)
        (lambda root: (root / "old.actions.json").unlink(), True),  # a map removed
    ],
)
async def test_which_changes_in_a_watched_directory_count(tmp_path, change, reloaded):
    reloads = Reloads()
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "old.actions.json").write_text(MAP)
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json"):
        before = reloads.count
        change(tmp_path)
        if reloaded:
            await reloads.reach(before + 1)
        assert await reloads.quiet() == before + int(reloaded)


async def test_a_watched_file_reloads_when_saved_by_rename_and_not_for_its_neighbours(tmp_path):
    reloads = Reloads()
    watched = tmp_path / "shop.actions.json"
    watched.write_text(MAP)
    async with watching(watched, reloads=reloads, probe=watched):
        before = reloads.count
        (tmp_path / "blog.actions.json").write_text(MAP)  # a map in the same directory, not watched
        assert await reloads.quiet() == before
        # An editor's save: a new file renamed over the old one; the watch survives it, twice.
        for round_ in (1, 2):
            (tmp_path / ".shop.swp").write_text(MAP + " " * round_)
            os.replace(tmp_path / ".shop.swp", watched)
            await reloads.reach(before + round_)
            assert await reloads.quiet() == before + round_


async def test_a_change_during_a_reload_causes_exactly_one_more_never_a_concurrent_one(tmp_path):
    reloads = Reloads()
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json"):
        before = reloads.count
        reloads.hold = asyncio.Event()
        (tmp_path / "shop.actions.json").write_text(MAP)
        await reloads.reach(before + 1)
        for i in range(3):  # edits while the reload runs
            (tmp_path / "shop.actions.json").write_text(MAP + " " * (i + 1))
            await asyncio.sleep(DEBOUNCE_MS / 1000)
        await asyncio.sleep(QUIET_S)
        assert reloads.count == before + 1  # still the one reload
        reloads.hold.set()
        await reloads.reach(before + 2)
        assert await reloads.quiet() == before + 2
        assert reloads.most_at_once == 1


async def test_a_reload_that_fails_is_logged_and_the_next_edit_still_reloads(tmp_path, caplog):
    caplog.set_level(logging.ERROR, logger="mcp_actions")
    reloads = Reloads()
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json") as watcher:
        before = reloads.count
        reloads.fail = True
        (tmp_path / "shop.actions.json").write_text(MAP)
        await reloads.reach(before + 1)
        await reloads.quiet()
        assert any("reloading the manifests failed" in r.getMessage() for r in caplog.records)
        assert watcher.reloads == before + 1  # a failed reload still counts as one that ran
        reloads.fail = False
        (tmp_path / "shop.actions.json").write_text(MAP + " ")
        await reloads.reach(before + 2)


async def test_a_missing_path_is_logged_and_the_others_are_watched(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="mcp_actions")
    reloads = Reloads()
    missing = tmp_path / "gone" / "away" / "actions.json"
    (tmp_path / "maps").mkdir()
    # watching() hears the probe written in maps/: that directory is watched.
    async with watching(missing, tmp_path / "maps", reloads=reloads, probe=tmp_path / "maps" / "probe.json"):
        assert any(str(missing) in r.getMessage() and "not watching" in r.getMessage() for r in caplog.records)


async def test_after_stop_nothing_reloads(tmp_path):
    reloads = Reloads()
    async with watching(tmp_path, reloads=reloads, probe=tmp_path / "probe.json"):
        pass
    before = reloads.count
    (tmp_path / "shop.actions.json").write_text(MAP)
    assert await reloads.quiet() == before
