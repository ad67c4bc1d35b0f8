"""Helpers shared by the fitting tests: envelopes, rings, decoding, and a metric frame."""

from __future__ import annotations

import base64
import bisect
import gzip
from typing import Any

import numpy as np
import orjson
import shapely

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting.geo import M_PER_DEG, destination
from tomtom_mcp_apps.server.offline.roads import road_like_route

LISBON = (-9.14, 38.72)


def synthetic_route(points: int, *, seed: int = 0) -> np.ndarray:
    """A seeded road-like route of exactly `points` vertices, from Lisbon to the north-east."""
    distance_m = points * 80.0
    while True:
        lon, lat = destination(*LISBON, distance_m, np.deg2rad(50.0))
        route = road_like_route([LISBON, (float(lon), float(lat))], seed=seed)
        if len(route) >= points:
            return route[:points]
        distance_m *= 1.5


def envelope(*features: dict[str, Any], tool: str = "tomtom-routing") -> dict[str, Any]:
    return fitting.envelope(tool, {"type": "FeatureCollection", "features": list(features)})


def line_feature(coords: Any, **properties: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": {"kind": "route", **properties},
        "geometry": {"type": "LineString", "coordinates": coords},
    }


def sent_features(app_data: str) -> list[dict[str, Any]]:
    """The decoded features with their geometries turned back into GeoJSON."""
    decoded = fitting.decode(app_data)
    out = []
    for feature in decoded["data"]["features"]:
        feature = dict(feature)
        if feature.get("geometry"):
            feature["geometry"] = fitting.to_geojson(feature["geometry"])
        out.append(feature)
    return out


def spiral(seed: int, n: int = 600, turns: float = 3.0) -> np.ndarray:
    """A valid ring shaped like a thick spiral arm: DP's chords cut across its windings."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.3, 2 * np.pi * turns, n)
    r_in = 1 + theta / (2 * np.pi)
    r_out = r_in + 0.25 + rng.uniform(0, 0.02, n)
    outer = np.column_stack([r_out * np.cos(theta), r_out * np.sin(theta)])
    inner = np.column_stack([r_in * np.cos(theta), r_in * np.sin(theta)])[::-1]
    ring = np.vstack([outer, inner, outer[:1]])
    return np.column_stack([5 + 0.01 * ring[:, 0], 52 + 0.006 * ring[:, 1]])


def area(kind: str, coordinates: list) -> dict:
    """A range feature (Polygon or MultiPolygon), as the reachable-range tool sends one."""
    return {
        "type": "Feature",
        "properties": {"kind": "range"},
        "geometry": {"type": kind, "coordinates": coordinates},
    }


def metres(lonlat: np.ndarray, lat0: float) -> np.ndarray:
    """Equirectangular metres about `lat0`: a reference frame for small test lines."""
    lonlat = np.asarray(lonlat, dtype=np.float64)
    return np.column_stack(
        [lonlat[:, 0] * np.cos(np.radians(lat0)) * M_PER_DEG, lonlat[:, 1] * M_PER_DEG]
    )


def step(app_data: str) -> int:
    """The grid q (in e5 steps) the app data's lines were sent on, read from the raw v2 header."""
    head = gzip.decompress(base64.b64decode(app_data)).partition(b"\0")[0]
    steps = {
        f["geometry"].get("q", 1)
        for f in orjson.loads(head)["data"]["features"]
        if f.get("geometry") and "e5v" in f["geometry"]
    }
    assert len(steps) <= 1, f"one grid per fit, got {steps}"
    return steps.pop() if steps else 1


def as_sent(lonlat: Any, q: int) -> np.ndarray:
    """Where vertices land when sent: rounded to 1e-5 degrees, then to the grid of q steps."""
    e5 = np.rint(np.asarray(lonlat, dtype=np.float64) * 1e5)
    return np.rint(e5 / q) * q / 1e5


