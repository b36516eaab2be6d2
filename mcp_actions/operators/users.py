"""A session's user: the subject of the OAuth token its requests present (``--oauth-issuer``; docs/deploying.md).

Both doors set it for the request they serve (``user_scope``): MCP from the token the SDK's
bearer middleware verified, BAP from the token its connection presented. What reads it: the
audit line's ``user``, the session's entry on the status page (``SessionBook.open``), and the
policy's ``users`` and ``scopes`` (dispatch/call/policy.py). Without authorization there is no
user (None), as over stdio.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["User", "current_user", "user_scope"]


@dataclass(frozen=True)
class User:
    """Who presented a valid token: its ``sub`` (the name shown and matched), its scopes, its client."""

    subject: str
    scopes: tuple[str, ...] = ()
    client_id: str | None = None


_CURRENT: contextvars.ContextVar[User | None] = contextvars.ContextVar("mcp_actions_user", default=None)


def current_user() -> User | None:
    """The user of the request being served (None: no authorization, or no request)."""
    return _CURRENT.get()


@contextlib.contextmanager
def user_scope(user: User | None) -> Iterator[None]:
    """Serve the block as ``user`` (None leaves the current one, if any)."""
    if user is None:
        yield
        return
    token = _CURRENT.set(user)
    try:
        yield
    finally:
        _CURRENT.reset(token)
