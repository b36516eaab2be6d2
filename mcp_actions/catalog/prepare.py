"""Compiling every tool's and primitive's schema checks in an idle task, after the host has its tool list.

A JSON Schema validator costs about 2 ms to build, and a workflow call checks
its arguments, its result and each primitive's input: a first ``add_card``
paid ~20 ms for them. Built at start they would delay the first ``tools/list``
(0.78 s against 0.69 s, measured), so the MCP layer starts this once that list
is answered (``ActionsApp.prepare_in_background``); the task yields between
schemas, so a call arriving meanwhile is served at once and compiles only
what it needs.

The maps' signal payload schemas are compiled here too (issue 42): the first
event a page sends (the board's ``board:card-added``, fired by its save) comes
while the call that caused it is still waiting for the page, and compiling its
schema then (checking it against the metaschema, ~5 ms quiet and 16 ms on a
loaded machine, on the event loop) delayed that call's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Iterator

from ..bridge.signals import SignalSpec
from ..primitive_dictionary import PrimitiveDictionary
from .catalog import Catalog

__all__ = ["COMPILED_S", "PREPARE_AFTER_S", "CheckPreparation"]

#: The idle preparation of checks starts this long after the tools/list that asked for it.
PREPARE_AFTER_S = 0.1
#: A step that took this long compiled something (a validator costs ~2 ms); shorter, it found it compiled.
COMPILED_S = 0.0002


class CheckPreparation:
    """The one background task compiling the catalogue's and the dictionary's checks (``task``)."""

    def __init__(self, catalog: Catalog, dictionary: PrimitiveDictionary, *, warm: Callable[[], object] = lambda: None) -> None:
        """``warm()`` is run first: other costly first-use work to do while the host thinks (an HTTP client's TLS context)."""
        self.catalog = catalog
        self.dictionary = dictionary
        self.warm = warm
        self.task: asyncio.Task[None] | None = None

    def start(self, *, again: bool = False) -> None:
        """Start the preparation, once (``again``: the catalogue changed, prepare its new bindings too)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop (a synchronous reload): each first call compiles what it needs
        # Later tools/list requests find everything compiled; only new bindings need another pass.
        if self.task is None or (again and self.task.done()):
            self.task = loop.create_task(self._prepare(), name="prepare-checks")

    def again(self) -> None:
        """The catalogue changed: prepare its new bindings too, if preparation has started before."""
        if self.task is not None:
            self.start(again=True)

    async def stop(self) -> None:
        """Cancel the preparation under way."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _prepare(self) -> None:
        # Called as the tools/list answer is being sent: let it reach the host first.
        await asyncio.sleep(PREPARE_AFTER_S)
        self.warm()  # e.g. WAB discovery's client: its TLS context costs ~40 ms of CPU, which a navigation would share
        await asyncio.sleep(0)
        for prepare_one in self._items():
            started = time.perf_counter()
            prepare_one()
            await _yield_if_worked(started)

    def _items(self) -> Iterator[Callable[[], object]]:
        """Each check to compile, as a call that compiles it: the tools', the maps' signals', the primitives'."""
        for binding in self.catalog.every_binding():
            yield binding.prepare_checks
        for loaded in [*self.catalog.manifests.values(), *self.catalog.inline.values()]:
            for signal in loaded.model.signals:
                yield functools.partial(_prepare_signal, SignalSpec(signal.name, signal.event, signal.enabled, signal.payload))
        for name in self.dictionary:
            primitive = self.dictionary.get(name)
            if primitive is not None:
                yield primitive.prepare


def _prepare_signal(spec: SignalSpec) -> None:
    check = spec.payload_check()
    if check is not None:
        check.prepare()  # the same compiled check signals_for's specs find (by the schema's identity)


async def _yield_if_worked(started: float) -> None:
    """Let waiting calls run after a compile; a check compiled before costs microseconds and yields nothing.

    The catalogue changes at every navigation (page tools come and go), and the pass that follows finds
    nearly everything compiled: a turn of the event loop after each of its hundred-odd items spread it over
    the next call (measured: ~90 turns within ``board_add_card``).
    """
    if time.perf_counter() - started >= COMPILED_S:
        await asyncio.sleep(0)
