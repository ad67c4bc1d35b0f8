"""Exact decimal varints (envelope v3): a caller's coordinates travel as integers at the
precision the caller wrote and read back bit for bit as a JSON parser reads their text."""

from __future__ import annotations

import numpy as np
import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting import _decimals
from tomtom_mcp_apps.fitting._geojson_scan import SIMPLE

from .support import bits

digits = st.text("0123456789", min_size=1, max_size=15)


def decimal_text(whole_max: int) -> st.SearchStrategy[str]:
    """A number as callers write them: 4.9, -0.00012, 52.3791891, 12, 1.5e-3, 3E2..."""
    plain = st.builds(
        lambda sign, whole, fraction: f"{sign}{whole}{fraction}",
        st.sampled_from(["", "-"]),
        st.integers(0, whole_max).map(str),
        st.one_of(st.just(""), digits.map(lambda d: "." + d)),
    )
    exponent = st.builds(
        lambda sign, m, e: f"{sign}{m}e{e}",
        st.sampled_from(["", "-"]),
        st.integers(1, 999_999),
        st.integers(-22, 1),
    )
    return st.one_of(plain, exponent)


positions = st.lists(
    st.tuples(decimal_text(180), decimal_text(90)).map(list), min_size=1, max_size=40
)


def line(texts: list[list[str]]) -> bytes:
    return (
        b'{"type":"LineString","coordinates":[%s]}'
        % ",".join("[" + ",".join(p) + "]" for p in texts).encode()
    )


def sent(raw: bytes, depth: int) -> tuple[np.ndarray, int, int]:
    found = fitting.scan_geojson(raw)
    assert not found.failed
    section, decimals, dims = fitting.decimal_section(
        found, np.array([0], dtype=np.int64), np.array([depth], dtype=np.int64)
    )
    return section, int(decimals[0]), int(dims[0])


@settings(max_examples=500, deadline=None)
@given(positions)
@example([["1e-7", "0"], ["-0.0", "1"]])
@example([["4.123456789012", "52.379189123456"], ["4.1", "52"]])
@example([["179.9999999999999", "89.9999999999999"]])
@example([["12E2", "1.5e-3"], ["-0", "0.000000000000000000001"]])
def test_coordinates_read_back_bit_for_bit_as_their_json_text_reads(texts: list) -> None:
    raw = line(texts)
    section, decimals, dims = sent(raw, 1)
    expected = np.array(orjson.loads(raw)["coordinates"], dtype=np.float64)
    if decimals == fitting.NOT_SENT:  # the JSON text stays: only for what cannot be exact
        assert not exact_as_decimals(fitting.scan_geojson(raw))
        return
    read = _decimals.Reader(section).geometry(1, decimals, dims)
    assert bits(np.array(read).ravel()) == bits(expected.ravel())
    assert decimals == max(-int(fitting.scan_geojson(raw).exponent.min()), 0)


