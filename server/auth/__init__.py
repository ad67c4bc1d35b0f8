"""Sign-in: each replica an OAuth 2.1 resource server (MCP authorization, both protocol eras).

`OAUTH_ISSUER` turns it on; the authorization server is external (Keycloak, Auth0,
Entra ID...), a replica never issues a token and keeps no state: it verifies each
token on its own, with the issuer's keys cached.

- `_issuer.py`: `AuthorizationServer`, the issuer's metadata and keys, fetched and cached;
- `_verifier.py`: `TokenCheck` (the SDK's `TokenVerifier`): JWTs verified by PyJWT,
  opaque tokens by introspection (RFC 7662) when `OAUTH_INTROSPECTION` says so;
- `_gate.py`: the check in front of `POST /mcp` (401/403/503 with MCP's challenges), run
  by the front door from the headers (`Gate`), or whole as one middleware (`gate`);
- `_metadata.py`: Protected Resource Metadata (RFC 9728) routes;
- `_user.py`: `User`, a token's (`iss`, `sub`), and `User.id`, its hash, which is all
  the rest of the server sees (budgets, pacing, tile tokens, logs).

Decisions: docs/sign-in.md.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from starlette.routing import Route
from starlette.types import ASGIApp

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.auth._gate import Gate, bearer_token, gate, signed_in_only
from tomtom_mcp_apps.server.auth._issuer import AuthorizationServer
from tomtom_mcp_apps.server.auth._metadata import metadata_routes, metadata_url
from tomtom_mcp_apps.server.auth._user import User, current_user, user_id_in, user_in
from tomtom_mcp_apps.server.auth._verifier import (
    REFUSALS_PER_MIN,
    IntrospectionCheck,
    JwtCheck,
    TokenCheck,
)
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import ConfigError
from tomtom_mcp_apps.server.product import user_agent

__all__ = [
    "REFUSALS_PER_MIN",
    "Gate",
    "SignIn",
    "User",
    "bearer_token",
    "build_sign_in",
    "current_user",
    "user_id_in",
    "user_in",
]


@dataclass
class SignIn:
    """A replica's sign-in: the token check, the metadata routes and the gate."""

    check: TokenCheck
    issuer: AuthorizationServer
    resource: str
    """The MCP endpoint as users enter it (`PUBLIC_URL`): Protected Resource Metadata's
    `resource`."""
    scopes: tuple[str, ...]
    http: outbound.Client
    """The client to the authorization server (metadata, keys, introspection)."""

    @property
    def routes(self) -> list[Route]:
        return metadata_routes(self.resource, self.issuer.issuer, self.scopes)

    def protect(self, app: ASGIApp) -> ASGIApp:
        """`app` (the MCP endpoint) answering only requests with a verified token: the whole
        gate in one middleware, for an app without the front door."""
        return gate(app, self.check, self.scopes, metadata_url(self.resource))

    def door(self) -> Gate:
        """The check the front door runs from the headers, before the body is read."""
        return Gate(self.check, self.scopes, metadata_url(self.resource))

    def behind_door(self, app: ASGIApp) -> ASGIApp:
        """`app` (the MCP endpoint) behind a front door that runs `door()`: the verified
        token kept for the request."""
        return signed_in_only(app, self.scopes, metadata_url(self.resource))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The keys fetched at start-up (in the background), the client closed at the end."""
        warming = asyncio.get_running_loop().create_task(self.issuer.warm())
        try:
            yield
        finally:
            warming.cancel()
            await self.http.aclose()


def build_sign_in(settings: Settings, *, transport: object = None) -> SignIn | None:
    """The replica's sign-in from `settings`, or None without `OAUTH_ISSUER`. `transport`
    (an httpx transport) stands in for the authorization server in tests."""
    if settings.oauth_issuer is None:
        return None
    resource, audience = settings.public_url, settings.token_audience
    if resource is None or audience is None:
        raise ConfigError("OAUTH_ISSUER needs PUBLIC_URL: the MCP endpoint as users enter it")
    http = outbound.issuer(
        timeout_s=settings.oauth_timeout_s, user_agent=user_agent(resource), stand_in=transport
    )
    issuer = AuthorizationServer(
        settings.oauth_issuer,
        http,
        cache_s=settings.oauth_jwks_cache_s,
        refetch_s=settings.oauth_jwks_refetch_s,
        trusted_origins=settings.oauth_trusted_origins,
    )
    jwts = JwtCheck(
        issuer,
        audience=audience,
        algorithms=settings.oauth_algorithms,
        leeway_s=settings.oauth_leeway_s,
    )
    introspection = None
    if settings.oauth_introspection != "off":
        assert settings.oauth_client_id and settings.oauth_client_secret  # Settings checks
        introspection = IntrospectionCheck(
            issuer,
            http,
            client_id=settings.oauth_client_id,
            client_secret=settings.oauth_client_secret,
            audience=audience,
            leeway_s=settings.oauth_leeway_s,
            cache_s=settings.oauth_introspection_cache_s,
        )
    check = TokenCheck(jwts, introspection, settings.oauth_introspection)
    return SignIn(check, issuer, resource, settings.oauth_scopes, http)
