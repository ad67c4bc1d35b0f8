"""A caller's GeoJSON as received, read with its coordinates straight into numpy.

`fitting.scan_geojson` parses every coordinates array in one pass; orjson parses the rest,
each such array replaced by a stand-in string. A document this path declines is `None`,
left to the ordinary reader, which names what is wrong: this path is only ever faster,
never different. Pure and picklable, no I/O.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps import fitting

STAND_IN = "\0"
"""The first character of a stand-in string, which a caller's string cannot start with here."""


@dataclass(frozen=True)
class GeoJsonArrays:
    """A GeoJSON document (or a run of its root's features) with coordinates as arrays."""

    raw: bytes
    scan: fitting.GeoJsonScan
    values: np.ndarray
    """Every scanned number as a float64, exactly as orjson reads it."""
    document: Any
    """The parsed document, each coordinates array a stand-in (`segment`); for
    `read_features`, the list of the features read."""

    def segment_text(self, segment: int) -> bytes:
        """The caller's JSON text of coordinates array `segment`."""
        return self.raw[self.scan.segment_starts[segment] : self.scan.segment_ends[segment]]


def segment(value: Any) -> int | None:
    """The coordinates array a stand-in stands for, or None for any other value."""
    if isinstance(value, str) and value.startswith(STAND_IN):
        return int(value[1:])
    return None


def read_geojson(raw: bytes) -> GeoJsonArrays | None:
    """The whole document, or None: read it the ordinary way. None for a document holding
    `\\u0000` (a NUL reaches a caller's string only so, and stand-ins start with one), one
    the scan does not take, or one orjson refuses."""
    scan = fitting.scan_geojson(raw)
    if scan.failed:
        return None
    document = _parse(raw, scan, 0, len(raw), 0)
    if document is None:
        return None
    return GeoJsonArrays(raw, scan, fitting.scanned_values(scan, raw), document)


def root_type(raw: bytes, scan: fitting.GeoJsonScan) -> Any:
    """The root object's `"type"` as the scan found it (None when it found no string)."""
    if scan.root_type is None:
        return None
    start, end = scan.root_type
    try:
        return orjson.loads(raw[start:end])
    except orjson.JSONDecodeError:
        return None


def read_features(raw: bytes, start: int, stop: int) -> GeoJsonArrays | None:
    """Features `start` to `stop` (excluded) of a FeatureCollection, read no further into
    the bytes than their end (and the root's `"type"`), as a list in `document`; None: read
    the document the ordinary way, or it holds fewer features (the caller says which)."""
    scan = fitting.scan_geojson(raw, stop)
    if scan.failed or not scan.has_features or scan.status < stop:
        return None
    if root_type(raw, scan) != "FeatureCollection":
        return None
    if start == stop:
        features: Any = []
    else:
        low = int(scan.feature_starts[start])
        high = int(scan.feature_ends[stop - 1])
        first = int(np.searchsorted(scan.segment_starts, low))
        features = _parse(raw, scan, low, high, first, array=True)
        if features is None or len(features) != stop - start:
            return None
    return GeoJsonArrays(raw, scan, fitting.scanned_values(scan, raw), features)


def _parse(raw: bytes, scan: Any, low: int, high: int, first: int, *, array: bool = False) -> Any:
    """`raw[low:high]` parsed with the coordinates arrays from number `first` on replaced by
    stand-ins (inside `[...]` when `array`); None when orjson refuses it."""
    last = int(np.searchsorted(scan.segment_starts, high))
    starts = scan.segment_starts[first:last].tolist()
    ends = scan.segment_ends[first:last].tolist()
    texts = [raw[a:b] for a, b in zip([low, *ends], [*starts, high], strict=True)]
    stand_ins = [b'"\\u0000%d"' % k for k in range(first, last)]
    pieces = [b"["] if array else []
    pieces += itertools.chain.from_iterable(zip(texts, stand_ins, strict=False))
    pieces.append(texts[-1])
    if array:
        pieces.append(b"]")
    try:
        return orjson.loads(b"".join(pieces))
    except orjson.JSONDecodeError:
        return None
