"""A TomTom answer as it came off the wire (`RawBody`), decoded into JSON where it is used.

The client keeps bodies as received, so a long route crosses the event loop as compressed
bytes and is decoded in a fitting worker, a short one on the loop (`server.pool.Placement`),
always by `_decoding.py`'s bounded decoding. Picklable, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import orjson
from isal import igzip

from tomtom_mcp_apps.server.bodies._decoding import (
    GZIP,
    IDENTITY,
    TOMTOM,
    Inflation,
    coding_of,
    decode,
)
from tomtom_mcp_apps.server.errors import BodyError

T = TypeVar("T")

MAX_DECODED_BYTES = 64 * 1024 * 1024
"""Default cap on a body once decompressed (`TOMTOM_MAX_DECODED_BYTES`; sized in
docs/upstream.md, Bounds on an answer)."""

GZIP_REQUEST_BYTES = 64 * 1024
"""Request bodies this large go gzipped: searchAlongRoute's body is a whole route, and
TomTom accepts `Content-Encoding: gzip` for it."""

ACCEPT_ENCODING = GZIP
"""The only content coding requested, so the only one to decode besides identity."""


@dataclass(frozen=True)
class RawBody:
    content: bytes
    encoding: str = IDENTITY
    """The response's content coding: `GZIP` or `IDENTITY` (`received` checks the header)."""
    limit: int = MAX_DECODED_BYTES
    """Bytes the body may hold once decoded; past them `decoded` refuses it."""
    floor: int = 0
    """Bytes it holds at least once decoded, whatever its gzip trailer claims: the loop
    inflated that much of it before handing it on (`settled`)."""
    status: int = 200
    """The HTTP status it came with: a success, or an asynchronous job's "not yet" (202)
    or "look there" (303) for the asynchronous flows (docs/upstream.md)."""
    location: str = ""
    """The answer's `Location` header, as sent: where an asynchronous job's result is."""

    @classmethod
    def received(
        cls,
        content: bytes,
        header: str,
        limit: int = MAX_DECODED_BYTES,
        *,
        status: int = 200,
        location: str = "",
    ) -> RawBody:
        """A body as read off the wire with its `Content-Encoding` header (and, for the
        asynchronous flows, its status and `Location`); `BodyError` for a coding this
        server does not decode (stacked, or unknown)."""
        return cls(content, coding_of(header), limit, status=status, location=location)

    @property
    def gzipped(self) -> bool:
        return self.encoding.strip().lower() in ("gzip", "x-gzip")

    @property
    def size(self) -> int:
        """Bytes once decoded, as far as is known without decompressing: the gzip trailer's
        claim (ISIZE), never less than `floor`. Only a hint for a gzip body: its sender
        wrote the trailer, so nothing may trust it with more than a queue position."""
        if self.gzipped and len(self.content) >= 18:
            return max(int.from_bytes(self.content[-4:], "little"), self.floor)
        return max(len(self.content), self.floor)

    def decoded(self) -> bytes:
        return decode(self.content, coding_of(self.encoding), self.limit, TOMTOM)

    def settled(self, budget: int) -> RawBody:
        """This body decoded, when it claims fewer than `budget` bytes and holds fewer; else
        itself, with a `floor` of at least `budget` if it claimed less: a body whose trailer
        lies costs whoever settles it `budget` bytes of inflation, then goes where large
        ones go (`server.pool.Placement`)."""
        if not self.gzipped or self.size >= budget:
            return self
        inflation = Inflation(self.content, self.limit, TOMTOM)
        if inflation.run(budget=budget) and inflation.size < budget:
            return replace(self, content=inflation.result(), encoding=IDENTITY)
        return replace(self, floor=max(inflation.size, budget))


def request_body(payload: bytes) -> RawBody:
    """`payload` as it will go on the wire: gzipped (ISA-L, level 1) when large."""
    if len(payload) < GZIP_REQUEST_BYTES:
        return RawBody(payload)
    return RawBody(igzip.compress(payload, 1), "gzip")


def loads(raw: RawBody, parse: Callable[[bytes], Any] = orjson.loads) -> dict[str, Any]:
    """The JSON object in `raw`, parsed by `parse` (the route fast path for routes)."""
    return json_object(parsed(raw, parse))


def parsed(raw: RawBody, parse: Callable[[bytes], T]) -> T:
    """`parse` of `raw` decoded; a body that is not JSON is a `BodyError`."""
    try:
        return parse(raw.decoded())
    except orjson.JSONDecodeError:
        raise BodyError("TomTom answered with a body that is not JSON. Try again later.") from None


def json_object(body: Any) -> dict[str, Any]:
    """`body`, which must be a JSON object (a `BodyError` else)."""
    if not isinstance(body, dict):
        raise BodyError("TomTom answered with an unexpected JSON shape.")
    return body
