"""The map data's bounding box: every position of every geometry counts, elevation none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tomtom_mcp_apps.server.jobs._features import bbox_of, point_feature

lon = st.floats(-180, 180)
lat = st.floats(-90, 90)
position = st.tuples(lon, lat).map(list)
line = st.lists(position, min_size=2, max_size=6)


def shaped(kind: str) -> Callable[[Any], dict[str, Any]]:
    return lambda coordinates: {"type": kind, "coordinates": list(coordinates)}


geometry = st.one_of(
    position.map(shaped("Point")),
    st.tuples(lon, lat, st.floats(-100, 9000)).map(shaped("Point")),  # with an elevation
    line.map(shaped("LineString")),
    st.lists(line, min_size=1, max_size=3).map(shaped("MultiLineString")),
    st.lists(line, min_size=1, max_size=2).map(shaped("Polygon")),
    st.lists(st.lists(line, min_size=1, max_size=2), min_size=1, max_size=2).map(
        shaped("MultiPolygon")
    ),
)


def positions(value: object) -> list[list[float]]:
    if isinstance(value, list) and value and isinstance(value[0], float | int):
        return [value[:2]]
    return [p for item in value for p in positions(item)] if isinstance(value, list) else []


@given(st.lists(geometry, min_size=1, max_size=8))
def test_the_box_spans_every_position_of_every_geometry(geometries: list[dict]) -> None:
    features = [{"type": "Feature", "geometry": g, "properties": {}} for g in geometries]
    every = np.array([p for g in geometries for p in positions(g["coordinates"])])
    expected = [*every.min(axis=0), *every.max(axis=0)]
    assert bbox_of(features) == [round(float(v), 6) for v in expected]


def test_no_positions_no_box() -> None:
    assert bbox_of([]) is None
    assert bbox_of([point_feature([4.9, 52.37], {})]) == [4.9, 52.37, 4.9, 52.37]
