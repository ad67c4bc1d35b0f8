"""The wire form of an envelope: JSON and its line section, then gzip, then base64.

Envelope v2 (ADR 0015): the gzip member holds the envelope's JSON, then,
when it has lines or rings, one NUL byte (never part of JSON text) and the
line section, the vertices of every line and ring as zigzag varint deltas
(`_varint`). A geometry names its bytes there with `"e5v"` (`[start, end]`
per part, nested like coordinates) and, when its vertices are multiples of
q > 1 e5 steps, `"q"`. Version 1 (no line section, `"e5"` integer arrays
in the JSON) is still read, as replicas may send it during a rolling update.

Gzip is ISA-L at level 2 (ADR 0011): about ten times faster than zlib's
default level for a few percent more bytes, and the budget search encodes
several candidates per fit. The JSON and the line section are deflated as
two streams of one gzip member (`Member`, ADR 0018): the JSON's ends in a
sync flush (byte-aligned, not final), the section's follows it, so a fit
re-deflates only the small JSON when its report changes, and each gets a
Huffman code of its own. Output is standard gzip (RFC 1952) that any
inflater, including the browser's DecompressionStream, reads.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import struct
import zlib
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
import orjson
from isal import isal_zlib

from . import _varint
from ._exceptions import FittingError

VERSION = 2
GZIP_LEVEL = 2
SEPARATOR = b"\0"
_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
# RFC 1952: magic, deflate, no flags, mtime 0, no extra flags, OS unknown (as isal writes it).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_GZIP_TRAILER = 8  # CRC-32 and ISIZE
FRAMING = len(_GZIP_HEADER) + _GZIP_TRAILER  # a member's bytes beyond its deflate streams
RAW_DEFLATE = -15  # wbits: a deflate stream with no zlib or gzip framing


def envelope(tool: str, data: Any) -> dict[str, Any]:
    """The envelope (docs/architecture.md) around `tool`'s widget `data`, not fitted yet."""
    return {"v": VERSION, "tool": tool, "data": data, "fitted": None}


def dumps(envelope: dict[str, Any]) -> bytes:
    """Compact JSON; numpy int64 e5 arrays are written natively by orjson."""
    try:
        return orjson.dumps(envelope, option=_JSON_OPTIONS)
    except TypeError as exc:
        raise FittingError(f"the app data cannot be written as JSON: {exc}") from None


class Deflated(NamedTuple):
    """A line section deflated on its own (RFC 1951, ending in a final block)."""

    data: bytes
    crc: int  # CRC-32 of the section
    size: int  # the section's bytes


def deflate(section: np.ndarray) -> Deflated:
    """The line section (uint8) as a deflate stream of its own."""
    compressor = isal_zlib.compressobj(GZIP_LEVEL, isal_zlib.DEFLATED, RAW_DEFLATE)
    data = compressor.compress(section) + compressor.flush(isal_zlib.Z_FINISH)
    return Deflated(data, isal_zlib.crc32(section), int(section.shape[0]))


def deflate_within(pieces: Iterable[np.ndarray], limit: int) -> tuple[Deflated | None, int, int]:
    """The section given in pieces, deflated, if at most `limit` bytes; else None.

    Each piece ends in a sync flush, so the output so far is known after every
    piece, and the stream stops (the rest of `pieces` never produced) once it
    passes `limit`: deflate output only grows, so a long line that cannot go
    as is costs a fraction of its encoding and compression. Returns (the
    section or None, bytes of output, pieces read).
    """
    compressor = isal_zlib.compressobj(GZIP_LEVEL, isal_zlib.DEFLATED, RAW_DEFLATE)
    out: list[bytes] = []
    crc = size = written = read = 0
    for piece in pieces:
        out.append(compressor.compress(piece))
        out.append(compressor.flush(isal_zlib.Z_SYNC_FLUSH))
        crc = isal_zlib.crc32(piece, crc)
        size += piece.shape[0]
        written += len(out[-1]) + len(out[-2])
        read += 1
        if written > limit:
            return None, written, read
    out.append(compressor.flush(isal_zlib.Z_FINISH))
    data = b"".join(out)
    return (Deflated(data, crc, size) if len(data) <= limit else None), len(data), read


