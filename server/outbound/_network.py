"""Requests over the network: aiohttp's keep-alive pool, the one HTTP client library of the
server (docs/upstream.md, Transport, says why: its C parser costs a request a third of
httpcore's CPU). Every aiohttp type and failure stays in this module.

What every destination relies on, kept here: bodies as received (`auto_decompress=False`)
and read as they arrive; the URL as built when it comes encoded; no header of aiohttp's
own beside the request's (no default User-Agent, Accept or Accept-Encoding); no
redirect followed; the certificate authorities of certifi or `SSL_CERT_FILE` /
`SSL_CERT_DIR`; each failure as the `server.errors.TransportError` it is.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import AsyncIterator

import aiohttp
import certifi
from yarl import URL

from tomtom_mcp_apps.server.errors import (
    ConnectError,
    ConnectTimeout,
    InvalidURL,
    ReadError,
    ReadTimeout,
    RemoteProtocolError,
    TransportError,
    UnsupportedProtocol,
)
from tomtom_mcp_apps.server.outbound._messages import Answer, Request, Timeouts

KEEPALIVE_S = 4.0
"""How long an idle connection is kept: under the 5 s idle timeout of uvicorn and many
proxies, since a request sent on a connection the other side is closing fails, and a
billed TomTom request is never sent again."""
_AUTO_HEADERS = ("User-Agent", "Accept-Encoding", "Accept", "Content-Type")
"""Headers aiohttp would add by itself, left out (`skip_auto_headers`) when a request lacks
one: every request carries its own or none."""
_NO_TIMEOUT = aiohttp.ClientTimeout()


def ssl_context() -> ssl.SSLContext:
    """The certificate authorities an operator trusts: `SSL_CERT_FILE`, else `SSL_CERT_DIR`,
    else certifi's (what httpx, the project's earlier client, trusted)."""
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    return ssl.create_default_context(cafile=certifi.where())


class Network:
    """One keep-alive pool of at most `connections` connections, made on the first request
    (inside the running loop)."""

    def __init__(self, connections: int, *, keepalive_s: float = KEEPALIVE_S) -> None:
        self._connections = connections
        self._keepalive_s = keepalive_s
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[Timeouts, aiohttp.ClientTimeout] = {}
        """aiohttp's form of each `Timeouts` sent: a destination uses one or two."""

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._connections,
                keepalive_timeout=self._keepalive_s,
                enable_cleanup_closed=True,
                ssl=ssl_context(),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                timeout=_NO_TIMEOUT,  # each request brings its own
            )
        return self._session

    async def send(self, request: Request) -> Answer:
        timeouts = request.timeouts
        timeout = _NO_TIMEOUT if timeouts is None else self._timeouts.get(timeouts)
        if timeout is None:
            timeout = self._timeouts[timeouts] = aiohttp.ClientTimeout(
                connect=timeouts.pool,  # a free connection, then connecting
                sock_connect=timeouts.connect,
                sock_read=timeouts.read,
            )
        try:
            url = URL(request.url, encoded=request.encoded)
        except (ValueError, TypeError) as exc:
            raise InvalidURL(_said(exc)) from exc
        headers = request.headers
        # aiohttp's own headers are left out only when one is missing: telling aiohttp to
        # skip them costs every request a few copies of its headers.
        own = (
            "user-agent" not in headers
            or "accept" not in headers
            or "accept-encoding" not in headers
            or (request.body is not None and "content-type" not in headers)
        )
        try:
            upstream = await self._client().request(
                request.method,
                url,
                headers=headers,
                data=request.body,
                allow_redirects=False,
                timeout=timeout,
                server_hostname=request.server_hostname,
                skip_auto_headers=_AUTO_HEADERS if own else None,
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _transport_error(exc) from exc
        return _Received(upstream)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _Received(Answer):
    """An answer coming off a pooled connection."""

    __slots__ = ("_upstream",)

    def __init__(self, upstream: aiohttp.ClientResponse) -> None:
        super().__init__(upstream.status, upstream.headers)
        self._upstream = upstream

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._upstream.content.iter_any():
                yield chunk
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _transport_error(exc) from exc

    async def read(self, cap: int) -> bytes | None:
        # `Answer.read` without the generator between: this runs for every body.
        parts: list[bytes] = []
        size = 0
        try:
            async for chunk in self._upstream.content.iter_any():
                size += len(chunk)
                if size > cap:
                    return None
                parts.append(chunk)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _transport_error(exc) from exc
        return b"".join(parts)

    async def close(self) -> None:
        self._upstream.release()  # back to the pool if read whole, else closed (aiohttp's rule)


def _transport_error(exc: BaseException) -> TransportError:
    """aiohttp's failure as the `TransportError` whose class name callers quote (the
    message, which may hold the URL and a key, is for scrubbed logs only)."""
    said = _said(exc)
    if isinstance(exc, aiohttp.ClientConnectorError):  # refused, unresolvable, TLS refused
        return ConnectError(said)
    if isinstance(exc, TimeoutError):  # aiohttp's own timeouts are TimeoutErrors too
        connecting = isinstance(exc, aiohttp.ConnectionTimeoutError)  # or a free connection
        return ConnectTimeout(said) if connecting else ReadTimeout(said)
    if isinstance(
        exc,
        aiohttp.ClientPayloadError | aiohttp.ClientResponseError | aiohttp.ServerDisconnectedError,
    ):
        return RemoteProtocolError(said)
    if isinstance(exc, aiohttp.NonHttpUrlClientError):
        return UnsupportedProtocol(said)
    if isinstance(exc, aiohttp.InvalidURL):
        return InvalidURL(said)
    return ReadError(said)


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".rstrip(": ")
