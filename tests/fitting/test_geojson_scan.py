"""The GeoJSON scan: coordinates found and their numbers read exactly as orjson reads them,
features found and the scan stopped after the one asked for, the grammar it refuses."""

from __future__ import annotations

import numpy as np
import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting._geojson_scan import FAILED, HARD, NEGATIVE_ZERO, SIMPLE

from .support import bits


def numbers_of(text: bytes) -> tuple[fitting.GeoJsonScan, np.ndarray]:
    raw = b'{"coordinates":[' + text + b"]}"
    found = fitting.scan_geojson(raw)
    return found, fitting.scanned_values(found, raw)


digits = st.text("0123456789", min_size=1, max_size=25)
json_numbers = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{fraction}{exponent}",
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.builds(lambda a, b: a + b, st.sampled_from("123456789"), digits)),
    st.one_of(st.just(""), digits.map(lambda d: "." + d)),
    st.one_of(
        st.just(""),
        st.builds(
            lambda e, s, d: f"{e}{s}{d}",
            st.sampled_from("eE"),
            st.sampled_from(["", "+", "-"]),
            st.text("0123456789", min_size=1, max_size=3),
        ),
    ),
)


@settings(max_examples=2_000, deadline=None)
@given(json_numbers)
@example("1e-7")
@example("-0.0")
@example("-0")
@example("0.000000000001")
@example("4.123456789012")
@example("12.345678901234567")
@example("1E+2")
@example("-1.5e-300")
@example("2.2250738585072014e-308")
@example("4.9e-324")
@example("1.7976931348623157e308")
@example("9007199254740993")
@example("0.1")
@example("52.379189123456789")
@example("1e400")
@example("0e999")
def test_every_number_is_read_as_orjson_reads_it_or_the_scan_declines(text: str) -> None:
    found, values = numbers_of(text.encode())
    try:
        expected = orjson.loads(text)
    except orjson.JSONDecodeError:
        assert found.failed, f"orjson refuses {text!r}, the scan took it"
        return
    if found.failed:  # declined: the ordinary reader reads such a document
        return
    assert bits(values) == bits([float(expected)])
    assert found.kind[0] in (SIMPLE, NEGATIVE_ZERO, HARD)
    if found.kind[0] == SIMPLE:  # exactly m x 10^e, so the decimals are the text's
        m, e = int(found.mantissa[0]), int(found.exponent[0])
        assert abs(m) < 2**53 and -22 <= e <= 22
        assert bits([m * 10.0**e if e >= 0 else m / 10.0**-e]) == bits(values)


def test_numbers_keep_their_mantissa_and_power_of_ten() -> None:
    found, values = numbers_of(b"4.900000, -0.000123 , 12e3,7,-0.0,-0,52.3791891234567890123")
    assert found.mantissa[:6].tolist() == [4900000, -123, 12, 7, 0, 0]
    assert found.exponent[:6].tolist() == [-6, -6, 3, 0, 0, 0]
    assert found.kind.tolist() == [SIMPLE, SIMPLE, SIMPLE, SIMPLE, NEGATIVE_ZERO, SIMPLE, HARD]
    assert bits(values) == bits([4.9, -0.000123, 12000.0, 7.0, -0.0, 0.0, 52.379189123456789])


@settings(max_examples=300, deadline=None)
@given(st.lists(json_numbers, min_size=1, max_size=60))
def test_many_numbers_of_every_kind_are_read_in_their_order(texts: list[str]) -> None:
    # HARD ones are read together (`hard_values`), each must come back in its own place.
    try:
        expected = orjson.loads("[" + ",".join(texts) + "]")
    except orjson.JSONDecodeError:
        return
    found, values = numbers_of(",".join(texts).encode())
    if not found.failed:
        assert bits(values) == bits([float(x) for x in expected])


@pytest.mark.parametrize(
    "coordinates",
    [
        b"[1.]",
        b"[.5]",
        b"[01]",
        b"[+1]",
        b"[NaN]",
        b"[Infinity]",
        b"[1,]",
        b"[,1]",
        b"[1 2]",
        b"[[1,2][3,4]]",
        b'["4.9"]',
        b"[true]",
        b"[null]",
        b'[{"a":1}]',
        b"[1,2",
        b"[[[[[[[[[1]]]]]]]]]",
        b"[123456789012345678901]",
        b"[1e99999]",
    ],
)
def test_a_coordinates_array_outside_the_grammar_fails_the_scan(coordinates: bytes) -> None:
    found = fitting.scan_geojson(b'{"type":"Point","coordinates":' + coordinates + b"}")
    assert found.status == FAILED


