"""The fast calculateRoute parser gives exactly what plain JSON parsing gives."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from server.bodies import parse_route_body


def body(points_per_leg: list[list[dict]]) -> bytes:
    return orjson.dumps(
        {
            "formatVersion": "0.0.12",
            "routes": [
                {
                    "summary": {"lengthInMeters": 10},
                    "legs": [{"summary": {}, "points": pts} for pts in points_per_leg],
                    "sections": [{"startPointIndex": 0, "endPointIndex": 1}],
                }
            ],
        }
    )


def as_array(points: list[dict]) -> np.ndarray:
    return np.array([[p["longitude"], p["latitude"]] for p in points], dtype=np.float64).reshape(
        -1, 2
    )


def test_leg_points_become_lon_lat_arrays_with_every_other_field_intact() -> None:
    legs = [
        [{"latitude": 52.37, "longitude": 4.9}, {"latitude": -33.5, "longitude": -70.25}],
        [{"latitude": 0.0, "longitude": 179.99999}],
        [],
    ]
    raw = body(legs)
    parsed = parse_route_body(raw)
    plain = orjson.loads(raw)
    for leg, expected in zip(parsed["routes"][0]["legs"], legs, strict=True):
        assert isinstance(leg["points"], np.ndarray)
        np.testing.assert_array_equal(leg["points"], as_array(expected))
        leg["points"] = expected
    assert parsed == plain


@pytest.mark.parametrize(
    "points",
    [
        [{"longitude": 4.9, "latitude": 52.37}],  # other key order
        [{"latitude": 52.37, "longitude": 4.9, "height": 3}],  # another key
        [{"latitude": None, "longitude": 4.9}],
    ],
)
def test_any_other_point_shape_is_parsed_the_plain_way(points: list[dict]) -> None:
    raw = body([points])
    assert parse_route_body(raw) == orjson.loads(raw)


def test_exponent_notation_is_parsed_the_plain_way() -> None:
    raw = b'{"routes":[{"legs":[{"points":[{"latitude":1e-05,"longitude":4.9}]}]}]}'
    assert parse_route_body(raw) == orjson.loads(raw)


def test_a_body_without_points_is_parsed_the_plain_way() -> None:
    raw = b'{"error": {"description": "no route"}, "points": "nope"}'
    assert parse_route_body(raw) == orjson.loads(raw)


def test_a_coordinate_sent_as_text_is_parsed_the_ordinary_way_and_stays_text() -> None:
    raw = body([[{"latitude": "52.37", "longitude": 4.9}, {"latitude": 52.0, "longitude": 5.0}]])
    parsed = parse_route_body(raw)
    assert parsed == orjson.loads(raw)
    assert parsed["routes"][0]["legs"][0]["points"][0]["latitude"] == "52.37"
