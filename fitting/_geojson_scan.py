"""GeoJSON bytes to arrays: the caller's coordinates found and parsed in one pass, in numba.

A large GeoJSON file is mostly numbers in `"coordinates"` arrays; parsed as JSON, each
becomes a Python float in a Python list, the largest cost of reading the file. `scan`
reads them into arrays instead, exactly as a correct JSON parser would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson
from numba import njit

# Each number's kind says how its float64 is had exactly (the float a correct JSON parser
# gives, as orjson does):
SIMPLE = 0
"""m < 2^53 and |e| <= 22: m and 10^|e| are exact doubles, and one IEEE multiplication or
division rounds their product or quotient correctly (Clinger's fast path); an integer (no
fraction, no exponent) is m alone."""
NEGATIVE_ZERO = 1
"""A zero written with a fraction or an exponent and a minus: -0.0 (an integer "-0" is 0,
as orjson reads it)."""
HARD = 2
"""More significant digits, or a larger exponent: its text is parsed by orjson
(`hard_values`, all of them in one array), which rounds correctly too."""
FAILED = -1
"""`scan`'s status when the bytes left its grammar: read the document the ordinary way."""

MAX_DEPTH = 64
"""Containers open at once; a deeper document is left to the ordinary reader."""
MAX_SEGMENT_DEPTH = 8
"""Arrays nested in one coordinates value (GeoJSON needs 4: a MultiPolygon's positions)."""
MAX_TOKEN = 64
"""Characters of a `HARD` number the scan takes (longer ones: the ordinary reader)."""
_MAX_EXPONENT_DIGITS = 4
_EXACT = 1 << 53
_MANTISSA_DIGITS = 18  # significant digits that always fit an int64 mantissa
POW10 = np.array([10.0**k for k in range(23)])
"""10^0 to 10^22: every one an exact double."""


@dataclass(frozen=True)
class Scan:
    """What `scan` found, as arrays; byte offsets are into the scanned buffer."""

    status: int
    """Elements of the root's features array read, or FAILED when the bytes left the
    grammar (the arrays then hold what was read before)."""
    has_features: bool
    """The root object has a `"features"` array."""
    root_type: tuple[int, int] | None
    """Byte span of the root object's `"type"` value when it is a string (quotes included)."""
    end: int
    """Byte where the scan stopped: the buffer's length when it read it all."""
    feature_starts: np.ndarray
    feature_ends: np.ndarray
    segment_starts: np.ndarray
    segment_ends: np.ndarray
    segment_nodes: np.ndarray
    """Index of each segment's first node; its nodes end where the next segment's begin."""
    node_depth: np.ndarray
    node_numbers: np.ndarray
    node_arrays: np.ndarray
    node_first: np.ndarray
    """Index of the node's first direct number (where the numbers run while it is open)."""
    mantissa: np.ndarray
    exponent: np.ndarray
    kind: np.ndarray
    number_starts: np.ndarray
    number_lengths: np.ndarray
    """Where each number's text starts, and its length (read for `HARD` ones)."""

    @property
    def failed(self) -> bool:
        return self.status == FAILED


