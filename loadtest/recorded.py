"""The recorded route in tests/data and longer recorded-like routes built from it.

`recorded-route-12-legs.geojson.gz` is a real trip (rail, bus and ferry legs,
65,270 points in 12 legs) routed on OpenStreetMap data: route geometry (c)
OpenStreetMap contributors, ODbL 1.0 (see tests/data/README.md). Its
texture differs from `server.offline.roads`' (long straight runs, dense
clusters on curves and in stations, near-duplicate points), so tests and
benchmarks use it beside the synthetic routes. Two longer cases are built
from it, never tuned to: the trip there and part of the way back (about
94,000 points), and a version densified to any size with jitter, the
texture of a GPS trace recorded at a fixed rate (mostly near-duplicate and
collinear runs).
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting.geo import M_PER_DEG

ROOT = Path(__file__).resolve().parent.parent
PATH = ROOT / "tests" / "data" / "recorded-route-12-legs.geojson.gz"
ATTRIBUTION = "route geometry (c) OpenStreetMap contributors, ODbL 1.0"


@functools.cache
def _load() -> tuple[np.ndarray, tuple[tuple[int, int], ...]]:
    feature = json.loads(gzip.decompress(PATH.read_bytes()))
    coords = np.array(feature["geometry"]["coordinates"], dtype=np.float64)
    legs = tuple((int(a), int(b)) for a, b in feature["properties"]["legs"])
    return coords, legs


def legs() -> list[np.ndarray]:
    """The recorded trip's legs, each a float64 `(n, 2)` `[lon, lat]` array (copies)."""
    coords, bounds = _load()
    return [coords[a : b + 1].copy() for a, b in bounds]


def there_and_back(back_legs: int = 7) -> list[np.ndarray]:
    """The trip, then its last `back_legs` legs travelled back in reverse (7: ~94,000 points)."""
    out = legs()
    return out + [leg[::-1].copy() for leg in out[::-1][:back_legs]]


def densified(points: int, *, jitter_m: float = 0.3, seed: int = 0) -> list[np.ndarray]:
    """The trip with every segment cut into equal pieces to about `points` in all.

    Inserted points get Gaussian jitter of `jitter_m` metres (unrounded, as a
    GPS receiver reports); the recorded vertices stay where they are. Short
    segments (stations, curves) become near-duplicate runs, long ones
    collinear runs.
    """
    rng = np.random.default_rng(seed)
    original = legs()
    segments = sum(len(leg) - 1 for leg in original)
    total = sum(len(leg) for leg in original)
    pieces = max(1, round((points - total) / segments) + 1)
    out = []
    for leg in original:
        t = np.arange(pieces) / pieces
        a, b = leg[:-1], leg[1:]
        inner = a[:, None, :] + (b - a)[:, None, :] * t[None, :, None]
        noise = rng.normal(0.0, jitter_m / M_PER_DEG, size=inner.shape)
        noise[:, 0, :] = 0.0  # the recorded vertex itself
        noise[:, :, 0] /= np.cos(np.radians(inner[:, :, 1]))
        dense = (inner + noise).reshape(-1, 2)
        out.append(np.vstack([dense, leg[-1:]]))
    return out


def route_envelope(parts: list[np.ndarray], tool: str = "tomtom-routing") -> dict[str, Any]:
    """One route feature as the routing tool sends it: legs concatenated, with anchors.

    Leg boundaries, a traffic section every 2,000 vertices (300 long) and a
    progress point every 500 vertices point at vertices, as TomTom's do.
    """
    line = np.concatenate(parts)
    n = len(line)
    starts = np.cumsum([0] + [len(p) for p in parts[:-1]]).tolist()
    props = {
        "kind": "route",
        "legs": [
            {"startPointIndex": s, "endPointIndex": s + len(p) - 1}
            for s, p in zip(starts, parts, strict=True)
        ],
        "sections": [
            {"sectionType": "TRAFFIC", "startPointIndex": i, "endPointIndex": min(i + 300, n - 1)}
            for i in range(0, n - 1, 2_000)
        ],
        "progress": [{"pointIndex": i, "distanceInMeters": i} for i in range(0, n, 500)],
    }
    feature = {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "LineString", "coordinates": line},
    }
    data = {"type": "FeatureCollection", "features": [feature]}
    return fitting.envelope(tool, data)
