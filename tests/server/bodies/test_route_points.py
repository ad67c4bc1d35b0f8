"""The fast calculateRoute parser gives exactly what plain JSON parsing gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.fixtures.tomtom import documented
from tomtom_mcp_apps.server.bodies import parse_route_body


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


def test_tomtoms_documented_answer_takes_the_fast_path() -> None:
    answer = documented("calculate_route")
    raw = orjson.dumps(answer)
    parsed = parse_route_body(raw)
    for leg, expected in zip(parsed["routes"][0]["legs"], answer["routes"][0]["legs"], strict=True):
        assert isinstance(leg["points"], np.ndarray)
        assert len(leg["points"]) == len(expected["points"]) > 0
        np.testing.assert_array_equal(leg["points"], as_array(expected["points"]))


def same_floats(parsed: Any, plain: Any) -> bool:
    """`parsed` (leg points as arrays, or as objects where the fast path declined) holds
    the very float64s of `plain` (the ordinary parse), bit for bit (-0.0 apart from 0.0)."""
    for leg, expected in zip(parsed["routes"][0]["legs"], plain["routes"][0]["legs"], strict=True):
        points = leg["points"]
        if not isinstance(points, np.ndarray):
            return points == expected["points"]
        floats = as_array(expected["points"])
        if points.shape != floats.shape or (points.view(np.int64) != floats.view(np.int64)).any():
            return False
    return True


NUMBER_TEXT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),  # shortest round trip
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17g}"),
    st.floats(-180, 180).map(lambda x: f"{x:.5f}"),  # TomTom's own form
    st.integers(-(2**64), 2**64).map(str),
    st.from_regex(r"-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.tuples(NUMBER_TEXT, NUMBER_TEXT), max_size=6), min_size=1, max_size=3))
@example([[("-0.0", "0"), ("-0", "1e-05"), ("12345678901234567", "9007199254740993")]])
@example([[("1.7976931348623157e308", "2.2250738585072014e-308"), ("4.9e-324", "1e23")]])
@example([[("410.458098536264801", "7933407820.7170746")]])  # digits / 10^k, rounded twice
def test_leg_points_read_numbers_exactly_as_json_does(legs: list[list[tuple[str, str]]]) -> None:
    points = [",".join(f'{{"latitude":{a},"longitude":{b}}}' for a, b in leg) for leg in legs]
    text = ",".join(f'{{"points":[{leg}]}}' for leg in points)
    raw = f'{{"routes":[{{"legs":[{text}]}}]}}'.encode()
    try:
        plain = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return  # the ordinary parse refuses it, and so does the route reader
    assert same_floats(parse_route_body(raw), plain)


def test_a_body_without_points_is_parsed_the_plain_way() -> None:
    raw = b'{"error": {"description": "no route"}, "points": "nope"}'
    assert parse_route_body(raw) == orjson.loads(raw)


def test_a_coordinate_sent_as_text_is_parsed_the_ordinary_way_and_stays_text() -> None:
    raw = body([[{"latitude": "52.37", "longitude": 4.9}, {"latitude": 52.0, "longitude": 5.0}]])
    parsed = parse_route_body(raw)
    assert parsed == orjson.loads(raw)
    assert parsed["routes"][0]["legs"][0]["points"][0]["latitude"] == "52.37"