def scan(buf: bytes, stop: int = -1) -> Scan:
    """`buf` scanned up to the end of the root feature number `stop` (every feature when
    negative): the work is the bytes read.

    Finds the root's `"features"` array and the byte span of each element, and every
    `"coordinates"` key whose value is an array: its byte span, the arrays nested in it
    (depth, direct numbers, direct child arrays, first number) and every number in it as
    the decimal the text wrote, a signed mantissa `m` and a power of ten `e` (the value is
    m x 10^e), with its kind. A coordinates array holds numbers, arrays, commas and
    whitespace in strict JSON grammar, or the scan fails (`FAILED`) and the caller reads
    the document the ordinary way. Nothing else is checked: the rest of the document is
    orjson's to read, GeoJSON's rules the server's to check.
    """
    data = np.frombuffer(buf, dtype=np.uint8)
    state = np.zeros(_STATE, dtype=np.int64)
    state[[_FEATURES_AT, _TYPE_START]] = -1
    state[_EXPECT_VALUE] = 1
    objects = np.zeros(MAX_DEPTH, dtype=np.bool_)
    open_nodes = np.zeros(MAX_SEGMENT_DEPTH, dtype=np.int64)
    out = _Arrays(max(256, len(buf) // 64))
    while True:
        status = _resume(data, stop, state, objects, open_nodes, *out.arrays())
        if status != _FULL:
            break
        out.grow(state, len(buf))
    return out.scan(status, state)


_STATE = 16
# The scan's state between calls of `_resume`, by index in its int64 array.
_I, _DEPTH, _FEATURES_AT, _SEEN, _ELEMENT_OPEN, _FEATURES, _SEGMENTS, _NODES = range(8)
_NUMBERS, _IN_SEGMENT, _LEVEL, _EXPECT_VALUE, _AFTER_OPEN, _TYPE_START, _TYPE_END = range(8, 15)
_FULL = -3
"""`_resume` stopped because an output array is full: grow it and call again."""


class _Arrays:
    """The scan's output arrays, grown (doubled) as the scan fills them: a scan that stops
    early (a page) costs what it read, not the whole buffer."""

    def __init__(self, capacity: int) -> None:
        self.features = [np.empty(capacity, dtype=np.int64) for _ in range(2)]
        self.segments = [np.empty(capacity, dtype=np.int64) for _ in range(3)]
        self.nodes = [np.empty(capacity, dtype=t) for t in (np.int8, np.int64, np.int64, np.int64)]
        self.numbers = [
            np.empty(capacity, dtype=t) for t in (np.int64, np.int16, np.int8, np.int64, np.uint8)
        ]

    def arrays(self) -> list[np.ndarray]:
        return [*self.features, *self.segments, *self.nodes, *self.numbers]

    def grow(self, state: np.ndarray, size: int) -> None:
        """Room for the full arrays to hold what the rest of `size` bytes holds at the
        rate so far (twice as much at least)."""
        rate = max(2.0, 1.1 * size / max(1, int(state[_I])))
        for group, used in (
            (self.features, _FEATURES),
            (self.segments, _SEGMENTS),
            (self.nodes, _NODES),
            (self.numbers, _NUMBERS),
        ):
            count = int(state[used])
            if count >= len(group[0]) - 1:
                capacity = int(count * rate) + 256
                for k, array in enumerate(group):
                    grown = np.empty(capacity, dtype=array.dtype)
                    grown[:count] = array[:count]
                    group[k] = grown

    def scan(self, status: int, state: np.ndarray) -> Scan:
        type_start = int(state[_TYPE_START])
        lengths = (
            (int(state[_FEATURES]),) * 2
            + (int(state[_SEGMENTS]),) * 3
            + (int(state[_NODES]),) * 4
            + (int(state[_NUMBERS]),) * 5
        )
        arrays = [a[:n] for a, n in zip(self.arrays(), lengths, strict=True)]
        return Scan(
            status,
            bool(state[_SEEN]),
            (type_start, int(state[_TYPE_END])) if type_start >= 0 else None,
            int(state[_I]),
            *arrays,
        )


def values(scan: Scan, buf: bytes) -> np.ndarray:
    """Every number's float64, exactly as a correct JSON parser reads it."""
    out = np.empty(len(scan.mantissa), dtype=np.float64)
    _values(scan.mantissa, scan.exponent, scan.kind, out)
    hard = np.flatnonzero(scan.kind == HARD)
    if len(hard):
        starts = scan.number_starts[hard]
        out[hard] = hard_values(buf, starts, starts + scan.number_lengths[hard])
    return out


@njit(cache=True)
def _values(mantissa, exponent, kind, out) -> None:
    for k in range(mantissa.shape[0]):
        out[k] = exact(mantissa[k], exponent[k], kind[k])


@njit(cache=True, inline="always")
def exact(m, e, kind):
    """m x 10^e as a float64: exact for `SIMPLE` and `NEGATIVE_ZERO` (one rounding: m and
    10^|e| are exact doubles); a `HARD` number's value is read from its text instead."""
    if kind == NEGATIVE_ZERO:
        return -0.0
    if e >= 0:
        return np.float64(m) * POW10[min(e, 22)]
    return np.float64(m) / POW10[min(-e, 22)]


def hard_values(buf: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The numbers in `buf[starts[i]:ends[i]]` as orjson reads them in place (correctly
    rounded): copied into one JSON array, in numba (no Python object per number, which cost
    more than the whole document's orjson parse where most numbers are 17-digit doubles).
    The scan took only numbers orjson reads (it fails on any out of a double's range)."""
    joined = _joined(np.frombuffer(buf, dtype=np.uint8), starts, ends)
    return np.array(orjson.loads(joined.tobytes()), dtype=np.float64)


@njit(cache=True)
def _joined(data, starts, ends):
    """`[text0,text1,...]` of the slices of `data`."""
    count = starts.shape[0]
    size = 2 + max(count - 1, 0)
    for k in range(count):
        size += ends[k] - starts[k]
    out = np.empty(size, dtype=np.uint8)
    out[0] = _OPEN_ARRAY
    j = 1
    for k in range(count):
        if k:
            out[j] = _COMMA
            j += 1
        for i in range(starts[k], ends[k]):
            out[j] = data[i]
            j += 1
    out[j] = _CLOSE_ARRAY
    return out


# --- the pass ---------------------------------------------------------------------------------
# One function, helpers taking and returning scalars: numba counts references to every array
# a call passes, which cost more than the work where that is a few bytes (a number, a key).

_QUOTE = 34
_BACKSLASH = 92
_COLON = 58
_COMMA = 44
_OPEN_OBJECT = 123
_CLOSE_OBJECT = 125
_OPEN_ARRAY = 91
_CLOSE_ARRAY = 93
_MINUS = 45
_PLUS = 43
_DOT = 46
_ZERO = 48
_NINE = 57
_LOWER_E = 101
_UPPER_E = 69
_UNSET = -2


@njit(cache=True, inline="always")
def _space(c) -> bool:
    return (c == 32) | (c == 10) | (c == 13) | (c == 9)


@njit(cache=True)
def _number(data, i: int):
    """The JSON number at `i`: (index after it, or -1 when it leaves the grammar the scan
    takes; m; e; kind)."""
    n = data.shape[0]
    negative = data[i] == _MINUS
    if negative:
        i += 1
    if i >= n or not _ZERO <= data[i] <= _NINE:
        return -1, 0, 0, HARD
    m = 0
    digits = 0  # significant digits taken into m
    dropped = 0  # integer digits past what m holds: each a power of ten
    long = False  # digits were left out of m
    if data[i] == _ZERO:
        i += 1
        if i < n and _ZERO <= data[i] <= _NINE:
            return -1, 0, 0, HARD  # a leading zero
    else:
        while i < n and _ZERO <= data[i] <= _NINE:
            if digits < _MANTISSA_DIGITS:
                m = m * 10 + (data[i] - _ZERO)
                digits += 1
            else:
                dropped += 1
                long = True
            i += 1
    fraction = 0
    is_float = False
    if i < n and data[i] == _DOT:
        is_float = True
        i += 1
        if i >= n or not _ZERO <= data[i] <= _NINE:
            return -1, 0, 0, HARD
        while i < n and _ZERO <= data[i] <= _NINE:
            if digits < _MANTISSA_DIGITS:
                m = m * 10 + (data[i] - _ZERO)
                fraction += 1
                if m != 0:
                    digits += 1  # zeros before the first other digit are not significant
            else:
                long = True
            i += 1
    exponent = 0
    if i < n and (data[i] == _LOWER_E or data[i] == _UPPER_E):
        is_float = True
        i += 1
        minus = False
        if i < n and (data[i] == _PLUS or data[i] == _MINUS):
            minus = data[i] == _MINUS
            i += 1
        if i >= n or not _ZERO <= data[i] <= _NINE:
            return -1, 0, 0, HARD
        count = 0
        while i < n and _ZERO <= data[i] <= _NINE:
            exponent = exponent * 10 + (data[i] - _ZERO)
            count += 1
            i += 1
        if count > _MAX_EXPONENT_DIGITS:
            return -1, 0, 0, HARD
        if minus:
            exponent = -exponent
    e = exponent - fraction + dropped
    if not is_float:
        if long or m >= _EXACT:
            return -1, 0, 0, HARD  # an integer past 2^53: orjson keeps it exact, floats not
        return i, -m if negative else m, 0, SIMPLE
    if m == 0 and not long:
        return i, 0, 0, NEGATIVE_ZERO if negative else SIMPLE
    if e < -400 or e + digits > 308:  # past a double's range (orjson refuses infinity)
        return -1, 0, 0, HARD
    kind = HARD if long or m >= _EXACT or e < -22 or e > 22 else SIMPLE
    return i, -m if negative else m, e, kind


_WORD_COORDINATES = tuple(b"coordinates")
_WORD_FEATURES = tuple(b"features")
_WORD_TYPE = tuple(b"type")
_NUL_ESCAPE = tuple(b"u0000")


@njit(cache=True)
def _spells(data, start: int, word) -> bool:
    """Whether the bytes from `start` spell `word` (a tuple of byte values)."""
    same = True
    for k in range(len(word)):
        same &= data[start + k] == word[k]
    return same


@njit(cache=True)
def _resume(
    data,
    stop: int,
    state,
    objects,
    open_nodes,
    feature_starts,
    feature_ends,
    segment_starts,
    segment_ends,
    segment_nodes,
    node_depth,
    node_numbers,
    node_arrays,
    node_first,
    mantissa,
    exponent,
    kind,
    number_starts,
    number_lengths,
) -> int:
    """Scans from `state` on; returns the status (and leaves `state` as it got): FULL when
    an output array is full (before anything of the item that did not fit is written)."""
    n = data.shape[0]
    i = state[_I]
    depth = state[_DEPTH]
    features_at = state[_FEATURES_AT]  # the depth inside the root's features array
    features_seen = state[_SEEN] != 0
    element_open = state[_ELEMENT_OPEN] != 0
    features = state[_FEATURES]
    segments = state[_SEGMENTS]
    nodes = state[_NODES]
    numbers = state[_NUMBERS]
    in_segment = state[_IN_SEGMENT] != 0
    level = state[_LEVEL]  # arrays open in the segment
    # Segment grammar: after '[' or ',' a value comes (or, after '[', a ']').
    expect_value = state[_EXPECT_VALUE] != 0
    after_open = state[_AFTER_OPEN] != 0
    type_start = state[_TYPE_START]
    type_end = state[_TYPE_END]
    status = _UNSET
    while i < n:
        c = data[i]
        if _space(c):
            i += 1
            continue
        if in_segment:
            if c == _OPEN_ARRAY:
                if not expect_value or level >= MAX_SEGMENT_DEPTH:
                    break
                if nodes == node_depth.shape[0]:
                    status = _FULL
                    break
                if level > 0:
                    node_arrays[open_nodes[level - 1]] += 1
                node_depth[nodes] = level
                node_numbers[nodes] = 0
                node_arrays[nodes] = 0
                node_first[nodes] = numbers
                open_nodes[level] = nodes
                nodes += 1
                level += 1
                expect_value = True
                after_open = True
                i += 1
            elif c == _CLOSE_ARRAY:
                if expect_value and not after_open:
                    break  # a trailing comma
                level -= 1
                i += 1
                expect_value = False
                after_open = False
                if level == 0:
                    segment_ends[segments] = i
                    segments += 1
                    in_segment = False
            elif c == _COMMA:
                if expect_value:
                    break
                expect_value = True
                after_open = False
                i += 1
            elif c == _MINUS or _ZERO <= c <= _NINE:
                if not expect_value:
                    break
                end, m, e, k = _number(data, i)
                if end < 0 or end - i > MAX_TOKEN:
                    break
                if numbers == mantissa.shape[0]:
                    status = _FULL
                    break
                mantissa[numbers] = m
                exponent[numbers] = e
                kind[numbers] = k
                number_starts[numbers] = i
                number_lengths[numbers] = end - i
                node_numbers[open_nodes[level - 1]] += 1
                numbers += 1
                i = end
                expect_value = False
                after_open = False
            else:
                break
            continue
        if depth == features_at and not element_open and c != _COMMA and c != _CLOSE_ARRAY:
            if features == feature_starts.shape[0]:
                status = _FULL
                break
            feature_starts[features] = i
            element_open = True
        if c == _QUOTE:
            j = i + 1
            nul = False
            while j < n and data[j] != _QUOTE:
                if data[j] == _BACKSLASH:
                    nul |= j + 5 < n and _spells(data, j + 1, _NUL_ESCAPE)
                    j += 2
                else:
                    j += 1
            if j >= n or nul:
                break  # never closed, or a NUL, which stand-ins start with
            end = j + 1
            after = end
            while after < n and _space(data[after]):
                after += 1
            if after < n and data[after] == _COLON and depth > 0 and objects[depth - 1]:
                value = after + 1
                while value < n and _space(data[value]):
                    value += 1
                if value < n and data[value] == _OPEN_ARRAY:
                    length = end - i - 2
                    if length == len(_WORD_COORDINATES) and _spells(data, i + 1, _WORD_COORDINATES):
                        if segments == segment_starts.shape[0]:
                            status = _FULL
                            break
                        segment_starts[segments] = value
                        segment_nodes[segments] = nodes
                        in_segment = True
                        level = 0
                        expect_value = True
                        after_open = False
                    elif (
                        length == len(_WORD_FEATURES)
                        and depth == 1
                        and _spells(data, i + 1, _WORD_FEATURES)
                    ):
                        if features_seen:
                            break  # two: orjson would keep the last
                        features_seen = True
                        features_at = depth + 1
                elif (
                    value < n
                    and data[value] == _QUOTE
                    and depth == 1
                    and end - i - 2 == len(_WORD_TYPE)
                    and _spells(data, i + 1, _WORD_TYPE)
                ):
                    close = value + 1
                    while close < n and data[close] != _QUOTE:
                        close += 2 if data[close] == _BACKSLASH else 1
                    type_start = value
                    type_end = close + 1
                i = value
                continue
            i = end
            if depth == features_at:
                feature_ends[features] = i
            continue
        if (c == _OPEN_OBJECT) | (c == _OPEN_ARRAY):
            if depth >= MAX_DEPTH:
                break
            objects[depth] = c == _OPEN_OBJECT
            depth += 1
            i += 1
            continue
        if (c == _CLOSE_OBJECT) | (c == _CLOSE_ARRAY):
            if depth == 0:
                break
            if depth == features_at:  # the features array closes
                if element_open:
                    features += 1
                features_at = -2  # done: never matches again
                element_open = False
            depth -= 1
            i += 1
            if depth == features_at:
                feature_ends[features] = i
            continue
        if c == _COMMA:
            if depth == features_at and element_open:
                features += 1
                element_open = False
                if stop >= 0 and features >= stop and type_start >= 0:
                    status = features
                    break
            i += 1
            continue
        # A literal (number, true, false, null) outside coordinates: orjson reads it.
        while i < n:
            c = data[i]
            if _space(c) | (c == _COMMA) | (c == _CLOSE_ARRAY) | (c == _CLOSE_OBJECT):
                break
            i += 1
        if depth == features_at:
            feature_ends[features] = i
    if status == _UNSET:
        status = features if i >= n and not in_segment else FAILED
    state[_I] = i
    state[_DEPTH] = depth
    state[_FEATURES_AT] = features_at
    state[_SEEN] = features_seen
    state[_ELEMENT_OPEN] = element_open
    state[_FEATURES] = features
    state[_SEGMENTS] = segments
    state[_NODES] = nodes
    state[_NUMBERS] = numbers
    state[_IN_SEGMENT] = in_segment
    state[_LEVEL] = level
    state[_EXPECT_VALUE] = expect_value
    state[_AFTER_OPEN] = after_open
    state[_TYPE_START] = type_start
    state[_TYPE_END] = type_end
    return status


# --- shapes -------------------------------------------------------------------------------------


def check_shapes(
    scan: Scan, values: np.ndarray, segments: np.ndarray, shapes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each coordinates array `segments[g]` has shape `shapes[g]` (a row of
    `SHAPES`), and the extent of the positions in those that do ([west, south, east, north]
    per array; inf where there is none).

    A shape is the nesting depth of its positions, the fewest positions each list of them
    holds, and whether a list must end where it starts (a ring); every position holds 2 or
    3 numbers, as many as the others of its list, with longitude and latitude in range.
    """
    ok = np.empty(len(segments), dtype=np.bool_)
    extent = np.empty((len(segments), 4), dtype=np.float64)
    ends = np.empty(len(scan.segment_nodes), dtype=np.int64)
    ends[:-1] = scan.segment_nodes[1:]
    if len(ends):
        ends[-1] = len(scan.node_depth)
    _check(
        scan.node_depth,
        scan.node_numbers,
        scan.node_arrays,
        scan.node_first,
        scan.segment_nodes,
        ends,
        values,
        segments,
        shapes,
        ok,
        extent,
    )
    return ok, extent


SHAPES = {
    "Point": (0, 1, False),
    "MultiPoint": (1, 0, False),
    "LineString": (1, 2, False),
    "MultiLineString": (2, 2, False),
    "Polygon": (2, 4, True),
    "MultiPolygon": (3, 4, True),
}
"""GeoJSON's geometry types: (depth of the positions, fewest positions a list holds, rings)."""


@njit(cache=True)
def _check(
    node_depth,
    node_numbers,
    node_arrays,
    node_first,
    segment_nodes,
    node_ends,
    values,
    segments,
    shapes,
    ok_out,
    extent_out,
) -> None:
    for g in range(segments.shape[0]):
        s = segments[g]
        depth = shapes[g, 0]
        fewest = shapes[g, 1]
        ring = shapes[g, 2] != 0
        ok = True
        west = np.inf
        south = np.inf
        east = -np.inf
        north = -np.inf
        dims = -1  # of the current list's positions
        first_lon = 0.0
        first_lat = 0.0
        last_lon = 0.0
        last_lat = 0.0
        listed = 0  # positions of the current list seen
        for node in range(segment_nodes[s], node_ends[s]):
            d = node_depth[node]
            if d < depth:
                ok &= node_numbers[node] == 0
                if d == depth - 1:
                    if ring and listed > 0:
                        ok &= first_lon == last_lon and first_lat == last_lat
                    ok &= node_arrays[node] >= fewest
                    dims = -1
                    listed = 0
                continue
            count = node_numbers[node]
            ok &= d == depth and node_arrays[node] == 0 and 2 <= count <= 3
            if dims < 0:
                dims = count
            ok &= count == dims
            if not ok:
                break
            first = node_first[node]
            lon = values[first]
            lat = values[first + 1]
            ok &= -180.0 <= lon <= 180.0 and -90.0 <= lat <= 90.0
            west = min(west, lon)
            east = max(east, lon)
            south = min(south, lat)
            north = max(north, lat)
            if listed == 0:
                first_lon = lon
                first_lat = lat
            last_lon = lon
            last_lat = lat
            listed += 1
        if ring and listed > 0:
            ok &= first_lon == last_lon and first_lat == last_lat
        ok_out[g] = ok
        extent_out[g, 0] = west
        extent_out[g, 1] = south
        extent_out[g, 2] = east
        extent_out[g, 3] = north
