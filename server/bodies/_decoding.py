"""The one bounded decoding of every body read from outside: TomTom's answers of every
status, a caller's `data_url`, tiles and static maps.

Readers take a body's bytes as received, up to a cap (`server.outbound`), and hand them
here with its `Content-Encoding`: identity or one layer of gzip (`coding_of`), inflated in
steps that count the output and stop past a limit (`Inflation`), so a bomb costs its limit
and no more (docs/upstream.md, One bounded decoding). Pure and picklable; no HTTP client.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from isal import isal_zlib

from tomtom_mcp_apps.server.errors import BodyError

GZIP = "gzip"
IDENTITY = ""
STEP = 1024 * 1024
"""Output bytes per inflate call at most: large enough that the calls cost nothing, small
enough that a thread inflating gives the event loop the interpreter between calls."""
INPUT_STEP = 64 * 1024
"""Input bytes handed to each inflate call: the inflater copies what it leaves unread, so
feeding a long body whole would copy it again at every step."""


@dataclass(frozen=True)
class Origin:
    """Where a body came from, for the messages that refuse it."""

    what: str
    """The body, as a sentence starts with it: "TomTom's answer"."""
    advice: str
    """What to do about a body too large once decoded."""
    retry: str = "Try again later."
    """What to do about a broken one."""


TOMTOM = Origin("TomTom's answer", "Ask for less: fewer waypoints, alternatives or a smaller area.")
DATA_URL = Origin(
    "The data_url's body",
    "Use a smaller file or filter it first.",
    "Check the file at data_url, or pass the GeoJSON inline.",
)
TILE = Origin("TomTom's tile", "")


def coding_of(header: str, origin: Origin = TOMTOM) -> str:
    """The one content coding a `Content-Encoding` header names: `GZIP`, or `IDENTITY` for
    none. Several header lines are given joined by commas, as HTTP folds them."""
    codings = [c.strip().lower() for c in header.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return IDENTITY
    if len(codings) > 1:
        raise BodyError(
            f"{origin.what} came with {len(codings)} content codings stacked "
            f"({header.strip()[:60]}); this server decodes at most one layer of gzip, so it "
            f"refused the body. {origin.retry}"
        )
    if codings[0] in ("gzip", "x-gzip"):
        return GZIP
    raise BodyError(
        f"{origin.what} came in an unrequested encoding ({codings[0][:30]}): this server "
        f"asks for gzip and decodes that or none. {origin.retry}"
    )


class Inflation:
    """`content` (gzip members, one after another as RFC 1952 allows) inflated to at most
    `limit` bytes, in steps; `run` goes on from where it stopped."""

    def __init__(self, content: bytes, limit: int, origin: Origin = TOMTOM) -> None:
        self._content = memoryview(content)
        self._position = 0
        self._pending = b""
        self._limit = limit
        self._origin = origin
        self._inflater = isal_zlib.decompressobj(wbits=31)
        self._output: list[bytes] = []
        self.size = 0
        """Bytes inflated so far."""
        self.done = False

    def run(self, budget: int | None = None) -> bool:
        """Inflate until the body ends (True) or `budget` more bytes have come out (False;
        never more than that). Raises `BodyError` past the limit, and for truncated or
        corrupt gzip."""
        stop = self._limit + 1 if budget is None else min(self.size + budget, self._limit + 1)
        while not self.done:
            if self.size >= stop:
                if self.size > self._limit:
                    self._output.clear()
                    raise too_large(self._origin, self._limit)
                return False
            self._step(min(STEP, stop - self.size))
        return True

    def result(self) -> bytes:
        """The whole body, once `run` returned True."""
        if not self.done:
            raise RuntimeError("the inflation has not finished")
        output, self._output = self._output, []
        return b"".join(output)

    def partial(self) -> bytes:
        """What has been inflated so far."""
        return b"".join(self._output)

    def _step(self, most: int) -> None:
        """One inflate call of at most `most` bytes of output."""
        if not self._pending:
            self._pending = self._content[self._position : self._position + INPUT_STEP].tobytes()
            self._position += len(self._pending)
        try:
            chunk = self._inflater.decompress(self._pending, most)
        except isal_zlib.error:
            raise BodyError(f"{self._origin.what} is corrupt gzip. {self._origin.retry}") from None
        self._pending = self._inflater.unconsumed_tail
        self.size += len(chunk)
        self._output.append(chunk)
        if self._inflater.eof:
            self._next_member()
        elif not chunk and not self._pending and self._position >= len(self._content):
            raise BodyError(
                f"{self._origin.what} ended in the middle of its gzip stream (truncated). "
                f"{self._origin.retry}"
            )

    def _next_member(self) -> None:
        rest = self._inflater.unused_data
        tail = self._content[self._position :]
        if not rest.strip(b"\0") and not bytes(tail).strip(b"\0"):  # zero padding may follow
            self.done = True
            return
        self._pending = rest
        self._inflater = isal_zlib.decompressobj(wbits=31)


def decode(content: bytes, coding: str, limit: int, origin: Origin = TOMTOM) -> bytes:
    """`content` in `coding` (`coding_of`), decoded, at most `limit` bytes once decoded."""
    if coding == IDENTITY:
        if len(content) > limit:
            raise too_large(origin, limit)
        return content
    inflation = Inflation(content, limit, origin)
    inflation.run()
    return inflation.result()


def prefix(content: bytes, header: str, limit: int) -> bytes:
    """As much of `content` as decodes, up to `limit` bytes, whatever is wrong with it
    (an error answer read in part is a truncated stream): the start of an error answer,
    to quote. A body in a refused coding yields nothing."""
    try:
        coding = coding_of(header)
    except BodyError:
        return b""
    if coding == IDENTITY:
        return content[:limit]
    inflation = Inflation(content, limit)
    with contextlib.suppress(BodyError):
        inflation.run(budget=limit)
    return inflation.partial()


def too_large(origin: Origin, limit: int) -> BodyError:
    return BodyError(
        f"{origin.what} is larger than this server accepts ({_size(limit)} once "
        f"decompressed). {origin.advice}".rstrip()
    )


def _size(limit: int) -> str:
    return f"{limit / 2**20:.0f} MiB" if limit >= 2**20 else f"{limit:,} bytes"
