"""Who a bridge connection is: the credential it presented, the page that opened it, the trust that follows.

The start token (``--bridge-token``, or one generated per start) is the
operator's: whoever holds it may pair browsers and connect runtimes that the
bridge believes. It must never sit in a web page, where any script of the page
can read it. Pages get a *page credential* instead (``page_credential``): an
HMAC of the start token, so a fixed ``--bridge-token`` gives a fixed page
credential (a site that embeds ``runtime.js`` keeps working across restarts)
and nobody can work back from it to the token. It lets a page runtime connect,
and nothing more: such a runtime is trusted as ``page``.

A connection's trust (docs/bridge-protocol.md, "Credentials and trust") comes
from its handshake, never from what its items say:

- ``host``: a runtime of this process (in-process transports set it; no handshake can);
- ``paired``: it presented a browser extension pairing's secret;
- ``operator``: it presented the start token and carries no web page's ``Origin``;
- ``page``: it presented the page credential, or its handshake carries a web page's ``Origin``
  (anything but ``chrome-extension://…``), whatever credential it used.

Browsers set ``Origin`` on a WebSocket handshake and page scripts cannot change
it, so the ``Origin`` a page runtime connected from is the one thing about it
that is proved: ``url_within_origin`` holds what it announces about its page to
that origin.

A page runtime is given a secret of its own when it announces itself
(``new_runtime_secret``); only that secret takes its identity back when it
reconnects (``identity.py``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from .registry import Trust

__all__ = [
    "EXTENSION_SCHEMES",
    "Admission",
    "Credential",
    "page_credential",
    "is_web_origin",
    "new_runtime_secret",
    "secret_digest",
    "trust_of",
    "url_within_origin",
]

#: What a handshake presented: the start token, the page credential, a pairing's secret, or an agent
#: session's credential (``scope.session_credential``: its runtimes belong to that session, docs/sessions.md).
Credential = Literal["start", "page", "pairing", "session"]
#: Origins of browser extensions' own pages: not web pages (the extension's user chose to install it).
EXTENSION_SCHEMES = ("chrome-extension://",)
#: The label the page credential is derived under; a new label would be a new credential for every site.
_PAGE_LABEL = b"mcp-actions page credential v1"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def page_credential(start_token: str) -> str:
    """The credential pages present instead of the start token: an HMAC of it, URL-safe, 43 characters."""
    mac = hmac.new(start_token.encode("utf-8"), _PAGE_LABEL, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def new_runtime_secret() -> str:
    """A fresh secret for one page runtime (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(32)


def secret_digest(secret: str) -> str:
    """What the bridge keeps of a runtime secret: its SHA-256, so a memory dump of owners opens nothing."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def is_web_origin(origin: str | None) -> bool:
    """Whether an ``Origin`` header names a web page (anything present but a browser extension's page)."""
    return origin is not None and not origin.lower().startswith(EXTENSION_SCHEMES)


def trust_of(credential: Credential, origin: str | None) -> Trust:
    """The trust a WebSocket connection has, from what its handshake presented and the ``Origin`` it carries."""
    if credential == "page" or is_web_origin(origin):
        return "page"
    return "paired" if credential == "pairing" else "operator"


@dataclass(frozen=True)
class Admission:
    """What an accepted handshake proved: its credential, trust, pairing (if any) and ``Origin`` (if any)."""

    credential: Credential
    trust: Trust
    authorization_id: str | None = None
    origin: str | None = None
    #: The agent session whose credential was presented (bridge/scope.py); None for every other credential.
    agent_session: str | None = None


def _origin_tuple(scheme: str, host: str | None, port: int | None) -> tuple[str, str, int | None]:
    return scheme.lower(), (host or "").lower(), port if port is not None else _DEFAULT_PORTS.get(scheme.lower())


def url_within_origin(url: str, origin: str) -> bool:
    """Whether a page at ``url`` may be one whose handshake carried ``Origin: origin``.

    http(s) URLs must have exactly that scheme, host and port; ``blob:`` URLs are judged by the URL
    inside them. ``about:blank`` and ``about:srcdoc`` inherit their creator's origin and name no
    site. Other URLs (``file:``, ``data:``) have no web origin: they pass only for an opaque
    ``Origin`` (``null``) or the ``file://`` origin Chromium sends from files, so no page of a web
    origin can claim one.
    """
    try:
        have = urlsplit(url)
        if have.scheme.lower() == "blob":
            return url_within_origin(url[len("blob:") :], origin)
        if url in ("about:blank", "about:srcdoc"):
            return True
        if have.scheme.lower() not in ("http", "https"):
            return origin in ("null", "file://")
        want = urlsplit(origin)
        if want.scheme.lower() not in ("http", "https") or want.path not in ("", "/"):
            return False
        return _origin_tuple(have.scheme, have.hostname, have.port) == _origin_tuple(want.scheme, want.hostname, want.port)
    except ValueError:  # a port out of range, a bracket left open
        return False
