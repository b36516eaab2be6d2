"""Listening on a port: a taken default port gives way to a free one, a taken chosen port is an error.

Two MCP hosts on one machine (a desktop app and an IDE agent) each start their
own mcp-actions, and both want the default ports (the bridge's, the HTTP
transports'). The second must still serve: when a port that came from the
default is taken, the server binds a free port instead and says so once. A port
the user chose is a promise to whoever connects to it, so when it is taken the
server stops with ``PortInUse``, a one-line ``UsageError`` (exit 2).

The port is bound for real and the refusal (``EADDRINUSE``) is what decides.
Probing first ("is it free?") and binding after would race another server
starting at the same moment.

- ``address_in_use(exc)``: whether an ``OSError`` means "the port is taken".
- ``PortInUse``: a chosen port is taken (``service``, ``host``, ``port``).
- ``bind_error(service, host, port, exc)``: any other failure to listen, as a ``UsageError``.
- ``fallback_note(service, requested, port, default=...)``: the one sentence said when a default gave way.
- ``listen_sockets(host, port, service=..., fallback=...)``: a ``Listening`` (bound, listening sockets, the
  real port and the note) for a server that is handed its sockets.

Who may name a listening port in a request's ``Host`` header is decided here too, once for every
server on a port (the HTTP transports, the bridge port): DNS rebinding lets a web page reach a
loopback server under a hostile name, and refusing a ``Host`` that is not ours (421) stops it.

- ``LOOPBACK_HOSTS``: the ``Host`` patterns that name loopback on any port.
- ``hosts_for_bind(host, extra=())``: loopback, plus the bound address unless it is a wildcard, plus ``extra``.
- ``host_allowed(value, patterns)``: whether a ``Host`` (or ``Origin``) value matches one of the patterns.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .errors import ErrorCode, UsageError

__all__ = [
    "LOOPBACK_HOSTS",
    "Listening",
    "PortInUse",
    "address_in_use",
    "bind_error",
    "fallback_note",
    "host_allowed",
    "hosts_for_bind",
    "listen_sockets",
]

#: ``EADDRINUSE``, and Windows' ``WSAEADDRINUSE``, which Python does not map onto it.
_IN_USE = frozenset({errno.EADDRINUSE, 10048})
#: As asyncio: SO_REUSEADDR only where it cannot let a second server take a listening port (not Windows).
_REUSE_ADDRESS = os.name == "posix" and sys.platform != "cygwin"
#: Attempts at finding one free port for every address of a host (``localhost``: IPv4 and IPv6).
_FREE_PORT_ATTEMPTS = 5
#: ``Host`` patterns naming loopback; ``:*`` allows any port (and no port at all).
LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1:*", "localhost:*", "[::1]:*")
#: Bind addresses that are loopback already, or every interface (reached through loopback, never named).
_UNNAMED_BINDS = frozenset({"0.0.0.0", "::", "", "127.0.0.1", "localhost", "::1"})


def host_allowed(value: str, patterns: Iterable[str]) -> bool:
    """Whether ``value`` (a ``Host`` header, or an ``Origin``) matches one of ``patterns``.

    A pattern is an exact value, ``*`` (anything), or ends in ``:*`` (any port, or none: a default port
    leaves no port in the header). Comparison ignores case, as host names do.
    """
    value = value.lower()
    for pattern in patterns:
        pattern = pattern.lower()
        if pattern == "*" or value == pattern:
            return True
        if pattern.endswith(":*") and value.startswith(pattern[:-1]) and value[len(pattern) - 1 :].isdigit():
            return True
        if pattern.endswith(":*") and value == pattern[:-2]:
            return True
    return False


def hosts_for_bind(host: str, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The ``Host`` patterns a server bound to ``host`` answers: loopback, the bound address (unless a wildcard), ``extra``."""
    hosts = list(LOOPBACK_HOSTS)
    if host not in _UNNAMED_BINDS:
        hosts.append(f"[{host}]:*" if ":" in host else f"{host}:*")
    return (*hosts, *extra)


def address_in_use(exc: BaseException) -> bool:
    """Whether ``exc`` is the refusal to bind a port another socket listens on."""
    return isinstance(exc, OSError) and exc.errno in _IN_USE