def test_the_nesting_of_a_coordinates_array_is_recorded_node_by_node() -> None:
    raw = b'{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[0,1],[0,0]]],[]]}'
    found = fitting.scan_geojson(raw)
    assert found.segment_starts.tolist() == [raw.index(b"[[[")]
    assert found.segment_ends.tolist() == [len(raw) - 1]
    # outer list, polygon, ring, 4 positions, an empty polygon
    assert found.node_depth.tolist() == [0, 1, 2, 3, 3, 3, 3, 1]
    assert found.node_arrays.tolist() == [2, 1, 4, 0, 0, 0, 0, 0]
    assert found.node_numbers.tolist() == [0, 0, 0, 2, 2, 2, 2, 0]
    assert found.node_first.tolist() == [0, 0, 0, 0, 2, 4, 6, 8]


def features_text(count: int) -> bytes:
    features = [
        {
            "type": "Feature",
            "properties": {"name": f"[{i}]", "coordinates": "a string, not an array"},
            "geometry": {"type": "Point", "coordinates": [i, -i]},
        }
        for i in range(count)
    ]
    return orjson.dumps({"features": features, "type": "FeatureCollection"})


def test_every_feature_of_the_root_is_found_with_its_span() -> None:
    raw = features_text(5)
    found = fitting.scan_geojson(raw)
    assert found.status == 5 and found.has_features and found.end == len(raw)
    spans = zip(found.feature_starts.tolist(), found.feature_ends.tolist(), strict=True)
    parsed = [orjson.loads(raw[start:end]) for start, end in spans]
    assert parsed == orjson.loads(raw)["features"]
    assert raw[slice(*found.root_type)] == b'"FeatureCollection"'


def test_a_scan_stops_after_the_feature_asked_for_and_reads_nothing_past_it() -> None:
    raw = b'{"type":"FeatureCollection","features":' + features_text(50)[len('{"features":') :]
    stop = raw.index(b"[3,-3]")
    found = fitting.scan_geojson(raw[:stop] + b"garbage, never read", 3)
    assert found.status == 3 and not found.failed
    assert len(found.feature_starts) == 3 and len(found.segment_starts) == 3
    assert found.end < stop


def test_a_scan_asked_to_stop_goes_on_until_it_has_the_root_type() -> None:
    raw = features_text(10)  # "type" comes last
    found = fitting.scan_geojson(raw, 2)
    assert found.status == 10 and found.end == len(raw)
    assert raw[slice(*found.root_type)] == b'"FeatureCollection"'


def test_strings_holding_brackets_quotes_and_escapes_do_not_mislead_the_scan() -> None:
    tricky = {"a": 'x"]}[{\\', "coordinates": 'not "coordinates"', "b": "\\u005b"}
    raw = orjson.dumps(
        {
            "type": "FeatureCollection",
            "features": [{"type": "Feature", "properties": tricky, "geometry": None}] * 2,
        }
    )
    found = fitting.scan_geojson(raw)
    assert found.status == 2 and len(found.segment_starts) == 0


def test_a_string_holding_an_escaped_nul_fails_the_scan_an_escaped_backslash_does_not() -> None:
    assert fitting.scan_geojson(b'{"type":"x","name":"a\\u0000b"}').failed
    assert not fitting.scan_geojson(b'{"type":"x","name":"a\\\\u0000b"}').failed


def test_two_features_arrays_in_the_root_fail_the_scan() -> None:
    assert fitting.scan_geojson(b'{"features":[],"type":"FeatureCollection","features":[]}').failed


@pytest.mark.parametrize(
    ("kind", "coordinates", "ok"),
    [
        ("Point", [1, 2], True),
        ("Point", [1, 2, 3], True),
        ("Point", [1], False),
        ("Point", [[1, 2]], False),
        ("LineString", [[1, 2], [3, 4]], True),
        ("LineString", [[1, 2]], False),
        ("LineString", [[1, 2], [3, 4, 5]], False),
        ("MultiLineString", [[[1, 2], [3, 4]], [[1, 2, 3], [3, 4, 5]]], True),
        ("MultiPoint", [], True),
        ("Polygon", [], True),
        ("Polygon", [[[0, 0], [1, 0], [0, 1], [0, 0]]], True),
        ("Polygon", [[[0, 0], [1, 0], [0, 1], [0, 0.5]]], False),
        ("Polygon", [[[0, 0], [1, 0], [0, 0]]], False),
        ("MultiPolygon", [[]], True),
        ("LineString", [[181, 0], [0, 0]], False),
        ("LineString", [[0, -90.5], [0, 0]], False),
    ],
)
def test_shapes_are_checked_as_geojson_wants_them(kind: str, coordinates: list, ok: bool) -> None:
    raw = orjson.dumps({"type": kind, "coordinates": coordinates})
    found = fitting.scan_geojson(raw)
    checked, extent = fitting.check_shapes(
        found,
        fitting.scanned_values(found, raw),
        np.array([0]),
        np.array([fitting.GEOJSON_SHAPES[kind]]),
    )
    assert bool(checked[0]) is ok
    if ok and kind == "LineString":
        assert extent[0].tolist() == [1, 2, 3, 4]
