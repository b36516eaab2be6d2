"""MCP authorization: the HTTP transports as an OAuth 2.1 protected resource (``--oauth-issuer``; docs/deploying.md).

As MCP's authorization spec describes (RFC 9728 protected-resource metadata, RFC 8707
audiences): the server serves its metadata at ``/.well-known/oauth-protected-resource/mcp``
and ``/.well-known/oauth-protected-resource`` naming the issuer, answers a request without a
valid bearer token with 401 and ``WWW-Authenticate: Bearer … resource_metadata="…"``, and
checks every token. The MCP SDK's parts do the HTTP side (``BearerAuthBackend``,
``AuthContextMiddleware``, ``RequireAuthMiddleware``, ``create_protected_resource_routes``);
``JwksVerifier`` is the SDK's ``TokenVerifier`` over ``joserfc``: the signature against the
issuer's JWKS (found from the issuer's metadata), and ``iss``, ``aud``, ``exp``, ``nbf`` and
the required scopes. No JWT is parsed here by hand.

The token's ``sub`` is the session's user (``users.py``). ``--http-token`` keeps working for the
operator alone: that exact token passes as the user ``operator`` with every required scope.

``joserfc`` and ``httpx`` are imported when the first token is checked, never at start-up.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

__all__ = ["OPERATOR", "JwksVerifier", "OAuthSettings", "protect", "user_of_token"]

log = logging.getLogger(__name__)

#: The user a request presenting ``--http-token`` is, beside OAuth's users.
OPERATOR = "operator"
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


def _metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata is: RFC 8414's well-known path (before the issuer's path), then OpenID Connect's (after it)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    root = f"{parts.scheme}://{parts.netloc}"
    return [f"{root}/.well-known/oauth-authorization-server{path}", f"{root}{path}/.well-known/openid-configuration"]


class JwksVerifier:
    """The MCP SDK's ``TokenVerifier``: a JWT access token signed by one of the issuer's keys, for this audience, in time, with the scopes."""

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

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access info when it holds (signature, iss, aud, exp, nbf, scopes), else None (the SDK answers 401 or 403)."""
        from joserfc import jwt
        from joserfc.errors import InvalidKeyIdError, JoseError
        from mcp.server.auth.provider import AccessToken

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
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or subject),
            scopes=scopes,
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=subject,
            claims={"iss": claims.get("iss")},
        )


class _WithOperator:
    """``--http-token`` beside OAuth: that token is the operator, with every required scope; any other goes to ``inner``."""

    def __init__(self, inner: JwksVerifier, operator_token: str | None, scopes: Sequence[str]) -> None:
        self.inner = inner
        self.operator_token = operator_token
        self.scopes = list(scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        if self.operator_token and hmac.compare_digest(token.encode(), self.operator_token.encode()):
            return AccessToken(token=token, client_id=OPERATOR, scopes=self.scopes, subject=OPERATOR)
        return await self.inner.verify_token(token)


def user_of_token(access: AccessToken) -> Any:
    """The ``users.User`` a verified token is."""
    from .users import User

    return User(subject=access.subject or access.client_id, scopes=tuple(access.scopes), client_id=access.client_id)


class _Protected:
    """ASGI: the metadata routes answer anyone; every other HTTP request needs a valid token (the SDK's middleware)."""

    def __init__(self, app: Any, metadata: Any, required: Any) -> None:
        self.app = app
        self.metadata = metadata
        self.required = required

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)  # the lifespan
        elif scope.get("path", "").startswith("/.well-known/oauth-protected-resource"):
            await self.metadata(scope, receive, send)
        else:
            await self.required(scope, receive, send)


def protect(app: Any, verifier: JwksVerifier, *, operator_token: str | None = None) -> Any:
    """``app`` (the MCP HTTP app) as a protected resource of ``verifier``'s issuer and audience."""
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
    from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
    from pydantic import AnyHttpUrl
    from starlette.applications import Starlette
    from starlette.middleware.authentication import AuthenticationMiddleware
    from starlette.routing import Route

    settings = verifier.settings
    resource = AnyHttpUrl(verifier.audience)
    # The issuer as given: the metadata model keeps a path-less URL without a slash (RFC 8414 compares issuers exactly).
    issuer: Any = settings.issuer
    routes = create_protected_resource_routes(resource_url=resource, authorization_servers=[issuer], scopes_supported=list(settings.scopes) or None)
    # The same document at the root too: clients that look there before the resource's own path find it.
    routes.append(Route("/.well-known/oauth-protected-resource", endpoint=routes[0].endpoint, methods=["GET", "OPTIONS"]))
    metadata = Starlette(routes=routes)
    backend = BearerAuthBackend(_WithOperator(verifier, operator_token, settings.scopes))
    required = AuthenticationMiddleware(AuthContextMiddleware(RequireAuthMiddleware(app, list(settings.scopes), build_resource_metadata_url(resource))), backend=backend)
    return _Protected(app, metadata, required)
