"""OAuth access tokens checked against their issuer's keys (``--oauth-issuer``; docs/deploying.md "Authorization").

``JwksVerifier.verify`` takes a bearer token and says who it is for (``Verified``) or None: its
signature against the issuer's JWKS (found from the issuer's metadata, RFC 8414's
``/.well-known/oauth-authorization-server`` or OpenID Connect's ``/.well-known/openid-configuration``,
and fetched again, at most every ``JWKS_REFETCH_S``, when a token names a key not seen yet), then its
``iss``, ``aud``, ``exp``, ``nbf`` and ``sub`` with ``joserfc``'s claims registry. No JWT is parsed
here by hand. Both doors use one verifier (one key cache): MCP through the SDK's authorization
(``server/oauth.py``), BAP on its handshake (``bap/door.py``).

``joserfc`` and ``httpx`` are imported when the first token is checked, never at start-up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .users import User

__all__ = ["ALGORITHMS", "JwksVerifier", "OAuthSettings", "Verified"]

log = logging.getLogger(__name__)

#: The signing algorithms accepted (asymmetric only: a shared secret is no issuer's signature).
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
#: The JWKS is fetched again at most this often when a token names a key it does not hold (a rotation).
JWKS_REFETCH_S = 30.0
#: Leeway for clocks a little apart (``exp``, ``nbf``).
LEEWAY_S = 30


@dataclass(frozen=True)
class OAuthSettings:
    """``--oauth-issuer``, ``--oauth-audience`` (None: the server's own ``/mcp`` URL) and ``--oauth-scopes``."""

    issuer: str
    audience: str | None = None
    scopes: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class Verified:
    """What a valid token says: who (``subject``), for which client, with which scopes, until when."""

    subject: str
    client_id: str
    scopes: tuple[str, ...]
    expires_at: int
    issuer: str

    @property
    def user(self) -> User:
        """The session's user this token is (``users.py``)."""
        return User(subject=self.subject, scopes=self.scopes, client_id=self.client_id)

    def lacks(self, required: Sequence[str]) -> list[str]:
        """The required scopes this token does not carry."""
        return [scope for scope in required if scope not in self.scopes]


def _metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata is: RFC 8414's well-known path (before the issuer's path), then OpenID Connect's (after it)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    root = f"{parts.scheme}://{parts.netloc}"
    return [f"{root}/.well-known/oauth-authorization-server{path}", f"{root}{path}/.well-known/openid-configuration"]


class JwksVerifier:
    """Checks JWT access tokens: signed by one of the issuer's keys, for ``audience``, in time, with a subject."""

    def __init__(self, settings: OAuthSettings, audience: str) -> None:
        self.settings = settings
        self.audience = audience
        self._keys: Any = None  # joserfc KeySet
        self._fetched_at = 0.0
        self._lock = asyncio.Lock()

    async def _key_set(self, *, again: bool = False) -> Any:
        async with self._lock:
            if self._keys is not None and not (again and time.monotonic() - self._fetched_at > JWKS_REFETCH_S):
                return self._keys
            import httpx
            from joserfc.jwk import KeySet

            async with httpx.AsyncClient(timeout=10.0, follow_redirects=False) as http:
                jwks_uri = None
                for url in _metadata_urls(self.settings.issuer):
                    answer = await http.get(url)
                    if answer.status_code == 200:
                        metadata = answer.json()
                        if metadata.get("issuer") not in (None, self.settings.issuer):
                            log.warning("the metadata at %s names another issuer (%r); not used", url, metadata.get("issuer"))
                            continue
                        jwks_uri = metadata.get("jwks_uri")
                        if jwks_uri:
                            break
                if not jwks_uri:
                    raise LookupError(f"the issuer {self.settings.issuer} publishes no jwks_uri in its metadata")
                answer = await http.get(jwks_uri)
                answer.raise_for_status()
                self._keys = KeySet.import_key_set(answer.json())
                self._fetched_at = time.monotonic()
            return self._keys

    async def verify(self, token: str) -> Verified | None:
        """What the token says when it holds (signature, iss, aud, exp, nbf, sub), else None. Scopes are the caller's to require."""
        from joserfc import jwt
        from joserfc.errors import InvalidKeyIdError, JoseError

        try:
            keys = await self._key_set()
        except Exception as exc:  # the issuer unreachable: no token can be checked now
            log.error("the OAuth issuer's keys could not be read: %s", exc)
            return None
        try:
            try:
                decoded = jwt.decode(token, keys, algorithms=list(ALGORITHMS))
            except InvalidKeyIdError:  # a key this server has not seen: the issuer may have rotated its keys
                decoded = jwt.decode(token, await self._key_set(again=True), algorithms=list(ALGORITHMS))
            claims = decoded.claims
            jwt.JWTClaimsRegistry(
                leeway=LEEWAY_S,
                iss={"essential": True, "value": self.settings.issuer},
                aud={"essential": True, "value": self.audience},
                exp={"essential": True},
                sub={"essential": True},
            ).validate(claims)
        except (JoseError, ValueError, LookupError) as exc:
            log.warning("refused a bearer token: %s", type(exc).__name__)
            return None
        except Exception as exc:  # the issuer's keys could not be read again: refused, said once here
            log.error("a bearer token could not be checked: %s", exc)
            return None
        scope = claims.get("scope")
        scopes = scope.split() if isinstance(scope, str) else [str(s) for s in claims.get("scp") or [] if isinstance(s, str)]
        subject = str(claims["sub"])
        return Verified(subject, str(claims.get("client_id") or claims.get("azp") or subject), tuple(scopes), int(claims["exp"]), str(claims["iss"]))