def error_bounds(route: np.ndarray, sent: np.ndarray, q: int) -> tuple[float, float]:
    """The least and the most a fit of `route` (one line) sent as `sent` can truthfully report.

    The report is the largest distance of an original vertex to the kept segment
    spanning it, or to its own vertex if that was kept. Which route vertices were
    kept is not in the app data, and on a coarse grid it is ambiguous: several
    merged vertices (runs of equal 1e-5 degree roundings) land on one grid point.
    So every placement of the kept vertices is considered: kept vertex k can sit
    at any matching merged vertex between its earliest and its latest placement
    in the route (any such choice extends to a whole placement), and a vertex r
    can lie on segment k exactly when k's earliest placement is before r and
    k + 1's latest after it. Each original vertex is measured, with shapely, to
    each of the segments (or kept vertices) that can be its own; the true
    placement is among them, so the least and the most of those distances bound
    its true one. When the grid leaves no ambiguity, both are the true one.

    Frames: the test measures each vertex in an equirectangular frame about its
    own latitude (exact scale where the vertex is); the fit measures about a
    latitude the segment spans (its mid-latitude, or the kept vertex's own).
    Both frames are the same lon/lat plane with the x axis scaled by the cosine
    of their latitude, so segments are the same straight lines in both, and a
    distance in one is the distance in the other times a factor between 1 and
    cos(fit latitude) / cos(vertex latitude). The bounds take that factor at its
    extremes over the segment's latitudes; it departs from 1 by about tan(latitude)
    times the latitude difference in radians: 2e-5 for a segment spanning 100 m of
    latitude at 50 degrees, 1-2% for the 1-degree segments a budget of a few
    hundred characters leaves. (That is no allowance for the Earth's shape: both
    frames measure to the same line in the lon/lat plane, as the report does.)
    """
    e5 = np.rint(np.asarray(route, dtype=np.float64) * 1e5).astype(np.int64)
    first = np.r_[True, np.any(e5[1:] != e5[:-1], axis=1)]
    merged_of = np.cumsum(first) - 1  # the merged vertex of each original one
    grid = _keys(np.rint(e5[first] / q).astype(np.int64) * q)
    kept = _keys(np.rint(np.asarray(sent, dtype=np.float64) * 1e5).astype(np.int64))
    earliest = _earliest(grid, kept)
    latest = len(grid) - 1 - _earliest(grid[::-1], kept[::-1])[::-1]

    # Every (original vertex, candidate segment a-b) pair; a == b for a kept vertex.
    r = merged_of
    span_lo = np.maximum(np.searchsorted(latest, r, side="right") - 1, 0)  # latest[k + 1] > r
    span_hi = np.minimum(np.searchsorted(earliest, r, side="left") - 1, len(kept) - 2)
    vertex_lo = np.searchsorted(latest, r, side="left")  # earliest[k] <= r <= latest[k]
    vertex_hi = np.searchsorted(earliest, r, side="right") - 1
    spans = np.maximum(span_hi - span_lo + 1, 0)
    vertices = np.maximum(vertex_hi - vertex_lo + 1, 0)
    owner = np.repeat(np.arange(len(r)), spans + vertices)
    base = np.repeat(np.cumsum(spans + vertices) - spans - vertices, spans + vertices)
    offset = np.arange(len(owner)) - base
    is_span = offset < spans[owner]
    a = np.where(is_span, span_lo[owner] + offset, vertex_lo[owner] + offset - spans[owner])
    b = np.where(is_span, a + 1, a)
    pair = is_span | (grid[r[owner]] == kept[a])  # a kept vertex only where it matches
    owner, a, b = owner[pair], a[pair], b[pair]
    assert np.array_equal(np.unique(owner), np.arange(len(r))), "a vertex with no segment"

    lonlat = np.asarray(route, dtype=np.float64)[owner]
    cos_here = np.cos(np.radians(lonlat[:, 1]))
    kx = cos_here * M_PER_DEG

    def frame(ends: np.ndarray) -> np.ndarray:
        dlon = (sent[ends, 0] - lonlat[:, 0] + 180.0) % 360.0 - 180.0
        return np.column_stack([dlon * kx, (sent[ends, 1] - lonlat[:, 1]) * M_PER_DEG])

    lines = shapely.linestrings(np.stack([frame(a), frame(b)], 1))
    distance = shapely.distance(shapely.points(np.zeros((len(owner), 2))), lines)
    lat_a, lat_b = np.radians(sent[a, 1]), np.radians(sent[b, 1])
    cos_least = np.minimum(np.cos(lat_a), np.cos(lat_b))
    crosses_equator = (np.minimum(lat_a, lat_b) <= 0.0) & (np.maximum(lat_a, lat_b) >= 0.0)
    cos_most = np.where(crosses_equator, 1.0, np.maximum(np.cos(lat_a), np.cos(lat_b)))
    low = distance * np.minimum(1.0, cos_least / cos_here)
    high = distance * np.maximum(1.0, cos_most / cos_here)
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    least = np.minimum.reduceat(low, starts).max()
    most = np.maximum.reduceat(high, starts).max()
    return float(least), float(most)


def _keys(e5: np.ndarray) -> np.ndarray:
    """One int64 per (lon, lat) pair of e5 integers, equal exactly when both are."""
    return (e5[:, 0] << 32) + e5[:, 1]


def _earliest(route: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The earliest placement of `kept` as a subsequence of `route` (both as `_keys`)."""
    where: dict[int, list[int]] = {}
    for i, key in enumerate(route.tolist()):
        where.setdefault(key, []).append(i)
    at, previous = [], -1
    for key in kept.tolist():
        positions = where.get(key, [])
        i = bisect.bisect_right(positions, previous)
        assert i < len(positions), "the sent line is not a subsequence of the route as sent"
        previous = positions[i]
        at.append(previous)
    return np.array(at, dtype=np.int64)


def bits(values: Any) -> list[int]:
    """The float64 bit patterns of `values` (so -0.0 differs from 0.0)."""
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()
