"""Requests answered by an ASGI app in this process: the built-in offline upstream, reached
at `OFFLINE_BASE_URL` without a socket, so a keyless call costs no connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote, urlsplit

from multidict import CIMultiDict, CIMultiDictProxy

from tomtom_mcp_apps.server.outbound._messages import Answer, Request

Message = MutableMapping[str, Any]
App = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]


class InProcess:
    """Requests handed to the ASGI `app` in process; its answer is gathered whole (the
    request's deadline bounds it) and read as any other. An exception in the app is
    raised to the caller: it is a fault of this server, not of an upstream."""

    def __init__(self, app: App, *, client: tuple[str, int] = ("127.0.0.1", 123)) -> None:
        self._app = app
        self._client = client

    async def send(self, request: Request) -> Answer:
        parts = urlsplit(request.url)
        headers = [(b"host", parts.netloc.encode("ascii"))]
        headers += [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in request.headers.items()
        ]
        body = request.body
        if body is not None:
            headers.append((b"content-length", str(len(body)).encode()))
        elif request.method in ("POST", "PUT", "PATCH"):
            headers.append((b"content-length", b"0"))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": headers,
            "scheme": parts.scheme,
            "path": unquote(parts.path),
            "raw_path": parts.path.encode("ascii"),
            "query_string": parts.query.encode("ascii"),
            "server": (parts.hostname, parts.port),
            "client": self._client,
            "root_path": "",
        }
        sent = False
        done = asyncio.Event()
        status = 500
        answer_headers: list[tuple[bytes, bytes]] = []
        content: list[bytes] = []

        async def receive() -> Message:
            nonlocal sent
            if sent:  # the request was read: the client stays until the answer is whole
                await done.wait()
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body or b"", "more_body": False}

        async def send(message: Message) -> None:
            nonlocal status, answer_headers
            if message["type"] == "http.response.start":
                status = message["status"]
                answer_headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunk = message.get("body", b"")
                if chunk and request.method != "HEAD":
                    content.append(chunk)
                if not message.get("more_body", False):
                    done.set()

        await self._app(scope, receive, send)
        fields = CIMultiDict((k.decode("latin-1"), v.decode("latin-1")) for k, v in answer_headers)
        return _Gathered(status, CIMultiDictProxy(fields), b"".join(content))

    async def aclose(self) -> None:
        """Nothing to close: the app lives as long as this process."""


class _Gathered(Answer):
    """An answer whose body is already whole."""

    __slots__ = ("_body",)

    def __init__(self, status: int, headers: CIMultiDictProxy[str], body: bytes) -> None:
        super().__init__(status, headers)
        self._body = body

    async def chunks(self) -> AsyncIterator[bytes]:
        if self._body:
            yield self._body
