"""The gate in front of `POST /mcp`: a verified bearer token, or the challenge MCP clients follow.

Built from the SDK's `mcp.server.auth` pieces, whose `AuthContextMiddleware` keeps the
verified token for the whole request; `BearerBackend` and `RequireSignIn` answer as MCP's
authorization specification asks (docs/sign-in.md, What is gated).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import orjson
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    BearerAuthBackend,
    RequireAuthMiddleware,
)
from pydantic import AnyHttpUrl
from starlette.authentication import AuthCredentials, AuthenticationError
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from tomtom_mcp_apps.server.auth._user import user_of
from tomtom_mcp_apps.server.auth._verifier import TokenCheck
from tomtom_mcp_apps.server.errors import IssuerUnavailable, TokenRefused
from tomtom_mcp_apps.server.ops import metrics

log = logging.getLogger(__name__)

REFUSAL = "tomtom.token_refused"
"""Where the backend leaves a refused token's `TokenRefused` in the ASGI scope."""
RETRY_AFTER_S = 5
"""What a 503 asks clients to wait while the authorization server cannot be reached."""
REASONS = frozenset(
    {
        "expired",
        "not_yet_valid",
        "audience",
        "issuer",
        "signature",
        "claims",
        "algorithm",
        "unknown_key",
        "malformed",
        "inactive",
    }
)
"""The `reason` label's values for refused tokens (`TokenRefused.reason`)."""


class BearerBackend(BearerAuthBackend):
    """The SDK's bearer backend, keeping the reason a token was refused.

    The SDK's `authenticate` returns None for every refusal and checks `exp` without
    the verifier's leeway; this one lets `TokenCheck` decide (leeway included), leaves
    its `TokenRefused` in the scope for the 401, and turns `IssuerUnavailable` into the
    `AuthenticationError` Starlette answers through `unavailable`."""

    def __init__(self, check: TokenCheck) -> None:
        super().__init__(check)
        self._check = check

    async def authenticate(
        self, conn: HTTPConnection
    ) -> tuple[AuthCredentials, AuthenticatedUser] | None:
        token = bearer_token(conn.scope)
        if token is None:
            return None
        try:
            access = await self._check.verify_token(token)
        except TokenRefused as exc:
            conn.scope[REFUSAL] = exc
            return None
        except IssuerUnavailable as exc:
            raise AuthenticationError(str(exc)) from None
        return AuthCredentials(access.scopes), AuthenticatedUser(access)


class RequireSignIn(RequireAuthMiddleware):
    """The SDK's `RequireAuthMiddleware`, with MCP's challenges (see the module)."""

    def __init__(self, app: ASGIApp, scopes: Sequence[str], resource_metadata_url: str) -> None:
        super().__init__(app, list(scopes), AnyHttpUrl(resource_metadata_url))
        self._metadata_url = resource_metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            refused: TokenRefused | None = scope.get(REFUSAL)
            if refused is None:
                _count("no_token")
                await self._challenge(send, 401)
                return
            reason = refused.reason if refused.reason in REASONS else "malformed"
            _count("invalid_token", reason)
            log.info(
                "bearer token refused: %s",
                refused,
                extra={"event": "token_refused", "reason": reason},
            )
            await self._challenge(send, 401, "invalid_token", str(refused))
            return
        granted = set(user.scopes)
        if not set(self.required_scopes) <= granted:
            _count("insufficient_scope")
            signed_in = user_of(user.access_token)
            log.info(
                "bearer token lacks scopes",
                extra={
                    "event": "token_refused",
                    "reason": "insufficient_scope",
                    "user": signed_in.id if signed_in else "",
                },
            )
            await self._challenge(
                send, 403, "insufficient_scope", "the token lacks a scope this server requires"
            )
            return
        _count("ok")
        await self.app(scope, receive, send)

    async def _challenge(
        self, send: Send, status: int, error: str | None = None, description: str | None = None
    ) -> None:
        params = {}
        if error is not None:
            params["error"] = error
            params["error_description"] = description or ""
        if self.required_scopes:
            params["scope"] = " ".join(self.required_scopes)
        params["resource_metadata"] = self._metadata_url
        challenge = "Bearer " + ", ".join(f'{k}="{_quoted(v)}"' for k, v in params.items())
        body = orjson.dumps(
            {"error": error or "unauthorized", "error_description": description or "sign in first"}
        )
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def bearer_token(scope: Scope) -> str | None:
    """The token of an `Authorization: Bearer ...` header, or None without one."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


def unavailable(_: HTTPConnection, exc: AuthenticationError) -> Response:
    """503 while tokens cannot be checked: the client retries, it does not sign in again."""
    _count("unavailable")
    log.warning("sign-in unavailable: %s", exc, extra={"event": "issuer_unavailable"})
    return JSONResponse(
        {
            "error": "temporarily_unavailable",
            "error_description": "the authorization server cannot be reached to check the "
            f"token; retry in {RETRY_AFTER_S} s",
        },
        status_code=503,
        headers={"retry-after": str(RETRY_AFTER_S), "cache-control": "no-store"},
    )


def gate(
    app: ASGIApp, check: TokenCheck, scopes: Sequence[str], resource_metadata_url: str
) -> ASGIApp:
    """`app` behind the gate: authenticate, keep the token for the request, require it."""
    required = RequireSignIn(app, scopes, resource_metadata_url)
    return AuthenticationMiddleware(
        AuthContextMiddleware(required), backend=BearerBackend(check), on_error=unavailable
    )


def _count(outcome: str, reason: str = "") -> None:
    metrics.SIGN_IN.labels(outcome, reason).inc()


def _quoted(value: str) -> str:
    """An auth-param's quoted-string: backslashes and quotes escaped (RFC 9110 §5.6.4)."""
    return value.replace("\\", "\\\\").replace('"', '\\"')
