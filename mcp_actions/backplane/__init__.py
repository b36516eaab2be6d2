"""Replicas on a NATS backplane: several ``serve`` processes behind one load balancer act as one server.

Imported only when ``--backplane`` is given (the default path imports no
NATS). ``Backplane`` (``node.py``) joins this process to the others that share
its tokens: it publishes the runtimes this process holds and mirrors the
others' into the bridge (``directory.py``), forwards a call for a mirrored
runtime to the replica holding its socket and carries its progress, input
requests, cancellation and answer both ways (``remote.py``), takes a tab's turn
on the replica holding it so one acting call per tab holds across replicas
(``turns.py``), keeps streamable
HTTP sessions in JetStream key-value so that any replica can serve any of
them (``sessions.py``), and fans change notifications out to every replica.
Losing NATS is survived: each replica keeps serving the runtimes it holds and
says so, and rejoins when NATS returns. See docs/deploying.md.

Only replicas speak on the backplane: every message is sealed with the
deployment's secret (``seal.py``, ``sealed.py``), and NATS's own credentials
and TLS come from their own options, never shown (``connection.py``).

Exported for the command line, which checks ``--backplane`` before anything
starts: ``check_backplane_url`` (a NATS URL, one of ``BACKPLANE_SCHEMES``) and
``require_client`` (the ``nats`` extra installed, else one clear line).
"""

from __future__ import annotations

import importlib.util

from ..errors import UsageError

__all__ = ["BACKPLANE_SCHEMES", "check_backplane_url", "require_client"]

#: URL schemes ``--backplane`` takes (NATS, plain or TLS).
BACKPLANE_SCHEMES = ("nats://", "tls://")


def check_backplane_url(url: str) -> str:
    """The ``--backplane`` URL, or ``UsageError`` naming what is wrong with it."""
    if not url.startswith(BACKPLANE_SCHEMES) or len(url.split("://", 1)[1]) == 0:
        # Only the scheme is said: the rest may hold a password.
        given = f"a {url.split('://', 1)[0]}:// URL" if "://" in url else "a URL without a scheme"
        raise UsageError(f"--backplane must be a NATS URL (nats://HOST:PORT or tls://HOST:PORT), not {given}")
    return url


def require_client() -> None:
    """Raise ``UsageError`` (one line, exit 2) when the NATS client, or ``cryptography`` that seals, is not installed."""
    try:
        missing = any(importlib.util.find_spec(name) is None for name in ("nats", "cryptography"))
    except (ImportError, ValueError):  # a broken or blocked installation reads as a missing one
        missing = True
    if missing:
        raise UsageError("--backplane needs the NATS client and cryptography, which are not installed: pip install 'mcp-actions[nats]'")