class PortInUse(UsageError):
    """A port that was chosen (not defaulted) is taken; ``service``, ``host`` and ``port`` say which.

    The message says what is taken; the command line adds how to choose another,
    since only it knows which option or variable the port came from.
    """

    def __init__(self, service: str, host: str, port: int) -> None:
        super().__init__(
            f"{service} port {port} on {host} is in use (by another mcp-actions?)",
            code=ErrorCode.USAGE_ERROR,
            evidence={"service": service, "host": host, "port": port},
        )
        self.service = service
        self.host = host
        self.port = port


def bind_error(service: str, host: str, port: int, exc: OSError) -> UsageError:
    """A failure to listen other than "in use" (no such address, a privileged port…), as a one-line error."""
    reason = exc.strerror or str(exc)
    return UsageError(
        f"cannot listen on {host} port {port} for the {service}: {reason[:1].lower()}{reason[1:]}",
        code=ErrorCode.IO_ERROR,
        evidence={"service": service, "host": host, "port": port, "errno": exc.errno},
    )


def fallback_note(service: str, requested: int, port: int, *, default: int | None = None) -> str:
    """The sentence said once when ``requested`` was taken and ``port`` serves instead."""
    which = f"the default {service} port {requested}" if requested == default else f"{service} port {requested}"
    return f"{which} is in use (by another mcp-actions?), so serving on {port} instead"


@dataclass
class Listening:
    """Sockets bound and listening on one port: ``port`` is the real one, ``requested`` the one asked for."""

    sockets: list[socket.socket]
    host: str
    requested: int
    port: int
    note: str | None = None  # set when a taken default gave way to ``port``
    _closed: bool = field(default=False, repr=False)

    def close(self) -> None:
        """Close every socket (idempotent)."""
        if not self._closed:
            self._closed = True
            for sock in self.sockets:
                sock.close()


def _addresses(host: str, port: int) -> list[tuple[int, int, int, tuple[object, ...]]]:  # (family, type, proto, sockaddr)
    # As asyncio's create_server: every address the host names, each bound on its own socket.
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    seen: set[tuple[int, tuple[object, ...]]] = set()
    unique: list[tuple[int, int, int, tuple[object, ...]]] = []
    for family, kind, proto, _, address in infos:
        if (family, address) not in seen:
            seen.add((family, address))
            unique.append((family, kind, proto, address))
    return unique


def _bind_all(addresses: list[tuple[int, int, int, tuple[object, ...]]], port: int) -> list[socket.socket]:
    """Bind and listen on every address at ``port`` (0: the first picks, the others follow); all or nothing."""
    bound: list[socket.socket] = []
    try:
        for family, kind, proto, address in addresses:
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            if _REUSE_ADDRESS:
                # A restart must not wait out TIME_WAIT; on POSIX this never lets two servers listen on one port.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                # The IPv4 address gets its own socket; without this the IPv6 one would claim it too.
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((address[0], port, *address[2:]))
            # Listen at once: on Linux a bound socket that does not listen yet lets another SO_REUSEADDR socket bind too.
            sock.listen(socket.SOMAXCONN)
            if port == 0:
                port = sock.getsockname()[1]
    except BaseException:
        for sock in bound:
            sock.close()
        raise
    return bound


def listen_sockets(host: str, port: int, *, service: str, fallback: bool, default: int | None = None) -> Listening:
    """Bind and listen on ``host:port`` now, for a server that is handed its sockets.

    A taken port is replaced by a free one when ``fallback`` (the port came from the
    default; ``note`` then says so), else it raises ``PortInUse``. Any other failure
    to listen raises ``bind_error``'s ``UsageError``. Nothing stays open on failure.
    """
    try:
        addresses = _addresses(host, port)
    except OSError as exc:  # socket.gaierror: the host does not resolve
        raise bind_error(service, host, port, exc) from exc
    try:
        sockets = _bind_all(addresses, port)
        return Listening(sockets, host, port, sockets[0].getsockname()[1])  # port 0: the one the system chose
    except OSError as exc:
        if not address_in_use(exc):
            raise bind_error(service, host, port, exc) from exc
        if not fallback or port == 0:
            raise PortInUse(service, host, port) from exc
    last: OSError | None = None
    for _ in range(_FREE_PORT_ATTEMPTS):
        try:
            sockets = _bind_all(addresses, 0)
        except OSError as exc:
            # The port the first address got may be taken on another address of the host: try again.
            if not address_in_use(exc):
                raise bind_error(service, host, 0, exc) from exc
            last = exc
            continue
        actual = sockets[0].getsockname()[1]
        return Listening(sockets, host, port, actual, fallback_note(service, port, actual, default=default))
    raise bind_error(service, host, 0, last or OSError(errno.EADDRINUSE, "no free port found"))
