"""Log messages to MCP clients, at each client's own level.

Call start and end, refusals, and warnings of the product's own loggers
(drift: a locator that matched only through a fallback, a map withdrawn
after an edit) reach clients as ``notifications/message``:

- a handshake-era client chooses its threshold with ``logging/setLevel``
  (``warning`` until it does);
- a 2026-07-28 client opts in per request (``_meta`` log level), and only
  messages about that request reach it: the SDK's session enforces this.

Logging is deprecated by the 2026-07-28 protocol (SEP-2577); the SDK warns
when it is used, and the warning is silenced here on purpose because
handshake clients still rely on it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingLevel

from ..bridge.scope import current_session
from ..errors import ActionError
from ..page_chars import well_formed
from ..url_secrets import without_urls
from .peers import EVERYONE, LOG_LEVELS, Hears, Peer, Peers

__all__ = ["LOGGER_NAME", "ClientLogHandler", "allows", "call_event", "failed_map_message", "redacted", "tell", "tell_peer"]

log = logging.getLogger(__name__)

LOGGER_NAME = "mcp-actions"
_FROM_PYTHON: dict[int, LoggingLevel] = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warning", logging.ERROR: "error", logging.CRITICAL: "critical"}


def allows(peer: Peer, level: LoggingLevel) -> bool:
    """Whether ``peer`` asked for messages of ``level``."""
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(peer.log_level)


async def tell(ctx: ServerRequestContext[Any, Any], peer: Peer | None, level: LoggingLevel, data: Any) -> None:
    """Send a log message about the request of ``ctx`` to its client, when the client wants that level."""
    if peer is not None and not allows(peer, level):
        return
    if peer is None and not Peers.is_modern(ctx):
        return  # a handshake client we cannot place: it never set a level
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.session.send_log_message(level, well_formed(data), logger=LOGGER_NAME, related_request_id=ctx.request_id)
    except Exception:
        log.debug("a log message to the client was lost", exc_info=True)


async def tell_peer(peer: Peer, level: LoggingLevel, data: Any) -> None:
    """Send a log message to a handshake-era client outside any request, when it wants that level."""
    if not allows(peer, level):
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await peer.session.send_log_message(level, well_formed(data), logger=LOGGER_NAME)
    except Exception:
        log.debug("a log message to a client was lost", exc_info=True)


def call_event(event: str, tool: str, error: ActionError, **extra: Any) -> dict[str, Any]:
    """The log message of a call refused or failed: its tool, code and the argument's path, never its message.

    An error's message may quote what the call was given (a schema error quotes the
    value, a page handler may echo a password): the model reads it in the result, but
    a log is kept and shown elsewhere, so it carries the code and the JSON Pointer only.
    """
    data: dict[str, Any] = {"event": event, "tool": tool, "code": str(error.code)}
    path = error.evidence.get("path") if isinstance(error.evidence, dict) else None
    if isinstance(path, str):
        data["path"] = path  # a pointer into the arguments names them, not their values
    data.update(extra)
    return data


#: Shorter values are left in a redacted text: masking every "a" or "1" would leave nothing to read.
_REDACT_MIN = 3


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for item in value.values() for text in _leaves(item)]
    if isinstance(value, list):
        return [text for item in value for text in _leaves(item)]
    if isinstance(value, bool) or value is None:
        return []
    # As given, and as a message would quote it (repr for Python's messages, JSON for others').
    forms = {str(value), repr(value), json.dumps(value, ensure_ascii=False), json.dumps(value)}
    return [form for form in forms if len(form) >= _REDACT_MIN]


def redacted(text: str, arguments: Any) -> str:
    """``text`` with every argument value it quotes masked (``«argument value»``), longest first.

    For the one log line that needs an unexpected error's own message (a bug is hard to find
    without it) and whose message no code of ours wrote: a value quoted in another shape than
    these still shows, so messages we write never carry values in the first place.
    """
    for value in sorted(set(_leaves(arguments)), key=len, reverse=True):
        text = text.replace(value, "«argument value»")
    return text


def failed_map_message(failed: dict[str, Any]) -> dict[str, Any]:
    """The log message (level ``error``) saying that a map failed to load: its file, each problem's pointer and code.

    ``message`` is one line a host can show as it is; ``errors`` are the problems
    as ``mcp-actions validate --json`` gives them (at most 10 here).
    """
    errors = failed.get("errors") or []
    kept = failed.get("last_good_served") is True
    line = f"map {failed['file']} is invalid" + ("; its last good version still serves" if kept else " and exposes no tools")
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        line += f": {first['path'] or '/'} {first['code']}: {first['message']}{more}"
    message = {"event": "map_invalid", "file": failed["file"], "message": line, "errors": errors[:10]}
    if kept:
        message["last_good_served"] = True
    return message


class ClientLogHandler(logging.Handler):
    """Forwards the product's own log records to handshake-era clients that want their level.

    A record logged while serving an agent session's request (or a task it started) goes to that
    session's client alone (docs/sessions.md). A record logged outside any session is a notice for
    every client; with ``notices_without_urls`` (a server of many sessions) every URL in it is
    replaced first, so a page one session opened never reaches another through one.
    """

    def __init__(self, peers: Peers, level: int = logging.WARNING, *, notices_without_urls: bool = False) -> None:
        super().__init__(level)
        self.peers = peers
        self.notices_without_urls = notices_without_urls
        self._tasks: set[asyncio.Task[None]] = set()  # held so a pending send is not collected

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(__name__.rsplit(".", 1)[0]):
            return  # never echo the MCP layer's own troubles back through it
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # logged from a worker thread: stderr has it
        level = _FROM_PYTHON.get(record.levelno, "warning")
        message = record.getMessage()
        session = current_session()
        if session is None:
            hears: Hears = EVERYONE
            if self.notices_without_urls:
                message = without_urls(message)
        else:
            hears = lambda key: key is not None and key.id == session.id  # noqa: E731  # one use, here
        data = {"logger": record.name, "message": message}
        for peer in self.peers.peers(hears):
            if allows(peer, level):
                task = loop.create_task(self._send(peer, level, data))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(peer: Peer, level: LoggingLevel, data: Any) -> None:
        await tell_peer(peer, level, data)
