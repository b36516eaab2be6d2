"""How a replica reaches NATS and proves it belongs: the URL, NATS's own credentials and TLS, the shared secret.

Credentials never ride in a URL the product shows. NATS's own come from
their own options (docs/deploying.md): a creds file (``--backplane-creds``),
an nkey seed file (``--backplane-nkey``), a user and password from the
environment (``MCP_ACTIONS_BACKPLANE_USER``/``_PASSWORD``), and TLS files
(``--backplane-tls-ca``, ``--backplane-tls-cert``, ``--backplane-tls-key``);
nats-py uses them itself (``connect_options``). A URL given with a user and
password still works, but wherever it is shown (``shown_url``: the status
page, ``actions://bridge/launch``, log lines) it has no userinfo and no query.

The deployment's secret (``--backplane-secret-file``, ``read_secret``) is
another thing: NATS never sees it; replicas seal their messages with it
(``seal.py``).

Nothing here imports the NATS client: the command line checks these options
before anything starts.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import UsageError
from ..url_secrets import shown_url
from .seal import MIN_SECRET_BYTES

__all__ = ["BackplaneConnection", "read_secret"]


def read_secret(path: str) -> bytes:
    """The deployment's secret from ``path`` (surrounding whitespace dropped), or ``UsageError`` saying what is wrong."""
    try:
        secret = Path(path).read_bytes().strip()
    except OSError as exc:
        raise UsageError(f"--backplane-secret-file {path}: cannot read it ({exc.strerror or type(exc).__name__})") from exc
    if len(secret) < MIN_SECRET_BYTES:
        raise UsageError(f"--backplane-secret-file {path}: the secret is {len(secret)} bytes, at least {MIN_SECRET_BYTES} are needed (make one with: openssl rand -hex 32)")
    return secret


@dataclass(frozen=True)
class BackplaneConnection:
    """What ``--backplane`` and its options say (the secret and password never in a repr)."""

    url: str = field(repr=False)  # may hold a user and password: shown only as ``shown_url``
    secret: bytes = field(repr=False)
    creds: str | None = None  # --backplane-creds: a NATS user credentials file (JWT and nkey seed)
    nkey: str | None = None  # --backplane-nkey: a file holding a user nkey seed
    user: str | None = None  # MCP_ACTIONS_BACKPLANE_USER
    password: str | None = field(default=None, repr=False)  # MCP_ACTIONS_BACKPLANE_PASSWORD
    tls_ca: str | None = None  # --backplane-tls-ca: the CA that signed the NATS server's certificate
    tls_cert: str | None = None  # --backplane-tls-cert: this replica's client certificate (mutual TLS)
    tls_key: str | None = None  # --backplane-tls-key: its private key

    @property
    def shown_url(self) -> str:
        """The URL as the status page, the launch report and the logs show it (``url_secrets.shown_url``)."""
        return shown_url(self.url) or ""

    def hide(self, text: str) -> str:
        """``text`` (an error's message, say) with anything of the URL's or the environment's credentials masked."""
        text = text.replace(self.url, self.shown_url)
        parts = urlsplit(self.url)
        # A user name alone is a NATS token; with a password it is only a name, masked when long enough to be safely found.
        user = parts.username if not parts.password or len(parts.username or "") >= 4 else None
        for secret in (self.password, parts.password, user, parts.query):
            if secret:
                text = text.replace(secret, "***")
        return text

    def tls_context(self) -> ssl.SSLContext | None:
        """The TLS context the TLS options make (None when none is given: a ``tls://`` URL then uses the system's CAs)."""
        if not (self.tls_ca or self.tls_cert):
            return None
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=self.tls_ca)
        if self.tls_cert:
            context.load_cert_chain(self.tls_cert, self.tls_key)
        return context

    def connect_options(self) -> dict[str, Any]:
        """The keyword arguments of ``nats.connect`` that say who this replica is to NATS."""
        options: dict[str, Any] = {}
        tls = self.tls_context()
        if tls is not None:
            options["tls"] = tls
        if self.creds:
            options["user_credentials"] = self.creds
        if self.nkey:
            options["nkeys_seed"] = self.nkey
        if self.user:
            options["user"] = self.user
            options["password"] = self.password or ""
        return options

    def check(self) -> None:
        """``UsageError`` when a file the options name cannot be used (said before anything starts)."""
        for flag, path in (("--backplane-creds", self.creds), ("--backplane-nkey", self.nkey), ("--backplane-tls-ca", self.tls_ca), ("--backplane-tls-cert", self.tls_cert), ("--backplane-tls-key", self.tls_key)):
            if path and not Path(path).is_file():
                raise UsageError(f"{flag} {path}: no such file")
        if self.tls_key and not self.tls_cert:
            raise UsageError("--backplane-tls-key goes with --backplane-tls-cert")
        if self.creds and self.nkey:
            raise UsageError("give --backplane-creds or --backplane-nkey, not both")
        try:
            self.tls_context()
        except (OSError, ssl.SSLError) as exc:
            raise UsageError(f"the backplane's TLS files cannot be used: {exc}") from exc
