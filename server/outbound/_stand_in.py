"""Tests' stand-ins: an httpx transport (`MockTransport`, `ASGITransport`) in place of a
destination, so that a test speaks to the server in httpx's terms while the server keeps
one HTTP client of its own. Only tests hand one over; a replica never loads this module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from multidict import CIMultiDict, CIMultiDictProxy

from tomtom_mcp_apps.server import errors
from tomtom_mcp_apps.server.outbound._messages import Answer, Request

_SAME_NAME: dict[str, type[errors.TransportError]] = {
    cls.__name__: cls
    for cls in (
        errors.ConnectError,
        errors.ConnectTimeout,
        errors.ReadTimeout,
        errors.ReadError,
        errors.RemoteProtocolError,
        errors.UnsupportedProtocol,
        errors.InvalidURL,
    )
}


class StandIn:
    """Requests handed to an httpx transport, its answers and failures as the network's."""

    def __init__(self, transport: httpx.AsyncBaseTransport) -> None:
        self._transport = transport

    async def send(self, request: Request) -> Answer:
        extensions: dict[str, object] = {}
        if request.timeouts is not None:
            t = request.timeouts
            extensions["timeout"] = {"connect": t.connect, "read": t.read, "pool": t.pool}
        if request.server_hostname is not None:
            extensions["sni_hostname"] = request.server_hostname
        try:
            outgoing = httpx.Request(
                request.method,
                request.url,
                headers=dict(request.headers),
                content=request.body,
                extensions=extensions,
            )
            response = await self._transport.handle_async_request(outgoing)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _as_transport_error(exc) from exc
        return _StoodIn(response)

    async def aclose(self) -> None:
        await self._transport.aclose()


class _StoodIn(Answer):
    """A stand-in's answer. A body the stand-in already read (`Response(content=...)`) was
    decoded by httpx on the spot: it comes without its `Content-Encoding`."""

    __slots__ = ("_response",)

    def __init__(self, response: httpx.Response) -> None:
        items = response.headers.multi_items()
        if response.is_stream_consumed:
            items = [(k, v) for k, v in items if k != "content-encoding"]
        super().__init__(response.status_code, CIMultiDictProxy(CIMultiDict(items)))
        self._response = response

    async def chunks(self) -> AsyncIterator[bytes]:
        if self._response.is_stream_consumed:
            if self._response.content:
                yield self._response.content
            return
        try:
            async for chunk in self._response.aiter_raw():
                yield chunk
        except httpx.HTTPError as exc:
            raise _as_transport_error(exc) from exc

    async def close(self) -> None:
        await self._response.aclose()


def _as_transport_error(exc: Exception) -> errors.TransportError:
    """httpx's failure as the `TransportError` of the same name (else of its kind)."""
    cls = _SAME_NAME.get(type(exc).__name__)
    if cls is None:
        if isinstance(exc, httpx.TimeoutException):
            cls = errors.ReadTimeout
        elif isinstance(exc, httpx.ProtocolError):
            cls = errors.RemoteProtocolError
        else:
            cls = errors.ReadError
    return cls(str(exc))
