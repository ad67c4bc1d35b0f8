"""Bad input is refused with one message that names what is wrong and where."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tomtom_mcp_apps import fitting

from .support import envelope, line_feature

LINE = [[4.9, 52.37], [4.91, 52.38], [4.92, 52.37]]


def polygon(*rings: list) -> dict:
    return {
        "type": "Feature",
        "properties": {},
        "geometry": {"type": "Polygon", "coordinates": list(rings)},
    }


@pytest.mark.parametrize(
    ("coords", "message"),
    [
        (
            [[4.9, 52.37], [math.nan, 52.0], [4.92, 52.37]],
            r"features\[1\]\.geometry\.coordinates\[1\] = \[nan, 52\.0\]: longitude",
        ),
        (
            [[4.9, 52.37], [4.9, -91.0]],
            r"coordinates\[1\] = \[4\.9, -91\.0\]: latitude must be a number in \[-90, 90\]",
        ),
        ([[200.0, 52.37], [4.9, 52.0]], r"coordinates\[0\] = \[200\.0, 52\.37\]: longitude"),
        ([[4.9, 52.37], [math.inf, math.inf]], r"longitude and latitude must be numbers"),
        ([], r"features\[1\]\.geometry\.coordinates is empty"),
        ([[4.9, 52.37]], r"coordinates has 1 position\(s\); a line needs at least 2"),
        ([[4.9, 52.37], [4.9]], r"coordinates is not a list of \[lon, lat\] positions"),
        ("not coordinates", r"coordinates is not a list of \[lon, lat\] positions"),
    ],
)
def test_bad_line_coordinates_are_named_with_their_feature_and_position(
    coords: list, message: str
) -> None:
    point = {
        "type": "Feature",
        "properties": {},
        "geometry": {"type": "Point", "coordinates": [0, 0]},
    }
    with pytest.raises(fitting.InvalidGeometry, match=message):
        fitting.fit(envelope(point, line_feature(coords)), 10_000)


def test_a_numpy_line_with_nan_is_refused_like_a_list() -> None:
    coords = np.array(LINE)
    coords[2, 1] = np.nan
    with pytest.raises(fitting.InvalidGeometry, match=r"coordinates\[2\] = \[4\.92, nan\]"):
        fitting.fit(envelope(line_feature(coords)), 10_000)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"sections": [{"startPointIndex": 0, "endPointIndex": 3}]},
            r"features\[0\]\.properties\.sections\[0\]\.endPointIndex = 3 is out of range: "
            r"the feature has 3 vertices \(valid: 0 to 2\)",
        ),
        (
            {"progress": [{"pointIndex": 1}, {"pointIndex": -1}]},
            r"properties\.progress\[1\]\.pointIndex = -1 is out of range",
        ),
        (
            {"guidance": {"instructions": [{"pointIndex": "2"}]}},
            r"properties\.guidance\.instructions\[0\]\.pointIndex = '2' is not an integer",
        ),
        ({"legs": [{"startPointIndex": True}]}, r"legs\[0\]\.startPointIndex = True is not"),
        ({"legs": {"startPointIndex": 0}}, r"properties\.legs must be a list"),
        ({"legs": [3]}, r"properties\.legs\[0\] must be an object"),
    ],
)
def test_bad_indices_are_named_with_their_property_path(props: dict, message: str) -> None:
    with pytest.raises(fitting.InvalidGeometry, match=message):
        fitting.fit(envelope(line_feature(LINE, **props)), 10_000)


def test_an_open_ring_is_refused() -> None:
    ring = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    with pytest.raises(fitting.InvalidGeometry, match=r"coordinates\[0\] is not closed"):
        fitting.fit(envelope(polygon(ring)), 10_000)


def test_a_ring_with_three_positions_is_refused() -> None:
    with pytest.raises(fitting.InvalidGeometry, match=r"coordinates\[1\] has 3 position\(s\); a"):
        square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
        fitting.fit(envelope(polygon(square, [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])), 10_000)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], r"data must be a GeoJSON FeatureCollection"),
        ({"type": "FeatureCollection"}, r"with a 'features' list"),
        ({"features": [3]}, r"features\[0\] is not a GeoJSON Feature object"),
        ({"features": [{"geometry": [1, 2]}]}, r"features\[0\]\.geometry is not a GeoJSON"),
        (
            {"features": [{"geometry": {"type": "GeometryCollection", "geometries": []}}]},
            r"features\[0\]\.geometry has type 'GeometryCollection'; expected Point",
        ),
        (
            {"features": [{"geometry": {"type": "Point", "coordinates": [0, 95]}}]},
            r"features\[0\]\.geometry\.coordinates = \[0\.0, 95\.0\]: longitude must",
        ),
    ],
)
def test_data_that_is_not_a_feature_collection_is_refused(data: object, message: str) -> None:
    env = {"v": 1, "tool": "tomtom-routing", "data": data, "fitted": None}
    with pytest.raises(fitting.InvalidGeometry, match=message):
        fitting.fit(env, 10_000)


@pytest.mark.parametrize("budget", [0, -5, 1.5, True])
def test_a_budget_that_is_not_a_positive_integer_is_refused(budget: object) -> None:
    with pytest.raises(ValueError, match="budget must be a positive number of characters"):
        fitting.fit(envelope(line_feature(LINE)), budget)  # type: ignore[arg-type]


def test_an_envelope_without_data_is_refused() -> None:
    with pytest.raises(fitting.FittingError, match="'data' key"):
        fitting.fit({"v": 1, "tool": "x"}, 10_000)


def test_text_that_is_not_app_data_is_refused_by_decode() -> None:
    with pytest.raises(fitting.FittingError, match="not app data"):
        fitting.decode("not base64!")
