"""TomTom's bodies, from the bytes as received to values the jobs can trust.

Shared by the event loop and the fitting workers, so it imports nothing of the loop side
(no MCP SDK, httpx or metrics client). Pure and picklable, no I/O; a body that cannot be
used raises `server.errors.BodyError`.

- `_decoding.py`: the one bounded decoding of every body read from outside;
- `_raw.py`: `RawBody`, a TomTom body as received, and `request_body`;
- `_route_points.py`: calculateRoute's points straight into numpy;
- `_geojson_arrays.py`: a caller's GeoJSON with its coordinates straight into numpy;
- `_checks.py`: parsed answers checked as they are read.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.bodies._checks import (
    DROPPED_KEY,
    Dropped,
    count,
    entries,
    indexed_entries,
    integer,
    line_points,
    number,
    obj,
    plain,
    plain_json,
    position,
    required_list,
    text,
)
from tomtom_mcp_apps.server.bodies._decoding import (
    DATA_URL,
    GZIP,
    IDENTITY,
    TILE,
    TOMTOM,
    Inflation,
    Origin,
    coding_of,
    decode,
    prefix,
    too_large,
)
from tomtom_mcp_apps.server.bodies._geojson_arrays import (
    STAND_IN,
    GeoJsonArrays,
    read_features,
    read_geojson,
    segment,
)
from tomtom_mcp_apps.server.bodies._raw import (
    ACCEPT_ENCODING,
    MAX_DECODED_BYTES,
    RawBody,
    json_object,
    loads,
    parsed,
    request_body,
)
from tomtom_mcp_apps.server.bodies._route_points import parse_route_body, split_route_body

__all__ = [
    "ACCEPT_ENCODING",
    "DATA_URL",
    "DROPPED_KEY",
    "GZIP",
    "IDENTITY",
    "MAX_DECODED_BYTES",
    "STAND_IN",
    "TILE",
    "TOMTOM",
    "Dropped",
    "GeoJsonArrays",
    "Inflation",
    "Origin",
    "RawBody",
    "coding_of",
    "count",
    "decode",
    "entries",
    "indexed_entries",
    "integer",
    "json_object",
    "line_points",
    "loads",
    "number",
    "obj",
    "parse_route_body",
    "parsed",
    "plain",
    "plain_json",
    "position",
    "prefix",
    "read_features",
    "read_geojson",
    "request_body",
    "required_list",
    "segment",
    "split_route_body",
    "text",
    "too_large",
]