short = st.text("0123456789", min_size=1, max_size=12)
coordinates_as_written = st.lists(
    st.tuples(
        *(
            st.builds(
                lambda sign, whole, fraction: f"{sign}{whole}{fraction}",
                st.sampled_from(["", "-"]),
                st.integers(1, bound).map(str),
                st.one_of(st.just(""), short.map(lambda d: "." + d)),
            )
            for bound in (180, 90)
        )
    ).map(list),
    min_size=1,
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(coordinates_as_written)
def test_coordinates_of_up_to_twelve_decimals_are_always_sent_exactly(texts: list) -> None:
    raw = line(texts)
    section, decimals, dims = sent(raw, 1)
    assert decimals != fitting.NOT_SENT
    read = _decimals.Reader(section).geometry(1, decimals, dims)
    expected = np.array(orjson.loads(raw)["coordinates"], dtype=np.float64)
    assert bits(np.array(read).ravel()) == bits(expected.ravel())


def exact_as_decimals(found: fitting.GeoJsonScan) -> bool:
    """Whether every number is m x 10^e with |m x 10^(d + e)| < 2^51 at d = max(-e)."""
    if (found.kind != SIMPLE).any():
        return False
    d = max(-int(found.exponent.min()), 0)
    pairs = zip(found.mantissa.tolist(), found.exponent.tolist(), strict=True)
    units = [abs(m) * 10 ** (d + e) for m, e in pairs]
    return d <= 22 and max(units) < 2**51


def test_every_geometry_type_nests_its_positions_as_sent() -> None:
    geometries = {
        "Point": [4.9, 52.37],
        "MultiPoint": [[4.9, 52.37, 2.5], [5.1, 52.09, -1]],
        "LineString": [[4.9, 52.37], [5.12345, 52.09]],
        "MultiLineString": [[[0, 0], [1, 1]], [[2, 2], [3, 3], [4, 4]]],
        "Polygon": [
            [[0, 0], [1, 0], [0, 1], [0, 0]],
            [[0.1, 0.1], [0.2, 0.1], [0.1, 0.2], [0.1, 0.1]],
        ],
        "MultiPolygon": [[[[0, 0], [1, 0], [0, 1], [0, 0]]], [[[5, 5], [6, 5], [5, 6], [5, 5]]]],
    }
    for kind, coordinates in geometries.items():
        raw = orjson.dumps({"type": kind, "coordinates": coordinates})
        depth = fitting.GEOJSON_SHAPES[kind][0]
        section, decimals, dims = sent(raw, depth)
        reader = _decimals.Reader(section)
        assert reader.geometry(depth, decimals, dims) == coordinates, kind
        assert reader.done


@pytest.mark.parametrize(
    ("coordinates", "why"),
    [
        ("[[0,-0.0],[1,1]]", "a negative zero is not n / 10^d"),
        ("[[4.89765432109876543,52],[1,1]]", "more digits than a double holds exactly"),
        ("[[0,0],[1,1,1]]", "positions of two sizes"),
        ("[]", "no positions"),
        ("[[1e-30,0],[1,1]]", "a power of ten past 10^22"),
        ("[[170.12345678901234,0],[1,1]]", "units past 2^51"),
    ],
)
def test_a_geometry_that_cannot_be_exact_keeps_its_json_text(coordinates: str, why: str) -> None:
    raw = b'{"type":"LineString","coordinates":' + coordinates.encode() + b"}"
    section, decimals, _ = sent(raw, 1)
    assert decimals == fitting.NOT_SENT, why
    assert len(section) == 0


def test_geometries_follow_one_another_in_the_section() -> None:
    raw = orjson.dumps(
        {
            "type": "GeometryCollection",
            "geometries": [
                {"type": "LineString", "coordinates": [[1.5, 2.25], [3, 4]]},
                {"type": "LineString", "coordinates": [[0, -0.0], [1, 1]]},
                {"type": "Point", "coordinates": [-180, 90]},
            ],
        }
    )
    found = fitting.scan_geojson(raw)
    section, decimals, dims = fitting.decimal_section(
        found, np.arange(3, dtype=np.int64), np.array([1, 1, 0], dtype=np.int64)
    )
    assert decimals.tolist() == [2, fitting.NOT_SENT, 0] and dims.tolist() == [2, 2, 2]
    reader = _decimals.Reader(section)
    assert reader.geometry(1, 2, 2) == [[1.5, 2.25], [3.0, 4.0]]
    assert reader.geometry(0, 0, 2) == [-180.0, 90.0]
    assert reader.done


def test_a_cut_off_or_over_long_section_is_refused() -> None:
    with pytest.raises(ValueError, match="cut off"):
        _decimals.Reader(np.array([0x80], dtype=np.uint8))
    with pytest.raises(ValueError, match="longer than 8 bytes"):
        _decimals.Reader(np.array([0xFF] * 9 + [1], dtype=np.uint8))
    with pytest.raises(ValueError, match="ends inside a geometry"):
        _decimals.Reader(np.array([3, 0, 0], dtype=np.uint8)).geometry(1, 0, 2)
