"""The Origin check kept when Host checking is off (`ALLOWED_HOSTS=*` behind a proxy that
checks Host itself): a browser page outside loopback and `ALLOWED_ORIGINS` never drives
`POST /mcp`, DNS rebinding included (docs/front-door.md, CORS, Host and Origin)."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send


def origin_allowed(origin: str, allowed: Sequence[str]) -> bool:
    """Whether `origin` is one of `allowed`: exact, or `scheme://host:*` for any port (the
    MCP SDK's own rule, so both checks agree)."""
    for pattern in allowed:
        if origin == pattern:
            return True
        if pattern.endswith(":*") and origin.startswith(pattern[:-1]):
            port = origin[len(pattern) - 1 :]
            if port.isdigit():
                return True
    return False


class OriginCheck:
    """ASGI middleware: a request with an `Origin` header outside `allowed` gets 403, as the
    SDK answers it; a request without one (no browser page sent it) passes."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app = app
        self._allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = next((v for k, v in scope.get("headers", ()) if k == b"origin"), None)
        if origin is not None and not origin_allowed(origin.decode("latin-1"), self._allowed):
            body = b"Invalid Origin header"
            headers = [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
