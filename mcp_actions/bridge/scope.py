"""Which agent session a piece of work runs for, and which runtimes that session may see (docs/sessions.md).

Over the HTTP transports several MCP clients share one server. Each is an
*agent session*, named by a ``SessionKey``: a 2025-11-25 client by its
``Mcp-Session-Id``, a 2026-07-28 client by the handle the server minted for it
(SEP-2567), an SSE client by its connection. The key's ``id`` is a digest of
that secret, never the secret itself, so it can be written to the audit log,
shown on the status page, and recomputed by another replica that sees the same
session id (docs/deploying.md).

The MCP adapter runs each request inside ``session_scope(key)``; everything
below it reads ``current_session()`` (a context variable, so tasks started
while serving the request inherit it). A runtime carries the id of the session
that owns it (``RuntimeInfo.session``): the tabs of that session's browser
context and runtimes that connected with its session credential. Runtimes
with no owner are the operator's (connected with the start token or a pairing).

Who sees what (``visible_to``):

- no session in scope (stdio, the operator's own programs, background work): every runtime;
- a session in a shared context (``--shared-browser-context``, ``isolated=False``): every runtime;
- a session with a context of its own: only the runtimes it owns. The operator's runtimes are
  *not* visible to it: a hosted server's operator did not share their tabs with every client.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import hmac
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ANONYMOUS",
    "ANONYMOUS_ID",
    "SESSION_CREDENTIAL_PREFIX",
    "SessionKey",
    "current_session",
    "mint_handle",
    "owner_scope",
    "scope_key",
    "session_credential",
    "session_of_credential",
    "session_scope",
    "visible_to",
]

#: How the session was told apart: its ``Mcp-Session-Id``, a minted handle, an SSE connection, a BAP connection.
SessionKind = Literal["http", "handle", "sse", "bap"]

#: A session credential starts with this (``ses.<session id>.<mac>``), so the bridge tells it from the start token.
SESSION_CREDENTIAL_PREFIX = "ses."
_CREDENTIAL_LABEL = b"mcp-actions session credential v1:"
#: A minted handle (SEP-2567) starts with this, so it is recognised in a tool's arguments and in ``_meta``.
HANDLE_PREFIX = "mcpa_"


def _digest(secret: str) -> str:
    # 16 hex digits: enough to tell sessions apart, short enough to read in a log line.
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class SessionKey:
    """One agent session: ``id`` (a digest, safe to log), how it was told apart, and whether it has a context of its own.

    Frozen and small on purpose: it is what travels with a call (and, across replicas, on the wire).
    """

    id: str
    kind: SessionKind
    #: True: the session has its own browser context and sees only its own runtimes. False: ``--shared-browser-context``.
    isolated: bool = True

    @classmethod
    def of_http(cls, session_id: str, *, isolated: bool = True) -> SessionKey:
        """The session of a streamable-HTTP ``Mcp-Session-Id`` (the same id gives the same key on any replica)."""
        return cls(f"h-{_digest(session_id)}", "http", isolated)

    @classmethod
    def of_handle(cls, handle: str, *, isolated: bool = True) -> SessionKey:
        """The session of a handle the server minted for a 2026-07-28 client."""
        return cls(f"m-{_digest(handle)}", "handle", isolated)

    @classmethod
    def of_owner(cls, session_id: str) -> SessionKey:
        """The session that owns a runtime (``RuntimeInfo.session``, an id): what that runtime sends is handled in its scope.

        Only sessions with a context of their own own runtimes; the kind is read off the id's prefix.
        """
        kind: SessionKind = {"h": "http", "m": "handle", "c": "sse", "b": "bap"}.get(session_id[:1], "http")  # type: ignore[assignment]  # the four values above
        return cls(session_id, kind, True)

    @classmethod
    def of_connection(cls, *, isolated: bool = True) -> SessionKey:
        """A session that is one connection (SSE): a fresh key for each."""
        return cls(f"c-{secrets.token_hex(8)}", "sse", isolated)

    @classmethod
    def of_bap(cls, *, isolated: bool = True) -> SessionKey:
        """A BAP connection (mcp_actions/bap/): a fresh key for each, as for an SSE connection."""
        return cls(f"b-{secrets.token_hex(8)}", "bap", isolated)

    @property
    def anonymous(self) -> bool:
        """Whether this is the scope of requests that name no session (``ANONYMOUS``): it owns nothing, ever."""
        return self.id == ANONYMOUS_ID

    def describe(self) -> dict[str, str | bool]:
        """``{id, kind, isolated}`` for the status page and ``actions://bridge/launch``."""
        return {"id": self.id, "kind": self.kind, "isolated": self.isolated}


