"""Memory ended sessions freed is given back: once per burst of ends, off the event loop (server/memory.py, docs/sessions.md)."""

from __future__ import annotations

import asyncio
import ctypes
import sys
import threading
import time

import pytest

from mcp_actions.bridge.scope import SessionKey
from mcp_actions.server.memory import MemoryRelease, glibc_trim
from mcp_actions.server.sessions import AgentSessions


class _Trims:
    """A trim that records the thread it ran on (the release's last step)."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def __call__(self) -> int:
        self.threads.append(threading.get_ident())
        return 1


async def _until(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_a_burst_of_session_ends_costs_one_release_then_one_more_after_the_interval():
    ended: list[str] = []

    async def end(session_id: str, reason: str) -> None:
        ended.append(session_id)

    trims = _Trims()
    sessions = AgentSessions(end)
    # 3 s: the first release collects the whole heap of the test process, which on a machine busy with
    # other work took most of a 1 s interval, so the burst below came after it had passed (2 releases, not 1).
    sessions.memory = MemoryRelease(interval=3.0, trim=trims)
    keys = [sessions.open(SessionKey.of_http(f"s{n}")).key.id for n in range(8)]
    await sessions.end(keys[0], "test")
    await _until(lambda: sessions.memory.releases == 1)
    # Seven more end together, within the interval: one release, once the interval has passed.
    await asyncio.gather(*(sessions.end(key, "test") for key in keys[1:]))
    await asyncio.sleep(0.3)
    assert sessions.memory.releases == 1  # not yet: within the interval of the first
    await _until(lambda: sessions.memory.releases == 2, timeout=10)
    await asyncio.sleep(1.2)
    assert sessions.memory.releases == 2 and len(ended) == 8
    # Off the event loop: the trim walks the whole heap.
    assert threading.get_ident() not in trims.threads
    await sessions.stop()


async def test_an_end_while_a_release_runs_gets_one_more_release():
    started, go_on = threading.Event(), threading.Event()

    def slow_trim() -> int:
        started.set()
        go_on.wait(5)
        return 1

    memory = MemoryRelease(interval=0.0, trim=slow_trim)
    memory.soon()
    await asyncio.to_thread(started.wait, 5)
    memory.soon()  # this end's objects may have been freed after the running collection
    go_on.set()
    await _until(lambda: memory.releases == 2)
    await memory.stop()


async def test_stopping_cancels_a_release_that_waits():
    trims = _Trims()
    memory = MemoryRelease(interval=30.0, trim=trims)
    memory.soon()
    await _until(lambda: memory.releases == 1)
    memory.soon()  # due in 30 s
    await memory.stop()
    assert memory.releases == 1 and len(trims.threads) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_glibc_trim_gives_freed_heap_pages_back():
    trim = glibc_trim()
    assert trim is not None
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    # Many small blocks (below the mmap threshold, so in the heap), touched, then freed, the last one kept:
    # the heap cannot shrink from its top, and only a trim hands the free pages in its middle back.
    blocks = [libc.malloc(4000) for _ in range(20_000)]
    for block in blocks:
        ctypes.memset(block, 1, 4000)
    for block in blocks[:-1]:
        libc.free(block)
    before = _rss_kb()
    assert trim() == 1  # 1: memory was released
    assert _rss_kb() < before - 20_000  # most of the ~80 MB freed
    libc.free(blocks[-1])


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
