"""A TomTom answer as it came off the wire, and its decoding into JSON.

The TomTom client asks for gzip and keeps bodies as received (`RawBody`), so a
long route crosses the event loop as a few compressed megabytes and is
decompressed and parsed where it is used: in a fitting worker for long routes
(`server.jobs`), inline for small answers (`server.pool.Placement` decides).
Picklable, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from isal import igzip, isal_zlib

from server.errors import JobError

GZIP_REQUEST_BYTES = 64 * 1024
"""Request bodies this large go gzipped: searchAlongRoute's body is a whole route, and
TomTom accepts `Content-Encoding: gzip` for it (docs/adr/0009-gzipped-request-bodies.md)."""

ACCEPT_ENCODING = "gzip"
"""The only content coding requested, so the only one to decode besides identity."""


class BodyError(JobError):
    """The body is not JSON of the expected shape (the message is for the model)."""


@dataclass(frozen=True)
class RawBody:
    content: bytes
    encoding: str = ""
    """The response's Content-Encoding, lower case; "" when none."""

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
            return self.content
        if not self.gzipped:
            raise BodyError(f"TomTom answered in an unrequested encoding ({self.encoding}).")
        try:
            return igzip.decompress(self.content)
        except (OSError, EOFError, isal_zlib.error):
            raise BodyError("TomTom answered with a corrupt gzip body. Try again later.") from None


def request_body(payload: bytes) -> RawBody:
    """`payload` as it will go on the wire: gzipped (ISA-L, level 1) when large."""
    if len(payload) < GZIP_REQUEST_BYTES:
        return RawBody(payload)
    return RawBody(igzip.compress(payload, 1), "gzip")


def loads(raw: RawBody, parse: Callable[[bytes], Any] = orjson.loads) -> dict[str, Any]:
    """The JSON object in `raw`, parsed by `parse` (the route fast path for routes)."""
    try:
        body = parse(raw.decoded())
    except orjson.JSONDecodeError:
        raise BodyError("TomTom answered with a body that is not JSON. Try again later.") from None
    if not isinstance(body, dict):
        raise BodyError("TomTom answered with an unexpected JSON shape.")
    return body