#: The id of ``ANONYMOUS``: not a digest, so no ``Mcp-Session-Id`` or handle ever gives it.
ANONYMOUS_ID = "anonymous"
#: The scope of a 2026-07-28 request without a handle that needs no context (``tools/list``, a resource read):
#: it sees no session's runtimes, and has no bridge credential, so two such clients share nothing.
ANONYMOUS = SessionKey(ANONYMOUS_ID, "handle", True)

_CURRENT: contextvars.ContextVar[SessionKey | None] = contextvars.ContextVar("mcp_actions_session", default=None)


def current_session() -> SessionKey | None:
    """The session the running work is for (None: stdio, the operator, background work)."""
    return _CURRENT.get()


def owner_scope(owner: str | None) -> contextlib.AbstractContextManager[SessionKey | None]:
    """Run the block for the session that owns a runtime (``owner``; None: the operator's, no session at all).

    What a runtime sends is handled in its owner's scope, whichever task delivers it (a browser
    driver's reader started during another session's call carries that session in its context):
    what it logs and announces is then that session's alone (docs/sessions.md).
    """
    return session_scope(SessionKey.of_owner(owner) if owner is not None else None)


@contextlib.contextmanager
def session_scope(key: SessionKey | None) -> Iterator[SessionKey | None]:
    """Run the block (and the tasks it starts) for session ``key``."""
    token = _CURRENT.set(key)
    try:
        yield key
    finally:
        _CURRENT.reset(token)


def scope_key(key: SessionKey | None = None) -> str | None:
    """The id whose runtimes, active runtime and browser context the session uses (None: the shared ones).

    ``key`` defaults to the current session. A session in a shared context uses the shared ones.
    """
    key = current_session() if key is None else key
    return key.id if key is not None and key.isolated else None


def visible_to(owner: str | None, key: SessionKey | None = None) -> bool:
    """Whether a runtime owned by session ``owner`` (None: the operator's) is visible to ``key`` (default: the current session)."""
    scope = scope_key(key)
    return scope is None or owner == scope


def mint_handle() -> str:
    """A fresh handle for a 2026-07-28 client (SEP-2567): 192 random bits, prefixed."""
    return HANDLE_PREFIX + secrets.token_urlsafe(24)


def session_credential(start_token: str, session_id: str) -> str:
    """The bridge credential of one session: runtimes that present it belong to that session.

    An HMAC of the session id under the start token, so it needs no storage, is the same on every
    replica started with the same ``--bridge-token``, and reveals neither the token nor another
    session's credential.
    """
    mac = hmac.new(start_token.encode("utf-8"), _CREDENTIAL_LABEL + session_id.encode("utf-8"), hashlib.sha256).hexdigest()[:32]
    return f"{SESSION_CREDENTIAL_PREFIX}{session_id}.{mac}"


def session_of_credential(start_token: str, presented: str) -> str | None:
    """The session id a presented session credential proves (None when it is not a valid one, or the anonymous scope's)."""
    if not presented.startswith(SESSION_CREDENTIAL_PREFIX):
        return None
    session_id, _, _mac = presented[len(SESSION_CREDENTIAL_PREFIX) :].rpartition(".")
    if not session_id or session_id == ANONYMOUS_ID:
        return None  # no runtime belongs to the requests that name no session: they would all see it
    return session_id if hmac.compare_digest(session_credential(start_token, session_id), presented) else None