class Member:
    """One gzip member: the envelope's JSON, then, with lines, a NUL and the deflated section.

    The JSON is deflated here, ending in a sync flush when a section follows:
    the section's own stream then starts byte-aligned, and is kept unchanged
    when only the JSON (a fit's report) changes.
    """

    def __init__(self, head: bytes, lines: Deflated | None = None) -> None:
        self._head = head
        self._lines = lines
        compressor = isal_zlib.compressobj(GZIP_LEVEL, isal_zlib.DEFLATED, RAW_DEFLATE)
        if lines is None:
            self._deflated = compressor.compress(head) + compressor.flush(isal_zlib.Z_FINISH)
        else:
            self._deflated = compressor.compress(head + SEPARATOR) + compressor.flush(
                isal_zlib.Z_SYNC_FLUSH
            )

    def __len__(self) -> int:
        """Bytes of the member, without writing it."""
        lines = len(self._lines.data) if self._lines is not None else 0
        return FRAMING + len(self._deflated) + lines

    def chars(self) -> int:
        """Characters of its base64 text."""
        return base64_length(len(self))

    def tobytes(self) -> bytes:
        crc = isal_zlib.crc32(self._head)
        size = len(self._head)
        tail = b""
        if self._lines is not None:
            crc = isal_zlib.crc32(SEPARATOR, crc)
            crc = isal_zlib.crc32_combine(crc, self._lines.crc, self._lines.size)
            size += 1 + self._lines.size
            tail = self._lines.data
        trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
        return b"".join((_GZIP_HEADER, self._deflated, tail, trailer))

    def text(self) -> str:
        """The member as base64 text, as `_meta` carries it."""
        return to_text(self.tobytes())


def base64_length(size: int) -> int:
    """Characters of the base64 text of `size` bytes, without encoding them."""
    return 4 * ((size + 2) // 3)


def to_text(compressed: bytes) -> str:
    return base64.b64encode(compressed).decode("ascii")


def decode(app_data: str) -> dict[str, Any]:
    """base64 -> gunzip -> JSON envelope (v1 or v2), lines as v1 `"e5"` integer deltas.

    A v2 line section is read into the geometries that point at it: each gets
    `"e5"` lists in e5 steps (q applied) in place of `"e5v"` and `"q"`, so
    `to_geojson` and every reader of v1 read both versions.
    """
    try:
        raw = gzip.decompress(base64.b64decode(app_data, validate=True))
        head, separator, lines = raw.partition(SEPARATOR)
        envelope = orjson.loads(head)
    except (binascii.Error, OSError, EOFError, zlib.error, orjson.JSONDecodeError) as exc:
        raise FittingError(f"not app data (base64 of gzip of JSON): {exc}") from None
    if not isinstance(envelope, dict):
        raise FittingError("not app data: the JSON is not an envelope object")
    if separator:
        _read_lines(envelope, np.frombuffer(lines, dtype=np.uint8))
    return envelope


def _read_lines(envelope: dict[str, Any], lines: np.ndarray) -> None:
    data = envelope.get("data")
    features = data.get("features") if isinstance(data, dict) else None
    if not isinstance(features, list):
        raise FittingError("not app data: a line section but no features to hold its lines")
    for i, feature in enumerate(features):
        geometry = feature.get("geometry") if isinstance(feature, dict) else None
        if not isinstance(geometry, dict) or "e5v" not in geometry:
            continue
        q = geometry.pop("q", 1)
        depth = _DEPTH.get(geometry.get("type"))
        if depth is None or isinstance(q, bool) or not isinstance(q, int) or q < 1:
            raise FittingError(f"not app data: features[{i}] has a bad e5v geometry")
        geometry["e5"] = _ranges(geometry.pop("e5v"), depth, lines, q, f"features[{i}]")


def _ranges(node: Any, depth: int, lines: np.ndarray, q: int, where: str) -> list[Any]:
    if not isinstance(node, list):
        raise FittingError(f"not app data: {where}.e5v is not a list")
    if depth:
        return [_ranges(part, depth - 1, lines, q, f"{where}[{i}]") for i, part in enumerate(node)]
    if len(node) != 2 or not all(type(v) is int for v in node):
        raise FittingError(f"not app data: {where}.e5v is not a [start, end] byte range")
    flat = _varint.decode(lines, node[0], node[1])
    if isinstance(flat, str):
        raise FittingError(f"not app data: {where}.e5v: {flat}")
    return (flat * q).tolist() if q != 1 else flat.tolist()


def to_geojson(geometry: dict[str, Any]) -> dict[str, Any]:
    """An e5 geometry as GeoJSON with float coordinates; other geometries unchanged."""
    if "e5" not in geometry:
        return geometry
    out = {k: v for k, v in geometry.items() if k != "e5"}
    out["coordinates"] = _positions(geometry["e5"], _DEPTH[geometry["type"]])
    return out


_DEPTH = {"LineString": 0, "MultiLineString": 1, "Polygon": 1, "MultiPolygon": 2}


def _positions(e5: Any, depth: int) -> list[Any]:
    if depth:
        return [_positions(part, depth - 1) for part in e5]
    flat = np.asarray(e5, dtype=np.int64).reshape(-1, 2)
    return np.round(np.cumsum(flat, axis=0) / 1e5, 5).tolist()
