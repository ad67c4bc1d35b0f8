"""Helpers shared by the fitting tests: envelopes, rings, decoding, and a metric frame."""

from __future__ import annotations

import base64
import gzip
from typing import Any

import numpy as np
import orjson
import shapely

import fitting
from fitting.geo import M_PER_DEG


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


def spanning_error(route: np.ndarray, sent: np.ndarray, q: int) -> tuple[float, float]:
    """An independent max error of `sent` against `route` (one line), with shapely.

    Returns (largest distance of an original vertex to the sent segment spanning
    it, largest distance to the nearest of the sent segments around it). Each
    original vertex gets a frame of its own (equirectangular about its own
    latitude), so long routes are measured as exactly as short ones; kept
    vertices are located as the subsequence of the route as sent.
    """
    on_grid = as_sent(route, q)
    at, j = [], 0
    for vertex in sent:
        while not np.allclose(on_grid[j], vertex, rtol=0, atol=1e-9):
            j += 1
        at.append(j)
    at = np.array(at)
    # An original whose rounded vertex was kept is measured to it; others to the span.
    start = np.searchsorted(at, np.arange(len(route)), side="right") - 1
    start = np.minimum(start, len(at) - 1)
    end = np.where(at[start] == np.arange(len(route)), start, np.minimum(start + 1, len(at) - 1))
    kx = np.cos(np.radians(route[:, 1])) * M_PER_DEG

    def frame(lonlat: np.ndarray) -> np.ndarray:
        dlon = (lonlat[:, 0] - route[:, 0] + 180.0) % 360.0 - 180.0
        return np.column_stack([dlon * kx, (lonlat[:, 1] - route[:, 1]) * M_PER_DEG])

    origin = shapely.points(np.zeros((len(route), 2)))

    def distance(i: np.ndarray, k: np.ndarray) -> np.ndarray:
        return shapely.distance(
            origin, shapely.linestrings(np.stack([frame(sent[i]), frame(sent[k])], 1))
        )

    spanning = distance(start, end)
    before = distance(np.maximum(start - 1, 0), start)
    after = distance(end, np.minimum(end + 1, len(at) - 1))
    return float(spanning.max()), float(np.minimum(spanning, np.minimum(before, after)).max())


def bits(values: Any) -> list[int]:
    """The float64 bit patterns of `values` (so -0.0 differs from 0.0)."""
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()
