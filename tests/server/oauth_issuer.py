"""A small OAuth authorization server for the tests, written with joserfc: it signs access tokens and serves its JWKS on loopback.

``Issuer()`` listens on a free loopback port (a thread of its own) and serves its RFC 8414
metadata (``/.well-known/oauth-authorization-server``, naming ``jwks_uri``) and its public keys
(``/jwks``). ``token(sub, aud, ...)`` signs an RS256 JWT as an authorization server would issue
it; ``forged(...)`` signs the same claims with a key the issuer never published, under the
issuer's key id.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

__all__ = ["Issuer"]


class Issuer:
    """An authorization server on ``127.0.0.1``: ``url`` is its issuer identifier."""

    def __init__(self) -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": "issuer-key-1", "use": "sig", "alg": "RS256"})
        self.stranger = RSAKey.generate_key(2048, parameters={"kid": "issuer-key-1", "use": "sig", "alg": "RS256"})
        issuer = self
        self.requests: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                issuer.requests.append(self.path)
                if self.path == "/.well-known/oauth-authorization-server":
                    body = {"issuer": issuer.url, "jwks_uri": f"{issuer.url}/jwks", "token_endpoint": f"{issuer.url}/token", "response_types_supported": ["code"]}
                elif self.path == "/jwks":
                    body = KeySet([issuer.key]).as_dict(private=False)
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Issuer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def claims(self, sub: str, aud: str, *, scope: str = "mcp", expires_in: int = 600, issuer: str | None = None) -> dict[str, Any]:
        now = int(time.time())
        return {"iss": issuer or self.url, "sub": sub, "aud": aud, "scope": scope, "iat": now, "nbf": now - 5, "exp": now + expires_in, "client_id": "test-host"}

    def token(self, sub: str, aud: str, **kwargs: Any) -> str:
        """An access token this issuer signed."""
        return jwt.encode({"alg": "RS256", "kid": "issuer-key-1", "typ": "at+jwt"}, self.claims(sub, aud, **kwargs), self.key)

    def forged(self, sub: str, aud: str, **kwargs: Any) -> str:
        """The same token, signed with a key the issuer never published (under its key id)."""
        return jwt.encode({"alg": "RS256", "kid": "issuer-key-1", "typ": "at+jwt"}, self.claims(sub, aud, **kwargs), self.stranger)
