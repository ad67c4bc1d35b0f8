"""A request as the seam sends it, an answer as it comes back, and what carries one to
the other (`Transport`): the one shape every destination's transport fits."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from multidict import CIMultiDictProxy

Headers = CIMultiDictProxy[str]
"""An answer's headers: case-insensitive, repeated names kept (`getall`)."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long each step of one request may take, in seconds (None: unbounded). The
    whole request's deadline is the caller's (`Client.request(deadline_s=...)`)."""

    connect: float | None = None
    """Opening a connection (TCP and TLS)."""
    pool: float | None = None
    """Waiting for a free connection of the pool, then opening it."""
    read: float | None = None
    """Between two reads of the answer."""

    @classmethod
    def within(cls, deadline_s: float, *, connect_s: float = 5.0) -> Timeouts:
        """Every step within `deadline_s`, connecting within `connect_s` besides."""
        return cls(connect=min(connect_s, deadline_s), pool=deadline_s, read=deadline_s)


@dataclass(slots=True)
class Request:
    """One request as it goes out (not frozen: a frozen dataclass costs every request's
    making a few microseconds)."""

    method: str
    url: str
    """With its query; already encoded when `encoded` (sent byte for byte)."""
    headers: Mapping[str, str]
    """Every header sent: the transport adds only `Host` (and a body's length)."""
    body: bytes | None = None
    timeouts: Timeouts | None = None
    encoded: bool = False
    server_hostname: str | None = None
    """The name TLS presents and checks when the URL names an address (a pinned
    `data_url`); the `Host` header then comes in `headers`."""


class Answer:
    """An answer's status and headers, and its body read as received (never decoded:
    `server.bodies` decodes). Closing it gives its connection back to the pool when the
    body was read to its end, and closes the connection otherwise."""

    __slots__ = ("headers", "status")

    def __init__(self, status: int, headers: Headers) -> None:
        self.status = status
        self.headers = headers

    def header(self, name: str) -> str:
        """Every value of header `name`, joined by ", " as HTTP folds them ("" if absent)."""
        return ", ".join(self.headers.getall(name, ()))

    def chunks(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive."""
        raise NotImplementedError

    async def read(self, cap: int) -> bytes | None:
        """The whole body as received, or None as soon as it passes `cap` bytes (the
        reader then says so in its own words; the rest is never read)."""
        parts: list[bytes] = []
        size = 0
        async with contextlib.aclosing(self.chunks()) as chunks:
            async for chunk in chunks:
                size += len(chunk)
                if size > cap:
                    return None
                parts.append(chunk)
        return b"".join(parts)

    async def read_start(self, size: int) -> bytes:
        """The body's first `size` bytes as received (fewer if it is shorter): the start
        of an error answer, to quote."""
        parts: list[bytes] = []
        got = 0
        async with contextlib.aclosing(self.chunks()) as chunks:
            async for chunk in chunks:
                parts.append(chunk)
                got += len(chunk)
                if got >= size:
                    break
        return b"".join(parts)[:size]

    async def close(self) -> None:
        """Frees the answer's connection (`Client.request` does it at the block's end)."""


class Transport(Protocol):
    """What carries requests to one destination: the network's pool (`Network`), an
    ASGI app in process (`InProcess`), or a test's stand-in (`transport`)."""

    async def send(self, request: Request) -> Answer:
        """The answer's status and headers; its body is read from the `Answer`. Raises a
        `server.errors.TransportError` when no answer comes."""
        ...

    async def aclose(self) -> None:
        """Closes its connections; requests then fail."""
        ...
