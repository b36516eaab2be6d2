"""The stdio server's first answers, given before the MCP SDK is loaded (issue 55).

A host starts its servers when it opens and waits for ``initialize`` and ``tools/list``
before the user can do anything. Importing the MCP SDK (its protocol types are several
hundred pydantic models) takes longer than everything else the server does before those
answers, and neither answer needs it: ``initialize`` says the server's name, version,
capabilities and instructions, ``tools/list`` the catalogue's tools as JSON
(``tool_list.py``). So over stdio ``EarlyStdio`` takes the wire first:

1. It reads stdin in a thread of its own and answers ``initialize`` (a handshake version
   the SDK speaks, said back as the SDK would), then ``tools/list`` and ``ping``, while
   the SDK is imported beside it. The first message it cannot answer (any other request,
   any other notification, a version it does not know) and everything after it wait for
   the SDK, so nothing is answered out of order.
2. When the SDK's server runs, it reads every message from the start, the answered ones
   included, so its session is exactly what it would have been (the client's
   capabilities, the greeting, the checks compiled after the first listing). Its own
   answers to those are not sent again: they are compared with ours instead. A
   ``tools/list`` that differs (the catalogue changed meanwhile) is followed by
   ``notifications/tools/list_changed``, so the host lists again; an ``initialize`` that
   differs is logged as a warning (tests/server/test_early_answers.py holds them equal).

As the SDK's own stdio transport does, fd 0 and fd 1 are pointed elsewhere while serving
(the null device, stderr): a child or a stray print never reads or writes the wire.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import select
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["HANDSHAKE_VERSIONS", "EarlyStdio", "initialize_result"]

log = logging.getLogger(__name__)

#: The versions the SDK negotiates by ``initialize`` (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS,
#: held equal by tests/server/test_early_answers.py); the SDK says a known one back as it was asked.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

#: What ``build_server`` announces (mcp_server.NOTIFICATIONS and its handlers).
CAPABILITIES = {"logging": {}, "resources": {"listChanged": True, "subscribe": True}, "tools": {"listChanged": True}}


def initialize_result(version: str, server_version: str, instructions: str) -> dict[str, Any]:
    """``initialize``'s result as the SDK's server gives it, for a handshake ``version`` the client asked for."""
    return {"capabilities": CAPABILITIES, "instructions": instructions, "protocolVersion": version, "serverInfo": {"name": "mcp-actions", "version": server_version}}


def _key(message_id: Any) -> str:
    return json.dumps(message_id)  # 1 and "1" are different ids


class EarlyStdio:
    """The stdio wire, answered early, then handed to the SDK's server (see the module's docstring).

    ``answer(method, params)`` gives the result of a request this side may answer, or None.
    """

    def __init__(self, answer: Callable[[str, dict[str, Any]], dict[str, Any] | None]) -> None:
        self._answer = answer
        self._lines: collections.deque[bytes | None] = collections.deque()
        self._arrived = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._write_lock = threading.Lock()
        self._answered: dict[str, tuple[str, dict[str, Any]]] = {}  # id -> (method, our result)
        self._seen: list[bytes] = []  # every line so far, for the SDK to read from the start
        self._held = False  # a message this side does not answer came: the SDK answers it and all after it
        self._initialized = False
        self._wire_in, self._wire_out = self._claim()
        self._room = select.poll()  # whether the wire takes a message now (_put)
        self._room.register(self._wire_out, select.POLLOUT)
        threading.Thread(target=self._read, name="mcp-stdio-reader", daemon=True).start()

    # -- the wire ---------------------------------------------------------------------

    @staticmethod
    def _claim() -> tuple[int, int]:
        """Private copies of fd 0 and 1 for the wire; fd 0 then reads the null device and fd 1 writes to stderr."""
        wire_in, wire_out = os.dup(0), os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(devnull, 0)
        finally:
            os.close(devnull)
        os.dup2(2, 1)
        return wire_in, wire_out

    def _read(self) -> None:
        # A thread: a blocking read of a pipe cannot be cancelled, and the process leaves without it.
        with os.fdopen(self._wire_in, "rb", closefd=False) as wire:
            for line in wire:
                if line.strip():
                    self._loop.call_soon_threadsafe(self._arrive, line)
        self._loop.call_soon_threadsafe(self._arrive, None)

    def _arrive(self, line: bytes | None) -> None:
        self._lines.append(line)
        self._arrived.set()

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            self._write_all(memoryview(data))

    def _write_all(self, view: memoryview) -> None:
        while view:
            view = view[os.write(self._wire_out, view) :]

    async def _put(self, data: bytes) -> None:
        """One message onto the wire: written on the loop when the wire has room for it now, else from a thread.

        The thread keeps a host that stops reading from stalling the loop, but it costs every answer a
        hand-over to another thread and back: under load 13 on 2 cores the answer of browser_navigate
        waited 15.7 ms (median of 3) for a write that took 0.1 ms (issue 55). A message up to PIPE_BUF
        bytes into a pipe with room is written whole at once (POSIX), so it is written on the spot.
        """
        if len(data) <= select.PIPE_BUF and self._write_lock.acquire(blocking=False):
            try:
                if [events for _fd, events in self._room.poll(0)] == [select.POLLOUT]:  # room, and no error or hang-up
                    rest = memoryview(data)[os.write(self._wire_out, data) :]
                    if rest:  # not a pipe (a socket, a terminal): the rest from the thread, the lock still held
                        await asyncio.to_thread(self._write_all, rest)
                    return
            finally:
                self._write_lock.release()
        await asyncio.to_thread(self._write, data)

    async def _send(self, message: dict[str, Any]) -> None:
        await self._put((json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace"))

    async def _next_line(self) -> bytes | None:
        while not self._lines:
            self._arrived.clear()
            await self._arrived.wait()
        return self._lines.popleft()

    # -- before the SDK -----------------------------------------------------------------

    async def answer_until(self, ready: asyncio.Future[Any]) -> None:
        """Answer what this side may until ``ready`` is done (the SDK is loaded); keep every line for the SDK."""
        while not ready.done():
            waiting = asyncio.ensure_future(self._arrived.wait())
            await asyncio.wait({waiting, ready}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            while self._lines and not ready.done():
                line = self._lines.popleft()
                if line is None:  # end of input: the SDK's server sees it too, and ends
                    self._lines.appendleft(None)
                    return
                self._seen.append(line)
                if not self._held:
                    await self._early(line)
            self._arrived.clear()

    async def _early(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self._held = True  # the SDK says what is wrong with it
            return
        method, params = message.get("method"), message.get("params") or {}
        if "id" not in message:
            if method == "notifications/initialized" and self._initialized:
                return
            self._held = True
            return
        result = None
        # The handshake first and once (a second initialize is the SDK's to refuse), then what follows it.
        if isinstance(method, str) and isinstance(params, dict) and (method == "initialize") != self._initialized:
            result = self._answer(method, params)
        if result is None:
            self._held = True
            return
        if method == "initialize":
            self._initialized = True
        self._answered[_key(message["id"])] = (str(method), result)
        await self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # -- the SDK's server -----------------------------------------------------------------

    async def lines(self) -> AsyncIterator[str]:
        """Every line of the wire from the start, then those still to come: what the SDK's server reads."""
        for seen in self._seen:
            yield seen.decode("utf-8", "replace")
        while (line := await self._next_line()) is not None:
            yield line.decode("utf-8", "replace")

    async def write(self, text: str) -> None:
        """One message of the SDK's server: sent, unless it answers a request answered already."""
        if self._answered:
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            early = self._answered.pop(_key(message.get("id")), None) if isinstance(message, dict) and "method" not in message else None
            if early is not None:
                await self._compare(*early, message.get("result"))
                return
        await self._put(text.encode("utf-8", "replace"))

    async def flush(self) -> None:
        """Nothing to flush: each message is written whole."""

    async def _compare(self, method: str, ours: dict[str, Any], theirs: Any) -> None:
        if ours == theirs:
            return
        if method == "tools/list":  # the catalogue changed since: the host lists again
            await self._send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        else:
            log.warning("the early answer to %s differs from the MCP SDK's: %s, then %s", method, json.dumps(ours)[:300], json.dumps(theirs)[:300])

    def release(self) -> None:
        """Give fd 0 and 1 back the wire (the process may go on after serving, in a test)."""
        os.dup2(self._wire_in, 0)
        os.dup2(self._wire_out, 1)
