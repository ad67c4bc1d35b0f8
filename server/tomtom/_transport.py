"""TomTom's API over aiohttp's connection pool, behind httpx's transport interface.

httpcore's pure-Python HTTP/1.1 (h11) cost a short route's request about 0.5 ms of CPU
on the event loop, aiohttp's C parser about 0.15: the gap that took the tiles to aiohttp
(docs/adr/0061). The client keeps its one interface, `httpx.AsyncBaseTransport`, so
the offline upstream's `httpx.ASGITransport` and the tests' `httpx.MockTransport` stand
in for this one unchanged (docs/adr/0102).

What the client relies on, kept here:

- bodies as received (`auto_decompress=False`), read chunk by chunk as they arrive, so
  `server.bodies` bounds and decodes them; a body not read to its end (an error answer's
  quoted start) closes its connection instead of going back to the pool;
- the URL sent as built (`encoded=True`: the query is encoded once, by the client);
- no header of aiohttp's own beside the request's (no default User-Agent or
  Accept-Encoding);
- the request's httpx timeouts (its `timeout` extension) as aiohttp's;
- the certificate authorities httpx trusts (`httpx.create_ssl_context`);
- every failure as the httpx exception it is: a refused or unresolvable connection
  `ConnectError`, a timeout `ConnectTimeout`/`ReadTimeout`, an answer that breaks
  HTTP or ends early `RemoteProtocolError`, anything else on the socket `ReadError`.
  (httpx-aiohttp, the library for this, reports a refused connection and one dropped
  mid-answer as a `ConnectTimeout`, which the model would read as "did not answer in
  time", and lets other aiohttp errors through as they are.)
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import aiohttp
import httpx
from yarl import URL

KEEPALIVE_S = 4.0
"""Under the 5 s idle timeout of uvicorn and many proxies: a request sent on a connection
the other side is closing fails, and a billed call is never retried."""
_AUTO_HEADERS = ("User-Agent", "Accept-Encoding", "Accept", "Content-Type")
"""Headers aiohttp would add by itself: each request carries its own or none."""


def tomtom_connector(connections: int) -> aiohttp.TCPConnector:
    """A keep-alive pool of at most `connections` connections to TomTom, trusting the
    certificate authorities httpx trusts (certifi, `SSL_CERT_FILE`): API calls' and
    tiles' alike. Made inside the running loop."""
    return aiohttp.TCPConnector(
        limit=connections,
        keepalive_timeout=KEEPALIVE_S,
        enable_cleanup_closed=True,
        ssl=httpx.create_ssl_context(),
    )


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Requests over one aiohttp pool of at most `connections` connections, made on the
    first request (inside the running loop)."""

    def __init__(self, connections: int) -> None:
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=tomtom_connector(self._connections),
                auto_decompress=False,
                skip_auto_headers=_AUTO_HEADERS,
                timeout=aiohttp.ClientTimeout(),  # each request brings its own
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        timeout = aiohttp.ClientTimeout(
            connect=timeouts.get("pool"),  # a free connection, then connecting
            sock_connect=timeouts.get("connect"),
            sock_read=timeouts.get("read"),
        )
        headers = [(name, value) for name, value in request.headers.items() if name != "host"]
        with _as_httpx_errors():
            upstream = await self._client().request(
                request.method,
                URL(str(request.url), encoded=True),
                headers=headers,
                data=request.content or None,
                allow_redirects=False,
                timeout=timeout,
            )
        return httpx.Response(
            upstream.status,
            headers=upstream.raw_headers,
            stream=_Body(upstream),
            request=request,
            extensions={"http_version": b"HTTP/1.1"},
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _Body(httpx.AsyncByteStream):
    """An answer's body as it arrives; closing it frees or closes its connection."""

    def __init__(self, upstream: aiohttp.ClientResponse) -> None:
        self._upstream = upstream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for chunk in self._upstream.content.iter_any():
                yield chunk

    async def aclose(self) -> None:
        self._upstream.release()  # back to the pool if read whole, else closed (aiohttp's rule)


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    """aiohttp's failures in the block as httpx's, whose type name the model reads (the
    message, which may quote the URL and its key, goes to the log scrubbed)."""
    try:
        yield
    except aiohttp.ClientConnectorError as exc:
        raise httpx.ConnectError(_said(exc)) from exc
    except TimeoutError as exc:  # aiohttp's own timeouts are TimeoutErrors too
        if isinstance(exc, aiohttp.ConnectionTimeoutError):  # a connection, or a free one
            raise httpx.ConnectTimeout(_said(exc)) from exc
        raise httpx.ReadTimeout(_said(exc)) from exc
    except (
        aiohttp.ClientPayloadError,
        aiohttp.ClientResponseError,
        aiohttp.ServerDisconnectedError,
    ) as exc:
        raise httpx.RemoteProtocolError(_said(exc)) from exc
    except aiohttp.ClientError as exc:
        raise httpx.ReadError(_said(exc)) from exc


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".rstrip(": ")
