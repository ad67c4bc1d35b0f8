"""Caller coordinates as exact decimal varints: the section of envelope v3 (docs/result.md).

Data-viz data is never altered, so its coordinates are not rounded to e5 steps: a geometry
whose numbers all have at most `d` decimals is sent as the integers n = value x 10^d, and
the view's n / 10^d is bit for bit the number the caller's JSON gives.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._geojson_scan import POW10, SIMPLE, Scan

MAX_DECIMALS = 22
"""10^22 is the largest power of ten that is an exact double."""
MAX_UNITS = 1 << 51
"""|n| below this: a difference of two is below 2^52, its zigzag below 2^53, so the view
adds and divides exact integers with doubles."""
MAX_BYTES = 8
"""Bytes of a varint here: 7 bits each hold any zigzag value below 2^56."""
NOT_SENT = -1
"""`decimals` of a geometry that keeps its JSON text."""


def encode(scan: Scan, segments: np.ndarray, depths: np.ndarray):
    """The section for geometries `segments` of `scan` (each conforming to its depth in
    `depths`: 0 for a Point, 1 LineString or MultiPoint, 2 Polygon or MultiLineString,
    3 MultiPolygon). Returns (uint8 section, decimals per geometry (`NOT_SENT`: its JSON
    stays), dims per geometry).

    Geometry after geometry, the section holds the nesting's counts as unsigned LEB128
    varints in the order a reader meets them (a MultiPolygon's polygons, then the first
    polygon's rings, its first ring's positions...; a Point has none), then each
    position's `dims` numbers as zigzag LEB128 varints of the difference to the previous
    position's on the same axis (the first position's from 0), each at most 8 bytes.
    A geometry keeps its JSON text where a number has more significant digits than a
    double holds exactly, is -0.0, or positions mix dimensions.
    """
    count = len(segments)
    decimals = np.empty(count, dtype=np.int64)
    dims = np.empty(count, dtype=np.int64)
    sizes = np.empty(count, dtype=np.int64)
    node_ends = _node_ends(scan)
    _plan(
        scan.node_depth,
        scan.node_numbers,
        scan.node_arrays,
        scan.node_first,
        scan.segment_nodes,
        node_ends,
        scan.mantissa,
        scan.exponent,
        scan.kind,
        segments,
        depths,
        decimals,
        dims,
        sizes,
    )
    out = np.empty(int(sizes.sum()) + MAX_BYTES, dtype=np.uint8)
    written = _write(
        scan.node_depth,
        scan.node_numbers,
        scan.node_arrays,
        scan.node_first,
        scan.segment_nodes,
        node_ends,
        scan.mantissa,
        scan.exponent,
        segments,
        depths,
        decimals,
        dims,
        out,
    )
    return out[:written], decimals, dims


def _node_ends(scan: Scan) -> np.ndarray:
    """Where each segment's nodes end (the next segment's first node, or the last node)."""
    ends = np.empty(len(scan.segment_nodes), dtype=np.int64)
    ends[:-1] = scan.segment_nodes[1:]
    if len(ends):
        ends[-1] = len(scan.node_depth)
    return ends


@njit(cache=True)
def _plan(
    node_depth,
    node_numbers,
    node_arrays,
    node_first,
    segment_nodes,
    node_ends,
    mantissa,
    exponent,
    kind,
    segments,
    depths,
    decimals,
    dims,
    sizes,
) -> None:
    """Per geometry: the decimals it is sent with (or NOT_SENT), its dims and bytes."""
    for g in range(segments.shape[0]):
        s = segments[g]
        depth = depths[g]
        d = 0
        dim = -1
        ok = True
        for node in range(segment_nodes[s], node_ends[s]):
            if node_depth[node] != depth:
                continue
            count = node_numbers[node]
            if dim < 0:
                dim = count
            ok &= count == dim
            first = node_first[node]
            for k in range(first, first + count):
                ok &= kind[k] == SIMPLE
                d = max(d, -exponent[k])
        ok &= 2 <= dim <= 3 and d <= MAX_DECIMALS
        size = 0
        if ok:
            prev = np.zeros(3, dtype=np.int64)
            for node in range(segment_nodes[s], node_ends[s]):
                if node_depth[node] < depth:
                    size += _length(node_arrays[node])
                    continue
                first = node_first[node]
                for axis in range(dim):
                    n, fits = _units(mantissa[first + axis], exponent[first + axis], d)
                    ok &= fits
                    size += _length(_zigzag(n - prev[axis]))
                    prev[axis] = n
        decimals[g] = d if ok else NOT_SENT
        dims[g] = dim
        sizes[g] = size if ok else 0


@njit(cache=True)
def _write(
    node_depth,
    node_numbers,
    node_arrays,
    node_first,
    segment_nodes,
    node_ends,
    mantissa,
    exponent,
    segments,
    depths,
    decimals,
    dims,
    out,
) -> int:
    pos = 0
    prev = np.zeros(3, dtype=np.int64)
    for g in range(segments.shape[0]):
        d = decimals[g]
        if d == NOT_SENT:
            continue
        s = segments[g]
        depth = depths[g]
        prev[:] = 0
        for node in range(segment_nodes[s], node_ends[s]):
            if node_depth[node] < depth:
                pos = _put(out, pos, node_arrays[node])
                continue
            first = node_first[node]
            for axis in range(dims[g]):
                n, _ = _units(mantissa[first + axis], exponent[first + axis], d)
                pos = _put(out, pos, _zigzag(n - prev[axis]))
                prev[axis] = n
    return pos


@njit(cache=True, inline="always")
def _units(m: int, e: int, d: int):
    """m x 10^(d + e), the number in units of 10^-d, and whether it is below MAX_UNITS."""
    shift = d + e
    n = abs(m)
    for _ in range(shift):
        if n >= MAX_UNITS:
            return 0, False
        n *= 10
    return (-n if m < 0 else n), n < MAX_UNITS


@njit(cache=True, inline="always")
def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


@njit(cache=True, inline="always")
def _length(u: int) -> int:
    size = 1
    while u >= 0x80:
        u >>= 7
        size += 1
    return size


@njit(cache=True, inline="always")
def _put(out, pos: int, u: int) -> int:
    while u >= 0x80:
        out[pos] = (u & 0x7F) | 0x80
        u >>= 7
        pos += 1
    out[pos] = u
    return pos + 1


# --- reading, for `fitting.decode` (tests, the replay, benchmarks; the views read with JS) ---


def varints(section: np.ndarray) -> np.ndarray | str:
    """Every unsigned varint in `section`, or why it is not a run of varints."""
    out = np.empty(section.shape[0], dtype=np.int64)
    count, bad = _varints(section, out)
    if bad >= 0:
        return f"the varint at byte {bad} is longer than {MAX_BYTES} bytes or cut off"
    return out[:count]


@njit(cache=True)
def _varints(data, out):
    count = 0
    i = 0
    n = data.shape[0]
    while i < n:
        first = i
        u = np.int64(0)
        shift = 0
        while True:
            if i >= n or shift >= 7 * MAX_BYTES:
                return count, first
            b = np.int64(data[i])
            i += 1
            u |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        out[count] = u
        count += 1
    return count, -1


class Reader:
    """Reads geometries from a section's varints, one after the other."""

    def __init__(self, section: np.ndarray) -> None:
        read = varints(section)
        if isinstance(read, str):
            raise ValueError(read)
        self._numbers = read
        self._at = 0

    @property
    def done(self) -> bool:
        return self._at == len(self._numbers)

    def geometry(self, depth: int, decimals: int, dims: int) -> list:
        """The coordinates of the next geometry, nested `depth` deep, as floats."""
        if not 0 <= decimals <= MAX_DECIMALS or dims not in (2, 3):
            raise ValueError(f"a geometry's dv must be [0-{MAX_DECIMALS}, 2 or 3]")
        self._prev = np.zeros(dims, dtype=np.int64)
        self._scale = POW10[decimals]
        return self._nested(depth, dims)

    def _take(self, count: int) -> np.ndarray:
        if self._at + count > len(self._numbers):
            raise ValueError("the section ends inside a geometry")
        taken = self._numbers[self._at : self._at + count]
        self._at += count
        return taken

    def _nested(self, depth: int, dims: int) -> list:
        if depth == 0:
            return self._positions(1, dims)[0]
        count = int(self._take(1)[0])
        if depth == 1:
            return self._positions(count, dims)
        return [self._nested(depth - 1, dims) for _ in range(count)]

    def _positions(self, count: int, dims: int) -> list:
        u = self._take(count * dims).reshape(count, dims)
        deltas = (u >> 1) ^ -(u & 1)
        units = np.cumsum(deltas, axis=0) + self._prev
        if count:
            self._prev = units[-1].copy()
        return (units.astype(np.float64) / self._scale).tolist()
