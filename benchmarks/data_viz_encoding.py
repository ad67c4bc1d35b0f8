"""What a data-viz page's coordinates cost: exact decimal varints beside their JSON text,
and what reading a caller's GeoJSON costs: coordinates straight into arrays beside orjson.

    .venv/bin/python -m benchmarks.data_viz_encoding [--repeats 3]

The seeded files of `loadtest.geojson_site` (about 2 and 20 MB: lines of 250
vertices at 6 decimals, points at 5 decimals, polygons of 500 vertices at 6
decimals), and the 20 MB lines again with every number as the double the
random walk gave (17 significant digits, as a program writing floats whole
does: no exact decimal varint holds them, so they keep their text). In
process, no server.

Encoding: each file planned in pages of `APP_DATA_PAGE_CHARS` (default) as
`tomtom-data-viz` plans them, twice: with the coordinates as exact decimal
varints where they can be (envelope v3's section, what is sent) and
with every coordinate as the caller's JSON text (the features read the
ordinary way). Printed: pages and characters on the wire (gzip, base64) of
each, and the first as a share of the second.

Reading: the median of `--repeats` reads of the file by `read_geojson` then
`check_arrays` (the arrays path) and by `orjson.loads` then
`validate_geojson` (the ordinary path), the collector paused for both as the
job pauses it.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import orjson

from loadtest.geojson_site import lines_geojson, points_geojson, polygons_geojson
from loadtest.stats import format_table
from tomtom_mcp_apps.server.bodies import read_geojson
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.jobs._data_viz import _as_features, _read
from tomtom_mcp_apps.server.jobs._geojson import check_arrays, validate_geojson
from tomtom_mcp_apps.server.jobs._pages import Features, digest, plan, room
from tomtom_mcp_apps.server.ops.heap import collector_paused


def full_doubles() -> bytes:
    """The 20 MB lines' walk, its numbers not rounded (17 significant digits)."""
    rng = np.random.default_rng(3700 * 7919 + 250)
    starts = np.column_stack((rng.uniform(-9.0, 24.0, 3700), rng.uniform(37.0, 58.0, 3700)))
    walks = starts[:, None, :] + rng.normal(0.0, 0.0004, (3700, 250, 2)).cumsum(axis=1)
    features = [
        {"type": "Feature", "geometry": {"type": "LineString", "coordinates": walk}}
        for walk in walks
    ]
    return orjson.dumps(
        {"type": "FeatureCollection", "features": features}, option=orjson.OPT_SERIALIZE_NUMPY
    )


FILES: dict[str, Callable[[], bytes]] = {
    "lines 2 MB": lambda: lines_geojson(370, 250),
    "points 2 MB": lambda: points_geojson(15500),
    "polygons 2 MB": lambda: polygons_geojson(190, 500),
    "lines 20 MB": lambda: lines_geojson(3700, 250),
    "points 20 MB": lambda: points_geojson(155000),
    "polygons 20 MB": lambda: polygons_geojson(1900, 500),
    "lines 20 MB, 17 digits": full_doubles,
}


def wire(features: Features, space: int) -> tuple[int, int]:
    """(pages, characters of their app data) of `features` planned in pages of `space`."""
    bounds = plan(features, space)
    chars = sum(features.member(a, b).chars() for a, b in itertools.pairwise(bounds))
    return len(bounds) - 1, chars


def encodings(raw: bytes, page_chars: int) -> tuple[int, int, int, int]:
    """(pages, chars) with decimal varints, then (pages, chars) with JSON text only."""
    with collector_paused():
        _, sent = _read("data_url", raw)
        as_text = Features(_as_features(orjson.loads(raw)), None, None, None)
        space = room(page_chars, len(sent), digest(raw))
        return *wire(sent, space), *wire(as_text, space)


def median_s(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        with collector_paused():
            started = time.perf_counter()
            work()
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def arrays_read(raw: bytes) -> None:
    doc = read_geojson(raw)
    if doc is None or check_arrays(doc) is None:
        raise RuntimeError("the arrays path did not take a generated file")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.data_viz_encoding")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    page_chars = Settings().page_chars
    arrays_read(lines_geojson(10, 10))  # compiled (or loaded from numba's cache) first
    encoded, reads = [], []
    for name, make in FILES.items():
        raw = make()
        dv_pages, dv_chars, json_pages, json_chars = encodings(raw, page_chars)
        share = 100 * dv_chars / json_chars
        encoded.append((name, len(raw) / 1e6, dv_pages, dv_chars, json_pages, json_chars, share))
        fast = median_s(lambda raw=raw: arrays_read(raw), args.repeats)
        slow = median_s(lambda raw=raw: validate_geojson(orjson.loads(raw)), args.repeats)
        reads.append((name, len(raw) / 1e6, 1000 * fast, 1000 * slow, slow / fast))
    print(f"Page encoding (APP_DATA_PAGE_CHARS={page_chars:,}):")
    headers = ("file", "MB", "dv pages", "dv chars", "JSON pages", "JSON chars", "dv % of JSON")
    print(format_table(headers, encoded))
    print(f"\nReading and checking (median of {args.repeats}):")
    print(format_table(("file", "MB", "arrays ms", "orjson ms", "orjson/arrays"), reads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
