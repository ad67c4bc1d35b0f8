"""Seeded, road-like synthetic routes: the offline upstream's roads, also used by tests
and benchmarks.

Routed lines alternate curvy, densely sampled stretches (towns, hills: a vertex
every 15 to 70 m) with straight, sparse ones (motorways: one every 100 to 300 m).
Simplification speed and error depend on that mix, so benchmarks on straight or
uniformly noisy lines would mislead. Recorded routes have a texture of their own
(see `tests/data/` and `benchmarks/fit_bench.py`), so tests use both.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

# The generator's scale, not a measure: metres per degree of latitude and of longitude on
# the WGS84 ellipsoid at the equator, rounded. Everything measures on fitting.geo's sphere;
# these stay because every seeded route (the offline upstream's, the benchmarks' synthetic
# cases, the figures of ADRs 0014, 0017, 0018) is drawn from them (ADR 0067).
_M_PER_DEG_LAT = 110_574.0
_M_PER_DEG_LON_EQ = 111_320.0


def road_like_legs(waypoints: Sequence[Sequence[float]], *, seed: int = 0) -> list[np.ndarray]:
    """One float64 `(n, 2)` `[lon, lat]` array per leg between consecutive waypoints.

    Each leg starts exactly at its first waypoint and ends exactly at its last,
    as TomTom's `legs[].points` do. Deterministic for the same waypoints and seed.
    """
    if len(waypoints) < 2:
        raise ValueError("a route needs at least two waypoints")
    rng = np.random.default_rng(seed)
    return [_leg(a, b, rng) for a, b in itertools.pairwise(waypoints)]


def road_like_route(waypoints: Sequence[Sequence[float]], *, seed: int = 0) -> np.ndarray:
    """All legs concatenated (shared waypoints kept once)."""
    legs = road_like_legs(waypoints, seed=seed)
    return np.concatenate([legs[0], *(leg[1:] for leg in legs[1:])])


def route_with_points(points: int, *, seed: int = 0, legs: int = 3) -> np.ndarray:
    """A route in Europe of `points` vertices, within 2% where four tries reach it.

    Long requests (1,000,000 points is about 60,000 km) zigzag inside Europe
    with one leg per ~3,000 km, so coordinates stay plausible.
    """
    # Mean spacing is about 60 m of path; the path is about 1.3x the straight line.
    # Correction passes bring the count close, as the stretch mix is random.
    straight_m = points * 56.0 / 1.3
    for _ in range(4):
        route = _route_spanning(straight_m, seed, legs)
        if abs(len(route) - points) <= 0.02 * points:
            break
        straight_m *= points / len(route)
    return route


def _route_spanning(straight_m: float, seed: int, legs: int) -> np.ndarray:
    legs = max(legs, round(straight_m / 2_400_000))
    rng = np.random.default_rng(seed + 1)
    waypoints = [np.array([-9.14, 38.72])]  # Lisbon
    heading = np.deg2rad(50.0)
    for _ in range(legs):
        step_m = straight_m / legs
        lon, lat = waypoints[-1]
        for _attempt in range(16):
            dlon = step_m * np.sin(heading) / (_M_PER_DEG_LON_EQ * np.cos(np.deg2rad(lat)))
            dlat = step_m * np.cos(heading) / _M_PER_DEG_LAT
            if -10.0 <= lon + dlon <= 40.0 and 36.0 <= lat + dlat <= 62.0:
                break
            heading = rng.uniform(0, 2 * np.pi)
        waypoints.append(np.array([lon + dlon, float(np.clip(lat + dlat, 36.0, 62.0))]))
        heading += rng.uniform(-0.5, 0.5)
    return road_like_route([tuple(w) for w in waypoints], seed=seed)


def _leg(a: Sequence[float], b: Sequence[float], rng: np.random.Generator) -> np.ndarray:
    lat0 = np.deg2rad((a[1] + b[1]) / 2.0)
    mx = _M_PER_DEG_LON_EQ * max(np.cos(lat0), 0.01)
    dlon = ((b[0] - a[0] + 180.0) % 360.0) - 180.0  # shortest way across the antimeridian
    vec = np.array([dlon * mx, (b[1] - a[1]) * _M_PER_DEG_LAT])
    dist = float(np.hypot(*vec))
    if dist < 1.0:
        return np.array([[a[0], a[1]], [b[0], b[1]]], dtype=np.float64)

    # Regime blocks along the way: curvy (dense) or straight (sparse).
    steps: list[np.ndarray] = []
    curvy_flags: list[np.ndarray] = []
    total = 0.0
    target = dist * 1.08
    while total < target:
        curvy = rng.random() < 0.55
        block_m = rng.exponential(4_000.0 if curvy else 9_000.0) + 200.0
        mean_step = rng.uniform(20.0, 60.0) if curvy else rng.uniform(110.0, 260.0)
        count = max(int(block_m / mean_step), 1)
        s = rng.gamma(4.0, mean_step / 4.0, size=count)
        steps.append(s)
        curvy_flags.append(np.full(count, curvy))
        total += float(s.sum())
    step = np.concatenate(steps)
    curvy_mask = np.concatenate(curvy_flags).astype(np.float64)
    along = np.concatenate([[0.0], np.cumsum(step)])
    t = along / along[-1]
    curvy_mask = np.concatenate([[curvy_mask[0]], curvy_mask])

    # Lateral offset: broad meanders over the whole leg plus short bends on curvy stretches.
    taper = np.sin(np.pi * t) ** 0.5
    offset = np.zeros_like(t)
    for k in range(1, 5):
        amp = dist * 0.035 / k * rng.uniform(0.5, 1.0)
        offset += amp * np.sin(2 * np.pi * k * t + rng.uniform(0, 2 * np.pi))
    offset *= taper
    for wavelength in (350.0, 900.0, 2_200.0):
        amp = wavelength * rng.uniform(0.05, 0.15)
        phase = rng.uniform(0, 2 * np.pi)
        bends = amp * np.sin(2 * np.pi * along / wavelength + phase)
        offset += bends * curvy_mask * np.minimum(1.0, 20 * taper)

    unit = vec / dist
    normal = np.array([-unit[1], unit[0]])
    xy = np.outer(t * dist, unit) + np.outer(offset, normal)
    out = np.empty_like(xy)
    out[:, 0] = a[0] + xy[:, 0] / mx
    out[:, 1] = a[1] + xy[:, 1] / _M_PER_DEG_LAT
    out[:, 0] = (out[:, 0] + 180.0) % 360.0 - 180.0
    out[0] = a
    out[-1] = b
    return out
