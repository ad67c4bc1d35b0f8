"""The front door: what one client, and all of them together, may ask of a replica.

ASGI middleware in front of every route but the probes: a rate per client (429), a share
per client of the calls in flight (429), a ceiling on calls in flight (503 before the body
is read: nothing was billed, so a balancer or client may retry), and the body within a
deadline (408) and a size (413). A refusal is the status and a line of text, never a
JSON-RPC error: no request id has been read. Refusals are counted by reason, never logged
one by one (docs/front-door.md).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.http._clients import Network, client_of
from tomtom_mcp_apps.server.http._rate import RateLimiter
from tomtom_mcp_apps.server.ops import metrics

EXEMPT = frozenset({"/health", "/metrics"})
"""Paths never refused: the probes and scrapes an operator relies on."""
BUSY_RETRY_S = 1
"""The `Retry-After` of a 503 for too many calls in flight: calls take about a second."""


@dataclass(frozen=True)
class DoorLimits:
    """The front door's settings (from `server.config.Settings`)."""

    client_rate_per_s: float = 20.0
    """0: no rate per client."""
    client_burst: int = 400
    trusted_proxies: Sequence[Network] = ()
    max_calls_in_flight: int = 128
    client_max_in_flight: int = 32
    body_timeout_s: float = 30.0
    max_body_bytes: int = 4 * 1024 * 1024

    @classmethod
    def of(cls, settings: Settings) -> DoorLimits:
        return cls(
            client_rate_per_s=settings.client_rate_per_s,
            client_burst=settings.client_burst,
            trusted_proxies=settings.trusted_proxies,
            max_calls_in_flight=settings.max_calls_in_flight,
            client_max_in_flight=settings.client_max_in_flight,
            body_timeout_s=settings.http_body_timeout_s,
            max_body_bytes=settings.http_max_body_bytes,
        )


class _Shares:
    """The rate and the share of calls in flight of each client, whatever names it."""

    def __init__(self, limits: DoorLimits) -> None:
        rate = limits.client_rate_per_s
        self._rate = RateLimiter(rate, limits.client_burst) if rate > 0 else None
        self._max_in_flight = limits.client_max_in_flight
        self._in_flight: dict[str, int] = {}
        """Calls in flight per client; a client leaves it with its last call."""

    async def refused(self, send: Send, call: bool, client: str) -> bool:
        """Past its rate, or (a call) past its share: answer the refusal and say so."""
        if self._rate is not None:
            wait = self._rate.take(client)
            if wait is not None:
                why = f"too many requests from this client; retry in {wait} s"
                await _refuse(send, call, 429, "client_rate", why, wait)
                return True
        if call and self._in_flight.get(client, 0) >= self._max_in_flight:
            why = f"too many calls in flight from this client; retry in {BUSY_RETRY_S} s"
            await _refuse(send, call, 429, "client_in_flight", why, BUSY_RETRY_S)
            return True
        return False

    def enter(self, client: str) -> None:
        self._in_flight[client] = self._in_flight.get(client, 0) + 1

    def leave(self, client: str) -> None:
        left = self._in_flight.pop(client) - 1
        if left:
            self._in_flight[client] = left


class FrontDoor:
    """ASGI middleware: the rate per client, the calls in flight, the body's bounds.

    With sign-in on (`signed_in`), a call's client is its user, known only once the gate
    has verified the token: `SignedInShares`, inside the gate, keeps those calls' rates
    and shares, so the users a hosted host sends from one address are not one client."""

    def __init__(self, app: ASGIApp, limits: DoorLimits, signed_in: bool = False) -> None:
        self.app = app
        self._limits = limits
        self._signed_in = signed_in
        self._shares = _Shares(limits)
        self._in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in EXEMPT:
            await self.app(scope, receive, send)
            return
        call = scope["path"] == "/mcp" and scope["method"] == "POST"
        by_address = not (call and self._signed_in)
        client = client_of(scope, self._limits.trusted_proxies)
        if by_address and await self._shares.refused(send, call, client):
            return
        if not call:
            await self.app(scope, receive, send)
            return
        if self._in_flight >= self._limits.max_calls_in_flight:
            why = f"this server is busy (too many calls in flight); retry in {BUSY_RETRY_S} s"
            await _refuse(send, call, 503, "calls_in_flight", why, BUSY_RETRY_S)
            return
        self._in_flight += 1
        if by_address:
            self._shares.enter(client)
        metrics.CALLS_IN_FLIGHT.set(self._in_flight)
        try:
            body = await self._body(scope, receive, send)
            if body is not None:
                await self.app(scope, _replaying(body, receive), send)
        finally:
            self._in_flight -= 1
            if by_address:
                self._shares.leave(client)
            metrics.CALLS_IN_FLIGHT.set(self._in_flight)

    async def _body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole request body, or None when the client left or was refused."""
        limit = self._limits.max_body_bytes
        declared = dict(scope.get("headers", ())).get(b"content-length", b"")
        too_large = f"the request body is over {limit:,} bytes"
        if declared.isdigit() and int(declared) > limit:
            await _refuse(send, True, 413, "body_too_large", too_large)
            return None
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self._limits.body_timeout_s):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        await _refuse(send, True, 413, "body_too_large", too_large)
                        return None
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return b"".join(chunks)
        except TimeoutError:
            seconds = f"{self._limits.body_timeout_s:g}"
            why = f"the request body did not arrive within {seconds} s"
            await _refuse(send, True, 408, "body_timeout", why)
            return None


class SignedInShares:
    """ASGI middleware inside the sign-in gate: each verified user's rate per client and
    share of the calls in flight (`FrontDoor` keeps the rest), keyed by `user_of(scope)`."""

    def __init__(
        self, app: ASGIApp, limits: DoorLimits, user_of: Callable[[Scope], str | None]
    ) -> None:
        self.app = app
        self._shares = _Shares(limits)
        self._user_of = user_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = f"user:{self._user_of(scope)}"
        if await self._shares.refused(send, True, client):
            return
        self._shares.enter(client)
        try:
            await self.app(scope, receive, send)
        finally:
            self._shares.leave(client)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the app the body read already, then the client's own."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(
    send: Send,
    call: bool,
    status: int,
    reason: str,
    why: str,
    retry_after: float | None = None,
) -> None:
    """A refusal, counted by `reason`: the status, `Retry-After` when given, and `why` as
    a line of text (docs/front-door.md, Refusals)."""
    metrics.REFUSALS.labels(reason).inc()
    body = (why + "\n").encode()
    headers = [
        (b"cache-control", b"no-store"),
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(retry_after))).encode()))
    if call:  # its body, unread, would follow on a kept-alive connection, as slowly as it likes
        headers.append((b"connection", b"close"))
    else:  # the views' tile fetches; CORS answers for calls, from the allowed origins
        headers.append((b"access-control-allow-origin", b"*"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
