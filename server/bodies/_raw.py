"""A TomTom answer as it came off the wire, and its decoding into JSON.

The TomTom client asks for gzip and keeps bodies as received (`RawBody`), so a
long route crosses the event loop as a few compressed megabytes and is
decompressed and parsed where it is used: in a fitting worker for long routes
(`server.jobs`), inline for small answers (`server.pool.Placement` decides).
Decompression streams into a bounded output: a body that inflates past its `limit`
(a gzip bomb) is refused once the limit is passed, never inflated whole, and a
truncated or corrupt stream is a clear error. Picklable, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from isal import igzip, isal_zlib

from server.errors import BodyError

T = TypeVar("T")

MAX_DECODED_BYTES = 64 * 1024 * 1024
"""Default cap on a body once decompressed (`TOMTOM_MAX_DECODED_BYTES`; sized in
docs/adr/0054-upstream-answer-bounds.md)."""

GZIP_REQUEST_BYTES = 64 * 1024
"""Request bodies this large go gzipped: searchAlongRoute's body is a whole route, and
TomTom accepts `Content-Encoding: gzip` for it (docs/adr/0009-gzipped-request-bodies.md)."""

ACCEPT_ENCODING = "gzip"
"""The only content coding requested, so the only one to decode besides identity."""


@dataclass(frozen=True)
class RawBody:
    content: bytes
    encoding: str = ""
    """The response's Content-Encoding, lower case; "" when none."""
    limit: int = MAX_DECODED_BYTES
    """Bytes the body may hold once decoded; past them `decoded` refuses it."""

    @property
    def gzipped(self) -> bool:
        return self.encoding in ("gzip", "x-gzip")

    @property
    def size(self) -> int:
        """Bytes once decoded, read from the gzip trailer (ISIZE) without decompressing."""
        if self.gzipped and len(self.content) >= 18:
            return int.from_bytes(self.content[-4:], "little")
        return len(self.content)

    def decoded(self) -> bytes:
        if self.encoding in ("", "identity"):
            if len(self.content) > self.limit:
                raise _too_large(self.limit)
            return self.content
        if not self.gzipped:
            raise BodyError(f"TomTom answered in an unrequested encoding ({self.encoding}).")
        return _inflate(self.content, self.limit)


def _inflate(content: bytes, limit: int) -> bytes:
    """Every gzip member of `content`, decompressed, at most `limit` bytes in all."""
    out: list[bytes] = []
    size = 0
    rest = content
    while True:
        inflater = isal_zlib.decompressobj(wbits=31)
        try:
            chunk = inflater.decompress(rest, limit - size + 1)
        except isal_zlib.error:
            raise BodyError("TomTom answered with a corrupt gzip body. Try again later.") from None
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        out.append(chunk)
        if not inflater.eof:
            raise BodyError(
                "TomTom's answer ended in the middle of its gzip stream (truncated). "
                "Try again later."
            )
        rest = inflater.unused_data
        if not rest.strip(b"\0"):  # gzip allows trailing zero padding
            return b"".join(out)


def _too_large(limit: int) -> BodyError:
    return BodyError(
        f"TomTom's answer is larger than this server accepts ({limit / 2**20:.0f} MiB once "
        "decompressed). Ask for less: fewer waypoints, alternatives or a smaller area."
    )


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
