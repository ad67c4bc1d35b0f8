"""The wire form of an envelope: its JSON, then a NUL and a binary section, gzipped, then base64.

Writes envelopes v2 (line section, `_varint`) and v3 (decimal section, `_decimals`) and
reads v1 to v3 (docs/result.md). The output is plain gzip (RFC 1952) that any inflater,
the browser's DecompressionStream included, reads.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import struct
import zlib
from typing import Any

import numpy as np
import orjson
from isal import isal_zlib

from . import _decimals, _varint
from ._exceptions import FittingError
from ._geojson_scan import SHAPES
from ._huffman import Section

VERSION = 2
DECIMAL_VERSION = 3
"""The envelope version whose section holds exact decimal varints (data-viz pages)."""
GZIP_LEVEL = 2
SEPARATOR = b"\0"
_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
# RFC 1952: magic, deflate, no flags, mtime 0, no extra flags, OS unknown (as isal writes it).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_GZIP_TRAILER = 8  # CRC-32 and ISIZE
FRAMING = len(_GZIP_HEADER) + _GZIP_TRAILER  # a member's bytes beyond its deflate streams
RAW_DEFLATE = -15  # wbits: a deflate stream with no zlib or gzip framing


def envelope(tool: str, data: Any) -> dict[str, Any]:
    """The envelope (docs/result.md) around `tool`'s widget `data`, not fitted yet."""
    return {"v": VERSION, "tool": tool, "data": data, "fitted": None}


def dumps(envelope: dict[str, Any]) -> bytes:
    """Compact JSON; numpy int64 e5 arrays are written natively by orjson."""
    try:
        return orjson.dumps(envelope, option=_JSON_OPTIONS)
    except TypeError as exc:
        raise FittingError(f"the app data cannot be written as JSON: {exc}") from None


class Member:
    """One gzip member: the envelope's JSON, then, with lines, a NUL and the coded section.

    The JSON is deflated here (ISA-L), ending in a sync flush when a section
    follows: the section's own stream (`_huffman`) then starts byte-aligned,
    and is kept unchanged when only the JSON (a fit's report) changes.
    """

    def __init__(self, head: bytes, lines: Section | None = None) -> None:
        self._head = head
        self._lines = lines
        self._pad = 0
        compressor = isal_zlib.compressobj(GZIP_LEVEL, isal_zlib.DEFLATED, RAW_DEFLATE)
        if lines is None:
            self._deflated = compressor.compress(head) + compressor.flush(isal_zlib.Z_FINISH)
        else:
            self._deflated = compressor.compress(head + SEPARATOR) + compressor.flush(
                isal_zlib.Z_SYNC_FLUSH
            )

    def pad(self, extra: int) -> Member:
        """The same member with an empty gzip extra field of `extra` bytes (0, or 2 and
        more: RFC 1952 FEXTRA, skipped by every reader). A fit's report counts the text's
        characters; where that count and the length it deflates to cycle (base64 moves in
        steps of 4), a pad gives the text the length the report says."""
        if extra == 1 or extra < 0 or extra > 2 + 0xFFFF:
            raise ValueError(f"a gzip extra field takes 0 or 2 to 65,537 bytes, not {extra}")
        self._pad = extra
        return self

    def __len__(self) -> int:
        """Bytes of the member, without writing it."""
        lines = self._lines.length if self._lines is not None else 0
        return FRAMING + self._pad + len(self._deflated) + lines

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
        header = _GZIP_HEADER
        if self._pad:  # FLG.FEXTRA, then XLEN and that many zero bytes
            extra = self._pad - 2
            header = _GZIP_HEADER[:3] + b"\x04" + _GZIP_HEADER[4:] + struct.pack("<H", extra)
            header += bytes(extra)
        return b"".join((header, self._deflated, tail, trailer))

    def text(self) -> str:
        """The member as base64 text, as `_meta` carries it."""
        return to_text(self.tobytes())


def pack(head: bytes, section: np.ndarray) -> Member:
    """The member of `head` (an envelope's JSON) and `section` (uint8, none when empty)."""
    return Member(head, Section(section) if len(section) else None)


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
    if separator and envelope.get("v") == DECIMAL_VERSION:
        _read_decimals(envelope, np.frombuffer(lines, dtype=np.uint8))
    elif separator:
        _read_lines(envelope, np.frombuffer(lines, dtype=np.uint8))
    return envelope


def _read_decimals(envelope: dict[str, Any], section: np.ndarray) -> None:
    """Every `"dv"` geometry of a v3 envelope given its `"coordinates"`, in order."""
    data = envelope.get("data")
    features = data.get("features") if isinstance(data, dict) else None
    if not isinstance(features, list):
        raise FittingError("not app data: a section but no features to hold its coordinates")
    try:
        reader = _decimals.Reader(section)
        for feature in features:
            geometry = feature.get("geometry") if isinstance(feature, dict) else None
            if not isinstance(geometry, dict) or "dv" not in geometry:
                continue
            decimals, dims = geometry.pop("dv")
            depth = SHAPES[geometry["type"]][0]
            geometry["coordinates"] = reader.geometry(depth, decimals, dims)
        if not reader.done:
            raise ValueError("the section holds more than its geometries")
    except (ValueError, KeyError, TypeError) as exc:
        raise FittingError(f"not app data: its decimal section: {exc}") from None


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


def point_run(lonlat: np.ndarray) -> tuple[dict[str, Any], np.ndarray]:
    """Points ((n, 2) degrees, n >= 2) as one v2 line part, every point kept and none
    merged: `({"type": "LineString", "e5v": [0, end]}, section)`. Readers of v2 give the
    points back, in order, at 1e-5 degrees: a compact way to send many positions (a
    batch's geocoded rows) that are not a line, and must never be simplified."""
    e5 = np.round(np.asarray(lonlat, dtype=np.float64) * 1e5).astype(np.int64)
    if e5.ndim != 2 or e5.shape[0] < 2 or e5.shape[1] != 2:
        raise FittingError("a point run needs two or more [lon, lat] pairs")
    if not (np.abs(e5[:, 0]) <= 18_000_000).all() or not (np.abs(e5[:, 1]) <= 9_000_000).all():
        raise FittingError("a point run's positions must lie within [-180, 180] x [-90, 90]")
    n = e5.shape[0]
    section, _ = _varint.encode(e5, np.arange(n, dtype=np.int64), np.array([0, n], np.int64))
    return {"type": "LineString", "e5v": [0, int(section.shape[0])]}, section
