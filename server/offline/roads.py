"""Seeded, road-like synthetic routes: the offline upstream's roads.

Curvy, dense stretches (a vertex every 15 to 70 m) alternate with straight, sparse ones
(100 to 300 m), as routed lines do: simplification speed and error depend on that mix.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tomtom_mcp_apps.fitting.geo import M_PER_DEG_LAT_EQUATOR, M_PER_DEG_LON_EQUATOR


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


def _leg(a: Sequence[float], b: Sequence[float], rng: np.random.Generator) -> np.ndarray:
    lat0 = np.deg2rad((a[1] + b[1]) / 2.0)
    mx = M_PER_DEG_LON_EQUATOR * max(np.cos(lat0), 0.01)
    dlon = ((b[0] - a[0] + 180.0) % 360.0) - 180.0  # shortest way across the antimeridian
    vec = np.array([dlon * mx, (b[1] - a[1]) * M_PER_DEG_LAT_EQUATOR])
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
    out[:, 1] = a[1] + xy[:, 1] / M_PER_DEG_LAT_EQUATOR
    out[:, 0] = (out[:, 0] + 180.0) % 360.0 - 180.0
    out[0] = a
    out[-1] = b
    return out
