"""MCP authorization: the HTTP transports as an OAuth 2.1 protected resource (``--oauth-issuer``; docs/deploying.md).

As MCP's authorization spec describes (RFC 9728 protected-resource metadata, RFC 8707
audiences): the server serves its metadata at ``/.well-known/oauth-protected-resource/mcp`` and
``/.well-known/oauth-protected-resource`` naming the issuer, answers a request without a valid
bearer token with 401 and ``WWW-Authenticate: Bearer … resource_metadata="…"`` (403
``insufficient_scope`` without a required scope), and checks every token. The MCP SDK's parts do
the HTTP side (``BearerAuthBackend``, ``AuthContextMiddleware``, ``RequireAuthMiddleware``,
``create_protected_resource_routes``); ``SdkVerifier`` is the SDK's ``TokenVerifier`` over the
issuer's keys (``operators/tokens.py``).

The token's ``sub`` is the session's user (``operators/users.py``; ``sessions.py`` sets it for each
request). ``--http-token`` keeps working for the operator alone: that exact token passes as the user
``operator`` with every required scope.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..operators.users import User

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

    from ..operators.tokens import JwksVerifier

__all__ = ["OPERATOR", "SdkVerifier", "protect", "user_of_token"]

#: The user a request presenting ``--http-token`` is, beside OAuth's users.
OPERATOR = "operator"


class SdkVerifier:
    """The MCP SDK's ``TokenVerifier``: ``--http-token`` is the operator; any other token goes to the issuer's keys."""

    def __init__(self, inner: JwksVerifier, operator_token: str | None, scopes: Sequence[str]) -> None:
        self.inner = inner
        self.operator_token = operator_token
        self.scopes = list(scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        if self.operator_token and hmac.compare_digest(token.encode(), self.operator_token.encode()):
            return AccessToken(token=token, client_id=OPERATOR, scopes=self.scopes, subject=OPERATOR)
        verified = await self.inner.verify(token)
        if verified is None:
            return None
        return AccessToken(
            token=token,
            client_id=verified.client_id,
            scopes=list(verified.scopes),
            expires_at=verified.expires_at,
            resource=self.inner.audience,
            subject=verified.subject,
            claims={"iss": verified.issuer},
        )


def user_of_token(access: AccessToken) -> User:
    """The ``users.User`` a verified token is."""
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
    backend = BearerAuthBackend(SdkVerifier(verifier, operator_token, settings.scopes))
    required = AuthenticationMiddleware(AuthContextMiddleware(RequireAuthMiddleware(app, list(settings.scopes), build_resource_metadata_url(resource))), backend=backend)
    return _Protected(app, metadata, required)
