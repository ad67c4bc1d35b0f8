"""A replica's stopping without losing a call: its state, and what the HTTP app does with it.

Draining, `/health` answers 503 and every response carries `Connection: close`; after
`DRAIN_DELAY_S` the replica stops accepting connections and finishes the calls it has,
within `DRAIN_TIMEOUT_S` (docs/operations.md, Draining; the server side is
`server.cli._draining`).
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tomtom_mcp_apps.server.ops import metrics

log = logging.getLogger(__name__)


class Drain:
    """Whether the replica is draining, and since when (`time.monotonic()`)."""

    def __init__(self) -> None:
        self.since: float | None = None

    @property
    def active(self) -> bool:
        return self.since is not None

    def begin(self, reason: str) -> None:
        if self.since is None:
            self.since = time.monotonic()
            metrics.DRAINING.set(1)
            log.warning("draining", extra={"event": "drain", "reason": reason})


class CloseWhileDraining:
    """ASGI middleware: while draining, every HTTP response asks to close its connection."""

    def __init__(self, app: ASGIApp, drain: Drain) -> None:
        self.app = app
        self.drain = drain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start" and self.drain.active:
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, closing)
