"""The Earth as this project measures it: one sphere for distances, Web Mercator for maps.

`EARTH_RADIUS_M` (the mean radius) serves distances, areas and metres per degree;
`WEB_MERCATOR_RADIUS_M` is only the sphere Web Mercator projects, named apart so that
neither is taken for the other. Everything takes degrees, longitude first, as GeoJSON
does; the functions broadcast over numpy arrays unless they say otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

EARTH_RADIUS_M = 6_371_008.8
"""Mean Earth radius in metres (IUGG R1, the mean of the WGS84 ellipsoid's three semi-axes)."""

M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0
"""Metres per degree of latitude, and of longitude on the equator, on the mean sphere."""

WEB_MERCATOR_RADIUS_M = 6_378_137.0
"""WGS84 semi-major axis in metres: the sphere of Web Mercator (EPSG:3857), not the Earth's
mean. Half the projected world is `pi * WEB_MERCATOR_RADIUS_M` (20,037,508.34 m) wide."""

M_PER_DEG_LON_EQUATOR = 111_320.0
"""Metres per degree of longitude on the WGS84 ellipsoid's equator, rounded as TomTom and
most references write it. Not for distances (they use `M_PER_DEG`): the scale of bounding
box areas checked as TomTom checks them, and of the synthetic roads."""

M_PER_DEG_LAT_EQUATOR = 110_574.0
"""Metres per degree of latitude at the WGS84 ellipsoid's equator, rounded: the synthetic
roads' and the offline traffic areas' scale beside `M_PER_DEG_LON_EQUATOR`."""

MERCATOR_MAX_LAT = 85.05112878
"""Web Mercator's latitude bound (degrees): where the projected world is as tall as it is
wide. Latitudes beyond it are drawn on it."""


def haversine_m(lon1: ArrayLike, lat1: ArrayLike, lon2: ArrayLike, lat2: ArrayLike) -> Any:
    """Great-circle distance in metres between two positions (the haversine formula: accurate
    for the few metres between route vertices, where the cosine rule is not; within about
    0.1 m near the antipode, where the arcsine amplifies the last bit)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp = p2 - p1
    dl = np.radians(np.asarray(lon2) - np.asarray(lon1))
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.minimum(a, 1.0)))


def destination(lon: float, lat: float, distance_m: float, bearing: ArrayLike) -> tuple[Any, Any]:
    """The positions `distance_m` metres along great circles from (`lon`, `lat`) at each
    `bearing` (radians clockwise from north); longitudes in [-180, 180)."""
    lon0, lat0 = math.radians(lon), math.radians(lat)
    d = distance_m / EARTH_RADIUS_M
    lat2 = np.arcsin(np.sin(lat0) * np.cos(d) + np.cos(lat0) * np.sin(d) * np.cos(bearing))
    lon2 = lon0 + np.arctan2(
        np.sin(bearing) * np.sin(d) * np.cos(lat0), np.cos(d) - np.sin(lat0) * np.sin(lat2)
    )
    return (np.degrees(lon2) + 540) % 360 - 180, np.degrees(lat2)


def mercator(lon: float, lat: float) -> tuple[float, float]:
    """Web Mercator of one position, in world widths (x from the antimeridian eastwards,
    y from the top of the world southwards)."""
    lat = max(-MERCATOR_MAX_LAT, min(MERCATOR_MAX_LAT, lat))
    y = 0.5 - math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / (2 * math.pi)
    return lon / 360 + 0.5, y


def mercator_array(lonlat: np.ndarray) -> np.ndarray:
    """`mercator` of every `(lon, lat)` row of a float64 `(n, 2)` array at once."""
    lat = np.radians(np.clip(lonlat[:, 1], -MERCATOR_MAX_LAT, MERCATOR_MAX_LAT))
    out = np.empty_like(lonlat)
    out[:, 0] = lonlat[:, 0] / 360 + 0.5
    out[:, 1] = 0.5 - np.log(np.tan(np.pi / 4 + lat / 2)) / (2 * np.pi)
    return out


def mercator_inverse(x: float, y: float) -> tuple[float, float]:
    """The `(lon, lat)` that `mercator` projects to `(x, y)`; an `x` outside 0 to 1 gives a
    longitude past the antimeridian, as a frame that crosses it needs."""
    return (x - 0.5) * 360, math.degrees(math.atan(math.sinh((0.5 - y) * 2 * math.pi)))
