"""`Client`: requests to one destination through its transport, with that destination's
headers, timeouts and deadline; `transport` accepts a test's stand-in in place of one."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from tomtom_mcp_apps.server.outbound._messages import Answer, Request, Timeouts, Transport
from tomtom_mcp_apps.server.outbound._urls import Url, pinned


def transport(given: Any) -> Transport:
    """`given` as a `Transport`: itself, or an httpx transport that a test stands in for a
    destination with (`httpx.MockTransport`, `httpx.ASGITransport`), wrapped."""
    if hasattr(given, "handle_async_request"):
        from tomtom_mcp_apps.server.outbound._stand_in import StandIn

        return StandIn(given)
    if hasattr(given, "send") and hasattr(given, "aclose"):
        return given  # type: ignore[no-any-return]
    raise TypeError(f"{type(given).__name__} cannot carry requests")


class Exchange:
    """One request and its answer, as an async context manager: sent on entering (within
    the deadline, which runs until the block ends), the answer freed on leaving. A class,
    not a generator: it is on every request's path."""

    __slots__ = ("_answer", "_deadline", "_request", "_timeout", "_transport")

    def __init__(self, transport: Transport, request: Request, deadline_s: float | None) -> None:
        self._transport = transport
        self._request = request
        self._deadline = deadline_s
        self._timeout: asyncio.Timeout | None = None
        self._answer: Answer | None = None

    async def __aenter__(self) -> Answer:
        if self._deadline is not None:
            self._timeout = asyncio.timeout(self._deadline)
            await self._timeout.__aenter__()
        try:
            self._answer = await self._transport.send(self._request)
        except BaseException as exc:
            if self._timeout is not None:  # past the deadline: TimeoutError, else as raised
                await self._timeout.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self._answer

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            assert self._answer is not None
            await self._answer.close()
        finally:
            if self._timeout is not None:
                await self._timeout.__aexit__(kind, exc, tb)


class Client:
    """Requests through `carrier` with default `headers`, `timeouts` and a `deadline_s` for
    each whole request (from sending to the answer's last byte read), each overridable per
    request; the client owns the transport and closes it."""

    def __init__(
        self,
        carrier: Any,
        *,
        headers: Mapping[str, str] | None = None,
        timeouts: Timeouts | None = None,
        deadline_s: float | None = None,
    ) -> None:
        self._transport = transport(carrier)
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        """Sent with every request unless the request sets its own."""
        self._timeouts = timeouts
        self._deadline_s = deadline_s
        self.is_closed = False

    def request(
        self,
        method: str,
        url: str | Url,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        timeouts: Timeouts | None = None,
        deadline_s: float | None = None,
        encoded: bool = False,
        pin: str | None = None,
    ) -> Exchange:
        """The answer to one request, inside an `async with` block; its connection freed at
        the block's end. `headers` (names in lower case) add to or replace the client's;
        `url` is sent as is when `encoded`; `pin` connects to that address in place of the
        URL's host, whose name stays in `Host` and TLS (a checked `data_url`). The deadline
        raises the built-in `TimeoutError`; no answer at all, a `TransportError`."""
        if self.is_closed:
            raise RuntimeError("the client is closed: no request can be sent")
        sent = {**self.headers, **headers} if headers else self.headers
        server_hostname = None
        if isinstance(url, Url):
            if pin is not None:
                sent = {**sent, "host": url.netloc}
                server_hostname = url.raw_host if url.scheme == "https" else None
                url = pinned(url, pin)
            else:
                url = url.text
            encoded = True
        outgoing = Request(
            method, url, sent, body, timeouts or self._timeouts, encoded, server_hostname
        )
        deadline = deadline_s if deadline_s is not None else self._deadline_s
        return Exchange(self._transport, outgoing, deadline)

    async def aclose(self) -> None:
        """Closes the transport's connections; requests then fail."""
        self.is_closed = True
        await self._transport.aclose()
