"""TomTom's bodies, from the bytes as received to values the jobs can trust.

What a fitting worker needs of a TomTom answer, and nothing of the event loop's side:
the client keeps every answer as it came off the wire, and it is decoded, parsed and
checked where it is used, on the loop for short answers and in a worker for long
ones (`server.pool.Placement` decides). So this package imports nothing of the loop
side, no MCP SDK, httpx or metrics client (`tests/test_import_rules.py` checks it):

- `_decoding.py`: the one bounded decoding of every body read from outside (TomTom's
  of every status, `data_url`s, tiles, static maps): `received` reads a body as it
  comes off the wire up to a cap, `coding_of` accepts identity and one layer of gzip
  and refuses stacked or unknown codings, `Inflation` inflates in steps, counting its
  output, and may stop after a budget and go on elsewhere; `prefix` for error answers;
- `_raw.py`: `RawBody`, a TomTom body as received with the cap on its decoded size,
  `settled` (decoded now when small, whatever its trailer claims), `loads` and
  `parsed`; `request_body` gzips large POST bodies;
- `_route_points.py`: `parse_route_body`, calculateRoute's points straight into numpy
  (`split_route_body`: and the text the rest was parsed from);
- `_geojson_arrays.py`: `read_geojson` and `read_features`, a caller's GeoJSON with its
  coordinates straight into numpy (`GeoJsonArrays`);
- `_checks.py`: parsed answers checked as they are read: a malformed entry is dropped
  and counted (`Dropped`), a value the result depends on is a `BadAnswer` naming the
  field (ADR 0055); `plain_json` finds on the bytes when parsed objects need no copy
  (ADR 0090).

Pure and picklable, no I/O. A body that cannot be used raises `server.errors.BodyError`.
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
    received,
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
    "received",
    "request_body",
    "required_list",
    "segment",
    "split_route_body",
    "text",
    "too_large",
]
