"""Connections a client holds open without asking anything: bounded in time and size.

uvicorn's httptools protocol plus what it lacks: an idle timeout from the moment a
connection opens, a header timeout (408) and a header size (431), before the app sees
anything (docs/front-door.md). The body's bounds are `_front_door.py`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.ops import metrics


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout_s: float = 10.0
    max_header_bytes: int = 64 * 1024

    @classmethod
    def of(cls, settings: Settings) -> ConnectionLimits:
        return cls(settings.http_header_timeout_s, settings.http_max_header_bytes)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with the bounds above (`limits`, set by `guarded`)."""

    limits = ConnectionLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # uvicorn's own idle timer, started before the first request as after each one.
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_header_timer()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._stop_header_timer()
        self._header_timer = self.loop.call_later(
            self.limits.header_timeout_s, self._headers_too_slow
        )

    def on_url(self, url: bytes) -> None:
        if self._counted(url):
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if self._counted(name, value):
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._stop_header_timer()
        if not self._refused:
            super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._refused:
            super().on_message_complete()

    def _counted(self, *parts: bytes) -> bool:
        """False once the headers passed their size (the connection is being refused)."""
        if self._refused:
            return False
        self._header_bytes += sum(len(part) for part in parts) + 4  # ": " and CRLF
        if self._header_bytes > self.limits.max_header_bytes:
            self._refuse(431, "headers_too_large", b"Request Header Fields Too Large")
            return False
        return True

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        self._refuse(408, "header_timeout", b"Request Timeout")

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _refuse(self, status: int, reason: str, phrase: bytes) -> None:
        """Answer `status` and close: the request never reaches the app."""
        self._refused = True
        self._stop_header_timer()
        if self.transport.is_closing():
            return
        metrics.REFUSALS.labels(reason).inc()
        body = phrase.lower() + b"\n"
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: text/plain\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (status, phrase, len(body), body)
        )
        self.transport.close()


def guarded(limits: ConnectionLimits) -> type[GuardedHttpTools]:
    """The protocol class uvicorn is given (`uvicorn.Config(http=...)`), with `limits`."""
    return type("GuardedHttpTools", (GuardedHttpTools,), {"limits": limits})
