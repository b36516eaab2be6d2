"""The MCP door over stdio: one client for the life of the process, answered early, stopped by a signal.

The first answers (the handshake, the tool list) go out before the MCP SDK is loaded
(``early_answers.py``), which loads meanwhile in a thread; then the SDK's server takes the
wire. While serving, SIGINT or SIGTERM stops the app and ends the process (``interrupt_stops``).
A person who started it on a terminal is told what it waits for (``stdio_hint``). stdout
carries MCP JSON-RPC only: everything said here goes to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from .. import __version__
from .early_answers import HANDSHAKE_VERSIONS, EarlyStdio, initialize_result
from .instructions import INSTRUCTIONS
from .tool_list import tool_fields

if TYPE_CHECKING:
    from ..actions_app import ActionsApp

__all__ = ["interrupt_stops", "serve_stdio", "stdin_is_terminal", "stdio_hint"]


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):  # closed or replaced stdin
        return False


def _command() -> str:
    """How the person at this terminal runs this mcp-actions again (for the hints)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) in ("mcp-actions", "mcp-actions.exe"):
        on_path = shutil.which("mcp-actions")
        if on_path and os.path.realpath(on_path) == os.path.realpath(argv0):
            return "mcp-actions"
        return shlex.quote(argv0)
    return f"{shlex.quote(sys.executable)} -m mcp_actions"


def stdio_hint() -> str:
    """What a person who started the stdio server on a terminal is told (nothing will happen until a client speaks)."""
    command = _command()
    # The Inspector starts this same server, options and all; after "--" it reads no flags of its own.
    server = " ".join([command, *(shlex.quote(arg) for arg in sys.argv[1:])])
    inspector = f"npx @modelcontextprotocol/inspector {'-- ' if ' -' in server else ''}{server}"
    return (
        "waiting for an MCP client on stdio (an MCP host such as Claude Desktop or an IDE agent starts this command itself).\n"
        f"mcp-actions: to try it: `{command} demo` runs the whole loop on a demo page; "
        f"`{inspector}` opens the MCP Inspector on it. Ctrl-C stops this server."
    )


#: Longest wait for the app to stop after Ctrl-C or SIGTERM before the process leaves anyway.
_INTERRUPT_STOP_S = 10.0
#: The exit status after each stopping signal (128 + its number, as a shell reports it).
_STOP_SIGNALS = {signal.SIGINT: 130, signal.SIGTERM: 143}


@contextlib.contextmanager
def interrupt_stops(app: ActionsApp) -> Iterator[None]:
    """While serving stdio, SIGINT (Ctrl-C) or SIGTERM stops the app and ends the process (130, 143).

    The SDK reads stdin in a worker thread that cancellation cannot interrupt, so the
    default handling (cancel the main task) would wait for another line or end of input
    on stdin, forever on an idle terminal; and SIGTERM's default ends the process at
    once, leaving a call that was running unrecorded. Instead the app is stopped here
    (it records the calls still running as ``cancelled`` first, then stops browser,
    bridge and watcher), then the process leaves without waiting for that thread.
    """
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    async def stop_and_leave(status: int) -> None:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(app.stop(), _INTERRUPT_STOP_S)
        _leave(status)

    def interrupted(status: int) -> None:
        if stopping:  # a second signal: leave now (the calls were recorded first thing)
            _leave(status)
        stopping.append(loop.create_task(stop_and_leave(status)))

    installed: list[signal.Signals] = []
    try:
        for signum, status in _STOP_SIGNALS.items():
            loop.add_signal_handler(signum, interrupted, status)
            installed.append(signum)
    except (NotImplementedError, RuntimeError, ValueError):  # no signal handlers here (Windows, a thread)
        pass
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def _leave(status: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _early_answer(app: ActionsApp, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """What the stdio server answers before the SDK is loaded (early_answers.py): the handshake, the tool list, a ping."""
    if method == "initialize":
        version = params.get("protocolVersion")
        return initialize_result(version, __version__, INSTRUCTIONS) if version in HANDSHAKE_VERSIONS else None
    if method == "tools/list" and not params.get("cursor"):
        return {"tools": [tool_fields(binding) for binding in app.catalog.tools.values() if app.visibility.listed(binding)]}
    if method == "ping":
        return {}
    return None


def _load_sdk() -> None:
    import mcp.server.stdio  # noqa: F401  (what serve_stdio uses next, loaded in a thread)

    from . import mcp_server  # noqa: F401


async def serve_stdio(app: ActionsApp) -> None:
    """Serve one client over stdio: the first answers early, the rest by the SDK's server (early_answers.py)."""
    early = EarlyStdio(lambda method, params: _early_answer(app, method, params))
    try:
        # The SDK loads in a thread while the loop answers the handshake and tools/list.
        loaded = asyncio.ensure_future(asyncio.to_thread(_load_sdk))
        await early.answer_until(loaded)
        await loaded
        from mcp.server.stdio import stdio_server

        from .mcp_server import NOTIFICATIONS, build_server

        server = build_server(app, manage_app=False)
        wire: Any = early  # the SDK reads lines and writes messages through it, as through its own files
        async with stdio_server(stdin=cast(Any, early.lines()), stdout=wire) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options(NOTIFICATIONS))
    finally:
        early.release()
