"""TomTom's route JSON read at the speed of its bytes, in numba (used by `server.bodies`).

A short route's answer is read on the event loop, so every pass over its bytes is
latency: `leg_points` reads a leg's points into an array and `plain_text` judges a
body's numbers and nesting, each in one loop, or declines and the caller parses the
ordinary way.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._geojson_scan import NEGATIVE_ZERO, POW10, SIMPLE, _number, exact

_LATITUDE = tuple(b'{"latitude":')
_LONGITUDE = tuple(b',"longitude":')
_SHORTEST_POINT = len(b'{"latitude":0,"longitude":0},')
"""Bytes per point at the least: the most points a segment can hold is its length over this."""
_LONGEST_RUN = 15
"""Digits in a row that cannot spell an integer past 2**53 (a 16-digit run may)."""

_QUOTE = 34
_BACKSLASH = 92
_COMMA = 44
_MINUS = 45
_DOT = 46
_OPEN_ARRAY = 91
_CLOSE_ARRAY = 93
_OPEN_OBJECT = 123
_CLOSE_OBJECT = 125
_ZERO = 48
_NINE = 57
_LOWER_E = 101


def leg_points(data: np.ndarray, start: int, end: int) -> np.ndarray | None:
    """The points of `data[start:end]` (uint8 JSON text from `[` to its `]`) as a C-ordered
    float64 `(n, 2)` `[lon, lat]` array, or None for any other shape or number.

    Only TomTom's compact form, `[{"latitude":a,"longitude":b},...]` (both keys, in this
    order, nothing else, no whitespace); each number exactly the float a correct JSON
    parser gives (as `_geojson_scan` reads it), or None past Clinger's fast path.
    """
    out = np.empty(((end - start) // _SHORTEST_POINT + 1, 2), dtype=np.float64)
    count = _leg_points(data, start, end, out)
    return None if count < 0 else out[:count]


@njit(cache=True)
def _leg_points(data, start: int, end: int, out) -> int:
    """Points written to `out`, or -1 where `data[start:end]` leaves the compact shape."""
    if end - start < 2 or data[start] != _OPEN_ARRAY or data[end - 1] != _CLOSE_ARRAY:
        return -1
    if end - start == 2:
        return 0
    i = start + 1
    count = 0
    while count < out.shape[0]:
        # Each word is followed by at least a digit and a byte that ends the number, which
        # `end`'s bracket provides: `_number` never reads past it.
        if i + len(_LATITUDE) + 2 > end or not _spells(data, i, _LATITUDE):
            return -1
        i, latitude = _value(data, i + len(_LATITUDE))
        if i < 0 or i + len(_LONGITUDE) + 2 > end or not _spells(data, i, _LONGITUDE):
            return -1
        i, longitude = _value(data, i + len(_LONGITUDE))
        if i < 0 or data[i] != _CLOSE_OBJECT:
            return -1
        out[count, 0] = longitude
        out[count, 1] = latitude
        count += 1
        i += 1
        if data[i] == _CLOSE_ARRAY:
            return count if i + 1 == end else -1
        if data[i] != _COMMA:
            return -1
        i += 1
    return -1


@njit(cache=True, inline="always")
def _spells(data, start: int, word) -> bool:
    same = True
    for k in range(len(word)):
        same &= data[start + k] == word[k]
    return same


@njit(cache=True, inline="always")
def _value(data, i: int):
    """(index after the number at `i`, its float64), or (-1, 0.0) when it is not one that
    one IEEE operation gives exactly. TomTom's own numbers (a few digits, a point, up to
    15 significant digits) are read here; any other is left to the scan's full reader."""
    negative = data[i] == _MINUS
    start = i + 1 if negative else i
    j = start
    m = 0
    while _ZERO <= data[j] <= _NINE:
        m = m * 10 + (data[j] - _ZERO)
        j += 1
    whole = j - start
    fraction = 0
    if data[j] == _DOT:
        j += 1
        first = j
        while _ZERO <= data[j] <= _NINE:
            m = m * 10 + (data[j] - _ZERO)
            j += 1
        fraction = j - first
    ordinary = (
        whole > 0
        and (whole == 1 or data[start] != _ZERO)  # no leading zero
        and (fraction > 0 or data[j - 1] != _DOT)  # a point has digits after it
        and whole + fraction <= _LONGEST_RUN  # m < 2**53: exact, as 10**fraction is
        and (data[j] | 0x20) != _LOWER_E
    )
    if ordinary:
        value = np.float64(m) / POW10[fraction]
        # "-0" is the integer 0 (as JSON parsers read it), "-0.0" the float -0.0
        return j, -value if negative and (m != 0 or fraction > 0) else value
    i, m, e, kind = _number(data, i)
    if i < 0 or (kind != SIMPLE and kind != NEGATIVE_ZERO):
        return -1, 0.0
    return i, exact(m, e, kind)


@njit(cache=True)
def plain_text(data, limit: int) -> bool:
    """Whether the JSON text `data` (uint8, parsed once already, so well formed) nests its
    containers less than `limit` deep (the document's own counts 1) and holds no number
    beyond ±2**53. Numbers are judged on digits anywhere, strings included, erring on the
    side of False: a run of 16 digits, or a digit before an "e" or "E", counts as a number
    beyond. Brackets in strings are text."""
    depth = 0
    run = 0
    in_string = False
    i = 0
    n = data.shape[0]
    while i < n:
        c = data[i]
        if _ZERO <= c <= _NINE:
            run += 1
            if run > _LONGEST_RUN:
                return False
            i += 1
            continue
        if run and (c | 0x20) == _LOWER_E:
            return False
        run = 0
        if in_string:
            if c == _BACKSLASH:
                i += 1  # the escaped byte is text, whatever it is
            elif c == _QUOTE:
                in_string = False
        elif c == _QUOTE:
            in_string = True
        elif c in (_OPEN_ARRAY, _OPEN_OBJECT):
            depth += 1
            if depth >= limit:
                return False
        elif c in (_CLOSE_ARRAY, _CLOSE_OBJECT):
            depth -= 1
        i += 1
    return True
