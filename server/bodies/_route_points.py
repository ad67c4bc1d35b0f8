"""calculateRoute bodies with their leg points read straight into numpy arrays.

`orjson.loads` builds a dict per point, the largest cost of a long routing call; here each
`"points"` array is read in one numba pass (`fitting.leg_points`) and the rest parsed as
usual. A body of any other shape is parsed the ordinary way, so this is only ever faster,
never different.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.fitting import leg_points

_POINTS = b'"points":['


def parse_route_body(raw: bytes) -> dict[str, Any]:
    """The decoded body, with every `routes[].legs[].points` as a float64 `(n, 2)` `[lon, lat]`."""
    return split_route_body(raw)[0]


def split_route_body(raw: bytes) -> tuple[Any, bytes]:
    """(`parse_route_body`'s body, the JSON text of all but its leg points: `raw` with a 0
    for each points array it cut out, or `raw` itself when parsed the ordinary way). The
    body is whatever `raw` holds (a dict for a route answer)."""
    pieces: list[bytes] = []
    arrays: list[np.ndarray] = []
    data = np.frombuffer(raw, dtype=np.uint8)
    pos = 0
    while (found := raw.find(_POINTS, pos)) >= 0:
        start = found + len(_POINTS) - 1
        end = raw.find(b"]", start)
        points = leg_points(data, start, end + 1) if end > 0 else None
        if points is None:
            return orjson.loads(raw), raw
        pieces += [raw[pos:start], b'"\\u0000points-%d"' % len(arrays)]
        arrays.append(points)
        pos = end + 1
    if not arrays:
        return orjson.loads(raw), raw
    pieces.append(raw[pos:])
    body = orjson.loads(b"".join(pieces))
    placed = 0
    routes = body.get("routes") if isinstance(body, dict) else None
    for route in routes if isinstance(routes, list) else ():
        legs = route.get("legs") if isinstance(route, dict) else None
        for leg in legs if isinstance(legs, list) else ():
            marker = leg.get("points") if isinstance(leg, dict) else None
            if marker == f"\0points-{placed}":
                leg["points"] = arrays[placed]
                placed += 1
    if placed != len(arrays):
        return orjson.loads(raw), raw
    return body, b"0".join(pieces[::2])
